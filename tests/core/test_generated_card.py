"""Generated cards: the confirmation Notch builds from an MCP tool's inputSchema.

What a person or an integration author notices: every card generated for a bundled tool
or a real-world-shaped MCP tool passes `notch validate`; each property gets the input its
type calls for; the footer names the action; huge or hostile schemas still give a bounded
card whose text never turns into a binding; and the right tools ask. Qt-free.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from notch_app.card.also_sends import also_sends
from notch_app.card.state import CardState
from notch_app.manifest import limits
from notch_app.manifest.acting import must_ask, tool_kind
from notch_app.manifest.generated import (
    MAX_DESCRIPTION_CHARS,
    MAX_HELP_CHARS,
    MAX_INPUTS,
    MAX_LABEL_CHARS,
    generated_view,
    generated_view_with_notes,
    tool_document,
    with_generated_card,
    with_generated_cards,
)
from notch_app.manifest.model import (
    INPUT_TYPES,
    ActionsBlock,
    CardBlock,
    ConfirmationView,
    Manifest,
    Tool,
    walk_blocks,
)
from notch_app.manifest.paths import find_bindings, parse_single_binding
from notch_app.manifest.reading import Problem
from notch_app.manifest.validate import validate_path
from notch_app.manifest.view_rules import VAGUE_CONFIRM_LABELS

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted((ROOT / "manifests").glob("*/manifest.json"))
CORPUS_FILE = Path(__file__).with_name("corpus_mcp_tools.json")
TOOL_KEYS = ("name", "title", "description", "inputSchema", "annotations")


# --- the corpus ---------------------------------------------------------------------------


def _two_hundred_properties() -> dict[str, Any]:
    kinds: list[dict[str, Any]] = [
        {"type": "string"},
        {"type": "integer"},
        {"type": "boolean"},
        {"type": "string", "enum": ["a", "b"]},
        {"type": "array", "items": {"type": "string"}},
        {"type": "object"},
    ]
    return {
        "name": "update_profile_fields",
        "description": "Set any of two hundred profile fields.",
        "inputSchema": {
            "type": "object",
            "properties": {f"field_{i:03d}": dict(kinds[i % len(kinds)]) for i in range(200)},
            "required": [f"field_{i:03d}" for i in range(0, 200, 7)],
        },
    }


def _very_long_description() -> dict[str, Any]:
    sentence = "Deploys the service to every region, drains old instances and rolls back on error. "
    return {
        "name": "deploy_service",
        "description": sentence * 200,  # ~17,000 characters: within a manifest's 20,000
        "inputSchema": {
            "type": "object",
            "properties": {
                "service": {"type": "string", "description": sentence * 20},
                "version": {"type": "string", "title": "Version " * 40},
                "regions": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["service", "version"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": True},
    }


def _nested_settings(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"inner": node, "flag": {"type": "boolean"}}}
    return {
        "name": "update_settings",
        "description": f"Settings nested {levels} objects deep.",
        "inputSchema": {
            "type": "object",
            "properties": {"settings": node, "note": {"type": "string"}},
        },
    }


def _corpus() -> list[dict[str, Any]]:
    written: list[dict[str, Any]] = json.loads(CORPUS_FILE.read_text(encoding="utf-8"))
    return [*written, _two_hundred_properties(), _very_long_description(), _nested_settings(20)]


CORPUS = _corpus()
CORPUS_BY_NAME = {t["name"]: t for t in CORPUS}


def _bundled_tools() -> Iterator[tuple[Path, int, str]]:
    for path in BUNDLED:
        for index, tool in enumerate(json.loads(path.read_text(encoding="utf-8"))["tools"]):
            yield path, index, tool["name"]


BUNDLED_TOOLS = list(_bundled_tools())


# --- helpers ------------------------------------------------------------------------------


def _manifest_with_card(tool: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    entry = {k: copy.deepcopy(tool[k]) for k in TOOL_KEYS if k in tool}
    entry["confirmation"] = view
    return {
        "schemaVersion": 1,
        "id": "com.example.generated",
        "version": "1.0.0",
        "name": "Generated cards",
        "tools": [entry],
    }


def _validate(tmp_path: Path, manifest: dict[str, Any]) -> list[Problem]:
    folder = tmp_path / "integration"
    folder.mkdir(exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")
    return validate_path(folder)


def _errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.is_error]


def _report(problems: list[Problem]) -> str:
    return "\n" + "\n".join(p.format()[:400] for p in problems)


def _children(view: dict[str, Any]) -> list[dict[str, Any]]:
    children: list[dict[str, Any]] = view["root"]["children"]
    return children


def _block_for(view: dict[str, Any], name: str) -> dict[str, Any]:
    """The block that shows argument `name`: the input binding it, or its keyValue."""
    binding = "{{" + name + "}}"
    for block in _children(view):
        if block.get("bind") == binding:
            return block
        if block["type"] == "keyValue" and block["items"][0]["value"] == binding:
            return block
    raise AssertionError(f"no block shows {name!r}: {json.dumps(_children(view))[:2000]}")


def _tool_with_card(tool: dict[str, Any]) -> Tool:
    entry = {k: tool[k] for k in TOOL_KEYS if k in tool}
    return Tool.model_validate({**entry, "confirmation": generated_view(tool)})


def _strings(node: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """(key, text) for every string in a view document."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _strings(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v, key)
    elif isinstance(node, str):
        yield key, node


def _generated_bindings(view: dict[str, Any]) -> list[str]:
    """Bindings in the view other than the ones the generator itself writes (`bind`, a
    keyValue's value) and the enum values a select sends (data, never read as a binding)."""
    found: list[str] = []
    for block in _children(view):
        if block["type"] == "keyValue":
            block = {**block, "items": [{**i, "value": ""} for i in block["items"]]}
        if block["type"] == "select":
            block = {**block, "options": [{**o, "value": ""} for o in block["options"]]}
        for key, text in _strings(block):
            if key != "bind":
                found.extend(b.raw for b in find_bindings(text))
    root = {k: v for k, v in view["root"].items() if k != "children"}
    found.extend(b.raw for _, text in _strings(root) for b in find_bindings(text))
    return found


SHAPES: dict[str, Any] = {
    "name": "schedule_transfer",
    "description": "Send money to a saved payee on a date.",
    "inputSchema": {
        "type": "object",
        "$defs": {"Email": {"type": "string", "format": "email"}},
        "properties": {
            "memo": {"type": "string", "description": "Shown on the payee's statement."},
            "payee_name": {"type": "string", "title": "Payee"},
            "notify_email": {"type": "string", "format": "email"},
            "receipt_to": {"$ref": "#/$defs/Email"},
            "callback_url": {"type": "string", "format": "uri"},
            "send_at": {"type": "string", "format": "date-time"},
            "on_day": {"type": "string", "format": "date"},
            "host": {"type": "string", "format": "hostname"},
            "pin": {"type": "string", "format": "password"},
            "api_key": {"type": "string", "writeOnly": True},
            "nickname": {"type": "string"},
            "terms": {"type": "string", "maxLength": 5000},
            "currency": {"type": "string", "enum": ["EUR", "USD", "GBP"]},
            "speed": {"enum": ["slow", 2, True]},
            "priority": {"type": "integer", "enum": [1, 2, 3]},
            "confirm_twice": {"type": "boolean", "enum": [True, False]},
            "category": {"type": ["string", "null"], "enum": ["rent", "bills", None]},
            "recurring": {"type": "boolean"},
            "urgent": {"type": ["boolean", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "cc": {"type": "array", "items": {"$ref": "#/$defs/Email"}},
            "amount": {"type": "number", "minimum": 0.01},
            "installments": {"type": "integer", "minimum": 1},
            "payee": {
                "type": "object",
                "properties": {"iban": {"type": "string"}, "name": {"type": "string"}},
            },
            "splits": {
                "type": "array",
                "items": {"type": "object", "properties": {"share": {"type": "number"}}},
            },
            "amounts": {"type": "array", "items": {"type": "number"}},
            "reference": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "anything": {},
        },
        "required": ["memo", "amount", "currency", "recurring", "payee", "tags", "pin"],
    },
}


# --- 1. every generated card passes `notch validate` ----------------------------------------


def test_the_corpus_holds_the_tools_the_cards_must_survive() -> None:
    assert len(CORPUS) >= 25
    assert len(CORPUS_BY_NAME) == len(CORPUS), "tool names in the corpus are unique"
    for expected in (
        "write_file", "delete_path", "move_file", "git_commit", "git_push", "create_issue",
        "merge_pull_request", "slack_post_message", "create_event", "create_payment",
        "send_email", "create_order", "update_ticket", "restart_service", "archive_chat",
        "github.create-issue_comment", "update_org_tree", "update_profile_fields",
        "deploy_service",
    ):  # fmt: skip
        assert expected in CORPUS_BY_NAME
    assert "type" not in CORPUS_BY_NAME["archive_chat"]["inputSchema"]
    assert len(CORPUS_BY_NAME["update_profile_fields"]["inputSchema"]["properties"]) == 200
    assert len(CORPUS_BY_NAME["deploy_service"]["description"]) > 10_000


@pytest.mark.parametrize("tool", CORPUS, ids=[t["name"] for t in CORPUS])
def test_a_card_generated_for_a_real_world_tool_passes_notch_validate(
    tmp_path: Path, tool: dict[str, Any]
) -> None:
    view = generated_view(tool)
    problems = _validate(tmp_path, _manifest_with_card(tool, view))
    assert _errors(problems) == [], _report(problems)
    ConfirmationView.model_validate(view)  # the model the overlay draws from


@pytest.mark.parametrize(
    ("path", "index", "name"),
    BUNDLED_TOOLS,
    ids=[f"{p.parent.name}-{n}" for p, _, n in BUNDLED_TOOLS],
)
def test_a_card_generated_for_a_bundled_tool_passes_notch_validate(
    tmp_path: Path, path: Path, index: int, name: str
) -> None:
    folder = tmp_path / path.parent.name
    shutil.copytree(path.parent, folder)
    raw = json.loads(path.read_text(encoding="utf-8"))
    tool = Manifest.model_validate(raw).tools[index]
    raw["tools"][index]["confirmation"] = generated_view(tool_document(tool))
    (folder / "manifest.json").write_text(json.dumps(raw, ensure_ascii=False), "utf-8")
    problems = validate_path(folder)
    errors = _errors(problems)
    if tool_kind(tool) == "read":
        # A card on a read-only tool is refused for asking at all, not for its shape.
        errors = [p for p in errors if p.rule != "read-tool-has-confirmation"]
    assert errors == [], _report(problems)


def test_the_bundled_manifests_are_all_covered() -> None:
    assert {p.parent.name for p in BUNDLED} >= {"calendar", "files", "mail", "payments"}
    assert len(BUNDLED_TOOLS) >= 15


# --- 2. one input per property, by type --------------------------------------------------------


def test_the_card_opens_with_the_title_and_the_description_as_quiet_text() -> None:
    view = generated_view(SHAPES)
    assert view["schemaVersion"] == 1
    assert view["root"]["type"] == "card"
    assert view["root"]["title"] == "Schedule transfer"
    assert _children(view)[0] == {
        "type": "text",
        "text": "Send money to a saved payee on a date.",
        "variant": "muted",
    }


def test_a_string_is_a_text_field_labelled_by_its_title_or_its_name() -> None:
    view = generated_view(SHAPES)
    assert _block_for(view, "memo") == {
        "type": "textField",
        "bind": "{{memo}}",
        "label": "Memo",
        "help": "Shown on the payee's statement.",
        "required": True,
    }
    assert _block_for(view, "payee_name")["label"] == "Payee"
    assert _block_for(view, "nickname") == {
        "type": "textField",
        "bind": "{{nickname}}",
        "label": "Nickname",
    }


@pytest.mark.parametrize(
    ("name", "placeholder"),
    [
        ("notify_email", "name@example.com"),
        ("receipt_to", "name@example.com"),  # through a $ref
        ("callback_url", "https://…"),
        ("send_at", "2025-01-31T09:00:00Z"),
        ("on_day", "2025-01-31"),
        ("host", None),  # a format the card has no hint for: a plain field
    ],
)
def test_a_string_format_gives_a_placeholder_saying_what_is_expected(
    name: str, placeholder: str | None
) -> None:
    block = _block_for(generated_view(SHAPES), name)
    assert block["type"] == "textField"
    assert block.get("placeholder") == placeholder


def test_password_and_write_only_strings_are_masked_fields() -> None:
    view = generated_view(SHAPES)
    assert _block_for(view, "pin") == {
        "type": "passwordField",
        "bind": "{{pin}}",
        "label": "Pin",
        "required": True,
    }
    assert _block_for(view, "api_key")["type"] == "passwordField"


def test_long_text_and_body_like_names_are_multiline() -> None:
    view = generated_view(SHAPES)
    assert _block_for(view, "terms")["multiline"] is True  # maxLength over 200
    assert "multiline" not in _block_for(view, "nickname")
    email = generated_view(CORPUS_BY_NAME["send_email"])
    assert _block_for(email, "body")["multiline"] is True
    assert "multiline" not in _block_for(email, "subject")


def test_commands_and_code_are_fixed_width_fields() -> None:
    tool = {
        "name": "run_query",
        "inputSchema": {
            "type": "object",
            "properties": {
                "sql": {"type": "string"},
                "command": {"type": "string"},
                "message": {"type": "string"},
            },
        },
    }
    view = generated_view(tool)
    assert _block_for(view, "sql")["monospace"] is True
    assert _block_for(view, "command")["monospace"] is True
    assert "monospace" not in _block_for(view, "message")


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("currency", [("EUR", "EUR"), ("USD", "USD"), ("GBP", "GBP")]),
        ("speed", [("slow", "slow"), ("2", 2), ("Yes", True)]),
        ("priority", [("1", 1), ("2", 2), ("3", 3)]),
        ("confirm_twice", [("Yes", True), ("No", False)]),
        ("category", [("rent", "rent"), ("bills", "bills")]),  # null: leave it empty
    ],
)
def test_an_enum_is_a_select_offering_exactly_its_values(
    name: str, options: list[tuple[str, Any]]
) -> None:
    block = _block_for(generated_view(SHAPES), name)
    assert block["type"] == "select"
    got = [(o["label"], o["value"]) for o in block["options"]]
    assert got == options
    assert [type(v) for _, v in got] == [type(v) for _, v in options]  # 2 stays a number
    assert block.get("required", False) is (name == "currency")


def test_a_boolean_is_a_toggle_that_never_gates() -> None:
    view = generated_view(SHAPES)
    # `recurring` is required in the schema, but off is an answer: no `required` flag.
    assert _block_for(view, "recurring") == {
        "type": "toggle",
        "bind": "{{recurring}}",
        "label": "Recurring",
    }
    assert _block_for(view, "urgent")["type"] == "toggle"  # ["boolean", "null"]


def test_an_array_of_strings_is_chips() -> None:
    view = generated_view(SHAPES)
    assert _block_for(view, "tags") == {
        "type": "chips",
        "bind": "{{tags}}",
        "label": "Tags",
        "required": True,
    }
    assert _block_for(view, "cc")["type"] == "chips"  # items through a $ref
    assert _block_for(generated_view(CORPUS_BY_NAME["send_email"]), "to")["type"] == "chips"


def test_a_number_is_a_text_field_whose_text_is_parsed_back_to_a_number() -> None:
    view = generated_view(SHAPES)
    assert _block_for(view, "amount") == {
        "type": "textField",
        "bind": "{{amount}}",
        "label": "Amount",
        "placeholder": "a number",
        "required": True,
    }
    assert _block_for(view, "installments")["placeholder"] == "a whole number"
    payment = CORPUS_BY_NAME["create_payment"]
    state = CardState(
        _tool_with_card(payment), {"amount": 10, "currency": "usd", "customer_id": "cus_1"}
    )
    state.set("amount", "12.50")
    state.set("quantity", "3")
    final = state.final_arguments()
    assert final["amount"] == 12.5 and isinstance(final["amount"], float)
    assert final["quantity"] == 3 and isinstance(final["quantity"], int)
    state.set("quantity", "three")
    assert not state.confirm_enabled


@pytest.mark.parametrize("name", ["payee", "splits", "amounts", "reference", "anything"], ids=str)
def test_what_no_input_can_edit_is_shown_read_only(name: str) -> None:
    block = _block_for(generated_view(SHAPES), name)
    assert block["type"] == "keyValue"
    assert block["items"] == [{"label": name.capitalize(), "value": "{{" + name + "}}"}]


def test_an_object_argument_shows_its_contents_on_the_card() -> None:
    event = CORPUS_BY_NAME["create_event"]
    view = generated_view(event)
    assert _block_for(view, "start")["type"] == "keyValue"
    assert _block_for(view, "attendees")["type"] == "keyValue"
    args = {
        "summary": "Planning",
        "start": {"dateTime": "2025-03-01T10:00:00Z"},
        "end": {"dateTime": "2025-03-01T11:00:00Z"},
        "attendees": [{"email": "ada@example.com"}],
    }
    state = CardState(_tool_with_card(event), args)
    start = _block_for(view, "start")["items"][0]["value"]
    attendees = _block_for(view, "attendees")["items"][0]["value"]
    # The card's rendering of a value (not JSON text): every key and value is there.
    assert state.text(start) == "dateTime: 2025-03-01T10:00:00Z"
    assert state.text(attendees) == "{email: ada@example.com}"
    assert also_sends(state) == []  # nothing the call sends is off the card


def test_required_from_the_schema_marks_the_input_and_gates_confirm() -> None:
    view = generated_view(SHAPES)
    required = {
        parse_single_binding(b["bind"])
        for b in _children(view)
        if b["type"] in INPUT_TYPES and b.get("required")
    }
    assert required == {"memo", "amount", "currency", "tags", "pin"}  # recurring: a toggle
    tool = CORPUS_BY_NAME["transfer_funds"]
    card = _tool_with_card(tool)
    state = CardState(card, {"from_account": "main", "to_iban": "DE89370400440532013000"})
    assert not state.confirm_enabled
    assert state.blockers() == ["Amount is required", "Currency is required"]
    state.set("amount", "250")
    state.set("currency", "EUR")
    assert state.confirm_enabled


@pytest.mark.parametrize("tool", CORPUS, ids=[t["name"] for t in CORPUS])
def test_the_footer_holds_one_cancel_and_one_confirm_naming_the_action(
    tool: dict[str, Any],
) -> None:
    root = generated_view(tool)["root"]
    [actions] = root["footer"]
    assert actions["type"] == "actions"
    roles = [item["role"] for item in actions["items"]]
    assert sorted(roles) == ["cancel", "confirm"]
    [confirm] = [i for i in actions["items"] if i["role"] == "confirm"]
    assert confirm["label"].strip().lower() not in VAGUE_CONFIRM_LABELS
    assert confirm["label"] == root["title"]
    destructive = (tool.get("annotations") or {}).get("destructiveHint") is True
    assert confirm["color"] == ("danger" if destructive else "accent")
    for visit in walk_blocks(root):
        if visit.pointer.startswith("/footer"):
            continue
        assert visit.block.get("role") is None and visit.block["type"] not in ("button", "actions")


@pytest.mark.parametrize(
    ("tool", "label"),
    [
        ({"name": "cancel_agent"}, "Cancel agent"),
        ({"name": "cancelAgent"}, "Cancel agent"),
        ({"name": "cancel-agent", "annotations": {"title": "Cancel agent"}}, "Cancel agent"),
        ({"name": "cancel_agent", "title": "Stop the agent"}, "Stop the agent"),
        ({"name": "slack.postMessage"}, "Slack post message"),
        ({"name": "x", "title": "   "}, "X"),  # a blank title falls back to the name
        ({}, "Tool call"),
    ],
)
def test_the_confirm_label_names_the_action(tool: dict[str, Any], label: str) -> None:
    tool = {"inputSchema": {"type": "object"}, **tool}
    [actions] = generated_view(tool)["root"]["footer"]
    assert actions["items"] == [
        {"label": "Cancel", "role": "cancel"},
        {"label": label, "role": "confirm", "color": "accent"},
    ]


def test_an_authored_confirm_label_carries_over() -> None:
    tool = {"name": "delete_files", "inputSchema": {"type": "object"}}
    [actions] = generated_view(tool, confirm="Delete 3 files")["root"]["footer"]
    assert actions["items"][1]["label"] == "Delete 3 files"


# --- 3. bounds -----------------------------------------------------------------------------------


def _huge_tool() -> dict[str, Any]:
    mega = "lorem ipsum " * 90_000  # ~1 MB of text
    properties: dict[str, Any] = {
        f"p{i}": {"type": "string", "description": f"Field {i}."} for i in range(500)
    }
    properties["p0"] = {"type": "string", "title": mega, "description": mega}
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(20):  # as deep as a 64-level JSON file leaves room for
        deep = {"type": "object", "properties": {"next": deep}}
    properties["p1"] = deep
    return {
        "name": "bulk_update",
        "title": mega,
        "description": mega,
        "inputSchema": {"type": "object", "properties": properties},
        "annotations": {"title": mega},
    }


def _assert_within_limits(view: dict[str, Any]) -> None:
    ConfirmationView.model_validate(view)
    blocks = list(walk_blocks(view["root"]))
    assert len(blocks) <= limits.MAX_BLOCKS_PER_VIEW
    assert max(v.depth for v in blocks) <= limits.MAX_VIEW_DEPTH
    for key, text in _strings(view):
        assert len(text) <= limits.MAX_TEXT_CHARS, key
        if key in ("label", "title", "help", "placeholder"):
            assert len(text) <= limits.MAX_LABEL_CHARS, key


def test_a_huge_schema_yields_a_bounded_card_notch_validate_accepts(tmp_path: Path) -> None:
    tool = _huge_tool()
    view, notes = generated_view_with_notes(tool)
    _assert_within_limits(view)
    children = _children(view)
    inputs = [b for b in children if b["type"] != "text"]
    assert len(inputs) == MAX_INPUTS
    assert len(view["root"]["title"]) <= MAX_LABEL_CHARS
    description = children[0]["text"]
    assert len(description) <= MAX_DESCRIPTION_CHARS and description.endswith("…")
    first = _block_for(view, "p0")
    assert len(first["label"]) <= MAX_LABEL_CHARS and first["label"].endswith("…")
    assert len(first["help"]) <= MAX_HELP_CHARS and first["help"].endswith("…")
    assert _block_for(view, "p1")["type"] == "keyValue"
    assert any("500 properties" in n and "Also sends" in n for n in notes)
    assert len(json.dumps(view)) < 60_000
    # In a manifest the tool's own description is held to 20,000 characters (the card is
    # what must stay bounded, and a bare server's tool reaches generated_view unchecked).
    in_manifest = {**tool, "description": tool["description"][:20_000], "title": "Bulk update"}
    in_manifest["annotations"] = {"title": "Bulk update"}
    problems = _validate(tmp_path, _manifest_with_card(in_manifest, view))
    assert _errors(problems) == [], _report(problems)


def test_values_past_the_input_limit_are_listed_under_also_sends() -> None:
    tool = _huge_tool()
    card = _tool_with_card({**tool, "title": "Bulk update", "description": "", "annotations": {}})
    state = CardState(card, {"p2": "shown", "p499": "not an input"})
    assert [(a.path, a.text) for a in also_sends(state)] == [("p499", "not an input")]


def test_nesting_and_circular_refs_never_crash_and_stay_read_only() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(5_000):
        deep = {"type": "object", "properties": {"next": deep}}
    tool = {
        "name": "update_graph",
        "inputSchema": {
            "type": "object",
            "$defs": {
                "a": {"$ref": "#/$defs/b"},
                "b": {"$ref": "#/$defs/a"},
                "long": {"$ref": "#/$defs/l1"},
                **{f"l{i}": {"$ref": f"#/$defs/l{i + 1}"} for i in range(1, 20)},
                "l20": {"type": "string"},
            },
            "properties": {
                "deep": deep,
                "loop": {"$ref": "#/$defs/a"},
                "self": {"$ref": "#"},
                "nowhere": {"$ref": "#/$defs/missing"},
                "far": {"$ref": "https://example.com/schema.json"},
                "chain": {"$ref": "#/$defs/long"},
            },
        },
    }
    view, notes = generated_view_with_notes(tool)
    _assert_within_limits(view)
    for name in ("deep", "loop", "self", "nowhere", "far", "chain"):
        assert _block_for(view, name)["type"] == "keyValue", name
    said = " ".join(notes)
    for name in ("loop", "nowhere", "far", "chain"):
        assert f"property {name!r}: its $ref chain loops or leads nowhere" in said


@pytest.mark.parametrize(
    "schema",
    [None, "object", [], {"type": "object", "properties": []}, {"properties": {"a": 5}}],
    ids=["none", "string", "list", "properties-list", "property-not-a-schema"],
)
def test_a_malformed_input_schema_still_gives_a_card(schema: Any) -> None:
    view = generated_view({"name": "remove_item", "inputSchema": schema})
    _assert_within_limits(view)


@pytest.mark.parametrize(
    "mark",
    ["{{secret}}", "<<x>>", "{{ secret }}", "{{{{secret}}}}", "{\x00{secret}\x00}", "<<<x>>>"],
)
@pytest.mark.parametrize(
    "where",
    ["description", "title", "annotation title", "property title", "property help", "option"],
)
def test_text_from_the_schema_never_forms_a_binding(mark: str, where: str) -> None:
    text = f"before {mark} after"
    prop: dict[str, Any] = {"type": "string"}
    tool: dict[str, Any] = {"name": "send_note", "inputSchema": {"type": "object"}}
    if where == "description":
        tool["description"] = text
    elif where == "title":
        tool["title"] = text
    elif where == "annotation title":
        tool["annotations"] = {"title": text}
    elif where == "property title":
        prop["title"] = text
    elif where == "property help":
        prop["description"] = text
    else:
        prop["enum"] = [text, "plain"]
    tool["inputSchema"]["properties"] = {
        "note": prop,
        "secret": {"type": "string"},
        "x": {"type": "string"},
    }
    view = generated_view(tool)
    assert _generated_bindings(view) == []
    if where == "option":
        # The option sends the schema's value as written; only its label is text.
        assert _block_for(view, "note")["options"][0]["value"] == text
    shown = sorted({t for k, t in _strings(view) if "before" in t and k != "value"})
    assert len(shown) == 1  # a tool title is the card's title and the confirm's label
    state = CardState(_tool_with_card(tool), {"secret": "hunter2", "x": "boom", "note": "n"})
    on_card = state.text(shown[0])
    assert "hunter2" not in on_card and "boom" not in on_card
    assert on_card.startswith("before ") and on_card.endswith(" after")
    assert ("secret" in on_card) or ("x" in on_card)  # the words stay, as written


@pytest.mark.parametrize("name", ["post_tweet", "github.create-issue_comment"])
def test_binding_like_text_in_a_real_tool_passes_validate(tmp_path: Path, name: str) -> None:
    tool = CORPUS_BY_NAME[name]
    problems = _validate(tmp_path, _manifest_with_card(tool, generated_view(tool)))
    assert not [p for p in problems if p.rule.startswith("binding-")], _report(problems)


# --- 4. which tools ask -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["cancel_agent", "cancelSubscription", "remove_user", "remove-member", "transfer_funds",
     "slack_remove_member", "bank.transferMoney"],
)  # fmt: skip
def test_a_cancel_remove_or_transfer_tool_without_a_card_asks(name: str) -> None:
    tool = {"name": name, "inputSchema": {"type": "object"}}
    assert must_ask(tool, has_card=False)
    typed = Tool.model_validate(tool)
    assert must_ask(typed, has_card=False)
    carded = with_generated_card(typed)
    assert carded.confirmation is not None
    assert carded.confirmation == ConfirmationView.model_validate(generated_view(tool))


@pytest.mark.parametrize("name", ["tidy_up", "get_status", "frobnicate"])
def test_a_destructive_hint_without_a_card_asks_whatever_the_name(name: str) -> None:
    for hints in ({"destructiveHint": True}, {"destructiveHint": True, "readOnlyHint": True}):
        tool = {"name": name, "annotations": hints}
        assert must_ask(tool, has_card=False), hints
        assert must_ask(Tool.model_validate({**tool, "inputSchema": {}}), has_card=False)


def test_read_looking_or_unknown_tools_without_a_card_do_not_ask_outside_a_bare_server() -> None:
    for name in ("get_status", "list_files", "search_mail", "frobnicate"):
        assert not must_ask({"name": name}, has_card=False), name
    assert must_ask({"name": "frobnicate", "annotations": {"readOnlyHint": False}}, has_card=False)


def test_a_read_only_manifest_tool_does_not_ask_even_with_a_card() -> None:
    tool = Tool.model_validate(
        {
            "name": "cancel_preview",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": True},
            "confirmation": generated_view({"name": "cancel_preview"}),
        }
    )
    assert not must_ask(tool, has_card=True)
    assert not must_ask(tool, has_card=False)
    assert not must_ask(tool, has_card=False, bare_server=True)
    bare = tool.model_copy(update={"confirmation": None})
    assert with_generated_card(bare) is bare  # no card is made for it


@pytest.mark.parametrize(
    ("tool", "asks"),
    [
        ({"name": "get_weather"}, True),
        ({"name": "list_files", "annotations": {}}, True),
        ({"name": "frobnicate", "annotations": {"idempotentHint": True}}, True),
        ({"name": "get_weather", "annotations": {"readOnlyHint": False}}, True),
        ({"name": "get_weather", "annotations": {"readOnlyHint": "true"}}, True),
        ({"name": "get_weather", "annotations": "read only"}, True),
        ({"annotations": None}, True),
        # Issue 18: a bare server's hint is its own word; a name that deletes asks anyway.
        ({"name": "delete_all", "annotations": {"readOnlyHint": True}}, True),
        (
            {
                "name": "peek",
                "description": "Wipes the disk.",
                "annotations": {"readOnlyHint": True},
            },
            True,
        ),
        (
            {"name": "peek", "description": "Never writes.", "annotations": {"readOnlyHint": True}},
            False,
        ),
        ({"name": "get_weather", "annotations": {"readOnlyHint": True}}, False),
        (
            {"name": "get_weather", "annotations": {"readOnlyHint": True, "destructiveHint": True}},
            True,
        ),
    ],
)
def test_on_a_bare_server_every_tool_not_marked_read_only_asks(
    tool: dict[str, Any], asks: bool
) -> None:
    assert must_ask(tool, has_card=False, bare_server=True) is asks


def test_every_corpus_tool_asks_on_a_bare_server() -> None:
    assert all(must_ask(t, has_card=False, bare_server=True) for t in CORPUS)


def test_with_generated_cards_fills_exactly_the_tools_that_must_ask() -> None:
    authored = generated_view({"name": "delete_thing"}, confirm="Delete the thing")
    manifest = Manifest.model_validate(
        {
            "schemaVersion": 1,
            "id": "com.example.mixed",
            "version": "1.0.0",
            "name": "Mixed",
            "tools": [
                {
                    "name": "cancel_agent",
                    "inputSchema": CORPUS_BY_NAME["cancel_agent"]["inputSchema"],
                },
                {"name": "get_status", "inputSchema": {"type": "object"}},
                {"name": "peek", "inputSchema": {}, "annotations": {"readOnlyHint": True}},
                {"name": "tidy", "inputSchema": {}, "annotations": {"destructiveHint": True}},
                {"name": "delete_thing", "inputSchema": {}, "confirmation": authored},
            ],
        }
    )
    filled = with_generated_cards(manifest)
    cards = {t.name: t.confirmation for t in filled.tools}
    assert cards["get_status"] is None and cards["peek"] is None
    assert cards["delete_thing"] == ConfirmationView.model_validate(authored)  # kept as written
    for name in ("cancel_agent", "tidy"):
        original = manifest.tool(name)
        assert original is not None
        assert cards[name] == ConfirmationView.model_validate(
            generated_view(tool_document(original))
        )
    agent = cards["cancel_agent"]
    assert agent is not None and isinstance(agent.root, CardBlock)
    [actions] = agent.root.footer
    assert isinstance(actions, ActionsBlock)
    assert [(i.label, i.role) for i in actions.items] == [
        ("Cancel", "cancel"),
        ("Cancel agent", "confirm"),
    ]
    quiet = manifest.model_copy(update={"tools": [manifest.tools[1], manifest.tools[4]]})
    assert with_generated_cards(quiet) is quiet


# --- bugs found: cards the module generates that `notch validate` refuses -------------------------


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("merge_PR", "Merge pr"),
        ("sendSMS", "Send sms"),
        ("open_URL_in_browser", "Open url in browser"),
    ],
)
def test_an_acronym_in_a_tool_name_reads_as_one_word(name: str, label: str) -> None:
    """BUG: in `_WORDS_RE` the first branch `[A-Za-z][a-z]*` always wins on a capital, so
    the acronym branch `[A-Z]+(?![a-z])` never runs: `merge_PR` → "Merge p r"."""
    [actions] = generated_view({"name": name, "inputSchema": {}})["root"]["footer"]
    assert actions["items"][1]["label"] == label


@pytest.mark.parametrize("name", [" query", "query ", "query\n", "\tquery"], ids=repr)
def test_a_property_name_with_surrounding_whitespace_gets_a_card_validate_accepts(
    tmp_path: Path, name: str
) -> None:
    """BUG: PATH_RE allows spaces around a path, so `" query"` counts as bindable and the
    card binds `{{ query}}` — which names `query`, not `" query"`."""
    tool = {
        "name": "replace_text",
        "inputSchema": {"type": "object", "properties": {name: {"type": "string"}}},
    }
    problems = _validate(tmp_path, _manifest_with_card(tool, generated_view(tool)))
    assert _errors(problems) == [], _report(problems)


def test_a_whitespace_twin_of_a_property_is_not_edited_through_the_other() -> None:
    """BUG (same cause, silent): with `to` and `"to "`, both inputs edit `to`."""
    tool = {
        "name": "send_memo",
        "inputSchema": {
            "type": "object",
            "properties": {"to": {"type": "string"}, "to ": {"type": "string"}},
        },
    }
    paths = [parse_single_binding(b["bind"]) for b in _children(generated_view(tool))]
    assert len(set(paths)) == len(paths), paths


@pytest.mark.parametrize("length", [501, 600])
def test_a_very_long_property_name_still_gives_a_valid_card(tmp_path: Path, length: int) -> None:
    """BUG: the label is the name in words, uncut (limit 500), and the bind `{{name}}`
    passes the 512-character binding limit: the card is refused, and with_generated_card
    raises instead of "raises nothing for any inputSchema"."""
    name = "a" * length
    tool = {
        "name": "remove_entry",
        "inputSchema": {"type": "object", "properties": {name: {"type": "string"}}},
    }
    failures = [
        p.format()[:300]
        for p in _errors(_validate(tmp_path, _manifest_with_card(tool, generated_view(tool))))
    ]
    try:
        with_generated_card(Tool.model_validate(tool))
    except ValidationError as exc:
        failures.append(f"with_generated_card raised: {exc}")
    assert failures == [], "\n" + "\n".join(failures)


def test_a_false_property_schema_gets_a_card_validate_accepts(tmp_path: Path) -> None:
    """BUG: `"legacy": false` (a property that must never be sent) is given a read-only
    row binding `{{legacy}}`, which validate refuses as an unknown argument."""
    tool = {
        "name": "update_record",
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "legacy": False},
        },
    }
    problems = _validate(tmp_path, _manifest_with_card(tool, generated_view(tool)))
    assert _errors(problems) == [], _report(problems)

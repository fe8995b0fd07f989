"""The tool's facts (`manifest/facts/tool_facts.py`) and the one-place modules they stand on:
dotted argument paths, JSON Pointers and canonical JSON.

Each fact is asked of the tool once; these tests hold the rule itself: what is secret
(every marker, through every way a schema can reach a property), what a read-back must
name, the fingerprint's spelling, and that no schema can make them raise or run long.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import pytest

from notch_app.card.paths import get_path
from notch_app.manifest.canonical_json import canonical_json
from notch_app.manifest.facts import listed_tool_facts, schema_secrets, tool_facts
from notch_app.manifest.model import Tool
from notch_app.manifest.paths import (
    NOWHERE,
    TOO_DEEP,
    UNREADABLE,
    declared_matches,
    join_pointer,
    parent_pointer,
    pointer_target,
    pointer_tokens,
    present_along,
    values_along,
)
from notch_app.runtime.policy_book import card_fingerprint


def _tool(properties: dict[str, Any], **schema: Any) -> Tool:
    return Tool.model_validate(
        {"name": "send_it", "inputSchema": {"type": "object", "properties": properties, **schema}}
    )


@pytest.mark.parametrize(
    ("properties", "secret"),
    [
        ({"x": {"type": "string", "format": "password"}}, "x"),
        ({"x": {"type": "string", "writeOnly": True}}, "x"),
        ({"api_token": {"type": "string"}}, "api_token"),
        ({"apiKey": {"type": "string"}}, "apiKey"),
        ({"user": {"type": "object", "properties": {"pin": {"type": "integer"}}}}, "user.pin"),
        ({"x": {"$ref": "#/$defs/hidden"}}, "x"),
        ({"x": {"anyOf": [{"type": "null"}, {"type": "string", "format": "password"}]}}, "x"),
        ({"x": {"oneOf": [{"type": "integer"}, {"type": "string", "writeOnly": True}]}}, "x"),
        ({"x": {"allOf": [{"type": "string"}, {"writeOnly": True}]}}, "x"),
        ({"x": {"type": "array", "items": {"type": "string", "format": "password"}}}, "x"),
        ({"x": {"type": "array", "prefixItems": [{"type": "string"}, {"writeOnly": True}]}}, "x"),
        ({"x": {"type": "array", "items": {"$ref": "#/$defs/door"}}}, "x.code"),
        ({"x": {"type": "object", "additionalProperties": {"$ref": "#/$defs/hidden"}}}, "x"),
    ],
)
def test_each_marker_by_each_way_to_it_makes_a_secret(
    properties: dict[str, Any], secret: str
) -> None:
    defs = {
        "hidden": {"type": "string", "format": "password"},
        "door": {"type": "object", "properties": {"code": {"$ref": "#/$defs/hidden"}}},
    }
    facts = tool_facts(_tool(properties, **{"$defs": defs}))
    assert facts.secrets == {secret}
    assert facts.is_secret(secret) and facts.masks(secret)


def test_a_switch_named_like_a_secret_is_not_one_and_plain_values_are_not() -> None:
    properties = {
        "pin_message": {"type": "boolean"},
        "subject": {"type": "string"},
        "to": {"type": "string", "format": "email"},
    }
    facts = tool_facts(_tool(properties))
    assert facts.secrets == frozenset()
    assert facts.must_read == (("to", "recipient"),)


def test_a_password_field_of_the_card_is_a_secret_whatever_the_schema_says() -> None:
    tool = Tool.model_validate({
        "name": "sign_in",
        "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}},
        "confirmation": {"schemaVersion": 1, "root": {"type": "card", "title": "Sign in",
            "children": [{"type": "passwordField", "bind": "{{word}}", "label": "Word"}]}},
    })  # fmt: skip
    assert tool_facts(tool).secrets == {"word"}


def test_the_facts_are_made_once_per_tool() -> None:
    tool = _tool({"x": {"type": "string"}})
    assert tool_facts(tool) is tool_facts(tool)
    assert tool_facts(tool) is not tool_facts(_tool({"x": {"type": "string"}}))


def test_a_call_is_read_by_the_declared_paths_and_by_its_own_names() -> None:
    facts = tool_facts(
        _tool({"guests": {"type": "array", "items": {"properties": {"door": {"writeOnly": True}}}}})
    )
    args: dict[str, Any] = {
        "guests": [{"door": "a"}, {"door": "b"}, {"name": "c"}],
        "extra": {"client_secret": "s", "pin_it": True, "list": [{"token": "t"}]},
    }
    assert facts.secrets_in(args) == (
        "extra.client_secret",
        "extra.list.0.token",
        "guests.0.door",
        "guests.1.door",
    )
    masked = facts.masked(args, "*")
    assert masked["extra"]["pin_it"] is True and masked["guests"][2] == {"name": "c"}
    assert [g.get("door") for g in masked["guests"]] == ["*", "*", None]
    assert args["guests"][0]["door"] == "a", "the arguments themselves are never changed"
    assert facts.masked_value(args["guests"], "guests", "*") == masked["guests"]
    assert facts.masked_value("a", "guests.0.door", "*") == "*"
    assert facts.is_secret("extra.api_token")  # undeclared, named so


def test_declared_paths_match_a_calls_paths() -> None:
    assert declared_matches("guests.door", "guests.3.door") == "is"
    assert declared_matches("guests.door", "guests.3") == "holds"
    assert declared_matches("guests.door", "guests") == "holds"
    assert declared_matches("user", "user.name") == "inside"
    assert declared_matches("guests.door", "guests.3.name") is None
    assert declared_matches("users.0.pin", "users.0.pin") == "is"  # an index a bind spells
    args = {"to": [{"email": "a"}, {"email": "b"}], "n": 3, "z": None}
    assert list(values_along(args, "to.email")) == ["a", "b"]
    assert list(values_along(args, "n.x")) == [UNREADABLE]
    assert list(values_along(args, "z")) == []
    assert list(present_along(args, "to.email")) == ["to.0.email", "to.1.email"]
    deep: Any = "x"
    for _ in range(40):
        deep = [deep]
    assert TOO_DEEP in list(values_along({"d": deep}, "d"))
    assert get_path(args, "to.1.email") == "b"


def test_json_pointers_are_spelled_and_followed_one_way() -> None:
    doc = {"a/b": {"~c": [10, 20]}}
    pointer = join_pointer("", "a/b", "~c", 1)
    assert pointer == "/a~1b/~0c/1"
    assert pointer_tokens(pointer) == ["a/b", "~c", "1"]
    assert pointer_target(doc, pointer) == 20
    assert pointer_target(doc, "/a~1b/missing") is NOWHERE
    assert parent_pointer(pointer) == "/a~1b/~0c"
    assert pointer_target(doc, "/a%7E1b", percent_encoded=True) == {"~c": [10, 20]}
    assert pointer_target({"a b": 1}, "/a%20b", percent_encoded=True) == 1


def test_the_fingerprint_is_rfc_8785_json_of_the_card_and_schema() -> None:
    whole = _tool({"amount": {"type": "number", "maximum": 1250}})
    same = _tool({"amount": {"type": "number", "maximum": 1250.0}})
    assert tool_facts(whole).fingerprint == tool_facts(same).fingerprint  # one number
    assert card_fingerprint(whole) == tool_facts(whole).fingerprint
    document = {"confirmation": None, "inputSchema": whole.input_schema}
    spelled = canonical_json(document)
    assert spelled == json.dumps(document, sort_keys=True, separators=(",", ":"))
    assert tool_facts(whole).fingerprint == "sha256:" + hashlib.sha256(spelled.encode()).hexdigest()
    assert tool_facts(_tool({"amount": {"maximum": 1251}})).fingerprint != card_fingerprint(whole)
    nan = Tool.model_construct(name="odd", input_schema={"maximum": float("nan")})
    assert tool_facts(nan).fingerprint.startswith("sha256:")  # built in memory: no raise


def test_no_schema_makes_the_facts_raise_or_run_long() -> None:
    cycle = {"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"},
             "pin": {"type": "string"}}}}, "$ref": "#/$defs/n"}  # fmt: skip
    wide = {"properties": {f"p{i}": {"$ref": "#/$defs/w"} for i in range(300)},
            "$defs": {"w": {"anyOf": [{"properties": {f"q{j}": {"type": "string"}
                                                      for j in range(40)}}] * 20}}}  # fmt: skip
    for schema in (cycle, wide, {"properties": {"x": {"$ref": "https://elsewhere/x"}}},
                   {"properties": "nonsense"}, {"items": True}):  # fmt: skip
        began = time.perf_counter()
        tool_facts(Tool.model_validate({"name": "t", "inputSchema": schema}))
        assert time.perf_counter() - began < 2.0
    assert "pin" in schema_secrets(cycle) and "next.pin" in schema_secrets(cycle)


def test_a_tool_seen_only_in_tools_list_has_facts_too() -> None:
    listed = {
        "name": "create_vault",
        "inputSchema": {"properties": {"code": {"type": "string", "format": "password"}}},
    }
    facts = listed_tool_facts(listed, bare_server=True)
    assert facts.secrets == {"code"} and facts.acting.asks
    assert listed_tool_facts({"name": "phone_status"}).acting.kind == "unknown"


def _destructive_tool(badge: dict[str, Any] | None, confirm_color: str | None) -> Tool:
    children: list[dict[str, Any]] = [] if badge is None else [badge]
    confirm: dict[str, Any] = {"label": "Delete", "role": "confirm"}
    if confirm_color:
        confirm["color"] = confirm_color
    children.append({"type": "actions", "items": [{"label": "Keep", "role": "cancel"}, confirm]})
    return Tool.model_validate({
        "name": "delete_it",
        "annotations": {"destructiveHint": True},
        "inputSchema": {"type": "object", "properties": {"x": {"type": "string"},
                                                        "now": {"type": "boolean"}}},
        "confirmation": {"schemaVersion": 1,
                         "root": {"type": "card", "title": "Delete", "children": children}},
    })  # fmt: skip


@pytest.mark.parametrize(
    ("badge", "color", "facts", "risk_line", "always"),
    [
        (None, None, (False, False), True, False),
        ({"type": "badge", "text": "Cannot be undone", "tone": "danger"}, None,
         (False, True), False, False),
        # Behind a visibleIf the badge is not on every call: the risk line says it.
        ({"type": "badge", "text": "Gone", "tone": "danger", "visibleIf": "{{now}}"}, "danger",
         (True, False), True, False),
        ({"type": "badge", "text": "Big", "tone": "neutral"}, "danger", (True, False), True, False),
    ],
)  # fmt: skip
def test_the_cards_danger_is_read_once_and_the_risk_and_scope_lines_follow_it(
    badge: dict[str, Any] | None,
    color: str | None,
    facts: tuple[bool, bool],
    risk_line: bool,
    always: bool,
) -> None:
    from notch_app.card.risk import DESTRUCTIVE_LINE, card_risk
    from notch_app.card.scope_reach import always_label

    tool = _destructive_tool(badge, color)
    made = tool_facts(tool)
    assert (made.danger_confirm, made.danger_badge) == facts
    assert (DESTRUCTIVE_LINE in card_risk(tool, {"x": "a"}).lines) is risk_line
    assert (always_label(tool, {"x": "a"}) is not None) is always


def test_a_danger_confirm_alone_takes_always_allow_away_from_a_harmless_tool() -> None:
    from notch_app.card.scope_reach import always_label

    harmless = _destructive_tool(None, "danger").model_copy(update={"annotations": None})
    assert tool_facts(harmless).danger_confirm
    assert always_label(harmless, {"x": "a"}) is None
    plain = _destructive_tool(None, None).model_copy(update={"annotations": None})
    assert always_label(plain, {"x": "a"}) == "Always allow delete_it"

"""The published JSON Schemas: generated from the models, and agreeing with them.

The corpus test runs jsonschema on the committed schema files and the pydantic models on
the same documents: both must accept the valid ones and reject the structurally invalid
ones, so the schemas authors read are the rules Notch applies.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError

from notch_app.manifest import limits
from notch_app.manifest.model import BLOCK_TYPES, ConfirmationView, Manifest, PreviewFixtures
from notch_app.manifest.model.schemas import (
    EXAMPLE_MANIFEST,
    SCHEMA_FILES,
    published_schema,
    render,
)

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
CORPUS = Path(__file__).parent / "corpus"


def _published(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_committed_schemas_equal_the_generated_ones(name: str) -> None:
    committed = (SCHEMAS / name).read_text(encoding="utf-8")
    assert committed == render(published_schema(name)), "run `notch schema` and commit"


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_schemas_are_2020_12_with_id_title_and_valid_examples(name: str) -> None:
    schema = _published(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://notch.dev/schemas/{name}"
    assert schema["title"] and schema["description"]
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for example in schema["examples"]:
        assert validator.is_valid(example)


def test_the_view_schema_discriminates_blocks_on_type() -> None:
    schema = _published("view.schema.json")
    root = schema["properties"]["root"]
    assert root["discriminator"]["propertyName"] == "type"
    assert set(root["discriminator"]["mapping"]) == set(BLOCK_TYPES)
    assert len(root["oneOf"]) == len(BLOCK_TYPES)
    # Every block documents itself, and every block takes visibleIf.
    for ref in root["discriminator"]["mapping"].values():
        block = schema["$defs"][ref.rsplit("/", 1)[-1]]
        assert "visibleIf" in block["properties"]
        assert block.get("additionalProperties") is False


# --- the agreement corpus --------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], None]


def _view(doc: dict[str, Any]) -> dict[str, Any]:
    root: dict[str, Any] = doc["tools"][0]["confirmation"]["root"]
    return root


def _kids(doc: dict[str, Any]) -> list[Any]:
    kids: list[Any] = _view(doc)["children"]
    return kids


def _set(path: str, value: Any) -> Mutation:
    def apply(doc: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node: Any = doc
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return apply


def _del(path: str) -> Mutation:
    def apply(doc: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node: Any = doc
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        del node[last]

    return apply


def _add_child(block: dict[str, Any]) -> Mutation:
    return lambda doc: _kids(doc).append(block)


VIEW = "tools/0/confirmation"
VALID: dict[str, Mutation] = {
    "as is": lambda doc: None,
    "unknown manifest key": _set("homepage", "https://example.com"),
    "unknown tool key": _set("tools/0/_meta", {"x": 1}),
    "progress bound": _add_child({"type": "progress", "value": "{{count}}", "max": 10}),
    "progress number": _add_child({"type": "progress", "value": 40}),
    "integer option": _set(f"{VIEW}/root/children/1/options/0/value", 3),
    "angle binding": _set(f"{VIEW}/root/children/0/bind", "<<text>>"),
    "every display block": lambda doc: _kids(doc).extend(
        [
            {"type": "markdown", "text": "**bold**"},
            {"type": "keyValue", "items": [{"label": "To", "value": "{{text}}"}]},
            {"type": "metadata", "items": [{"value": "2 KB"}, {"label": "At", "value": "9:00"}]},
            {"type": "list", "items": [{"type": "listItem", "title": "a"}], "ordered": True},
            {"type": "image", "src": "icon.png", "alt": "Icon"},
            {"type": "badge", "text": "New", "tone": "info"},
            {"type": "divider", "visibleIf": "{{text}}"},
            {"type": "stack", "direction": "horizontal", "children": [{"type": "divider"}]},
            {"type": "button", "label": "Copy", "role": "copy", "value": "{{text}}"},
        ]
    ),
    "local runtime": _set("runtime", {"kind": "local-mcp", "command": "npx", "args": ["x"]}),
    "permissions": _set("permissions", [{"kind": "background"}, {"kind": "notify"}]),
    "preference": _set(
        "preferences",
        [{"name": "units", "title": "Units", "type": "select", "options": ["metric", "imperial"]}],
    ),
    "toggle and number preferences": _set(
        "preferences",
        [
            {"name": "LOUD", "title": "Loud", "type": "toggle", "default": True},
            {"name": "LIMIT", "title": "Limit", "type": "number", "default": 20},
        ],
    ),
}
INVALID: dict[str, Mutation] = {
    "missing id": _del("id"),
    "id not reverse-DNS": _set("id", "Not A DNS"),
    "manifest schemaVersion 2": _set("schemaVersion", 2),
    "tools not a list": _set("tools", {}),
    "tool without inputSchema": _del("tools/0/inputSchema"),
    "tool name pattern": _set("tools/0/name", "1tool"),
    "unknown block type": _set(f"{VIEW}/root/children/0/type", "textFeld"),
    "canvas block": _add_child({"type": "canvas"}),
    "custom role": _add_child({"type": "button", "label": "Go", "role": "custom"}),
    "select without options": _set(f"{VIEW}/root/children/1/options", []),
    "text too long": _add_child({"type": "text", "text": "x" * (limits.MAX_TEXT_CHARS + 1)}),
    "unknown block prop": _set(f"{VIEW}/root/children/0/colour", "red"),
    "badge tone": _add_child({"type": "badge", "text": "x", "tone": "pink"}),
    "progress max 0": _add_child({"type": "progress", "value": 1, "max": 0}),
    "image too short": _add_child({"type": "image", "src": "a.png", "alt": "a", "height": 5}),
    "runtime kind": _set("runtime", {"kind": "carrier-pigeon"}),
    "network without domains": _set("permissions", [{"kind": "network", "domains": []}]),
    "option value a list": _set(f"{VIEW}/root/children/1/options/0/value", [1]),
    "required as text": _set(f"{VIEW}/root/children/0/required", "yes"),
    "view schemaVersion 2": _set(f"{VIEW}/schemaVersion", 2),
    "children not a list": _set(f"{VIEW}/root/children", {"type": "text"}),
    "empty keyValue": _add_child({"type": "keyValue", "items": []}),
    "list item without title": _add_child({"type": "list", "items": [{"type": "listItem"}]}),
    "auth without fields": _set("auth", {"kind": "apiKey", "fields": []}),
    "preference type": _set("preferences", [{"name": "a", "title": "A", "type": "colour"}]),
    "negative duration": _set("tools/0/execution", {"estimatedDurationMs": -1}),
    "readOnlyHint as text": _set("tools/0/annotations", {"readOnlyHint": "yes"}),
    "bind too short": _set(f"{VIEW}/root/children/0/bind", "{{}}"),
    "action without label": _set(f"{VIEW}/root/footer/0/items/0", {"role": "cancel"}),
}


def _base() -> dict[str, Any]:
    doc = copy.deepcopy(EXAMPLE_MANIFEST)
    doc["tools"][0]["inputSchema"]["properties"]["count"] = {"type": "integer"}
    return doc


def _accepts(model: type[BaseModel], doc: Any) -> bool:
    try:
        model.model_validate(doc, strict=True)
    except ValidationError:
        return False
    return True


@functools.cache
def _validator(schema_file: str) -> Draft202012Validator:
    return Draft202012Validator(_published(schema_file))


def _agree(model: type[BaseModel], schema_file: str, doc: Any) -> tuple[bool, bool]:
    by_schema = _validator(schema_file).is_valid(doc)
    return by_schema, _accepts(model, doc)


@pytest.mark.parametrize("name", list(VALID))
def test_schema_and_models_accept_the_same_valid_manifests(name: str) -> None:
    doc = _base()
    VALID[name](doc)
    assert _agree(Manifest, "manifest.schema.json", doc) == (True, True)
    view = doc["tools"][0]["confirmation"]
    assert _agree(ConfirmationView, "view.schema.json", view) == (True, True)


@pytest.mark.parametrize("name", list(INVALID))
def test_schema_and_models_reject_the_same_invalid_manifests(name: str) -> None:
    doc = _base()
    INVALID[name](doc)
    assert _agree(Manifest, "manifest.schema.json", doc) == (False, False)


def test_schema_and_models_agree_on_the_rule_corpus() -> None:
    """Files that break only semantic rules are structurally valid for both."""
    checked = 0
    for path in sorted(CORPUS.rglob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        if path.name == "preview.json":
            by_schema, by_model = _agree(PreviewFixtures, "preview.schema.json", doc)
        else:
            by_schema, by_model = _agree(Manifest, "manifest.schema.json", doc)
        assert by_schema == by_model, path.name
        checked += 1
    assert checked > 20


@pytest.mark.parametrize(
    ("doc", "valid"),
    [
        ({"schemaVersion": 1, "tools": {"t": {"args": {}, "expectedGlanceBlocks": 2}}}, True),
        ({"schemaVersion": 1, "description": "d", "tools": {}}, True),
        ({"schemaVersion": 1, "tools": {"t": {}}}, False),
        ({"schemaVersion": 2, "tools": {}}, False),
        ({"schemaVersion": 1, "tools": {}, "extra": 1}, False),
        ({"schemaVersion": 1, "tools": {"t": {"args": []}}}, False),
    ],
)
def test_preview_schema_and_model_agree(doc: dict[str, Any], valid: bool) -> None:
    assert _agree(PreviewFixtures, "preview.schema.json", doc) == (valid, valid)


def test_notch_schema_check_covers_every_published_file_including_scenarios(
    tmp_path: Path,
) -> None:
    """`notch schema --check` passes on the committed files and catches a stale scenario
    schema, which is generated from the card package's model."""
    import shutil

    from notch_app.cli import main
    from notch_app.manifest.model import default_schema_dir

    assert main(["schema", "--check"]) == 0
    copy_dir = tmp_path / "schemas"
    shutil.copytree(default_schema_dir(), copy_dir)
    stale = copy_dir / "scenario.schema.json"
    stale.write_text(stale.read_text(encoding="utf-8").replace("notch test", "notch tset"))
    assert main(["schema", "--check", "--out", str(copy_dir)]) == 1
    assert main(["schema", "--out", str(copy_dir)]) == 0
    assert main(["schema", "--check", "--out", str(copy_dir)]) == 0

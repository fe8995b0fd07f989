"""Validation, the card and guards read an inputSchema the same way (one navigator).

Before, a `$ref` property had no type for guards but `number` for validation and the card,
and `enum: [1, 2]` was `number`, `integer` or nothing depending on who asked. These tests
ask all three about every argument path of every inputSchema in the corpus (bundled
manifests and tests/core/corpus) and of generated schemas, and require one answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notch_app.card.coerce import coerce
from notch_app.card.schema import is_argument_required, property_schema, schema_enum, schema_types
from notch_app.manifest.model import Tool
from notch_app.manifest.rules import lookup
from notch_app.manifest.schema import navigator_for
from notch_app.runtime.policy_book.schema_paths import argument_paths

ROOT = Path(__file__).parents[2]


def _corpus_schemas() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    files = [*sorted((ROOT / "manifests").glob("*/manifest.json"))]
    files += sorted((ROOT / "tests/core/corpus").rglob("*.json"))
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue  # the corpus holds broken JSON on purpose
        tools = data.get("tools") if isinstance(data, dict) else None
        for tool in tools if isinstance(tools, list) else []:
            schema = tool.get("inputSchema") if isinstance(tool, dict) else None
            if isinstance(schema, dict) and schema.get("type", "object") == "object":
                out.append((f"{file.relative_to(ROOT)}:{tool.get('name')}", schema))
    return out


CORPUS = _corpus_schemas()


def _tool(schema: dict[str, Any]) -> Tool:
    return Tool.model_validate({"name": "send_thing", "inputSchema": schema})


def _agree(schema: dict[str, Any]) -> int:
    """Assert rules, card and guards agree on every guard path of `schema` that does not
    pass through a list; returns how many paths were compared."""
    compared = 0
    for info in argument_paths(_tool(schema)):
        found = lookup(schema, info.path)
        card = property_schema(schema, info.path)
        through_list = any(
            "array" in navigator_for(schema).types(navigator_for(schema).at(prefix) or {})
            for prefix in _prefixes(info.path)
        )
        if through_list:
            continue  # guards name list elements by the list's path; bindings use an index
        assert found.rule is None, (info.path, found.message)
        assert found.schema == card, info.path
        rules_types = set(navigator_for(schema).types(found.schema))
        card_types = set(schema_types(card, schema))
        if "array" not in card_types:
            assert info.types == card_types - {"null"}, info.path
        assert rules_types == card_types, info.path
        assert navigator_for(schema).enum(found.schema) == schema_enum(card, schema), info.path
        compared += 1
    return compared


def _prefixes(path: str) -> list[str]:
    parts = path.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


@pytest.mark.parametrize(("where", "schema"), CORPUS, ids=[w for w, _ in CORPUS])
def test_rules_card_and_guards_agree_on_the_corpus(where: str, schema: dict[str, Any]) -> None:
    _agree(schema)


def test_the_corpus_is_not_empty() -> None:
    assert len(CORPUS) >= 20
    assert sum(_agree(s) for _, s in CORPUS) >= 100


def test_a_ref_property_has_one_type_for_everyone() -> None:
    schema = {
        "type": "object",
        "$defs": {"money": {"type": "number", "minimum": 0}},
        "properties": {"amount": {"$ref": "#/$defs/money"}},
    }
    [info] = argument_paths(_tool(schema))
    assert info.types == {"number"} and info.numeric is True  # guards: was "unknown"
    assert lookup(schema, "amount").schema == {"type": "number", "minimum": 0}
    assert schema_types(property_schema(schema, "amount"), schema) == ["number"]


def test_an_enum_of_whole_numbers_is_an_integer_for_everyone() -> None:
    schema = {"type": "object", "properties": {"level": {"enum": [1, 2]}}}
    [info] = argument_paths(_tool(schema))
    assert info.types == {"integer"}
    assert navigator_for(schema).types(lookup(schema, "level").schema) == {"integer"}
    assert schema_types(property_schema(schema, "level"), schema) == ["integer"]
    assert coerce("2", property_schema(schema, "level"), schema).value == 2


def test_refs_inside_branches_are_followed_by_the_card_too() -> None:
    # The card used to read `anyOf` branches without their `$ref`s: "null" was lost and a
    # blank field could not send null.
    schema = {
        "type": "object",
        "$defs": {"nothing": {"type": "null"}, "when": {"type": "string"}},
        "properties": {"at": {"anyOf": [{"$ref": "#/$defs/when"}, {"$ref": "#/$defs/nothing"}]}},
    }
    prop = property_schema(schema, "at")
    assert schema_types(prop, schema) == ["string", "null"]
    assert coerce("", prop, schema).value is None


def test_prefix_items_and_additional_properties_are_read_by_all() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }
    assert lookup(schema, "pair.1").schema == {"type": "integer"}
    assert property_schema(schema, "pair.1") == {"type": "integer"}
    assert lookup(schema, "headers.X-Trace").schema == {"type": "string"}
    assert lookup(schema, "pair.length").schema == {"type": "integer", "minimum": 0}


def test_required_is_what_jsonschema_requires() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "who": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
        },
        "properties": {"user": {"$ref": "#/$defs/who"}, "note": {"type": "string"}},
        "allOf": [{"required": ["user"]}],
    }
    assert is_argument_required(schema, "user")
    assert is_argument_required(schema, "user.id")
    assert not is_argument_required(schema, "note")
    validator = jsonschema.Draft202012Validator(schema)
    assert any(e.validator == "required" for e in validator.iter_errors({}))
    assert not any(e.validator == "required" for e in validator.iter_errors({"user": {"id": "a"}}))


def test_a_ref_cycle_or_a_broken_ref_never_hangs_or_raises() -> None:
    schema = {
        "type": "object",
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
        "properties": {"loop": {"$ref": "#/$defs/a"}, "gone": {"$ref": "#/$defs/nope"}},
    }
    assert property_schema(schema, "gone") == {}
    assert schema_types(property_schema(schema, "loop"), schema) == []
    assert [i.path for i in argument_paths(_tool(schema))] == ["loop", "gone"]


# --- generated schemas -------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "to", "amount", "user", "x-y", "é"])
scalar = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "boolean"])}),
    st.fixed_dictionaries({"type": st.just(["string", "null"])}),
    st.fixed_dictionaries({"enum": st.lists(st.one_of(st.integers(-3, 3), st.text(max_size=2), st.booleans()), min_size=1, max_size=3)}),
    st.fixed_dictionaries({"const": st.one_of(st.integers(0, 2), st.just("x"))}),
    st.fixed_dictionaries({"$ref": st.sampled_from(["#/$defs/money", "#/$defs/name", "#/$defs/maybe"])}),
)  # fmt: skip
DEFS = {
    "money": {"type": "number", "minimum": 0},
    "name": {"type": "string", "title": "Name"},
    "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
}


def _schemas(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    leaf: st.SearchStrategy[dict[str, Any]] = scalar
    if depth == 0:
        return leaf
    inner = _schemas(depth - 1)
    objects = st.builds(
        lambda props, req: {
            "type": "object",
            "properties": props,
            "required": sorted(set(req) & set(props)),
        },
        st.dictionaries(NAMES, inner, min_size=1, max_size=3),
        st.lists(NAMES, max_size=2),
    )
    wrapped = st.one_of(
        objects,
        st.builds(lambda o: {"allOf": [o]}, objects),
        st.builds(lambda o: {"anyOf": [o, {"type": "null"}]}, objects),
        st.builds(lambda s: {"type": "array", "items": s}, inner),
        st.builds(lambda s: {"type": "array", "prefixItems": [s]}, inner),
    )
    return st.one_of(leaf, wrapped)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(NAMES, _schemas(), min_size=1, max_size=4))
def test_rules_card_and_guards_agree_on_generated_schemas(props: dict[str, Any]) -> None:
    schema = {"type": "object", "$defs": DEFS, "properties": props}
    jsonschema.Draft202012Validator.check_schema(schema)
    _agree(schema)
    for name in props:
        # Required: what the navigator says is what jsonschema enforces on the top level.
        required = {**schema, "required": [name]}
        assert is_argument_required(required, name)
        errors = jsonschema.Draft202012Validator(required).iter_errors({})
        assert any(e.validator == "required" for e in errors)


def test_references_inside_an_id_scope_resolve_as_jsonschema_resolves_them() -> None:
    schema = {
        "$id": "https://x.example/s",
        "type": "object",
        "properties": {
            "b": {
                "$id": "inner",
                "$defs": {"q": {"type": "integer"}},
                "type": "object",
                "properties": {"c": {"$ref": "#/$defs/q"}},
            }
        },
    }
    assert property_schema(schema, "b.c") == {"type": "integer"}
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors({"b": {"c": "y"}}))
    assert [e.validator for e in errors] == ["type"]  # jsonschema reads the same integer

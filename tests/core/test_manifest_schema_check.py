"""The fast inputSchema check gives jsonschema's meta-schema verdict, exactly."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator, Draft202012Validator

from notch_app.manifest.schema import first_schema_error

META = Draft202012Validator(Draft202012Validator.META_SCHEMA)

anything = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2) | st.sampled_from(["", "x"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner, max_size=2)
    ),
    max_leaves=6,
)
type_names = st.sampled_from(
    ["string", "integer", "number", "boolean", "array", "object", "null", "bool"]
)


def schemas(depth: int = 2) -> st.SearchStrategy[Any]:
    sub = st.deferred(lambda: schemas(depth - 1)) if depth > 0 else st.booleans()
    keyword_values: dict[str, st.SearchStrategy[Any]] = {
        "type": type_names | st.lists(type_names, max_size=3) | anything,
        "properties": st.dictionaries(st.sampled_from(["a", "b/c", "~d"]), sub, max_size=2)
        | anything,
        "items": sub | st.lists(sub, max_size=2),
        "required": st.lists(st.sampled_from(["a", "b"]), max_size=3) | anything,
        "enum": st.lists(anything, max_size=3) | anything,
        "anyOf": st.lists(sub, max_size=2) | anything,
        "not": sub,
        "minLength": st.integers(-1, 3) | st.floats(-1, 2) | anything,
        "maximum": anything,
        "multipleOf": st.integers(-1, 2) | st.floats(-1, 2),
        "uniqueItems": anything,
        "pattern": st.sampled_from(["^a+$", "[0-9]", ""]) | st.integers(),
        "$ref": st.sampled_from(["#/$defs/a", "#"]) | st.integers(),
        "$defs": st.dictionaries(st.sampled_from(["a"]), sub, max_size=1) | anything,
        "$anchor": st.sampled_from(["ok", "1bad", "a b"]) | st.integers(),
        "$id": st.sampled_from(["https://x.y/s", "https://x.y/s#", "https://x.y/s#frag"]),
        "dependentRequired": st.dictionaries(st.sampled_from(["a"]), anything, max_size=1),
        "dependencies": st.dictionaries(
            st.sampled_from(["a"]),
            sub | st.lists(st.sampled_from(["a", "b"]), max_size=2),
            max_size=1,
        ),
        "description": anything,
        "examples": anything,
        "x-vendor": anything,
    }
    return st.booleans() | st.fixed_dictionaries(
        {}, optional={k: v for k, v in keyword_values.items()}
    )


@settings(max_examples=100, deadline=None)
@given(schemas())
def test_fast_check_agrees_with_the_meta_schema(schema: Any) -> None:
    if isinstance(schema, dict):
        schema = dict(schema)
    assert (first_schema_error(schema) is None) == META.is_valid(schema), schema


@pytest.mark.parametrize(
    ("schema", "pointer"),
    [
        ({"type": "object", "properties": {"a": {"type": "strng"}}}, "/properties/a/type"),
        ({"type": "object", "required": "a"}, "/required"),
        ({"anyOf": []}, "/anyOf"),
        ({"properties": {"a": {"minLength": -1}}}, "/properties/a/minLength"),
        (
            {"properties": {"a": {"pattern": "("}}},
            "/properties/a/pattern",
        ),  # stricter: Notch runs it
    ],
)
def test_the_first_problem_is_placed(schema: dict[str, Any], pointer: str) -> None:
    found = first_schema_error(schema)
    assert found is not None and found[0] == pointer


def test_other_dialects_use_their_own_meta_schema() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}
    assert Draft7Validator(Draft7Validator.META_SCHEMA).is_valid(draft7)
    assert first_schema_error(draft7) is None
    assert first_schema_error({**draft7, "minItems": "x"}) is not None

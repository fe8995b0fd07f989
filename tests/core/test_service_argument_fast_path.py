"""The argument fast path may only ever say "certainly valid" when jsonschema agrees."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.manifest.model import Tool
from notch_app.manifest.schema import compile_fast_path, new_validator, surely_valid
from notch_app.runtime.catalog import Catalog

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves

NAMES = st.sampled_from(["to", "n", "tags", "user", "ok"])
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False)
    | st.sampled_from(["", "a", "ab", "abc", "é"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=8,
)  # fmt: skip


def _leaf_schemas() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "type": TYPES | st.lists(TYPES, min_size=1, max_size=3),
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 3),
            "minimum": st.integers(-3, 3) | st.floats(-3, 3),
            "exclusiveMaximum": st.integers(-3, 3),
            "enum": st.lists(st.sampled_from(["a", "ab", None, 1, True]), min_size=1),
            "const": st.sampled_from(["a", None, 0]),
            "pattern": st.sampled_from(["^a", "b$", "^[a-z]+$", r"^\w$", "^(a+)+$", "é"]),
            "title": st.just("A title"),
        },
    )


schemas = st.recursive(
    _leaf_schemas(),
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["object", "array"]),
            "properties": st.dictionaries(NAMES, inner, max_size=3),
            "required": st.lists(NAMES, max_size=3, unique=True),
            "additionalProperties": st.booleans() | inner,
            "items": inner,
            "minItems": st.integers(0, 2),
            "maxItems": st.integers(0, 3),
        },
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(schemas, json_values)
def test_the_fast_path_never_accepts_what_jsonschema_refuses(
    schema: dict[str, Any], value: Any
) -> None:
    check = compile_fast_path(schema)
    assert check is not None  # every generated schema is inside the subset
    if check(value):  # the authority: the validator argument_problems uses
        assert new_validator(schema).is_valid(value), (schema, value)


def test_it_answers_for_the_usual_arguments_and_defers_on_the_rest(mail_catalog: Catalog) -> None:
    catalog = mail_catalog
    send = catalog.tool(MAIL, "send_email")
    connect = catalog.tool(MAIL, "connect_account")
    assert send is not None and connect is not None
    # The common case is decided without jsonschema...
    assert surely_valid(send, {"to": "sam@example.com", "subject": "Hi"})
    assert surely_valid(connect, {"user": {"name": "sam", "password": "pw"}})
    # ...anything wrong is left to jsonschema, which names the problem.
    assert not surely_valid(send, {"subject": "no recipient"})
    assert not surely_valid(send, {"to": ""})
    assert not surely_valid(send, {"to": 7})
    # 1.0 is an integer to jsonschema; the fast path is not sure, so it defers.
    counted = Tool(name="count", input_schema={"type": "object",
                                               "properties": {"n": {"type": "integer"}}})  # fmt: skip
    assert surely_valid(counted, {"n": 1}) and not surely_valid(counted, {"n": 1.0})


def test_schemas_outside_the_subset_always_go_to_jsonschema() -> None:
    for schema in (
        {"type": "object", "properties": {"to": {"type": "string", "format": "email"}}},
        {"type": "object", "properties": {"to": {"type": "string", "pattern": "(?=a)"}}},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {}}},
        {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"},
        {"type": "object", "properties": {"n": {"type": "number", "minimum": "1"}}},
    ):
        assert compile_fast_path(schema) is None, schema
    tool = Tool(name="mail", input_schema={"type": "object", "properties": {
        "to": {"type": "string", "format": "email"}}})  # fmt: skip
    assert not surely_valid(tool, {"to": "sam@example.com"})


def test_patterns_are_fast_only_for_small_work_and_never_laxer() -> None:
    tool = Tool(name="rename", input_schema={"type": "object", "properties": {
        "x": {"type": "string", "pattern": "^(a+)+$"},
        "names": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}}})  # fmt: skip
    assert surely_valid(tool, {"x": "aaaa", "names": ["ab", "cd"]})
    assert not surely_valid(tool, {"x": "a" * 40 + "!"})  # wrong: jsonschema words it
    # Too much matching for the loop: "not sure", so the check goes to the worker.
    assert not surely_valid(tool, {"x": "a" * 200_000})
    assert not surely_valid(tool, {"names": ["abcdefgh"] * 60_000})
    assert surely_valid(tool, {"names": ["abcdefgh"] * 100})

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
        {"type": "object", "properties": {"to": {"type": "string", "format": "uri"}}},
        {"type": "object", "properties": {"to": {"type": "string", "format": "regex"}}},
        {"type": "array", "uniqueItems": "yes"},
        {"type": "object", "properties": {"to": {"type": "string", "pattern": "(?=a)"}}},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {}}},
        {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"},
        {"type": "object", "properties": {"n": {"type": "number", "minimum": "1"}}},
    ):
        assert compile_fast_path(schema) is None, schema
    tool = Tool(name="link", input_schema={"type": "object", "properties": {
        "to": {"type": "string", "format": "uri"}}})  # fmt: skip
    assert not surely_valid(tool, {"to": "https://example.com"})


FORMATTED = st.sampled_from(
    ["sam@example.com", "sam@", "@example.com", "a b@example.com", "é@example.com",
     "sam@localhost", "x" * 330 + "@example.com", "2025-06-05", "2025-02-30", "2025-6-5",
     "", 7, None, ["sam@example.com"]]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["email", "idn-email", "date"]), FORMATTED)
def test_a_format_is_decided_as_the_validator_decides_it(name: str, value: Any) -> None:
    # Its own checker (email-validator for an address): the fast path agrees both ways.
    schema = {"format": name}
    check = compile_fast_path(schema)
    assert check is not None
    assert check(value) == new_validator(schema).is_valid(value), (name, value)


@settings(max_examples=300, deadline=None)
@given(st.lists(json_values, max_size=4))
def test_unique_items_never_accepts_a_repeat(items: list[Any]) -> None:
    schema = {"type": "array", "uniqueItems": True}
    check = compile_fast_path(schema)
    assert check is not None
    if check(items):
        assert new_validator(schema).is_valid(items), items


def test_the_mail_card_arguments_pass_without_jsonschema() -> None:
    tool = Tool(name="send", input_schema={"type": "object", "properties": {
        "from": {"type": "string", "format": "email"},
        "to": {"type": "array", "items": {"type": "string", "format": "email"},
               "uniqueItems": True},
        "on": {"type": "string", "format": "date"}}})  # fmt: skip
    assert surely_valid(tool, {"from": "maya@example.com", "to": ["sam@example.com"]})
    assert surely_valid(tool, {"on": "2025-06-05", "to": ["a@example.com", "b@example.com"]})
    # Anything a format or a repeat refuses is left to jsonschema, which words it.
    assert not surely_valid(tool, {"from": "maya@"})
    assert not surely_valid(tool, {"to": ["sam@example.com", "sam@example.com"]})
    assert not surely_valid(tool, {"on": "2025-02-30"})


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

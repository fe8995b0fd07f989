"""Coercion: what a person typed or picked becomes the bound property's JSON type."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.card.coerce import coerce, same_value
from notch_app.card.paths import MISSING

STRING = {"type": "string"}
INTEGER = {"type": "integer"}
NUMBER = {"type": "number"}
BOOLEAN = {"type": "boolean"}
STRINGS = {"type": "array", "items": {"type": "string"}}
INTS = {"type": "array", "items": {"type": "integer"}}
VOICE = {"type": "string", "enum": ["rachel", "adam"]}
LEVEL = {"enum": [1, 2, 3]}
NULLABLE_STRING = {"type": ["string", "null"]}
NULLABLE_INT = {"type": ["integer", "null"]}

OK_CASES: list[tuple[Any, dict[str, Any], Any]] = [
    ("hello", STRING, "hello"),
    ("  spaced  ", STRING, "  spaced  "),  # text is kept exactly as typed
    ("", STRING, ""),
    (7, STRING, "7"),
    (True, STRING, "true"),
    ("42", INTEGER, 42),
    (" 42 ", INTEGER, 42),
    ("-3", INTEGER, -3),
    ("4.0", INTEGER, 4),
    ("1e3", INTEGER, 1000),
    (4.0, INTEGER, 4),
    (5, INTEGER, 5),
    ("", INTEGER, MISSING),
    ("   ", INTEGER, MISSING),
    ("2.5", NUMBER, 2.5),
    ("3", NUMBER, 3),
    (".5", NUMBER, 0.5),
    (3, NUMBER, 3),
    ("", NUMBER, MISSING),
    (True, BOOLEAN, True),
    ("yes", BOOLEAN, True),
    ("False", BOOLEAN, False),
    ("off", BOOLEAN, False),
    (1, BOOLEAN, True),
    (["a", "b"], STRINGS, ["a", "b"]),
    ("a, b ,c", STRINGS, ["a", "b", "c"]),
    ("a,,b,", STRINGS, ["a", "b"]),
    ([], STRINGS, []),
    (("x",), STRINGS, ["x"]),
    ("1, 2", INTS, [1, 2]),
    (["3", 4], INTS, [3, 4]),
    ("adam", VOICE, "adam"),
    (2, LEVEL, 2),
    ("2", LEVEL, 2),  # a text field bound to an enum of numbers
    ("", NULLABLE_STRING, None),
    ("hi", NULLABLE_STRING, "hi"),
    ("", NULLABLE_INT, None),
    ("12", NULLABLE_INT, 12),
    (None, NULLABLE_INT, None),
    ("anything", {}, "anything"),
    ({"k": 1}, {}, {"k": 1}),
    ("12", {"type": ["integer", "string"]}, "12"),  # text is allowed: keep what was typed
    ("12", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, 12),
    ("b", {"oneOf": [{"const": "a"}, {"const": "b"}]}, "b"),
]


@pytest.mark.parametrize(("raw", "schema", "expected"), OK_CASES)
def test_coerce_converts_to_the_schema_type(
    raw: Any, schema: dict[str, Any], expected: Any
) -> None:
    result = coerce(raw, schema)
    assert result.error is None
    if expected is MISSING:
        assert result.value is MISSING
    else:
        assert same_value(result.value, expected), result
        assert type(result.value) is type(expected)


ERROR_CASES: list[tuple[Any, dict[str, Any], str]] = [
    ("abc", INTEGER, "must be a whole number"),
    ("4.5", INTEGER, "must be a whole number"),
    ("1,000", INTEGER, "must be a whole number"),
    (4.5, INTEGER, "must be a whole number"),
    ("9" * 5000, INTEGER, "is too long to be a number"),
    ("abc", NUMBER, "must be a number"),
    ("1e999", NUMBER, "must be a number"),
    ("nan", NUMBER, "must be a number"),
    ("maybe", BOOLEAN, "must be yes or no"),
    ("1, x", INTS, "has an entry (2nd) that must be a whole number"),
    ("bella", VOICE, "must be one of 'rachel', 'adam'"),
    ("7", LEVEL, "must be one of 1, 2, 3"),
    ("abc", NULLABLE_INT, "must be a whole number"),
    (["a"], STRING, "must be text"),
    ("x", {"type": "object"}, "must be an object"),
]


@pytest.mark.parametrize(("raw", "schema", "message"), ERROR_CASES)
def test_coerce_keeps_the_raw_text_and_explains(
    raw: Any, schema: dict[str, Any], message: str
) -> None:
    result = coerce(raw, schema)
    assert result.error == message
    assert result.value is raw or result.value == raw  # the field keeps showing it


def test_coerced_repr_never_shows_the_value() -> None:
    result = coerce("hunter2-secret", {"type": "integer"})
    assert "hunter2" not in repr(result)
    assert "hunter2" not in (result.error or "")


def test_same_value_is_json_equality() -> None:
    assert same_value(1, 1.0)
    assert not same_value(1, True)
    assert not same_value(0, False)
    assert not same_value([1], [True])
    assert same_value({"a": [1, "x"]}, {"a": [1.0, "x"]})
    assert not same_value({"a": 1}, {"b": 1})


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_any_typed_integer_round_trips(n: int) -> None:
    assert coerce(str(n), INTEGER).value == n
    assert coerce(f" {n} ", NUMBER).value == n


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=30).map(lambda t: "ZQ" + t),
    st.sampled_from([STRING, INTEGER, NUMBER, BOOLEAN, STRINGS, VOICE, LEVEL, NULLABLE_INT]),
)
def test_coerce_never_raises_and_errors_keep_the_raw_value(
    raw: str, schema: dict[str, Any]
) -> None:
    result = coerce(raw, schema)
    if result.error is not None:
        assert result.value == raw
        assert "ZQ" not in result.error  # never quotes what was typed (may be a password)

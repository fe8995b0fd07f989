"""The card's per-argument check takes its "certainly valid" answers from the shared
fast path, which must never accept what jsonschema refuses (enums compare like JSON)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from notch_app.card import validation
from notch_app.card.validation import ArgumentCheck
from notch_app.manifest.model import Tool
from notch_app.manifest.schema import ArgumentProblem, argument_problems, compile_fast_path

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-2, 2)
    | st.floats(-2, 2)
    | st.sampled_from(["", "a", "1"])
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.just("a"), inner, max_size=1),
    max_leaves=4,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(values, min_size=1, max_size=4), values, st.booleans())
def test_enum_and_const_never_accept_what_jsonschema_refuses(
    allowed: list[Any], value: Any, as_const: bool
) -> None:
    schema: dict[str, Any] = {"const": allowed[0]} if as_const else {"enum": allowed}
    check = compile_fast_path(schema)
    assert check is not None
    if check(value):
        assert Draft202012Validator(schema).is_valid(value), (schema, value)


def _tool(properties: dict[str, Any]) -> Tool:
    return Tool.model_validate(
        {"name": "pick", "inputSchema": {"type": "object", "properties": properties}}
    )


def test_an_object_enum_value_with_true_for_1_is_refused_on_the_card() -> None:
    # Python says {"a": True} == {"a": 1}; JSON Schema does not, and neither may the card.
    check = ArgumentCheck(_tool({"choice": {"enum": [{"a": 1}]}}))
    assert [p.pointer for p in check.problems({"choice": {"a": True}})] == ["/choice"]
    assert check.problems({"choice": {"a": 1}}) == []


def test_number_enums_and_bounds_pass_the_card_without_jsonschema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    check = ArgumentCheck(
        _tool({"level": {"type": "integer", "enum": [1, 2, 3]}, "name": {"maxLength": 3}})
    )
    whole_checks: list[Any] = []

    def counted(tool: Tool, arguments: Any) -> list[ArgumentProblem]:
        whole_checks.append(arguments)
        return argument_problems(tool, arguments)

    monkeypatch.setattr(validation, "argument_problems", counted)
    assert check.problems({"level": 2, "name": "abc"}) == []
    assert whole_checks == []  # a typical valid card never reaches jsonschema
    assert {p.pointer for p in check.problems({"level": True, "name": "abcd"})} == {
        "/level",
        "/name",
    }

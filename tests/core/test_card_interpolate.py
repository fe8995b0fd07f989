"""Display text with bindings: values shown in the person's words, nothing evaluated."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.card.interpolate import display_value, interpolate, template_paths
from notch_app.card.paths import MISSING, get_path

ARGS: dict[str, Any] = {
    "count": 42,
    "title": "Q3 report",
    "user": {"name": "Ada"},
    "urgent": True,
    "tags": ["a", "b", "c"],
    "sneaky": "{{count}}",
}


def lookup(path: str) -> Any:
    return get_path(ARGS, path)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, ""),
        (MISSING, ""),
        ("", ""),
        ("plain", "plain"),
        (True, "Yes"),
        (False, "No"),
        (0, "0"),
        (42, "42"),
        (4.0, "4"),
        (-2.0, "-2"),
        (2.5, "2.5"),
        (1e20, "1e+20"),
        (float("inf"), "inf"),
        (["a", "b", "c"], "a, b, c"),
        ([1, 2.0, True], "1, 2, Yes"),
        ([], ""),
        ({"k": "v", "n": 1}, "k: v, n: 1"),
        ({"a": [1, 2], "b": {"c": None}}, "a: [1, 2], b: {c: }"),
        ([{"name": "x"}], "{name: x}"),
    ],
)
def test_display_value(value: Any, shown: str) -> None:
    assert display_value(value) == shown


def test_long_values_are_not_truncated_here() -> None:
    big = "x" * 1_000_000
    assert display_value(big) == big
    assert len(display_value(["y" * 50_000] * 3)) == 150_004


def test_deep_nesting_is_summarised_instead_of_recursing_forever() -> None:
    value: Any = "leaf"
    for _ in range(200):
        value = [value]
    assert "…" in display_value(value)


@pytest.mark.parametrize(
    ("template", "shown"),
    [
        ("Delete {{count}} files", "Delete 42 files"),
        ("Delete <<count>> files", "Delete 42 files"),
        ("{{ count }}", "42"),
        ("Hello {{user.name}}", "Hello Ada"),
        ("Urgent: {{urgent}}", "Urgent: Yes"),
        ("Tags: {{tags}}", "Tags: a, b, c"),
        ("first {{tags.0}}", "first a"),
        ("Absent: [{{nothing}}]", "Absent: []"),
        ("No bindings at all", "No bindings at all"),
        ("{{count}}{{count}}<<title>>", "4242Q3 report"),
    ],
)
def test_interpolate_fills_bindings(template: str, shown: str) -> None:
    assert interpolate(template, lookup) == shown


@pytest.mark.parametrize(
    ("template", "shown"),
    [
        ("{{a..b}} and {{count}}", "{{a..b}} and 42"),
        ("{{ 1 + 1 }} = {{count}}", "{{ 1 + 1 }} = 42"),
        ("{{__import__('os').system('x')}}", "{{__import__('os').system('x')}}"),
        ("{{}} <<>> {{count}}", "{{}} <<>> 42"),
        ("unclosed {{count", "unclosed {{count"),
        ("a << b >> c", "a << b >> c"),  # `b` is a valid path: bound, absent → ""
    ],
)
def test_malformed_bindings_stay_literal_and_never_raise(template: str, shown: str) -> None:
    if template == "a << b >> c":
        assert interpolate(template, lookup) == "a  c"
    else:
        assert interpolate(template, lookup) == shown


def test_a_value_holding_braces_is_shown_not_interpolated_again() -> None:
    assert interpolate("value: {{sneaky}}", lookup) == "value: {{count}}"


def test_template_paths_lists_the_paths_read() -> None:
    assert template_paths("{{a}} {{b.c}} {{bad..}} <<d>>") == ("a", "b.c", "d")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("{}<>ab. 1_-x")), max_size=40))
def test_interpolate_never_raises(template: str) -> None:
    out = interpolate(template, lambda path: "V")
    assert isinstance(out, str)
    if "{{" not in template and "<<" not in template:
        assert out == template

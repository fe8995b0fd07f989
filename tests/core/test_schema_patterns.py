"""Schema patterns: ECMA-262 meaning, linear time, refusals that say why, a time budget.

Every `pattern` Notch runs (validate, attach, every argument check) goes through
`notch_app.manifest.schema.patterns`; these tests hold its meaning to JavaScript's and show that
no pattern or text can make a check run long.
"""

from __future__ import annotations

import importlib
import time
from typing import Any

import pytest

from notch_app.card.validation import ArgumentCheck
from notch_app.manifest.model import Tool
from notch_app.manifest.schema import argument_problems, first_schema_error
from notch_app.manifest.schema.patterns import (
    CheckTooSlow,
    TooLongToMatch,
    compile_pattern,
    pattern_problem,
    search,
    spend,
    time_budget,
)

# jsonschema loads with the first check the fast path cannot decide; loaded here, so the
# timed checks below time the check, not that import.
importlib.import_module("notch_app.manifest.schema.validator")

EVIL = "^(a+)+$"
EVIL_INPUT = "a" * 40 + "!"


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        # \d, \w and \b are ASCII in JavaScript (Python's re: any Unicode digit)
        (r"^\d{4}-\d{2}-\d{2}$", "2025-01-02", True),
        (r"^\d+$", "\uff12\uff10", False),  # fullwidth digits
        (r"^\w+$", "abc_1", True),
        (r"^\w+$", "é", False),
        (r"\bfoo\b", "a foo b", True),
        (r"\bfoo\b", "éfooé", True),  # é is not a word character
        # $ is the end of the text (Python's $ also matches before a final newline)
        (r"^[a-z]+$", "abc\n", False),
        (r"^[^@\s]+@[^@\s]+\.[^@\s]+$", "someone@example.com", True),
        (r"^[^@\s]+@[^@\s]+\.[^@\s]+$", "some one@example.com", False),
        # \s is JavaScript's: Unicode spaces, line terminators, BOM; not U+0085
        (r"^\s$", "\u00a0", True),
        (r"^\s$", "\ufeff", True),
        (r"^\s$", "\u2003", True),
        (r"^\s$", "\u0085", False),
        (r"^\S$", "\u0085", True),
        # . is one code point (u flag), never a line terminator
        (r"^.$", "😀", True),
        (r"^.$", "\n", False),
        (r"^.$", "\r", False),
        (r"^.$", "\u2028", False),
        (r"^[^]$", "\n", True),
        (r"[]", "a", False),
        # escapes
        (r"^\u{1F600}$", "😀", True),
        (r"^\uD83D\uDE00$", "😀", True),
        (r"^\u00e9$", "é", True),
        (r"^\x41$", "A", True),
        (r"^\cJ$", "\n", True),
        (r"^[\b]$", "\b", True),
        (r"^\0$", "\0", True),
        (r"^\-\@\/$", "-@/", True),
        (r"^[\d-z]$", "-", True),
        (r"^[\d-z]$", "a", False),
        # properties
        (r"^\p{L}+$", "héllo", True),
        (r"^\p{Letter}+$", "h1", False),
        (r"^\p{Script=Greek}+$", "αβγ", True),
        (r"^[\p{Lu}\d]+$", "AB1", True),
        (r"^[\P{ASCII}]$", "é", True),
        # Annex B literals, groups, lazy repeats
        (r"a{", "a{", True),
        (r"^(?<year>\d{4})-(?:\d{2})$", "2024-05", True),
        (r"^a+?$", "aaa", True),
        (r"^[^\s~^:?*\[\\]+$", "refs/heads/main", True),
        (EVIL, "aaaa", True),
        (EVIL, EVIL_INPUT, False),
    ],
)
def test_patterns_mean_what_they_mean_in_javascript(pattern: str, text: str, matches: bool) -> None:
    assert search(pattern, text) is matches


@pytest.mark.parametrize(
    ("pattern", "says"),
    [
        ("(?=.*[A-Z]).{8,}", "lookahead"),
        ("(?!a)b", "lookahead"),
        ("(?<=a)b", "lookbehind"),
        (r"(a)\1", "backreference"),
        (r"(?<x>a)\k<x>", "backreference"),
        (r"^a\Z", "write $"),
        (r"\Aa", "write ^"),
        ("(?P<n>a)", "write (?<name>...)"),
        ("(?i)abc", "not ECMA-262"),
        ("a{1001}", "over 1000"),
        ("*a", "nothing to repeat"),
        ("a**", "nothing to repeat"),
        ("^*", "cannot be repeated"),
        ("(a", "never closed"),
        ("[a", "never closed"),
        ("a)", "closes no group"),
        ("[z-a]", "backwards"),
        (r"\p{Greek}", r"\p{Script=...}"),
        (r"\ud800", "lone surrogate"),
        ("\ud800", "lone surrogate"),
        (r"\q", "not an ECMA-262 escape"),
        ("a" * 9000, "at most 8,192"),
    ],
)
def test_a_pattern_notch_cannot_run_is_refused_with_the_reason(pattern: str, says: str) -> None:
    why = pattern_problem(pattern)
    assert why is not None and says in why, why


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_catastrophic_patterns_end_in_microseconds() -> None:
    evil = [
        (EVIL, EVIL_INPUT),
        ("^(a|aa)+$", EVIL_INPUT),
        ("^(a|a?)+$", EVIL_INPUT),
        ("(x+x+)+y", "x" * 5000),
        (r"^(\d+)*$", "1" * 5000 + "x"),
        (r"^(\w+\s?)*$", "word " * 1000 + "!"),
    ]
    began = time.perf_counter()
    for pattern, text in evil:
        assert search(pattern, text) is False
    assert time.perf_counter() - began < 0.5


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_a_text_too_long_for_its_pattern_is_refused_before_it_is_matched() -> None:
    # 1 MB against a 60-instruction program would cost RE2 ~0.8 s in its slow (NFA) mode.
    pattern = compile_pattern("a[ab]{30}b[ab]{30}c")
    began = time.perf_counter()
    with pytest.raises(TooLongToMatch, match="is too long"):
        pattern.search("ab" * 500_000)
    assert time.perf_counter() - began < 0.1


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_the_time_budget_stops_a_check_and_never_outlives_its_block() -> None:
    with time_budget(-1.0):  # already spent: the next step stops
        with pytest.raises(CheckTooSlow):
            spend()
        with time_budget(60.0), pytest.raises(CheckTooSlow):
            spend()  # an inner budget never extends the outer one
    spend()  # outside a budget: free


def _tool(schema: dict[str, Any]) -> Tool:
    return Tool.model_validate({"name": "t", "inputSchema": schema})


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_an_argument_check_with_an_evil_pattern_is_fast_and_fails_the_value() -> None:
    tool = _tool({"type": "object", "properties": {"x": {"type": "string", "pattern": EVIL}}})
    began = time.perf_counter()
    (problem,) = argument_problems(tool, {"x": EVIL_INPUT})
    assert time.perf_counter() - began < 0.2
    assert problem.path == "x" and "must match the pattern" in problem.message


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_pattern_properties_and_additional_properties_use_the_same_engine() -> None:
    tool = _tool(
        {
            "type": "object",
            "patternProperties": {"^(a+)+$": {"type": "integer"}},
            "additionalProperties": False,
        }
    )
    began = time.perf_counter()
    problems = argument_problems(tool, {EVIL_INPUT: 1, "aaa": "no"})
    assert time.perf_counter() - began < 0.2
    messages = {p.path: p.message for p in problems}
    assert messages["aaa"] == "must be a whole number"
    assert messages[""] == "has properties the tool does not accept"  # the evil key: extra


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_a_huge_argument_check_ends_within_its_budget_and_fails_closed() -> None:
    tool = _tool(
        {
            "type": "object",
            "properties": {
                "names": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}
            },
        }
    )
    began = time.perf_counter()
    problems = argument_problems(tool, {"names": ["abcdefgh"] * 200_000}, budget_s=0.2)
    assert time.perf_counter() - began < 0.6
    assert [p.message for p in problems] == [
        "could not be checked within 0.2 s; send smaller arguments"
    ]


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_unique_items_of_many_objects_is_not_quadratic() -> None:
    tool = _tool({"type": "object", "properties": {"rows": {"type": "array", "uniqueItems": True}}})
    rows = [{"id": i} for i in range(50_000)]  # pairwise, as jsonschema compares: 1.25e9
    began = time.perf_counter()
    assert argument_problems(tool, {"rows": rows}, budget_s=10) == []
    assert argument_problems(tool, {"rows": [*rows, {"id": 5}]}, budget_s=10)[0].message == (
        "must not repeat an entry"
    )
    assert argument_problems(tool, {"rows": [1, 1.0]}) != []  # JSON: 1 and 1.0 are equal
    assert argument_problems(tool, {"rows": [1, True]}) == []  # but 1 and true are not
    assert time.perf_counter() - began < 5


def test_format_regex_means_a_pattern_notch_runs() -> None:
    tool = _tool({"type": "object", "properties": {"re": {"type": "string", "format": "regex"}}})
    assert argument_problems(tool, {"re": "^[a-z]+$"}) == []
    (problem,) = argument_problems(tool, {"re": "(?=a)"})
    assert problem.message == "must be a valid regex"


def test_the_schema_check_refuses_patterns_in_every_dialect_at_their_place() -> None:
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"a": {"type": "string", "pattern": "(?=x)y"}},
    }
    where, why = first_schema_error(draft7) or ("", "")
    assert where == "/properties/a/pattern" and "lookahead" in why
    mixed = {
        "type": "object",
        "patternProperties": {"^x": {}},
        "unevaluatedProperties": False,
    }
    where, why = first_schema_error(mixed) or ("", "")
    assert where == "/unevaluatedProperties" and "additionalProperties" in why
    assert first_schema_error({"type": "object", "properties": {"a": {"pattern": EVIL}}}) is None


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_the_cards_keystroke_gate_uses_the_same_engine_and_budget() -> None:
    tool = _tool({"type": "object", "properties": {"x": {"type": "string", "pattern": EVIL}}})
    gate = ArgumentCheck(tool)
    began = time.perf_counter()
    (problem,) = gate.problems({"x": EVIL_INPUT})
    assert gate.problems({"x": "aaa"}) == []
    assert time.perf_counter() - began < 0.2
    assert problem.path == "x" and "must match the pattern" in problem.message

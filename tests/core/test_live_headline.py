"""A card's headline and folded facts follow the person's edits without being made again
for every keystroke (issue 19): `LiveHeadline` and `LiveFact` remember which arguments
they were made from and answer from memory when only other arguments changed. Held here
to the plain functions over every bundled card and any sequence of edits: remembering
must never say something the headline made afresh would not."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.card import person_locale
from notch_app.card.headline import Changes, LiveFact, LiveHeadline, Reads, fact_words, headline
from notch_app.card.state import CardState
from notch_app.manifest.integration import load_integration
from notch_app.manifest.model import Tool

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2025, 6, 1, 9, 0, tzinfo=ZoneInfo("Europe/London"))


def _cards() -> list[tuple[Tool, dict[str, Any]]]:
    out = []
    for folder in sorted((ROOT / "manifests").iterdir()):
        integration, _ = load_integration(folder)
        if integration is None or integration.fixtures is None:
            continue
        for tool in integration.manifest.tools:
            if tool.confirmation is not None and tool.name in integration.fixtures.tools:
                out.append((tool, dict(integration.fixtures.tools[tool.name].args)))
    return out


CARDS = _cards()
VALUES = st.one_of(
    st.sampled_from(
        [
            "",
            "Sam Lee <sam@example.com>",
            "2025-06-03T14:00",
            "2025-06-03",
            "/home/maya/Downloads/report.pdf",
            "1250.50",
            "EUR",
            "exаmple.com",  # a Cyrillic а
            "rm -rf build",
            "https://example.com/a?b=c",
            "line one\nline two",
        ]
    ),
    st.text(max_size=12),
    st.integers(-5, 5000),
    st.booleans(),
    st.lists(st.sampled_from(["sam@example.com", "/tmp/a.txt", "x"]), max_size=4),
)


@pytest.fixture(autouse=True)
def _a_fixed_person(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(person_locale, "current_time", lambda: NOW)
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")
    monkeypatch.setenv("HOME", "/home/maya")


@settings(max_examples=60, deadline=None)
@given(
    card=st.sampled_from(range(len(CARDS))),
    edits=st.lists(st.tuples(st.integers(0, 50), VALUES), min_size=1, max_size=8),
)
def test_what_is_remembered_is_what_would_be_said_afresh(
    card: int, edits: list[tuple[int, Any]]
) -> None:
    tool, proposed = CARDS[card]
    state = CardState(tool, proposed)
    paths = [b.path for b in state.inputs] or ["title"]
    live = LiveHeadline(tool)
    facts = [LiveFact(tool, path) for path in paths]
    assert live.said(state.arguments()) == headline(tool, state.arguments())
    for choice, value in edits:
        before = state.arguments()
        state.set(paths[choice % len(paths)], value)
        after = state.arguments()
        assert live.said(after) == headline(tool, after)
        changes = Changes.between(before, after)
        for fact in facts:
            assert fact.said(after, changes) == fact_words(tool, after, fact.path)


def test_an_edit_elsewhere_keeps_the_headline_it_did_not_read() -> None:
    tool, proposed = next((t, a) for t, a in CARDS if t.name == "send_email")
    state = CardState(tool, proposed)
    live = LiveHeadline(tool)
    first = live.said(state.arguments())
    state.set("subject", "Re: Q3 report, final")  # the headline names the people, not this
    assert live.said(state.arguments()) is first
    state.set("cc", [])
    assert live.said(state.arguments()).text == "Send email to sam@example.com"


def test_changes_name_what_differs_and_whether_the_names_did() -> None:
    before = {"a": "x", "b": {"c": 1}, "d": [1]}
    same = Changes.between(before, dict(before))
    assert same.names == frozenset() and not same.shape
    edited = Changes.between(before, {**before, "a": "y"})
    assert edited.names == {"a"} and not edited.shape
    became_object = Changes.between(before, {**before, "a": {"y": 1}})
    assert became_object.names == {"a"} and became_object.shape
    removed = Changes.between(before, {"a": "x", "b": {"c": 1}})
    assert removed.names == {"d"} and removed.shape
    # A reader of "a" alone ignores an edit of "d"; one that walked the names does not.
    assert Reads(frozenset({"a"}), False).unchanged(removed)
    assert not Reads(frozenset({"a"}), True).unchanged(removed)

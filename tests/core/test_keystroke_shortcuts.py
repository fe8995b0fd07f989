"""The shortcuts a keystroke takes through the Qt-free card (issue 19: one keystroke's
Python work under 0.15 ms) say exactly what the long way says.

- The live headline asks each part it was made from again (only a part that read the
  edited argument is made again) and keeps its sentence when every part says the same:
  held to `headline()` made afresh through values that go and come back, a part whose
  words stay while what it states whole does not, and an argument two parts read.
- The gate, with no schema problem and no coercion error, walks only the required
  inputs, and the schema check after a change that left no problem looks only at the
  values that changed: both held to the long way for any sequence of edits, an
  argument the schema refuses and an argument taken away among them.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from notch_app.card.headline import Changes, LiveHeadline, headline
from notch_app.card.state import CardState
from notch_app.manifest.model import Tool


@pytest.fixture(autouse=True)
def _a_person_in_london(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")


def bench_tool() -> Tool:
    """The benchmark's card in small: the headline is the title and the first short value."""
    names = ["text_0", "text_1", "text_2"]
    return Tool.model_validate(
        {
            "name": "send_thing",
            "inputSchema": {
                "type": "object",
                "properties": {n: {"type": "string"} for n in names},
                "required": ["text_0"],
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Send {{text_0}}",
                    "children": [
                        {"type": "textField", "bind": f"{{{{{n}}}}}", "label": n} for n in names
                    ],
                },
            },
        }
    )


def command_tool() -> Tool:
    return Tool.model_validate(
        {
            "name": "run_command",
            "inputSchema": {
                "type": "object",
                "properties": {"command": {"type": "string"}, "branch": {"type": "string"}},
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Run",
                    "children": [
                        {"type": "textField", "bind": "{{command}}", "label": "Command"},
                        {"type": "textField", "bind": "{{branch}}", "label": "Branch"},
                    ],
                },
            },
        }
    )


def payment_tool() -> Tool:
    return Tool.model_validate(
        {
            "name": "pay_invoice",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "amount": {"type": "number"},
                    "currency": {"type": "string"},
                    "payee": {"type": "string"},
                },
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Pay",
                    "children": [
                        {"type": "textField", "bind": "{{amount}}", "label": "Amount"},
                        {"type": "textField", "bind": "{{payee}}", "label": "Payee"},
                    ],
                    "footer": [
                        {
                            "type": "actions",
                            "items": [
                                {"label": "Cancel", "role": "cancel"},
                                {"label": "Pay {{amount}} {{currency}}", "role": "confirm"},
                            ],
                        }
                    ],
                },
            },
        }
    )


def follow(tool: Tool, proposed: dict[str, Any], edits: list[tuple[str, Any]]) -> list[Any]:
    """Each edit through a card's state; after each, the live headline beside the one
    made afresh (both asserted equal). Returns the live headlines, in order."""
    state = CardState(tool, proposed)
    live = LiveHeadline(tool)
    seen = [live.said(state.arguments())]
    for path, value in edits:
        before = state.arguments()
        state.set(path, value)
        after = state.arguments()
        said = live.said(after, Changes.between(before, after))
        assert said == headline(tool, after), (path, value)
        seen.append(said)
    return seen


def test_a_value_the_headline_looked_at_but_does_not_quote_keeps_the_sentence() -> None:
    long = "a value far longer than the forty characters a plain headline quotes"
    seen = follow(
        bench_tool(),
        {"text_0": long, "text_1": "Sam", "text_2": "x"},
        [
            ("text_0", long + "b"),  # still too long to quote: the same sentence
            ("text_0", "short"),  # now it is quoted
            ("text_0", long),  # and back: the next value is quoted again
            ("text_0", "short"),  # back and forth, twice
            ("text_1", "Lee"),  # the quoted value itself
            ("text_0", "two\nlines"),  # short, but not one line: passed over
            ("text_0", "   "),  # blank: passed over
            ("text_1", "Sam"),
            ("text_0", "one line"),  # quotable again
        ],
    )
    texts = [h.text for h in seen]
    assert texts == [
        "Send thing: Sam",
        "Send thing: Sam",
        "Send thing: short",
        "Send thing: Sam",
        "Send thing: short",
        "Send thing: short",
        "Send thing: Lee",
        "Send thing: Lee",
        "Send thing: Sam",
        "Send thing: one line",
    ]
    assert seen[1] is seen[0] and seen[7] is seen[6]  # kept, not made again


def test_words_that_stay_while_what_they_state_whole_does_not_are_followed() -> None:
    # "ls rm -rf ~" and "ls\nrm -rf ~" read the same on one line; only the first is
    # stated whole by the headline, so only then may a compact card leave its row out.
    seen = follow(
        command_tool(),
        {"command": "ls rm -rf ~"},
        [
            ("command", "ls\nrm -rf ~"),
            ("command", "ls rm -rf ~"),
            ("command", "ls\nrm -rf ~"),
        ],
    )
    assert [h.text for h in seen] == ["Run `ls rm -rf ~`"] * 4
    assert [("command" in h.said) for h in seen] == [True, False, True, False]


def test_an_argument_two_parts_read_changes_both() -> None:
    seen = follow(
        payment_tool(),
        {"amount": 1250, "currency": "EUR", "payee": "Studio Nord"},
        [
            ("amount", "1300"),
            ("payee", "Studio Süd"),
            ("amount", "1250"),
            ("currency", "USD"),
        ],
    )
    assert [(h.text, h.confirm) for h in seen] == [
        ("Pay €1,250.00 to Studio Nord", "Pay €1,250.00"),
        ("Pay €1,300.00 to Studio Nord", "Pay €1,300.00"),
        ("Pay €1,300.00 to Studio Süd", "Pay €1,300.00"),
        ("Pay €1,250.00 to Studio Süd", "Pay €1,250.00"),
        ("Pay US$1,250.00 to Studio Süd", "Pay US$1,250.00"),
    ]


def test_the_kind_of_sentence_follows_an_edit_of_what_one_kind_read() -> None:
    # The kinds of sentence (a command, a payment, people…) are one part made of theirs:
    # an edit of what one kind read makes the whole choice again.
    seen = follow(
        command_tool(),
        {"command": "ls", "branch": "main"},
        [
            ("command", ""),  # no command any more: the title and the first short value
            ("branch", "next"),
            ("command", "make"),
            ("branch", "main"),
            ("command", ""),
        ],
    )
    assert [h.text for h in seen] == [
        "Run `ls`",
        "Run command: main",
        "Run command: next",
        "Run `make`",
        "Run `make`",
        "Run command: main",
    ]


# --- the gate with nothing wrong ------------------------------------------------------


def gate_tool() -> Tool:
    return Tool.model_validate(
        {
            "name": "book_room",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "room": {"type": "string"},
                    "guests": {"type": "integer", "minimum": 1},
                    "note": {"type": "string", "maxLength": 8},
                    "later": {"type": "boolean"},
                    "when": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["room"],
                "additionalProperties": False,
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Book",
                    "children": [
                        {
                            "type": "textField",
                            "bind": "{{room}}",
                            "label": "Room",
                            "required": True,
                        },
                        {"type": "textField", "bind": "{{guests}}", "label": "Guests"},
                        {"type": "textField", "bind": "{{note}}", "label": "Note"},
                        {"type": "toggle", "bind": "{{later}}", "label": "Later", "required": True},
                        {
                            "type": "stack",
                            "visibleIf": "{{later}}",
                            "children": [
                                {
                                    "type": "textField",
                                    "bind": "{{when}}",
                                    "label": "When",
                                    "required": True,
                                }
                            ],
                        },
                        {"type": "chips", "bind": "{{tags}}", "label": "Tags", "required": True},
                        # Written past the list's end: an error no schema rule sees.
                        {"type": "textField", "bind": "{{tags.2}}", "label": "Third tag"},
                    ],
                },
            },
        }
    )


EDITS = st.lists(
    st.tuples(
        st.sampled_from(["room", "guests", "note", "later", "when", "tags", "tags.2", "extra"]),
        st.sampled_from(
            ["", " ", "A1", "3", "0", "x", "far too long a note", True, False, [], ["a", "b"]]
        ),
    ),
    max_size=10,
)


@settings(max_examples=80, deadline=None)
@given(edits=EDITS, hold=st.booleans())
@example(edits=[("guests", "0")], hold=False)  # a value that coerces but breaks a rule
@example(edits=[("note", "x"), ("note", "far too long a note"), ("note", "x")], hold=False)
@example(edits=[("extra", "x"), ("extra", "")], hold=True)  # a name the schema refuses
def test_the_gate_with_nothing_wrong_says_what_the_whole_walk_says(
    edits: list[tuple[str, Any]], hold: bool
) -> None:
    tool = gate_tool()
    proposed = {"room": "A1", "guests": 2, "later": False, "tags": ["x"]}
    quick, whole = CardState(tool, proposed), CardState(tool, proposed)
    # The long way: every input walked, every property checked on every change.
    whole._needs_value = list(whole._gated)
    whole._check._still_none = lambda arguments: False  # type: ignore[method-assign]
    if hold:
        for state in (quick, whole):
            state.hold_until_seen("code", "Scroll to see all 3 lines first")
    for path, value in [("room", "A1"), *edits]:
        for state in (quick, whole):
            state.set(path, value)
        assert quick.blockers() == whole.blockers(), (path, value)
        assert quick.confirm_enabled == whole.confirm_enabled
        assert quick.field_errors() == whole.field_errors()
        assert quick.final_arguments() == whole.final_arguments()


def test_each_field_is_coerced_by_its_own_tools_schema() -> None:
    # A field's types are read once per schema: two tools with a `count` of different
    # types, edited in turn, each keep their own.
    def counting(kind: str) -> Tool:
        return Tool.model_validate(
            {
                "name": "count_things",
                "inputSchema": {"type": "object", "properties": {"count": {"type": kind}}},
                "confirmation": {
                    "schemaVersion": 1,
                    "root": {
                        "type": "card",
                        "title": "Count",
                        "children": [{"type": "textField", "bind": "{{count}}", "label": "N"}],
                    },
                },
            }
        )

    whole, text = CardState(counting("integer"), {}), CardState(counting("string"), {})
    for typed in ("5", "6", "5"):
        whole.set("count", typed)
        text.set("count", typed)
        assert whole.final_arguments()["count"] == int(typed)
        assert text.final_arguments()["count"] == typed
    again = CardState(counting("number"), {})  # a tool loaded again, with a new schema
    again.set("count", "2.5")
    assert again.final_arguments()["count"] == 2.5


def test_a_moment_is_read_where_fromisoformat_reads_one_and_nowhere_else() -> None:
    # as_moment no longer asks fromisoformat (and catches its error) for text that does
    # not start with a year: it must find the same moments as asking it always did.
    from datetime import date, datetime

    from notch_app.card.person_locale import as_moment

    def asked(text: str) -> datetime | None:
        text = text.strip()
        try:
            if "T" not in text and " " not in text:
                return datetime.combine(date.fromisoformat(text), datetime.min.time())
            return datetime.fromisoformat(text.replace("z", "Z"))
        except ValueError:
            return None

    for text in [
        "2025-06-03", "20250603", "2025-W23-2", "2025-06-03T14:00", "2025-06-03 14:00",
        "2025-06-03T14:00:00+02:00", "2025-06-03T14:00z", "  2025-06-03  ", "value of text_0",
        "٢٠٢٥-06-03", "+2025-06-03", "T2025-06-03", "June 3, 2025", "12345678", "2025",
        "2025-13-01", "0000-01-01", "9999-12-31T23:59",
    ]:  # fmt: skip
        if not 8 <= len(text.strip()) <= 40:
            continue
        found = as_moment(text)
        assert (found.at if found is not None else None) == asked(text), text

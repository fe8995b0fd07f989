"""What a person sees and what confirm gates on stay exact on the card's keystroke
shortcuts (issue 19: one keystroke's Python work under 0.15 ms).

Each shortcut is driven where it could miss a change: a value typed into the field, a
voice edit (the state changed from outside the field), a staged widget argument, a value
changed and changed back, a change past the point where the words are cut, and an
argument two parts of the card read.
"""

from __future__ import annotations

import random
import string
from typing import Any

from PySide6.QtCore import Qt

from notch_app.card.state import CardState
from notch_app.manifest.model import Tool
from notch_app.ui.blocks.inputs import TextEditor
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.also_sends import CheckNotes


def tool(properties: dict[str, Any], children: list[dict[str, Any]], **view: Any) -> Tool:
    root = {"type": "card", "title": "Run", "children": children, **view}
    return Tool.model_validate(
        {
            "name": "run_task",
            "inputSchema": {"type": "object", "properties": properties},
            "confirmation": {"schemaVersion": 1, "root": root},
        }
    )


def field(path: str, label: str, **more: Any) -> dict[str, Any]:
    return {"type": "textField", "bind": f"{{{{{path}}}}}", "label": label, **more}


def card(qtbot: Any, made: Tool, args: dict[str, Any], **options: Any) -> CardView:
    view = CardView(made, args, **options)
    qtbot.addWidget(view)
    view.show()
    return view


def risk_lines(view: CardView) -> tuple[str, ...]:
    return view.risk.notes.lines


COMMAND = tool(
    {"command": {"type": "string"}, "note": {"type": "string"}},
    [field("command", "Command"), field("note", "Note")],
)


def test_the_risk_follows_the_command_and_not_a_field_beside_it(qtbot: Any) -> None:
    view = card(qtbot, COMMAND, {"command": "ls", "note": "tidy up"})
    driver = CardDriver(view)
    assert risk_lines(view) == ()
    driver.set("note", "tidy up the build")  # typed: the risk reading is not asked again
    assert risk_lines(view) == ()
    view.state().set("command", "rm -rf build")  # a voice edit of what runs
    assert risk_lines(view) == ("Deletes build recursively, without asking (rm)",)
    driver.set("note", "harmless, says the agent")
    assert risk_lines(view) == ("Deletes build recursively, without asking (rm)",)
    driver.set("command", "ls")
    assert risk_lines(view) == () and not view.risk.notes.isVisibleTo(view)
    driver.set("command", "rm -rf build")  # and back again
    assert view.risk.notes.isVisibleTo(view)


def test_a_staged_widget_argument_is_read_for_its_risk(qtbot: Any) -> None:
    widget = Tool.model_validate(
        {
            "name": "run_task",
            "inputSchema": {
                "type": "object",
                "properties": {"command": {"type": "string"}, "note": {"type": "string"}},
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {"type": "widget", "html": "<p>run</p>", "height": 80, "data": {}},
            },
        }
    )
    view = card(qtbot, widget, {"command": "ls", "note": "x"}, live_pages=False)
    state = view.state()
    assert risk_lines(view) == ()
    state.stage({"note": "only a note"})  # type: ignore[attr-defined]
    assert risk_lines(view) == ()
    state.stage({"command": "rm -rf build"})  # type: ignore[attr-defined]
    assert risk_lines(view) == ("Deletes build recursively, without asking (rm)",)
    state.revert_all()
    assert risk_lines(view) == ()


def test_a_row_the_headline_stops_stating_whole_comes_back_on_the_compact_card(
    qtbot: Any,
) -> None:
    # "ls rm -rf ~" and "ls\nrm -rf ~" read alike on one line; only the first is stated
    # whole by the headline. The second must show as its own row: nothing that runs is
    # out of view on the folded card.
    view = card(qtbot, COMMAND, {"command": "ls rm -rf ~", "note": "n"})
    facts = view.folded_facts
    assert facts is not None and not view.details_open
    assert view.headline_line.text() == "Run `ls rm -rf ~`"
    assert "Command" not in facts.facts()
    for _ in range(2):  # and back, twice
        view.state().set("command", "ls\nrm -rf ~")  # a voice edit
        assert view.headline_line.text() == "Run `ls rm -rf ~`"
        assert "Command" in facts.facts()
        assert "Command: ls rm -rf ~" in facts.accessibleDescription()
        view.state().set("note", "n2")
        assert facts.accessibleDescription() == "Command: ls rm -rf ~; Note: n2"
        view.state().set("command", "ls rm -rf ~")
        assert "Command" not in facts.facts()
        assert facts.accessibleDescription() == "Note: n2"
        view.state().set("note", "n")


def test_a_field_error_comes_and_goes_and_comes_back(qtbot: Any) -> None:
    made = tool(
        {"count": {"type": "integer"}, "name": {"type": "string"}},
        [field("count", "Count"), field("name", "Name", required=True)],
    )
    view = card(qtbot, made, {"count": 2, "name": "Ada"}, compact=False)
    driver = CardDriver(view)
    for _ in range(2):
        driver.set("count", "x2")
        assert view.editor("count").error == "must be a whole number"
        assert not view.state().confirm_enabled
        driver.set("count", "5")
        assert view.editor("count").error is None
        assert view.state().confirm_enabled
    driver.set("name", "")
    assert view.editor("name").error == "is required"
    assert not view.state().confirm_enabled
    view.state().set("name", "Lee")  # a voice edit
    assert view.editor("name").error is None and view.state().confirm_enabled
    assert view.press("confirm")


def test_the_confirm_words_stay_the_headlines_past_the_cut(qtbot: Any) -> None:
    # The button's label is live text too ("Send {{note}}"): a change past the point
    # where the headline cuts the note leaves the headline's words the same, and the
    # button must still read them, not the label's uncut text.
    made = tool(
        {"note": {"type": "string"}},
        [field("note", "Note")],
        footer=[
            {
                "type": "actions",
                "items": [
                    {"label": "Cancel", "role": "cancel"},
                    {"label": "Send {{note}}", "role": "confirm"},
                ],
            }
        ],
    )
    long = "a" * 70
    view = card(qtbot, made, {"note": long})
    button = view.confirm_button()
    assert button is not None
    said = view.headline_line.current.confirm
    assert button.text() == said and said.endswith("…")  # the note cut, as in a headline
    for note in (long[:-1] + "b", long, long[:-1] + "b"):
        view.state().set("note", note)  # only its end changes: past the cut
        assert view.headline_line.current.confirm == said
        assert button.text() == said
    view.state().set("note", "short")
    assert button.text() == "Send short" == view.headline_line.current.confirm


def test_fill_in_is_said_while_any_field_of_that_label_is_untouched(qtbot: Any) -> None:
    made = tool(
        {"home": {"type": "string"}, "work": {"type": "string"}},
        [field("home", "Phone", required=True), field("work", "Phone", required=True)],
    )
    view = card(qtbot, made, {}, compact=False)
    driver = CardDriver(view)
    assert driver.blockers_text() == "Fill in Phone"
    driver.set("home", "1")
    assert driver.blockers_text() == "Fill in Phone"  # "work" is still untouched
    driver.set("home", "")
    assert driver.blockers_text() == "Fill in Phone"
    driver.set("work", "2")
    driver.set("work", "")
    assert driver.blockers_text() == "Phone is required"  # both touched, both blank
    driver.set("work", "2")
    assert driver.blockers_text() == "Phone is required"  # home is still blank
    driver.set("home", "1")
    assert driver.blockers_text() == "" and view.state().confirm_enabled


def test_the_card_state_gives_the_same_no_errors_dict_until_an_error(qtbot: Any) -> None:
    made = tool({"count": {"type": "integer"}}, [field("count", "Count")])
    state = CardState(made, {"count": 1})
    first = state.field_errors()
    state.set("count", "2")
    assert state.field_errors() is first and first == {"count": None}
    state.set("count", "x")
    assert state.field_errors() == {"count": "must be a whole number"}
    state.set("count", "3")
    assert state.field_errors() == {"count": None}


def test_hidden_characters_are_said_as_a_value_goes_and_comes_back(qtbot: Any) -> None:
    made = tool(
        {"note": {"type": "string"}, "who": {"type": "string"}},
        [field("note", "Note"), field("who", "Who")],
    )
    view = card(qtbot, made, {"note": "Lunch", "who": "Sam"})
    state = view.state()

    def hidden() -> list[str]:
        """The check lines on the card about hidden characters (none while it has none)."""
        notes = view.findChild(CheckNotes)
        lines = notes.lines if notes is not None and notes.isVisibleTo(view) else ()
        return [line for line in lines if "hidden characters" in line]

    for _ in range(2):
        state.set("note", "L\u200bunch")  # a voice edit puts a zero-width space in
        assert hidden() == ["Note holds hidden characters: L⟨U+200B⟩unch"]
        assert "Note holds hidden characters" in CardDriver(view).visible_text()
        state.set("who", "Lee")  # an edit elsewhere keeps the line
        assert len(hidden()) == 1
        state.set("note", "Lunch")
        assert hidden() == []
        state.set("who", "Sam")


def test_a_path_bound_twice_syncs_the_field_built_last(qtbot: Any) -> None:
    # Monospace text areas are built with the card; the one-line field bound to the
    # same argument is folded, built when Details opens, and takes the area's place as
    # the path's editor after the card has already followed edits.
    made = tool(
        {"note": {"type": "string"}, "code": {"type": "string"}},
        [
            field("code", "Code", multiline=True, monospace=True),
            field("note", "Note", multiline=True, monospace=True),
            field("note", "Note again"),
        ],
    )
    view = card(qtbot, made, {"note": "Lunch", "code": "ls"})
    state = view.state()
    state.set("code", "ls -l")  # the card follows an edit before the fold is built
    view.open_details()
    editor = view.editor("note")
    assert isinstance(editor, TextEditor) and not editor.multiline
    for value in ("Dinner", "Tea", "Dinner"):
        state.set("note", value)  # a voice edit, after the fold was built
        assert editor.line.text() == value


def test_a_folded_row_follows_an_argument_its_words_read_besides_its_own(
    qtbot: Any, monkeypatch: Any
) -> None:
    # An amount's row says its currency, another argument: an edit of the currency
    # alone changes it. A row passed over for many edits follows its own at once.
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")
    made = tool(
        {
            "amount": {"type": "number"},
            "currency": {"type": "string"},
            "payee": {"type": "string"},
            "memo": {"type": "string"},
            "command": {"type": "string"},
        },
        [field("amount", "Amount"), field("payee", "Payee"), field("memo", "Memo")],
    )
    # A command leads the headline ("Run `ls`"), so the amount has a row of its own.
    args = {"amount": 12.5, "currency": "EUR", "payee": "Ada", "memo": "m", "command": "ls"}
    view = card(qtbot, made, args)
    facts = view.folded_facts
    assert facts is not None and not view.details_open
    assert view.headline_line.text() == "Run `ls`"
    state = view.state()
    assert facts.facts()["Amount"] == "€12.50"
    for memo in ("m1", "m12", "m123", "m1"):
        state.set("memo", memo)  # edits elsewhere: the other rows are passed over
    state.set("currency", "USD")  # a voice edit of what the amount's words read
    assert facts.facts()["Amount"] == "US$12.50"
    state.set("payee", "Lee")
    assert facts.facts()["Payee"] == "Lee"
    state.set("currency", "EUR")
    assert facts.facts() == {"Amount": "€12.50", "Payee": "Lee", "Memo": "m1"}


def test_confirm_follows_the_same_reason_going_and_coming_back(qtbot: Any) -> None:
    made = Tool.model_validate(
        {
            "name": "book_room",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "guests": {"type": "integer", "minimum": 1},
                    "room": {"type": "string"},
                },
                "required": ["room"],
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Book",
                    "children": [
                        field("guests", "Guests"),
                        field("room", "Room", required=True),
                    ],
                    "footer": [
                        {
                            "type": "actions",
                            "items": [
                                {"label": "Cancel", "role": "cancel"},
                                {"label": "Book", "role": "confirm"},
                            ],
                        }
                    ],
                },
            },
        }
    )
    view = card(qtbot, made, {"guests": 2, "room": "A1"}, compact=False)
    driver, button = CardDriver(view), view.confirm_button()
    assert button is not None and button.isEnabled()
    for _ in range(2):
        driver.set("guests", "0")
        assert driver.blockers_text() == "Guests must be at least 1"
        assert not button.isEnabled()
        driver.set("guests", "-0")  # the same reason again: nothing new to say
        assert driver.blockers_text() == "Guests must be at least 1"
        driver.set("room", "")  # a second reason, worded by what was touched
        assert driver.blockers_text() == "Guests must be at least 1; Room is required"
        driver.set("room", "B2")
        assert driver.blockers_text() == "Guests must be at least 1"
        driver.set("guests", "3")
        assert driver.blockers_text() == "" and button.isEnabled()


def test_a_cards_own_text_follows_only_what_it_reads(qtbot: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")
    made = tool(
        {
            "note": {"type": "string"},
            "who": {"type": "string"},
            "amount": {"type": "number"},
            "currency": {"type": "string"},
            "memo": {"type": "string"},
        },
        [
            {"type": "text", "text": "About to send {{note}} to {{who}}"},
            {"type": "text", "text": "Pay {{amount}} {{currency}} now"},
            field("note", "Note"),
            field("who", "Who"),
            field("memo", "Memo"),
        ],
    )
    args = {"note": "n", "who": "Ada", "amount": 5, "currency": "EUR", "memo": "m"}
    view = card(qtbot, made, args, compact=False)
    driver, state = CardDriver(view), view.state()

    def texts() -> list[str]:
        shown = driver.visible_text().splitlines()
        return [t for t in shown if t.startswith(("About to send", "Pay "))]

    assert texts() == ["About to send n to Ada", "Pay €5.00 now"]
    driver.set("memo", "elsewhere")
    assert texts() == ["About to send n to Ada", "Pay €5.00 now"]
    state.set("note", "the report")  # a voice edit
    driver.set("who", "Lee")
    assert texts() == ["About to send the report to Lee", "Pay €5.00 now"]
    state.set("currency", "USD")  # what the amount's words read
    assert texts() == ["About to send the report to Lee", "Pay US$5.00 now"]
    state.set("note", "n")
    state.set("currency", "EUR")
    assert texts() == ["About to send n to Lee", "Pay €5.00 now"]


def test_a_row_said_to_fit_without_measuring_is_one_elidedtext_gives_back_whole(
    qtbot: Any,
) -> None:
    # Rows whose plain ASCII glyphs add up to well under their room skip Qt's
    # elidedText: for any such text, elidedText must give it back whole.
    made = tool({"note": {"type": "string"}}, [field("note", "Note")])
    view = card(qtbot, made, {"note": "x"})
    facts = view.folded_facts
    assert facts is not None
    metrics = facts._metrics
    rng = random.Random(19)
    alphabet = string.printable[:95]  # ASCII letters, digits, punctuation and space
    said_to_fit = 0
    for room in (120, 300, 622):
        for length in range(1, 160):
            for chars in (alphabet, "WM@%#", "il.,'|", "Aa "):
                text = "".join(rng.choice(chars) for _ in range(length))
                if facts._surely_fits(text, room):
                    said_to_fit += 1
                    assert metrics.elidedText(text, Qt.TextElideMode.ElideRight, room) == text
    assert said_to_fit > 100  # the shortcut is taken, and checked, often
    assert not facts._surely_fits("é" * 3, 622)  # other scripts go to elidedText
    view.state().set("note", "W" * 200)  # too long: cut with …, as measured
    assert facts.drawn()["Note"].endswith("…")


def test_a_folded_row_follows_its_visibleif_and_its_length_back_and_forth(
    qtbot: Any,
) -> None:
    made = tool(
        {"later": {"type": "boolean"}, "when": {"type": "string"}, "note": {"type": "string"}},
        [
            {"type": "toggle", "bind": "{{later}}", "label": "Later"},
            {"type": "stack", "visibleIf": "{{later}}", "children": [field("when", "When")]},
            field("note", "Note"),
        ],
    )
    view = card(qtbot, made, {"later": False, "when": "tomorrow", "note": "short"})
    facts, state = view.folded_facts, view.state()
    assert facts is not None and not view.details_open
    assert "When" not in facts.facts()
    for _ in range(2):
        state.set("later", True)  # what the row's place reads, not its own value
        assert facts.facts()["When"] == "tomorrow"
        state.set("note", "W" * 300)  # too long for its lines: cut, confirm held
        assert facts.drawn()["Note"].endswith("…")
        assert "Open Details to see all of Note" in state.blockers()
        state.set("note", "short")
        assert "Open Details to see all of Note" not in state.blockers()
        state.set("later", False)
        assert "When" not in facts.facts()

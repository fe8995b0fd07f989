"""Gating, keyboard and accessibility, through real widget interaction."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit

from notch_app.ui.card_driver import CardDriver

PROPS: dict[str, Any] = {
    "text": {"type": "string"},
    "later": {"type": "boolean"},
    "when": {"type": "string"},
    "notify": {"type": "boolean"},
    "count": {"type": "integer"},
    "note": {"type": "string"},
}

CHILDREN: list[dict[str, Any]] = [
    {"type": "textField", "bind": "{{text}}", "label": "Text", "required": True},
    {"type": "toggle", "bind": "{{later}}", "label": "Send later"},
    {
        "type": "stack",
        "visibleIf": "{{later}}",
        "children": [{"type": "textField", "bind": "{{when}}", "label": "When", "required": True}],
    },
    {"type": "toggle", "bind": "{{notify}}", "label": "Notify", "required": True},
    {"type": "textField", "bind": "{{count}}", "label": "Count"},
    {"type": "textField", "bind": "{{note}}", "label": "Note", "multiline": True},
]


def make(qtbot: Any, card: Any, **args: Any) -> Any:
    view = card(CHILDREN, PROPS, {"text": "hello", "later": False, "notify": False, **args})
    qtbot.addWidget(view)
    view.show()
    return view


def test_required_input_gates_confirm_and_says_why(qtbot: Any, card: Any) -> None:
    view = make(qtbot, card)
    button = view.confirm_button()
    assert button.isEnabled()
    CardDriver(view).set("text", "   ")
    assert not button.isEnabled()
    assert "Text" in button.toolTip()
    assert "Text" in button.accessibleDescription()
    assert "Text" in CardDriver(view).blockers_text()
    assert not view.press("confirm")
    CardDriver(view).set("text", "back")
    assert button.isEnabled()
    assert CardDriver(view).blockers_text() == ""


def test_hidden_required_input_does_not_gate_until_shown(qtbot: Any, card: Any) -> None:
    view = make(qtbot, card)
    assert not view.is_input_visible("when")
    assert view.confirm_button().isEnabled()
    CardDriver(view).set("later", True)  # flips the real switch
    assert view.is_input_visible("when")
    assert not view.confirm_button().isEnabled()
    CardDriver(view).set("when", "tomorrow 9:00")
    assert view.confirm_button().isEnabled()
    CardDriver(view).set("later", False)
    assert not view.is_input_visible("when")


def test_a_required_toggle_that_is_off_never_gates(qtbot: Any, card: Any) -> None:
    view = make(qtbot, card)
    assert view.state().value("notify") is False
    assert view.confirm_button().isEnabled()


def test_abc_in_an_integer_field_keeps_confirm_disabled_with_the_reason_at_the_field(
    qtbot: Any,
    watch: Any,
    card: Any,
) -> None:
    view = make(qtbot, card, count=3)
    got = watch(view)
    CardDriver(view).set("count", "abc")
    assert not view.confirm_button().isEnabled()
    errors = [e.error_shown() for e in view.editors() if e.error_shown()]
    assert len(errors) == 1 and "whole number" in errors[0]
    assert errors[0] in CardDriver(view).visible_text()  # shown on the card, under the field
    assert view.input_widget("count").property("invalid") is True
    QTest.keyClick(view.input_widget("count"), Qt.Key.Key_Return)
    assert got == []  # Enter does not get past the gate
    CardDriver(view).set("count", "12")
    assert view.confirm_button().isEnabled()
    QTest.keyClick(view.input_widget("count"), Qt.Key.Key_Return)
    assert got[0][0] is True and got[0][1]["count"] == 12 and "count" in got[0][2]


def test_enter_confirms_from_a_single_line_field(qtbot: Any, watch: Any, card: Any) -> None:
    view = make(qtbot, card)
    got = watch(view)
    QTest.keyClick(view.input_widget("text"), Qt.Key.Key_Return)
    assert got == [(True, {"text": "hello", "later": False, "notify": False}, [])]


def test_enter_in_a_multiline_field_is_a_new_line_and_ctrl_enter_confirms(
    qtbot: Any, watch: Any, card: Any
) -> None:
    view = make(qtbot, card)
    got = watch(view)
    note = view.input_widget("note")
    note.setFocus()
    QTest.keyClicks(note, "one")
    QTest.keyClick(note, Qt.Key.Key_Return)
    QTest.keyClicks(note, "two")
    assert got == []
    assert view.state().value("note") == "one\ntwo"
    QTest.keyClick(note, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert got and got[0][0] is True and got[0][1]["note"] == "one\ntwo"


def test_escape_cancels_with_no_arguments(qtbot: Any, watch: Any, card: Any) -> None:
    view = make(qtbot, card)
    got = watch(view)
    QTest.keyClick(view.input_widget("text"), Qt.Key.Key_Escape)
    assert got == [(False, {}, [])]
    assert not view.press("confirm")  # decided once only


def test_every_input_has_its_label_as_accessible_name_and_tab_follows_the_card(
    qtbot: Any,
    card: Any,
) -> None:
    view = make(qtbot, card, later=True)
    names = {"text": "Text", "later": "Send later", "when": "When", "notify": "Notify",
             "count": "Count", "note": "Note"}  # fmt: skip
    for path, name in names.items():
        assert view.input_widget(path).accessibleName() == name
    order = [view.input_widget(p) for p in names]
    view.activateWindow()
    order[0].setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is order[0], timeout=1000)
    for expected in order[1:]:
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        assert QApplication.focusWidget() is expected


def test_chips_enter_adds_a_chip_and_does_not_confirm(qtbot: Any, card: Any, watch: Any) -> None:
    view = card(
        [{"type": "chips", "bind": "{{to}}", "label": "To", "required": True}],
        {"to": {"type": "array", "items": {"type": "string"}}},
        {"to": []},
    )
    qtbot.addWidget(view)
    got = watch(view)
    assert not view.confirm_button().isEnabled()
    entry = view.input_widget("to").findChild(QLineEdit)
    QTest.keyClicks(entry, "sam@example.com")
    QTest.keyClick(entry, Qt.Key.Key_Return)
    assert got == []
    assert view.state().value("to") == ["sam@example.com"]
    assert view.confirm_button().isEnabled()
    QTest.keyClick(entry, Qt.Key.Key_Return)  # empty entry: Enter confirms
    assert got and got[0][1] == {"to": ["sam@example.com"]}


def test_revert_shows_the_proposed_value_in_the_widget(qtbot: Any, card: Any) -> None:
    view = make(qtbot, card)
    CardDriver(view).set("text", "changed")
    view.state().revert("text")
    assert view.input_widget("text").text() == "hello"


def test_a_toggle_the_schema_refuses_shows_why_under_it(qtbot: Any, card: Any) -> None:
    view = card(
        [{"type": "toggle", "bind": "{{agree}}", "label": "I agree"}],
        {"agree": {"type": "boolean", "const": True}},
        {"agree": False},
    )
    qtbot.addWidget(view)
    editor = view.editor("agree")
    assert editor.error_shown() and editor.error_shown() in CardDriver(view).visible_text()
    assert not view.confirm_button().isEnabled()  # type: ignore[union-attr]
    CardDriver(view).set("agree", True)
    assert editor.error_shown() == ""
    assert view.confirm_button().isEnabled()  # type: ignore[union-attr]

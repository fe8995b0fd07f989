"""Gating, keyboard and accessibility, through real widget interaction."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QLineEdit, QPushButton

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


def _press_tab() -> None:
    """Tab, as a person would, from the widget that has the focus."""
    focused = QApplication.focusWidget()
    assert focused is not None, "nothing has the focus"
    QTest.keyClick(focused, Qt.Key.Key_Tab)


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
    ctrl = Qt.KeyboardModifier.ControlModifier
    QTest.keyClick(view.input_widget("count"), Qt.Key.Key_Return, ctrl)
    assert got == []  # the keyboard's yes does not get past the gate
    CardDriver(view).set("count", "12")
    assert view.confirm_button().isEnabled()
    QTest.keyClick(view.input_widget("count"), Qt.Key.Key_Return, ctrl)
    assert got[0][0] is True and got[0][1]["count"] == 12 and "count" in got[0][2]


def test_enter_in_a_single_line_field_never_approves(qtbot: Any, watch: Any, card: Any) -> None:
    # Issue 20, finding 3: " there" added to the Subject and Enter sent the email.
    view = make(qtbot, card)
    got = watch(view)
    field = view.input_widget("text")
    field.setFocus()
    QTest.keyClick(field, Qt.Key.Key_End)
    QTest.keyClicks(field, " there")
    QTest.keyClick(field, Qt.Key.Key_Return)
    QTest.keyClick(field, Qt.Key.Key_Enter)  # the keypad's Enter too
    assert got == [] and view.decision is None
    assert view.state().value("text") == "hello there"
    label = view.confirm_button().text()
    assert "Ctrl+Enter" in view.enter_hint and f"“{label}”" in view.enter_hint
    assert "Ctrl+Enter" in CardDriver(view).visible_text()
    # Ctrl+Enter is the card's own chord: deliberate, never a habit's Enter.
    QTest.keyClick(field, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert got and got[0][0] is True and got[0][1]["text"] == "hello there"


def test_enter_on_the_card_itself_never_approves(qtbot: Any, watch: Any, card: Any) -> None:
    view = make(qtbot, card)
    got = watch(view)
    QTest.keyClick(view, Qt.Key.Key_Return)
    assert got == [] and "Ctrl+Enter" in view.enter_hint


def test_enter_on_the_focused_confirm_button_approves(qtbot: Any, watch: Any, card: Any) -> None:
    view = make(qtbot, card)
    got = watch(view)
    view.activateWindow()
    field = view.input_widget("text")
    field.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field, timeout=1000)
    send: QAbstractButton | None = view.confirm_button()
    assert send is not None
    for _ in range(12):  # Tab along the card, as a person would, to the confirm button
        if QApplication.focusWidget() is send:
            break
        _press_tab()
    assert QApplication.focusWidget() is send
    QTest.keyClick(send, Qt.Key.Key_Return)
    assert got == [(True, {"text": "hello", "later": False, "notify": False}, [])]


def test_enter_on_the_focused_cancel_button_declines(qtbot: Any, watch: Any, card: Any) -> None:
    view = make(qtbot, card)
    got = watch(view)
    cancel = next(b for b in view.findChildren(QPushButton) if b.text() == "Cancel")
    view.activateWindow()
    cancel.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is cancel, timeout=1000)
    QTest.keyClick(cancel, Qt.Key.Key_Return)
    assert got == [(False, {}, [])]


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
    QTest.keyClick(note, Qt.Key.Key_Enter)
    assert got == []
    assert view.state().value("note") == "one\ntwo\n"
    assert view.enter_hint == ""  # Enter did what it does there: nothing to explain
    QTest.keyClick(note, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert got and got[0][0] is True and got[0][1]["note"] == "one\ntwo\n"


def test_enter_in_a_select_chooses_and_never_approves(qtbot: Any, watch: Any, card: Any) -> None:
    view = card(
        [{"type": "select", "bind": "{{voice}}", "label": "Voice",
          "options": [{"label": "Rachel", "value": "rachel"}, {"label": "Adam", "value": "adam"}]}],
        {"voice": {"type": "string", "enum": ["rachel", "adam"]}},
        {"voice": "rachel"},
    )  # fmt: skip
    qtbot.addWidget(view)
    view.show()
    got = watch(view)
    box = view.input_widget("voice")
    view.activateWindow()
    box.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is box, timeout=1000)
    QTest.keyClick(box, Qt.Key.Key_Down)  # a closed list steps to the next choice
    QTest.keyClick(box, Qt.Key.Key_Return)
    assert got == [] and view.decision is None
    assert view.state().value("voice") == "adam"
    assert "Ctrl+Enter" in view.enter_hint
    box.showPopup()
    qtbot.waitUntil(lambda: box.view().isVisible(), timeout=2000)
    popup = box.view()
    popup.setCurrentIndex(box.model().index(0, 0))
    QTest.keyClick(popup, Qt.Key.Key_Return)  # Enter in the open list picks the choice
    qtbot.waitUntil(lambda: not popup.isVisible(), timeout=2000)
    assert view.state().value("voice") == "rachel"
    assert got == [] and view.decision is None


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
        _press_tab()
        assert QApplication.focusWidget() is expected


def test_chips_enter_adds_a_chip_and_never_confirms(qtbot: Any, card: Any, watch: Any) -> None:
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
    QTest.keyClick(entry, Qt.Key.Key_Return)  # empty entry: still a field, still no yes
    assert got == [] and "Ctrl+Enter" in view.enter_hint
    QTest.keyClick(entry, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
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
    assert not view.confirm_button().isEnabled()
    CardDriver(view).set("agree", True)
    assert editor.error_shown() == ""
    assert view.confirm_button().isEnabled()

"""Notch's own lines that a new card shows hidden are made when first needed.

The reply line's field, its note and its "Heard:" line, and the "changed since" marks of
a card with no changes, used to be built and polished hidden with every card (issue 19
item 1: part of the request-to-paint time). Each is made on first need, in its place:
the field opens under the invitation, the note under the field, "Heard:" above it, and
the collapsed line is as tall as before.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit

from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.change_marks import ChangeMarks

ROOT = {
    "type": "card",
    "title": "Send WhatsApp message",
    "children": [
        {"type": "textField", "bind": "{{to}}", "label": "To", "required": True},
        {"type": "textField", "bind": "{{text}}", "label": "Message"},
    ],
    "footer": [
        {
            "type": "actions",
            "items": [
                {"label": "Cancel", "role": "cancel"},
                {"label": "Send", "role": "confirm"},
            ],
        }
    ],
}
PROPERTIES = {"to": {"type": "string"}, "text": {"type": "string"}}
ARGS = {"to": "Marc", "text": "Running late"}


def _y(view: CardView, widget: Any) -> int:
    return int(widget.mapTo(view, widget.rect().topLeft()).y())


def test_a_new_card_builds_no_hidden_reply_field_and_opens_it_in_place(
    qtbot: Any, make_tool: Any
) -> None:
    view = CardView(make_tool(ROOT, PROPERTIES), ARGS)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    field = view.reply_field
    assert field.findChildren(QLineEdit) == [] and field.findChildren(QLabel) == []
    assert not field.is_open and field.heard_text == ""
    closed = field.height()
    qtbot.mouseClick(field.invitation, Qt.MouseButton.LeftButton)
    assert field.is_open and field.line.isVisible() and field.line.isEnabled()
    qtbot.waitUntil(field.line.hasFocus)
    field.show_heard("yes, send it")
    field.show_note("Not yet: fill in To first.")
    qtbot.waitUntil(lambda: field.height() > closed)
    # In the column's order: heard, the field, the note.
    assert _y(view, field.heard) < _y(view, field.line) < _y(view, field.note)
    qtbot.keyClick(field.line, Qt.Key.Key_Escape)
    assert not field.is_open and not field.line.isEnabled() and not field.note.isVisible()
    field.show_heard(None)
    qtbot.waitUntil(lambda: field.height() == closed)


def test_marks_without_changes_build_no_labels(qtbot: Any) -> None:
    from notch_app.ui import theme

    marks = ChangeMarks(theme.look("dark"), ())
    qtbot.addWidget(marks)
    assert marks.isHidden() and marks.findChildren(QLabel) == []
    assert marks.lines == () and marks.accessibleName()


def test_risk_lines_are_made_with_the_first_risk(qtbot: Any, make_tool: Any) -> None:
    command = {
        "type": "card",
        "title": "Run a command",
        "children": [{"type": "textField", "bind": "{{command}}", "label": "Command"}],
        "footer": ROOT["footer"],
    }
    view = CardView(make_tool(command, {"command": {"type": "string"}}), {"command": "ls"})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    notes = view.risk.notes
    assert notes.lines == () and notes.findChildren(QLabel) == []
    assert not notes.isVisibleTo(view)
    view.state().set("command", "rm -rf build")
    qtbot.waitUntil(lambda: notes.isVisibleTo(view))
    assert notes.lines and notes.label.isVisibleTo(view) and "rm" in notes.label.text()
    assert notes.height() > notes.label.height() > 0

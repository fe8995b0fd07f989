"""A compact card builds its folded one-line fields when first needed (issue 19), and
holds confirm exactly as when they were built with it.

The widgets of a folded block of plain inputs are made when Details opens, a field
under it is asked for, its value changes or Tab unfolds the card; everything the card
decides while they are not built comes from CardState.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication, QLineEdit

from notch_app.manifest.model import Tool
from notch_app.ui.card_view import CardView
from notch_app.ui.notch.fitting import card_has_inputs
from notch_app.ui.widgets.details_fold import DETAILS_REASON


def _tool(**subject: Any) -> Tool:
    return Tool.model_validate(
        {
            "name": "send_note",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "to": {"type": "string", "title": "To"},
                    "subject": {"type": "string", "title": "Subject"},
                    "urgent": {"type": "boolean", "title": "Urgent"},
                },
                "required": ["to"],
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Send a note to {{to}}",
                    "children": [
                        {"type": "keyValue", "items": [{"label": "To", "value": "{{to}}"}]},
                        {"type": "textField", "bind": "{{subject}}", "label": "Subject",
                         **subject},
                        {"type": "toggle", "bind": "{{urgent}}", "label": "Urgent"},
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
                },
            },
        }
    )  # fmt: skip


def _card(qtbot: Any, subject: str, **block: Any) -> CardView:
    view = CardView(
        _tool(**block),
        {"to": "sam@example.com", "subject": subject, "urgent": False},
        live_pages=False,
        screen_height=1080,
    )
    qtbot.addWidget(view)
    view.show()
    QApplication.processEvents()
    return view


def _lines(view: CardView) -> list[QLineEdit]:
    """The card's one-line fields (not the reply line under its footer)."""
    reply = view.reply_field
    return [w for w in view.findChildren(QLineEdit) if not reply.isAncestorOf(w)]


def test_folded_plain_fields_wait_for_details_and_the_notch_still_takes_typing(
    qtbot: Any,
) -> None:
    view = _card(qtbot, "Lunch")
    assert not view.details_open
    assert _lines(view) == []  # not built: the card is half the work
    assert view.has_unbuilt_fields and card_has_inputs(view)
    assert view.state().confirm_enabled
    view.open_details()
    field = view.input_widget("subject")
    assert isinstance(field, QLineEdit) and field.text() == "Lunch"
    assert field.isVisibleTo(view) and not view.has_unbuilt_fields


def test_a_value_cut_short_holds_confirm_while_its_field_is_not_built(qtbot: Any) -> None:
    view = _card(qtbot, "word " * 300)
    assert _lines(view) == []
    state = view.state()
    assert not state.confirm_enabled
    assert DETAILS_REASON.format(label="Subject") in state.blockers()
    assert view.press("confirm") is False
    view.open_details()
    assert state.confirm_enabled


def test_asking_for_a_folded_field_builds_it_folded(qtbot: Any) -> None:
    view = _card(qtbot, "Lunch")
    field = view.input_widget("subject")
    assert not view.details_open and not field.isVisibleTo(view)
    assert view.is_input_visible("subject")  # folded is on the card, as a fact
    assert [e.path for e in view.editors()] == ["subject", "urgent"]


def test_a_changed_folded_value_builds_its_field_and_its_checks(qtbot: Any) -> None:
    view = _card(qtbot, "Lunch")
    view.state().set("subject", "L\u200bunch")  # a hidden character, from a voice edit
    assert _lines(view)  # built: its check line reads the field
    assert any("hidden characters" in line for line in view._checks.lines())


def test_a_text_area_or_a_hidden_character_is_built_with_the_card(qtbot: Any) -> None:
    area = _card(qtbot, "line one\nline two", multiline=True)
    assert not area.has_unbuilt_fields  # its "scroll to see all" lives in the widget
    marked = _card(qtbot, "L\u200bunch")
    assert _lines(marked)
    assert any("hidden characters" in line for line in marked._checks.lines())

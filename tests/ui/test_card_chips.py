"""Chips are removed as a person would: a click on the painted ×, or Delete on a chip that
has the keyboard focus; anywhere else on the chip does nothing."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt

from notch_app.ui.card_driver import CardDriver, click, key_click
from notch_app.ui.widgets.chips_box import ChipsBox

TAGS = [{"type": "chips", "bind": "{{to}}", "label": "To"}]
PROPS = {"to": {"type": "array", "items": {"type": "string"}}}


def _box(view: Any) -> ChipsBox:
    box: ChipsBox | None = view.findChild(ChipsBox)
    assert box is not None
    return box


def test_a_click_on_the_x_removes_the_chip(qtbot: Any, card: Any) -> None:
    view = card(TAGS, PROPS, {"to": ["sam@example.com", "lee@example.com"]})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    box = _box(view)
    first = box.chips()[0]
    click(first, QPoint(4, first.height() // 2))  # on its text: nothing happens
    assert view.state().value("to") == ["sam@example.com", "lee@example.com"]
    click(first, first.remove_rect().center())
    assert view.state().value("to") == ["lee@example.com"]
    assert "sam@example.com" not in CardDriver(view).visible_text().splitlines()
    qtbot.waitUntil(box.entry.hasFocus)  # typing goes on where the chips are


def test_delete_on_a_focused_chip_removes_it(qtbot: Any, card: Any) -> None:
    view = card(TAGS, PROPS, {"to": ["sam@example.com", "lee@example.com"]})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    second = _box(view).chips()[1]
    assert second.focusPolicy() & Qt.FocusPolicy.TabFocus  # reachable with Tab
    second.setFocus()
    qtbot.waitUntil(second.hasFocus)
    key_click(second, Qt.Key.Key_Delete)
    assert view.state().value("to") == ["sam@example.com"]
    assert view.state().edited_paths() == ["to"]

"""The "Details" toggle draws itself as the style sheet it used to carry drew it.

Its own style sheet cost ~0.2 ms per card (a style object and a parse for every card);
it now paints its words itself. A person sees the same pixels: each state (closed and
open, with and without the keyboard, pressed) is compared with a flat button carrying
the old sheet, in both themes.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLineEdit, QPushButton, QWidget

from notch_app.ui import theme
from notch_app.ui.widgets.details_fold import DetailsToggle


def _old_style(look: theme.Look, parent: QWidget, text: str) -> QPushButton:
    """The toggle as it was drawn before: a flat button with a style sheet of its own."""
    button = QPushButton(text, parent)
    button.setObjectName("DetailsToggle")
    button.setFlat(True)
    button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
    theme.style_text(button, "DetailsToggle", look)
    button.setStyleSheet(
        "QPushButton#DetailsToggle { border: none; background: transparent;"
        f" color: {look.color('link').name()}; padding: 2px 0px; text-align: left; }}"
    )
    return button


def _shot(qtbot: Any, look: theme.Look, make: Any, *, focus: bool, down: bool) -> QImage:
    host = QWidget()
    qtbot.addWidget(host)
    host.setFont(theme.card_font())
    host.setPalette(look.base_palette)
    host.setAutoFillBackground(True)
    host.resize(140, 40)
    button = make(host)
    button.resize(button.sizeHint().width() + 30, button.sizeHint().height())
    button.move(5, 5)
    other = QLineEdit(host)
    other.move(0, 30)
    host.show()
    host.activateWindow()
    (button if focus else other).setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: button.hasFocus() == focus)
    button.setDown(down)
    return host.grab().toImage()


@pytest.mark.parametrize("theme_name", ["dark", "light"])
@pytest.mark.parametrize("opened", [False, True])
def test_the_toggle_looks_as_its_style_sheet_drew_it(
    qtbot: Any, theme_name: str, opened: bool
) -> None:
    look = theme.look(theme_name)
    text = "Hide details \u25b4" if opened else "Details \u25be"

    def new(host: QWidget) -> DetailsToggle:
        toggle = DetailsToggle(look, host)
        toggle.set_count(3)
        toggle.set_open(opened)
        assert toggle.text() == text and toggle.styleSheet() == ""
        return toggle

    for focus in (False, True):
        for down in (False, True):
            old = _shot(qtbot, look, lambda h: _old_style(look, h, text), focus=focus, down=down)
            now = _shot(qtbot, look, new, focus=focus, down=down)
            assert now == old, (theme_name, opened, focus, down)

"""Confirm held on a card until the overlay arms it.

The overlay holds confirm on a card that just appeared, changed or moved under the
pointer. A held confirm button is dimmed and takes no clicks; a click or key the person
made while it was held, reaching the card only once it is armed, is dropped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QInputEvent
from PySide6.QtWidgets import QAbstractButton, QGraphicsOpacityEffect

from notch_app.ui.input_time import made_at

HELD_CONFIRM_OPACITY = 0.4
"""A held (not yet armed) confirm button is drawn at this opacity: its own colour,
plainly not ready, unlike the grey of a confirm the card's required fields block."""


class ConfirmHold(QObject):
    """Whether the card's confirm may act, and since when (armed from the start)."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.armed = True
        self._armed_since = 0.0  # time.monotonic() when confirm last armed

    def set_armed(self, armed: bool, buttons: Sequence[QAbstractButton]) -> None:
        """Let the confirm `buttons` act (True), or hold them (False): dimmed, taking no
        clicks, a press begun before dropped so it cannot end in a click."""
        if armed and not self.armed:
            self._armed_since = time.monotonic()
        self.armed = armed
        for button in buttons:
            if armed:
                # A press made before arming but handled after it (a busy machine) is
                # dropped by eventFilter: what the person pressed on was not this card
                # armed. Watched from the arming on: while held the button takes no
                # mouse event at all, and a filter from its birth would call Python for
                # each of its show, move, resize and paint events (~0.07 ms a card's show).
                button.installEventFilter(self)
            else:
                button.setDown(False)
            button.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, not armed)
            dimming = button.graphicsEffect()
            if dimming is None:
                if armed:
                    continue
                dimming = QGraphicsOpacityEffect(button)
                dimming.setOpacity(HELD_CONFIRM_OPACITY)
                button.setGraphicsEffect(dimming)
            dimming.setEnabled(not armed)  # a disabled effect paints the button as it is

    def made_before_armed(self, event: QInputEvent) -> bool:
        """True for a click or key the person made while confirm was held, which the
        event loop reaches only now that it is armed: it was aimed at what was on screen
        then (the card before a swap, this one still changing), so it must not confirm."""
        made = made_at(event)
        return made is not None and made < self._armed_since

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Only the confirm buttons are watched, from their first arming on (set_armed).
        if (
            event.type() in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick)
            and isinstance(event, QInputEvent)
            and self.made_before_armed(event)
        ):
            event.accept()
            return True
        return super().eventFilter(watched, event)

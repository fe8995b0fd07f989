"""Parking: a card left untouched for `park_after_s` moves to the side notch, its edits
kept; clicking it there (or the idle pill) brings it back in front of any card on screen.
The side notch lists the parked cards by title and the time they were asked.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QTimer

from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.overlay.state import Entry, OverlayState
from notch_app.ui.side_notch import ParkedCard


class OverlayParking(OverlayState):
    """The presenter's parking: the walk-away timer, the side notch's list, restore."""

    def _init_parking(self, describe: Callable[[ConfirmationRequest], str] | None) -> None:
        """`describe` names a parked card whose widgets were never built."""
        # Names a parked card in the side notch's menu without building its widgets.
        self._describe = describe or self._plain_title
        self._park_timer = QTimer(self)
        self._park_timer.setSingleShot(True)
        self._park_timer.timeout.connect(self.park)
        self.side_notch.restoreRequested.connect(self.restore)

    @property
    def park_timer_ms(self) -> int | None:
        """The park time (ms) while the card on screen counts down to parking, else
        None (no card on screen, or parking is off)."""
        timer = self._park_timer
        return timer.interval() if timer.isActive() else None

    def park(self) -> None:
        """Move the card on screen to the side notch (walked away); the next card follows."""
        if self.window.look != "card" or not self._queue:
            return
        self._hold()
        entry = self._queue.pop(0)
        self._park_timer.stop()
        self.window.take_card()
        self.window.release_focus()
        self._parked.append(entry)
        self._update_side_notch()
        self._sink.parked(entry.call_id)
        if self._queue:
            self._show_front()
        else:
            self._decided_in_run = 0
            self.window.show_idle()

    def restore(self, call_id: str) -> None:
        """Bring a parked card back in front of any card on screen."""
        entry = next((e for e in self._parked if e.call_id == call_id), None)
        if entry is None:
            return
        self._parked.remove(entry)
        self._update_side_notch()
        if self.window.look == "card":
            self.window.take_card()  # the card on screen waits, second in line, edits kept
        self._queue.insert(0, entry)
        self._sink.restored(call_id)
        self._done_timer.stop()
        self._show_front()

    @property
    def parked_requests(self) -> tuple[ConfirmationRequest, ...]:
        return tuple(e.request for e in self._parked)

    def _restart_park_timer(self) -> None:
        if self._settings.park_after_s > 0 and self.window.look == "card":
            self._park_timer.start(int(self._settings.park_after_s * 1000))

    def _update_side_notch(self) -> None:
        self.side_notch.set_parked(
            [
                ParkedCard(e.call_id, self._parked_label(e), e.card.icon if e.card else None)
                for e in self._parked
            ]
        )
        last = self._parked[-1].card if self._parked else None  # what a pill click restores
        self.window.set_parked_icon(last.icon if last else None)
        self._follow_notch()

    def _parked_label(self, entry: Entry) -> str:
        title = entry.card.title if entry.card else self._describe(entry.request)
        if entry.request.created_at > 0:
            # Two parked cards for the same tool are told apart by when they were asked.
            asked = time.strftime("%H:%M", time.localtime(entry.request.created_at))
            return f"{title}  ·  {asked}"
        return title

    @staticmethod
    def _plain_title(request: ConfirmationRequest) -> str:
        return f"{request.integration_id} · {request.tool_name}"

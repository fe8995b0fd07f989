"""Confirm held on the card on screen until it has been fully in view, unchanged and
unmoved, for `ARMING_DELAY_MS`, counted from its first frame painted settled.

A card swapped in under the pointer cannot take a click or an Enter aimed at the card
before it, nor one the person made while it was held that a busy machine hands over only
later (the card compares the input's own time); decline is never held. The person's own
edit growing the card is not a swap (`PERSON_EDIT_GRACE_MS`).
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer

from notch_app.ui.overlay.state import Entry, OverlayState

ARMING_DELAY_MS = 600
"""How long a card must have been fully in view, unchanged and unmoved, before confirm acts.

Another client can replace the card on screen at any moment (a supersede, the next card
in the queue) with one of the same layout: a click or Enter aimed at the card before must
not approve its replacement. Security dialogs hold their accept button for the same
reason: Firefox for `security.dialog_enable_delay` (1000 ms, re-applied whenever the
dialog regains focus), Chromium's InputEventActivationProtector for the double-click
interval (~500 ms, restarted when the dialog is re-shown or its bounds change). 600 ms is
above a double-click and a person's reaction to a change (~250 ms), below what reads as a
wait."""

PERSON_EDIT_GRACE_MS = 1000
"""A card that grows or shrinks this soon after the person's own input in it (typing makes
a text area taller, a switch reveals a field) stays armed: the person editing the card is
not a swap, and holding confirm at every line typed would flicker. A card replaced by
another is held whatever the person did."""


class OverlayArming(OverlayState):
    """The presenter's arming: holds, the count from the first settled frame, the arm."""

    def _init_arming(self) -> None:
        """Arming: the card on screen, once settled, accepts confirm after ARMING_DELAY_MS."""
        self._arming_timer = QTimer(self.window)  # ends with the window it arms
        self._arming_timer.setSingleShot(True)
        # Qt's default coarse timer may fire up to 5 % early: 570 ms is not the hold.
        self._arming_timer.setTimerType(Qt.TimerType.PreciseTimer)
        # The card held, settled and waiting for its next frame to be painted: the hold
        # counts from the first frame the person can see, not from when it was asked for
        # (on a busy machine building and painting a card takes 100 ms and more).
        self._arming_waits_frame: str | None = None
        self._arming_timer.timeout.connect(self._on_arming_elapsed)
        self._arming_epoch = 0  # bumped at every hold: a late arming for an older card is void
        self._armed_call_id: str | None = None
        self._person_input: tuple[str, float] | None = None  # (callId, monotonic s)
        self.window.cardMoved.connect(self._on_card_moved)
        self.window.cardSettled.connect(self._start_arming)

    @property
    def armed(self) -> bool:
        """True while the card on screen accepts confirm (click, Enter, voice): it has been
        fully in view, unchanged and unmoved, for ARMING_DELAY_MS. Tests wait for it (or
        for `armedChanged`)."""
        entry = self._front()
        return entry is not None and entry.call_id == self._armed_call_id

    def _hold(self, entry: Entry | None = None) -> None:
        """Stop accepting confirm on the armed card (and hold `entry`'s, about to show);
        arming starts again once the card on screen has settled."""
        self._arming_epoch += 1
        self._arming_timer.stop()
        self._arming_waits_frame = None
        if entry is not None and entry.view is not None:
            entry.view.set_armed(False)
        armed_id, self._armed_call_id = self._armed_call_id, None
        if armed_id is not None:
            was = self._find(armed_id)
            if was is not None and was.view is not None:
                was.view.set_armed(False)
            self.armedChanged.emit(armed_id, False)
            self._update_batch_actions()

    def _on_card_moved(self) -> None:
        entry = self._front()
        if entry is None:
            return
        touched = self._person_input
        if (
            touched is not None
            and touched[0] == entry.call_id
            and (time.monotonic() - touched[1]) * 1000 < PERSON_EDIT_GRACE_MS
        ):
            return  # the person's own edit made the card grow or shrink
        self._hold(entry)

    def _start_arming(self) -> None:
        """Count ARMING_DELAY_MS from the card's next painted frame if the card on screen
        is settled and held."""
        entry = self._front()
        if (
            entry is None
            or entry.card is None
            or entry.call_id == self._armed_call_id
            or self._arming_timer.isActive()
            or self._arming_waits_frame == entry.call_id
            or self.window.is_animating()
        ):
            return
        self._arming_waits_frame = entry.call_id
        entry.card.widget.installEventFilter(self)  # see eventFilter: Paint
        entry.card.widget.update()

    def _count_arming(self) -> None:
        """The card on screen has been painted settled: its hold runs from now."""
        self._arming_waits_frame = None
        self._arming_timer.start(ARMING_DELAY_MS)
        if not self._glance_warmed:
            QTimer.singleShot(0, self._warm_glance_once)  # during the arming delay

    def _on_arming_elapsed(self) -> None:
        # Input already queued when the delay ends was aimed at the held card: it reaches
        # the card first (and does nothing), then the card arms.
        epoch = self._arming_epoch
        QTimer.singleShot(0, self.window, lambda: self._arm(epoch))

    def _arm(self, epoch: int) -> None:
        entry = self._front()
        if epoch != self._arming_epoch or entry is None or entry.view is None:
            return
        if self.window.is_animating():
            return  # it moved after all: cardSettled starts the count again
        entry.view.set_armed(True)
        self._armed_call_id = entry.call_id
        self.armedChanged.emit(entry.call_id, True)
        self._update_batch_actions()

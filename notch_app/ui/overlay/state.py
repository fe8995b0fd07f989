"""What every part of the overlay presenter shares: its cards and what it knows of them.

`OverlayPresenter` is made of parts, one responsibility each (arming, voice rounds,
glances, batches, parking, notes); each part is a class over this one and they meet in
the presenter. Here: a request's entry (`Entry`: its built card, whether its decision is
being stored), the factories' product (`BuiltCard`), the queue and the parked cards, the
lookups every part asks (`_front`, `_find`), and the steps one part asks of another
(implemented by the part that owns them; named here so strict typing sees every call).
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from notch_app.runtime.presenter import ConfirmationRequest, DecisionSink, Outcome, ResultGlance
from notch_app.ui.card_widget import CardWidget
from notch_app.ui.notch_window import DoneTone, NotchWindow
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.side_notch import SideNotch
from notch_app.ui.widgets.integration_icon import InstalledIcon


@dataclass(slots=True)
class BuiltCard:
    """A card widget for one request, with the words the notch shows around it."""

    widget: QWidget
    """A request's card: a `CardWidget` too (`notch_app.ui.card_widget`: checked where
    the presenter has the factory make it); a result glance's view: any widget."""
    title: str
    """Shown in the notch's header and in the side notch's menu, e.g. "ElevenLabs · Generate speech"."""
    action: str
    """What approving does, for the done note: "Generate speech"."""
    icon: InstalledIcon | None = None
    """The installed integration's icon, for the notch's header, idle pill and side notch."""
    header: str | None = None
    """The notch's header line over the card when it is not `title` ("Asked by Claude
    Code", or "" where the card's own identity strip says it all)."""


GlanceFactory = Callable[[ResultGlance, QWidget], BuiltCard]
"""Builds the view of a result glance (display only) as a child of the given widget; its
`title` heads the notch, its `icon` is the installed integration's."""

CardFactory = Callable[[ConfirmationRequest, QWidget], BuiltCard]
"""Builds the card for a request as a child of the given widget. Raises when it cannot (the request is then declined by
the service side, with a message on stderr) — the factory is the only place that knows
manifests."""


@runtime_checkable
class WarmingCardFactory(Protocol):
    """A card factory that can also build cards and a glance off screen and throw them
    away, so the person's first ones show as fast as later ones (ManifestCardFactory)."""

    def __call__(self, request: ConfirmationRequest, parent: QWidget) -> BuiltCard: ...

    def warm_up(self, parent: QWidget) -> object: ...

    def warm_glance(self, parent: QWidget) -> object: ...


@dataclass(slots=True)
class Entry:
    """One open request in the overlay: waiting, on screen or parked."""

    request: ConfirmationRequest
    card: BuiltCard | None = None
    view: CardWidget | None = None
    """`card`'s widget as the notch asks of a card (checked when the factory made it)."""
    saving: bool = False
    """The person decided; the service is storing it (the card stays until it answers)."""
    shown_told: bool = False
    """The service was told the card was painted since it was last put on screen."""

    @property
    def call_id(self) -> str:
        return self.request.call_id


class OverlayState(QObject):
    """The state the presenter's parts share (set up by `OverlayPresenter.__init__`)."""

    armedChanged = Signal(str, bool)
    """(callId, armed): the card on screen started or stopped accepting confirm."""

    window: NotchWindow
    side_notch: SideNotch
    _sink: DecisionSink
    _factory: CardFactory
    _settings: OverlaySettings
    _queue: list[Entry]
    """[0] is on screen while the look is "card"."""
    _parked: list[Entry]
    _decided_in_run: int
    """Cards decided since the queue was last empty: "2 of 3"."""
    _park_timer: QTimer
    _done_timer: QTimer
    _person_input: tuple[str, float] | None
    """(callId, monotonic s) of the person's last input in a card."""
    _batch_note: str | None
    """The done note of a batch decided at once."""
    _glance_warmed: bool
    _sent_back: dict[str, str]
    _undoable: str | None
    """The callId whose scoped approval the done note on screen offers to undo."""
    _voice: Any
    """The voice channel while "Answer by voice" has voiced a card (OverlayVoice)."""
    """callId → the words a card was sent back with (its done note says them)."""
    """A glance was built off screen (the factory's `warm_glance`)."""
    recent: deque[tuple[float, str]]
    _results: deque[ResultGlance]
    """Result glances waiting for the notch (the oldest dropped past a few)."""

    def _front(self) -> Entry | None:
        """The entry whose card is on screen now (built and shown), else None."""
        if not self._queue or self.window.look != "card":
            return None
        entry = self._queue[0]
        card = self.window.card
        return entry if entry.card is not None and card is entry.card.widget else None

    def _find(self, call_id: str) -> Entry | None:
        for entry in (*self._queue, *self._parked):
            if entry.call_id == call_id:
                return entry
        return None

    def _is_on_screen(self, entry: Entry) -> bool:
        return bool(self._queue) and self._queue[0] is entry and self.window.look == "card"

    def _follow_notch(self) -> None:
        self.side_notch.follow(self.window.target_geometry())
        if (self._parked or self.side_notch.running) and not self.side_notch.isVisible():
            self.side_notch.show()

    # ---- steps one part asks of another (each implemented by the part named) ----------

    def _show_front(self) -> None:
        raise NotImplementedError  # OverlayPresenter (the queue)

    def _ensure_card(self, entry: Entry) -> None:
        raise NotImplementedError  # OverlayPresenter (the queue)

    def _on_decided(
        self,
        call_id: str,
        approved: bool,
        final: dict[str, Any] | None,
        edited: list[str],
        *,
        feedback: str | None = None,
    ) -> None:
        raise NotImplementedError  # OverlayPresenter (the queue)

    def _hand_over(self, entry: Entry, approved: bool, decide: Callable[[], bool | None]) -> None:
        """Give the sink the person's decision (`decide`, by hand or by voice). A sink that
        raises has not committed it: the request stays open, and so does its card. One
        that is still saving keeps the card as it is until the decision is on disk
        (decision_saved: a few ms) or cannot be stored (decision_not_saved)."""
        try:
            saving = decide()
        except Exception as exc:
            entry.saving = False
            call_id = entry.request.call_id
            print(f"notch: the decision for callId {call_id} was not saved: {exc}", file=sys.stderr)
            return
        if saving is True:
            self._park_timer.stop()
            return
        self._decision_done(entry, "approved" if approved else "declined")

    def _decision_done(self, entry: Entry, outcome: Outcome) -> None:
        raise NotImplementedError  # OverlayPresenter (the queue)

    @property
    def armed(self) -> bool:
        raise NotImplementedError  # OverlayArming

    @staticmethod
    def _final_of(entry: Entry) -> tuple[dict[str, Any] | None, list[str]]:
        raise NotImplementedError  # OverlayBatches

    def _hold(self, entry: Entry | None = None) -> None:
        raise NotImplementedError  # OverlayArming

    def _start_arming(self) -> None:
        raise NotImplementedError  # OverlayArming

    def _update_batch_actions(self) -> None:
        raise NotImplementedError  # OverlayBatches

    def _warm_glance_once(self) -> None:
        raise NotImplementedError  # OverlayGlances

    def _resting(self) -> bool:
        raise NotImplementedError  # OverlayPresenter (the notes)

    def _restart_park_timer(self) -> None:
        raise NotImplementedError  # OverlayParking

    def _update_side_notch(self) -> None:
        raise NotImplementedError  # OverlayParking

    def _remove(self, entry: Entry) -> None:
        raise NotImplementedError  # OverlayPresenter (the queue)

    def _update_counter(self) -> None:
        raise NotImplementedError  # OverlayPresenter (the queue)

    def _show_done(self, text: str, tone: DoneTone, ms: int | None = None) -> None:
        raise NotImplementedError  # OverlayPresenter (the notes)

    def _after_done(self) -> None:
        raise NotImplementedError  # OverlayPresenter (the notes)

"""The notch overlay as a `Presenter`: which card is on screen, which wait, which are parked.

The service calls `present` / `replace` / `dismiss` / `glance`; this class turns them into
looks of the `NotchWindow` and the `SideNotch`, and reports what the person did back
through the service's `DecisionSink` (decide, parked, restored, shown).

Rules a person can see:
- one card at a time; the rest wait in arrival order behind a "1 of 3" counter, and the
  next follows each decision;
- a card left untouched for `park_after_s` parks in the side notch (its edits kept);
  clicking the side notch brings it back in front;
- Esc, Cancel and × decline; after a decision a brief passive "done" note, then idle;
- a decision stays on its card until the service has it on disk: one it cannot store
  keeps the card up, says why on it ("Couldn't save your decision: the disk is full.")
  and lets the person decide again (confirm held and gated as ever, or decline);
- confirm is held on a card until it has been fully in view, unchanged and unmoved, for
  `ARMING_DELAY_MS`, counted from its first frame painted settled (a card swapped in
  under the pointer cannot take a click or an Enter aimed at the card before it, nor one
  the person made while it was held that a busy machine hands over only later: the
  card compares the input's own time); decline is never held;
- an asking process with CROWD_AT or more cards waiting is named on its card's strip
  (as the kernel reports it: "python3 (pid 4242)"), with "Decline all from this asker",
  which declines exactly its cards, waiting or parked, and no other agent's;
- the calls of one agent turn (a batch of N ≥ 2) offer "Approve all N" / "Decline all N"
  in the header: Approve all only while every one of their cards' confirm gates is open,
  and held with the card on screen's confirm; each card can still be decided on its own;
- a tool result's glance waits for the cards: it shows once no card is waiting, for
  `glance_ms` (paused while the pointer is on the notch; pinned, until dismissed), and
  steps aside for a card that arrives (coming back after it); background work is listed
  in the side notch while it runs;
- timers run only while a card is on screen or an animation/note is playing.

One state machine over one window, its rules above read as one list; its parts live
in `notch_app.ui.overlay`, one responsibility each (arming, decisions, parking, glances,
voice rounds, batches) over the state they share (`overlay.state`). This module keeps
the queue (present, replace, dismiss, the card on screen) and the notes between cards.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QLabel, QWidget

from notch_app.card.display_text import agents_line
from notch_app.runtime.presenter import (
    ConfirmationRequest,
    DecisionSink,
    Outcome,
    RunningWork,
)
from notch_app.ui.card_widget import checked_card
from notch_app.ui.notch_window import DoneTone, NotchWindow
from notch_app.ui.overlay.arming import ARMING_DELAY_MS, PERSON_EDIT_GRACE_MS, OverlayArming
from notch_app.ui.overlay.batches import OverlayBatches
from notch_app.ui.overlay.collector import CollectorHeld
from notch_app.ui.overlay.decisions import DISMISS_NOTES, UNDO_NOTE_MS, OverlayDecisions
from notch_app.ui.overlay.glances import OverlayGlances
from notch_app.ui.overlay.parking import OverlayParking
from notch_app.ui.overlay.resting import OverlayResting
from notch_app.ui.overlay.state import (
    BuiltCard,
    CardFactory,
    Entry,
    GlanceFactory,
    WarmingCardFactory,
)
from notch_app.ui.overlay.voice_rounds import OverlayVoice
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.rule_note import fitted_rule_note
from notch_app.ui.side_notch import SideNotch

if TYPE_CHECKING:  # the voice modules load on the first voiced card only
    from notch_app.ui.voice.clock import VoiceClock

__all__ = [  # the overlay's names, importable from here as before its parts were split
    "ARMING_DELAY_MS",
    "PERSON_EDIT_GRACE_MS",
    "BuiltCard",
    "CardFactory",
    "GlanceFactory",
    "OverlayPresenter",
]


WITHDRAW_WHY_NOTE_MS = 4000
"""A withdrawn card's note that says why (the agent's reason) stays this long."""
WITHDRAW_WHY_CHARS = 120


class OverlayPresenter(
    OverlayVoice,
    OverlayGlances,
    OverlayBatches,
    OverlayDecisions,
    OverlayParking,
    OverlayResting,
    OverlayArming,
):
    """Implements `notch_app.runtime.presenter.Presenter` on the notch window."""

    def __init__(
        self,
        sink: DecisionSink,
        card_factory: CardFactory,
        settings: OverlaySettings | None = None,
        *,
        window: NotchWindow | None = None,
        side_notch: SideNotch | None = None,
        describe: Callable[[ConfirmationRequest], str] | None = None,
        glance_factory: GlanceFactory | None = None,
        voice_clock: VoiceClock | None = None,
    ) -> None:
        """`voice_clock`: what voice rounds wait on; the wall clock unless a test builds
        the notch with its `FileClock` (never from the environment or the socket)."""
        super().__init__()
        self._sink = sink
        self._factory = card_factory
        self._settings = settings or OverlaySettings()
        self.window = window or NotchWindow(self._settings)
        self.side_notch = side_notch or SideNotch(self._settings)
        self._queue: list[Entry] = []  # [0] is on screen while the look is "card"
        self._parked: list[Entry] = []
        self._decided_in_run = 0  # cards decided since the queue was last empty: "2 of 3"
        self._glances: list[tuple[str, str | None]] = []
        """Notes of actions that ran without a card, each with the callId whose rule its
        click undoes (None: nothing to undo)."""
        self.pause_line: str | None = None
        """The person's pause as the hover says it (ui/tray_pause.py), else None."""
        self.holding = False
        """The person holds all cards (tray): notes and results wait until they resume."""
        self.held_aside: Callable[[str], None] | None = None
        """Told each card the hold parks here (cards that waited behind a note)."""
        self.stopped: str | None = None
        """The line said once the service stopped taking requests (its store is damaged)."""
        self._init_glances(glance_factory)

        self._init_parking(describe)
        self._done_timer = QTimer(self)
        self._done_timer.setSingleShot(True)
        self._done_timer.timeout.connect(self._after_done)
        self._init_arming()
        self._collector = CollectorHeld(self)

        # The window gone (a display lost, a test's teardown), a note's or a card's timer
        # would still fire into it: stop them all with it.
        self.window.destroyed.connect(self._stop_timers)
        self.window.dismissRequested.connect(self._on_dismiss_requested)
        self.window.approveRequested.connect(self._on_approve_requested)
        self.window.activity.connect(self._on_activity)
        self.window.pillClicked.connect(self._on_pill_clicked)
        self.window.doneClicked.connect(self._undo_scope)
        self._undoable: str | None = None
        """The callId whose scoped approval the done note on screen offers to undo."""
        self.window.lookChanged.connect(lambda _look: self._follow_notch())
        self._sent_back: dict[str, str] = {}
        """callId → the words a card was sent back with (its done note says them)."""
        self._init_resting()
        self._init_batches()
        self._init_voice(voice_clock)
        if self._settings.idle_mode == "pill":
            self.window.show_idle()
        self._follow_notch()

    def warm_up(self) -> None:
        """Build a few cards off screen and throw them away (fonts, glyph and pixmap
        caches, first-use code paths), if the card factory can. Call once at startup:
        the person's first card then shows as fast as the later ones."""
        if isinstance(self._factory, WarmingCardFactory):
            self._factory.warm_up(self.window.card_parent)

    @property
    def settings(self) -> OverlaySettings:
        """The overlay settings in use now."""
        return self._settings

    def apply_settings(self, settings: OverlaySettings) -> None:
        """Use new settings at once (the person changed them in Settings or with
        `notch policy`): an idle notch whose idle look changed turns into the pill or
        hides now, and a card on screen gets the new park time from now (parking stops
        at 0). Theme and card width apply to cards built later. Never raises."""
        before = self._settings
        self._settings = settings
        self.window.apply_settings(settings)
        self.side_notch.apply_settings(settings)
        if settings.idle_mode != before.idle_mode and self.window.look == "idle":
            self.window.show_idle()
            self._follow_notch()
        if settings.park_after_s != before.park_after_s and self.window.look == "card":
            self._park_timer.stop()
            self._restart_park_timer()
        self._follow_voice()

    # ---- Presenter -------------------------------------------------------------

    def present(self, request: ConfirmationRequest) -> None:
        """Queue a new card (or park it at once if the service recovered it parked)."""
        if self._find(request.call_id) is not None:
            return  # the same callId twice never shows a second card
        entry = Entry(request)
        if request.parked:
            self._parked.append(entry)
            self._update_side_notch()
            return
        self._queue.append(entry)
        if self.window.look == "card":
            self._update_counter()
        elif self.window.look == "idle" or not self._done_timer.isActive():
            self._show_front()

    def replace(self, old_call_id: str, request: ConfirmationRequest) -> None:
        """Show `request` in the place of the card for `old_call_id` (edits are not carried)."""
        new = Entry(request)
        for entries in (self._queue, self._parked):
            for i, entry in enumerate(entries):
                if entry.call_id != old_call_id:
                    continue
                on_screen = entries is self._queue and i == 0 and self.window.look == "card"
                entries[i] = new
                self._drop_card(entry)
                if on_screen:
                    self._show_front()
                elif entries is self._parked:
                    self._update_side_notch()
                return
        self.present(request)  # the old card was already gone: show the new one normally

    def dismiss(self, call_id: str, outcome: Outcome, why: str | None = None) -> None:
        """The service ended a request: remove its card wherever it is. A withdraw's `why`
        (the agent's own reason) is said in quotes, as its words, and stays long enough
        to be read."""
        entry = self._find(call_id)
        if entry is None:
            return
        on_screen = self._is_on_screen(entry)
        action = entry.card.action if entry.card else None
        self._remove(entry)
        if on_screen:
            self._park_timer.stop()
            text, tone = DISMISS_NOTES.get(outcome, (outcome.capitalize(), "neutral"))
            said = agents_line(why, WITHDRAW_WHY_CHARS) if why and outcome == "withdrawn" else ""
            if said:  # the why first: the note is one line, and the card was just seen
                note = f"Withdrawn: “{said}”" + (f" · {action}" if action else "")
                self._show_done(note, tone, WITHDRAW_WHY_NOTE_MS)
            else:
                self._show_done(f"{text} · {action}" if action else text, tone)
        else:
            self._update_counter()

    def _resting(self) -> bool:
        """Nothing on the notch waits to end: the idle pill, or the line saying Notch
        stopped (a note with no timer: anything shown comes back to it)."""
        if self.window.look == "idle":
            return True
        stopped_line = self.stopped is not None and self.window.look == "done"
        return stopped_line and not self._done_timer.isActive()

    def store_failed(self, text: str) -> None:
        """The service stopped taking requests (its store is damaged) and took its cards
        away: `text` stays on the notch, in place of the idle pill, until Notch restarts."""
        self.stopped = text
        if self.window.look in ("idle", "done"):
            self._done_timer.stop()
            self._after_done()

    def glance(self, request: ConfirmationRequest, text: str) -> None:
        """A passive note for an action that ran without a card; waits for an idle notch."""
        self._glances.append((text[:120], None))
        if self._resting():
            self._after_done()

    def ran_by_rule(self, request: ConfirmationRequest, text: str) -> None:
        """An action ran without a card because of the person's scope rule: its note
        offers, on a click, to remove that rule (the sink's `undo_scope`)."""
        self._glances.append((text[:160], request.call_id))
        if self._resting():
            self._after_done()

    def _hold_aside(self) -> None:
        """Held: the cards that waited behind a note park instead of showing."""
        entries, self._queue = self._queue, []
        for entry in entries:
            self._parked.append(entry)
            self._sink.parked(entry.call_id)
            if self.held_aside is not None:
                self.held_aside(entry.call_id)
        self._update_side_notch()

    def set_pause(self, line: str | None, holding: bool) -> None:
        """The person paused (or resumed) from the tray: the hover says `line`; while
        `holding`, notes and results wait (held cards come parked from the service)."""
        self.pause_line = line
        was, self.holding = self.holding, holding
        self.window.paused = line is not None
        self.window.update()
        self._say_resting(self.window.look)
        if was and not holding and self._resting():
            self._after_done()  # what waited during the hold shows now

    def work_changed(self, running: tuple[RunningWork, ...]) -> None:
        """List the tools running in the background in the side notch."""
        self.side_notch.set_running(running)
        self._follow_notch()

    # ---- what the person does --------------------------------------------------

    @property
    def on_screen(self) -> ConfirmationRequest | None:
        """The request whose card is on screen now."""
        return self._queue[0].request if self._queue and self.window.look == "card" else None

    @property
    def waiting(self) -> tuple[ConfirmationRequest, ...]:
        return tuple(e.request for e in self._queue)

    def card_for(self, call_id: str) -> QWidget | None:
        entry = self._find(call_id)
        return entry.card.widget if entry and entry.card else None

    # ---- internals -------------------------------------------------------------

    def _show_front(self) -> None:
        self._done_timer.stop()
        if self._queue:
            self._step_glance_aside()
        while self._queue:
            entry = self._queue[0]
            self._collector.hold()  # until the card's first frame (eventFilter)
            try:
                self._ensure_card(entry)
            except Exception as exc:  # a broken card must not take the overlay down
                self._queue.pop(0)
                print(
                    f"notch: cannot show the card for {entry.request.integration_id}"
                    f" {entry.request.tool_name} (callId {entry.call_id}): {exc}",
                    file=sys.stderr,
                )
                self._sink.decide(entry.call_id, False, None, [], "service")
                continue
            assert entry.card is not None
            self._hold(entry)
            entry.shown_told = False
            entry.card.widget.installEventFilter(self)
            self.window.show_card(
                entry.card.widget,
                title=entry.card.title if entry.card.header is None else entry.card.header,
                icon=entry.card.icon,
                position=self._decided_in_run + 1,
                total=self._decided_in_run + len(self._queue),
            )
            self._restart_park_timer()
            self._update_batch_actions()
            self._update_crowd()
            self._follow_notch()
            self._start_arming()  # when the notch did not move (a same-size swap)
            return
        self._collector.release()  # no card to paint
        self._hold()
        self._decided_in_run = 0
        if self.stopped is not None:
            self._after_done()  # says Notch stopped, instead of the idle pill
            return
        self.window.show_idle()

    def _ensure_card(self, entry: Entry) -> None:
        if entry.card is not None:
            return
        built = self._factory(entry.request, self.window.card_parent)
        # Where the card is made, it is checked for all the notch asks of a card: a card
        # type that lacks a member is refused here, by name (TypeError).
        card = checked_card(built.widget, made_by=self._factory)
        card.set_armed(False)  # held from birth: shown only through _show_front
        call_id = entry.call_id
        card.decided.connect(
            lambda approved, final, edited, cid=call_id: self._on_decided(
                cid, bool(approved), final, edited
            )
        )
        # Declined with words for the agent (issue 13): "make it shorter".
        card.revised.connect(lambda words, cid=call_id: self._on_revised(cid, str(words)))
        # The card's strip offers to decline every card of its asking process.
        if card.asker_strip is not None:
            card.asker_strip.declineAllRequested.connect(
                lambda cid=call_id: self._decline_asker_of(cid)
            )
        # A widget view's page staged edits: the card changed, so confirm is held again.
        card.changedByPage.connect(lambda cid=call_id: self._on_changed_by_page(cid))
        entry.card, entry.view = built, card
        if self._settings.answer_by_voice:
            self._give_voice_words(card)  # on the card from its first frame

    def _on_changed_by_page(self, call_id: str) -> None:
        entry = self._front()
        if entry is not None and entry.call_id == call_id:
            self._hold(entry)
            self._start_arming()

    def _on_dismiss_requested(self) -> None:
        if self.window.look == "glance":
            self._end_glance()
            return
        if self._summary is not None:
            # × or the decline chord over the summary: back to the cards, declining
            # nothing the person cannot see.
            self._close_summary()
            return
        entry = self._queue[0] if self._queue and self.window.look == "card" else None
        if entry is not None:
            self._on_decided(entry.call_id, False, None, [])

    def _on_approve_requested(self) -> None:
        """The approve chord: the card on screen's own confirm, as Enter on it would press
        it — held until armed, closed while gated (a card that cannot be pressed so is
        left alone)."""
        if self._summary is not None:
            return  # the summary is on screen, not the card: its own button decides
        entry = self._front()
        if entry is not None and entry.view is not None:
            entry.view.press("confirm")

    def _on_activity(self) -> None:
        entry = self._front()
        if entry is not None:
            self._person_input = (entry.call_id, time.monotonic())
            if entry.request.batch_id is not None:
                # After the edit has reached the card: its gate may have opened or closed.
                QTimer.singleShot(0, self._update_batch_actions)
        self._restart_park_timer()

    def _undo_scope(self) -> None:
        """The done note of a scoped approval was clicked: undo how far it reached."""
        call_id, self._undoable = self._undoable, None
        undo = getattr(self._sink, "undo_scope", None)
        if call_id is None or undo is None:
            return
        try:
            said = undo(call_id)
        except Exception as exc:  # the pill must not break on a service that cannot
            print(f"notch: could not undo the scope of {call_id}: {exc}", file=sys.stderr)
            return
        if said:
            self._show_done(f"{said} ✓", "neutral")

    def _on_pill_clicked(self) -> None:
        if self._parked:
            self.restore(self._parked[-1].call_id)
        else:
            self.show_recent()

    def _show_done(self, text: str, tone: DoneTone, ms: int | None = None) -> None:
        self._undoable = None  # a note offers an undo only while it is the one on screen
        self.recent.append((time.time(), " ".join(text.split())))
        self._hold()
        self.window.release_focus()
        self.window.show_done(text, tone)
        self._done_timer.start(self._settings.done_ms if ms is None else ms)
        self._follow_notch()

    def _after_done(self) -> None:
        if self._queue and self.holding and self.stopped is None:
            self._hold_aside()
        if self._queue:
            self._show_front()
        elif self.holding and self.stopped is None:
            self._decided_in_run = 0
            self.window.show_idle()  # held: notes and results wait for the resume
            self._follow_notch()
        elif self._glances:
            said, undoes = self._glances.pop(0)
            # A "refuses when" rule's line ("Refused Pay invoice: …") is not a run.
            refused = said.startswith("Refused ")
            if not refused and not said.startswith("Ran without asking"):
                # Said as what it is: it ran, and nobody was asked (issue 22).
                said = f"Ran without asking: {said}"
            if undoes is not None:
                # Long enough to reach for the Undo; the note is its button, so its line
                # keeps "· Undo" and the action (ui/rule_note.py); recent keeps it whole.
                note = self.window.findChild(QLabel, "notchNote")
                room = self._settings.card_width - 48  # the note's room (notch_window)
                shown = fitted_rule_note(said, note.fontMetrics(), room) if note else said
                self._show_done(shown, "approved", UNDO_NOTE_MS)
                self.recent[-1] = (self.recent[-1][0], " ".join(said.split()))
                self._undoable = undoes
            else:
                self._show_done(said, "declined" if refused else "approved")
        elif self._results:
            self._show_result(self._results.popleft())
        elif self.stopped is not None:  # no timer: it stays until Notch is restarted
            self._hold()
            self.window.show_done(self.stopped, "declined")
            self._follow_notch()
        else:
            self._decided_in_run = 0
            self.window.show_idle()
            self._follow_notch()

    def _after_first_frame(self, call_id: str) -> None:
        self._sink.shown(call_id)
        self._collector.release()

    def _stop_timers(self) -> None:
        self._collector.release()  # its bound is one of the timers stopped
        for timer in self.findChildren(QTimer):
            timer.stop()

    def close(self) -> None:
        """Notch is stopping: stop every timer first (a note's end would show the idle
        pill again after the window closed), then close the notch and the side notch."""
        self._stop_timers()
        self.window.close()
        self.side_notch.close()

    def _update_counter(self) -> None:
        if self.window.look == "card":
            self.window.set_counter(
                self._decided_in_run + 1, self._decided_in_run + len(self._queue)
            )
            self._update_batch_actions()
            self._update_crowd()

    def _remove(self, entry: Entry) -> None:
        if entry in self._queue:
            if self._is_on_screen(entry):
                self._hold()
                self.window.take_card()
            self._queue.remove(entry)
        if entry in self._parked:
            self._parked.remove(entry)
            self._update_side_notch()
        self._drop_card(entry)

    def _drop_card(self, entry: Entry) -> None:
        if entry.card is not None:
            widget = entry.card.widget
            widget.removeEventFilter(self)
            if widget is self.window.card:
                self.window.take_card()
            widget.hide()
            widget.deleteLater()
            entry.card = entry.view = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # `shown` means the first frame with the card painted, not "asked to show"; the
        # arming hold counts from the first frame painted once the card has settled.
        if event.type() == QEvent.Type.Paint and self._queue:
            entry = self._queue[0]
            if entry.card is not None and watched is entry.card.widget:
                if self._arming_waits_frame == entry.call_id and self._front() is entry:
                    self._count_arming()
                if entry.shown_told:
                    return False
                entry.shown_told = True
                call_id = entry.call_id
                QTimer.singleShot(0, lambda: self._after_first_frame(call_id))
        return False

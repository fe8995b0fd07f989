"""Many cards at once: the calls of one agent turn, and one asker with many cards.

The calls of one agent turn (a batch of N ≥ 2) offer "Approve all N" / "Decline all N"
in the notch's header. Approve all opens a summary first (issue 20: nothing approved
unseen), a row per call with its headline, risk and whether it is ready; its own confirm
approves the ready ones it listed, each as its card stands. An asking process with many
cards waiting is named on its card's strip, with "Decline all from this asker", which
declines exactly its cards, waiting or parked, and no other agent's.
"""

from __future__ import annotations

import sys
from typing import Any

from notch_app.card.risk import DESTRUCTIVE_LINE, card_risk
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.overlay.arming import ARMING_DELAY_MS
from notch_app.ui.overlay.state import Entry, OverlayState
from notch_app.ui.theme import look as look_of
from notch_app.ui.widgets.batch_summary import BatchSummary, SummaryRow


class OverlayBatches(OverlayState):
    """The presenter's batches: the header's actions, the summary, one asker's cards."""

    def _init_batches(self) -> None:
        # Approve all opens the batch's summary first (issue 20): nothing approved unseen.
        self.window.approveAllRequested.connect(self._open_summary)
        self._summary: BatchSummary | None = None
        self._summary_ids: tuple[str, ...] = ()
        self.window.declineAllRequested.connect(lambda: self._decide_batch(False))
        self._batch_note: str | None = None  # the done note of a batch decided at once

    # ---- one asker with many cards -------------------------------------------------

    def _from_process(self, request: ConfirmationRequest) -> list[Entry]:
        """Every open card (waiting or parked) asked by the process that asked `request`,
        none being stored; [] when that process is not known (the app, a restart)."""
        process = request.process
        if process is None:
            return []
        return [
            e
            for e in (*self._queue, *self._parked)
            if e.request.process is not None
            and e.request.process.key == process.key
            and not e.saving
        ]

    def _update_crowd(self) -> None:
        """The card on screen names its asking process when that process has many cards
        waiting, with "Decline all from this asker" (asker_strip.CROWD_AT)."""
        front = self._front()
        strip = front.view.asker_strip if front is not None and front.view is not None else None
        if front is None or strip is None:
            return
        before = strip.height()
        strip.set_crowd(len(self._from_process(front.request)), front.request.process)
        if strip.height() != before:
            self.window.refit()

    def _decline_asker_of(self, call_id: str) -> None:
        """The person pressed "Decline all from this asker" on `call_id`'s card: decline
        every open card of the process that asked it, each as the person's own decline,
        the one on screen last; nothing of any other asker."""
        entry = self._find(call_id)
        if entry is None or entry.card is None or not self._is_on_screen(entry):
            return
        members = self._from_process(entry.request)
        rest = [e for e in members if e is not entry]
        process = entry.request.process
        for other in rest:
            self._decide_in_place(other, False)
        who = process.label if process is not None else "this asker"
        self._batch_note = f"Declined all {len(rest) + 1} from {who}"
        self._on_decided(entry.call_id, False, None, [])
        if not entry.saving and self._find(entry.call_id) is entry:
            self._batch_note = None  # not taken: the note is not for a later decision

    # ---- the calls of one agent turn ---------------------------------------------

    def _batch(self) -> list[Entry]:
        """The open cards of the batch whose card is on screen (it first), else []."""
        front = self._front()
        if front is None or front.request.batch_id is None:
            return []
        batch_id = front.request.batch_id
        return [e for e in self._queue if e.request.batch_id == batch_id and not e.saving]

    def _batch_gates(self, members: list[Entry]) -> list[str]:
        """Why each card that cannot be approved now cannot ("2 of 3: To is required");
        empty when every card's confirm gate is open. Builds cards not built yet."""
        closed: list[str] = []
        for n, entry in enumerate(members, start=1):
            try:
                self._ensure_card(entry)
            except Exception:
                closed.append(f"{n} of {len(members)}: its card cannot be shown")
                continue
            if entry.view is None:
                closed.append(f"{n} of {len(members)}: decide it on its own")
                continue
            card_state = entry.view.state()
            if not card_state.confirm_enabled:
                why = "; ".join(card_state.blockers()) or "its confirm is not available"
                closed.append(f"{n} of {len(members)}: {why}")
        return closed

    def _update_batch_actions(self) -> None:
        members = self._batch()
        if len(members) < 2 or self._summary is not None:  # the summary has its own
            self.window.set_batch_actions(0, approvable=False)
            return
        # Approve all opens the summary (it approves nothing itself): offered while any
        # call of the batch could be approved; the summary names the ones that wait.
        closed = self._batch_gates(members)
        ready = len(closed) < len(members)
        why = "No call of this turn can be approved yet — " + " · ".join(closed)
        self.window.set_batch_actions(len(members), approvable=ready, why=why if not ready else "")

    # --- Approve all, over what was shown (issue 20) ------------------------------------

    def _open_summary(self) -> None:
        """Show the batch's summary in the card's place: a row per call (headline, risk,
        ready or waiting); its own confirm approves the ready ones it listed."""
        members = self._batch()
        if len(members) < 2 or self._summary is not None:
            return
        rows = [self._summary_row(e) for e in members]
        front = members[0]
        card_look = front.view.look if front.view is not None else None
        summary = BatchSummary(
            card_look if card_look is not None else look_of("dark"), rows,
            arming_ms=ARMING_DELAY_MS, width=self._settings.card_width,
            parent=self.window.card_parent,
        )  # fmt: skip
        summary.approved.connect(self._approve_from_summary)
        summary.back.connect(self._close_summary)
        self._summary, self._summary_ids = summary, tuple(r.call_id for r in rows)
        self._hold(front)
        # The chords answer cards, not the summary: the header does not offer them, the
        # approve chord does nothing and the decline chord goes back to the cards.
        self.window.show_card(summary, title=f"Approve all {len(rows)}?", icon=None,
                              position=self._decided_in_run + 1,
                              total=self._decided_in_run + len(self._queue),
                              chords=False)  # fmt: skip
        self._update_batch_actions()  # the header's own Approve all / Decline all step aside
        self._follow_notch()

    def _summary_row(self, entry: Entry) -> SummaryRow:
        try:
            self._ensure_card(entry)
        except Exception:
            return SummaryRow(
                entry.call_id, entry.request.tool_name, waits="its card cannot be shown"
            )
        if entry.view is None:
            return SummaryRow(entry.call_id, entry.card.action if entry.card else entry.request.tool_name,
                              waits="decide it on its own")  # fmt: skip
        from notch_app.card.headline import headline  # a card's own code: not idle's

        state = entry.view.state()
        final = state.final_arguments()
        said = headline(state.tool, final).text
        risk = card_risk(state.tool, final)
        risks, risky = list(risk.lines), risk.risky
        hint = state.tool.annotations
        if not risks and hint is not None and hint.destructive_hint:
            risks, risky = [DESTRUCTIVE_LINE], True  # its card says so; here it is unseen
        risks.extend(change.text for change in entry.request.changes)
        waits = None if state.confirm_enabled else ("; ".join(state.blockers()) or "not ready")
        return SummaryRow(entry.call_id, said, tuple(risks), risky, waits)

    def _close_summary(self) -> None:
        """Back to the cards, one by one, as they were."""
        summary, self._summary = self._summary, None
        self._summary_ids = ()
        if summary is not None:
            self.window.take_card()
            summary.deleteLater()
        self._show_front()

    def _approve_from_summary(self, call_ids: list[str]) -> None:
        """Approve the calls the summary listed as ready, each as its card stands, if
        still open and ready; name them on the pill, and leave the rest waiting. A call
        that joined the batch after the summary was shown is not among them."""
        summary, listed = self._summary, self._summary_ids
        if summary is None or not summary.armed:
            return
        approved: list[str] = []
        for entry in list(self._queue):
            if entry.call_id not in call_ids or entry.saving:
                continue
            row = self._summary_row(entry)
            if row.waits is not None:
                continue  # its gate closed since: it waits
            self._decide_in_place(entry, True)
            approved.append(row.headline)
        left = [e for e in self._queue if e.call_id in listed and e.call_id not in call_ids]
        self._summary, self._summary_ids = None, ()
        self.window.take_card()
        summary.deleteLater()
        note = f"Approved {len(approved)}: " + "; ".join(approved)
        if left:
            note += f" · {len(left)} left waiting"
        self._show_done(note, "approved")

    def _decide_batch(self, approve: bool) -> None:
        """Approve (every gate open, the card on screen armed) or decline every open card
        of the batch on screen, each with its own final arguments, the one on screen last."""
        if approve:
            self._open_summary()  # approving goes through the summary, never unseen
            return
        members = self._batch()
        if len(members) < 2:
            self._update_batch_actions()
            return
        front, rest = members[0], members[1:]
        for entry in rest:
            self._decide_in_place(entry, False)
        self._batch_note = (
            f"Declined all {len(members)}  ·  {front.card.action if front.card else ''}"
        )
        self._on_decided(front.call_id, False, None, [])
        if not front.saving and self._find(front.call_id) is front:
            self._batch_note = None  # not taken: the note is not for a later decision

    def _decide_in_place(self, entry: Entry, approve: bool) -> None:
        """Decide a batch member that is not on screen, as its card stands."""
        final, edited = self._final_of(entry) if approve else (None, [])
        entry.saving = True
        try:
            saving = self._sink.decide(
                entry.call_id, approve, final, edited, self.window.last_input_kind
            )
        except Exception as exc:  # not committed: it stays open, and so does its card
            entry.saving = False
            print(
                f"notch: the decision for callId {entry.call_id} was not saved: {exc}",
                file=sys.stderr,
            )
            return
        if saving is not True:
            self._decision_done(entry, "approved" if approve else "declined")

    @staticmethod
    def _final_of(entry: Entry) -> tuple[dict[str, Any] | None, list[str]]:
        if entry.view is None:
            return None, []
        card_state = entry.view.state()
        return dict(card_state.final_arguments()), list(card_state.edited_paths())

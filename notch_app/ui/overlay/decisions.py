"""Decisions: what the person decided reaches the service, and stays on its card until
the service has it on disk.

A decision it cannot store keeps the card up, says why on it ("Couldn't save your
decision: the disk is full.") and lets the person decide again (confirm held and gated
as ever, or decline). Once stored the card goes and the done note says what was stored:
approved, declined, sent back with the person's words, how far a scoped yes reaches
(one click from undone), or that it was answered on a phone.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from notch_app.runtime.presenter import Outcome
from notch_app.ui.notch_window import DoneTone
from notch_app.ui.overlay.state import Entry, OverlayState

UNDO_NOTE_MS = 6000
"""How long the note of a scoped approval stays, for its "click to undo"."""

SAVE_FAILURE_TEXT = "Couldn't save your decision: {reason}"
"""What a card says when the service could not store the person's decision (a full stop
is added unless the reason ends a sentence, or was cut with "…")."""

DISMISS_NOTES: dict[str, tuple[str, DoneTone]] = {
    "withdrawn": ("Withdrawn by the agent", "neutral"),
    "expired": ("Expired", "neutral"),
    "superseded": ("Replaced by a newer request", "neutral"),
}
"""The done note of a card the service ended, by outcome."""


class OverlayDecisions(OverlayState):
    """The presenter's decisions: sent to the service, stored, said on the notch."""

    def decision_saved(self, call_id: str, outcome: Outcome) -> None:
        """The person's decision is on disk and sent: the card goes, the done note says
        what was stored."""
        entry = self._find(call_id)
        if entry is not None and entry.saving:
            self._decision_done(entry, outcome)

    def answered_elsewhere(self, call_id: str, outcome: Outcome, device: str) -> None:
        """The person answered `call_id` on a paired phone (its decision is stored and
        sent): the card goes, and the note says where it was answered."""
        entry = self._find(call_id)
        if entry is None:
            return
        on_screen = self._is_on_screen(entry)
        action = entry.card.action if entry.card else entry.request.tool_name
        self._remove(entry)
        if on_screen:
            self._park_timer.stop()
            tone: DoneTone = "approved" if outcome == "approved" else "declined"
            self._show_done(f"Answered on {' '.join(device.split())[:40]} · {action}", tone)
        else:
            self._update_counter()

    def decision_not_saved(self, call_id: str, reason: str) -> None:
        """The person's decision could not be stored (nothing was sent): the card stays,
        says why, and takes a decision again once confirm re-arms (the notice changed
        the card, so confirm is held for ARMING_DELAY_MS; decline never is)."""
        entry = self._find(call_id)
        if entry is None:
            return
        entry.saving = False
        said = " ".join(reason.split()) or "unknown error"
        text = SAVE_FAILURE_TEXT.format(reason=said)
        if not said.endswith((".", "…", "!", "?")):
            text += "."
        if entry.view is not None:
            entry.view.show_save_failure(text)
        else:  # a card not built (parked since a restart): the log says it
            print(f"notch: {text} (callId {call_id})", file=sys.stderr)
        if self._is_on_screen(entry):
            self._person_input = None  # the notice resizing the card is not the person's edit
            self._hold(entry)
            self._restart_park_timer()
            self._start_arming()

    def _on_revised(self, call_id: str, words: str) -> None:
        """The person declined with words: the agent gets reason "revise" and the words."""
        self._sent_back[call_id] = words
        self._on_decided(call_id, False, None, [], feedback=words)

    def _on_decided(
        self,
        call_id: str,
        approved: bool,
        final: dict[str, Any] | None,
        edited: list[str],
        *,
        feedback: str | None = None,
    ) -> None:
        entry = self._find(call_id)
        if entry is None or entry.saving:
            # Already decided (Esc and Cancel in the same instant, or a second press
            # while the first is being stored), or withdrawn.
            return
        if approved and not (self.armed and self._queue[0] is entry):
            # Every confirm path ends here: a card that holds confirm itself (CardView)
            # never gets this far, any other card is refused here.
            return
        entry.saving = True  # before decide: whatever the service answers finds it so
        if self._voice is not None:
            self._voice.decided_by_hand()  # a spoken yes approves again
        # "Allow for this session" / "Always allow" on the card: how far the yes reaches.
        scope = entry.view.approval_scope if entry.view is not None else "once"
        kind = self.window.last_input_kind

        def decide() -> bool | None:
            if approved and scope != "once":
                return self._sink.decide(
                    call_id,
                    True,
                    dict(final) if final is not None else None,
                    [str(p) for p in edited],
                    kind,
                    scope=scope,
                )
            # A reply in words carries them to the log; a revision carries them to the
            # agent as feedback (the keywords of issue 13's DecisionSink.decide).
            words = entry.view.reply_words if entry.view is not None else None
            extra: dict[str, Any] = {}
            if feedback is not None:
                extra = {"reason": "revise", "feedback": feedback}
            elif isinstance(words, str) and words:
                extra = {"words": words}
            sink_decide: Callable[..., bool | None] = self._sink.decide
            return sink_decide(
                call_id,
                approved,
                dict(final) if approved and final is not None else None,
                [str(p) for p in edited] if approved else [],
                kind,
                **extra,
            )

        self._hand_over(entry, approved, decide)

    def _decision_done(self, entry: Entry, outcome: Outcome) -> None:
        """The card's decision is final: take the card away and say what it was."""
        entry.saving = False
        on_screen = self._is_on_screen(entry)
        action = entry.card.action if entry.card else entry.request.tool_name
        scoped = self._scope_note(entry) if outcome == "approved" else None  # before _remove
        if self._find(entry.call_id) is entry:
            self._remove(entry)
        self._park_timer.stop()
        if on_screen:
            self._decided_in_run += 1
            note, self._batch_note = self._batch_note, None
            if scoped is not None and note is None:
                # How far the yes reaches, said on the pill, one click from undone.
                self._show_done(scoped, "approved", UNDO_NOTE_MS)
                self._undoable = entry.call_id
            elif note is not None:
                self._show_done(note, "approved" if outcome == "approved" else "declined")
            elif outcome == "approved":
                self._show_done(f"Approved ✓  {action}", "approved")
            elif outcome == "declined" and entry.call_id in self._sent_back:
                # Sent back, not turned down: the agent tries again with these words.
                said = " ".join(self._sent_back.pop(entry.call_id).split())
                said = said if len(said) <= 48 else said[:47] + "…"
                self._show_done(f"Sent back with your words: “{said}”", "neutral")
            elif outcome == "declined":
                self._show_done(f"Declined · {action}", "declined")
            else:
                text, tone = DISMISS_NOTES.get(outcome, (outcome.capitalize(), "neutral"))
                self._show_done(f"{text} · {action}", tone)
        else:
            self._update_counter()

    def _scope_note(self, entry: Entry) -> str | None:
        """ "Allowed for this session (click to undo): `npm test` in ~/code/app" for a
        scoped approval (issue 20), else None."""
        card = entry.view
        scope = card.approval_scope if card is not None else "once"
        choices = card.scope_choices if card is not None else None
        action = entry.card.action if entry.card else entry.request.tool_name
        if scope == "session":
            what = (choices.session_label if choices is not None else "") or action
            # "click to undo" before what it covers: a long command is cut, never the undo.
            return f"Allowed for this session (click to undo): {what}"
        if scope == "always":
            return f"Always allowed (click to undo): {action}"
        return None

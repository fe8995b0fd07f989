"""A planned call decided by the person's policy, or shown as a card while its row is stored."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from notch_app.runtime.decision import (
    Decision,
)
from notch_app.runtime.policy import PolicyVerdict
from notch_app.runtime.presenter import (
    Scope,
)
from notch_app.runtime.service.calls import (
    ServiceError,
)
from notch_app.runtime.service.ending import RequestEndings
from notch_app.runtime.service.notes import (
    read_back_line,
    rule_words,
)
from notch_app.runtime.service.open_request import (
    OpenRequest,
    Planned,
    fail_future,
    sealed,
)
from notch_app.runtime.store import (
    NewDecision,
    NewRequest,
    StoreError,
)

log = logging.getLogger("notch.service")


class Asking(RequestEndings):
    """A planned call decided by policy or shown as a card (a part of ConfirmationService)."""

    def _launch(self, planned: Planned) -> asyncio.Future[Decision]:
        if planned.verdict.verdict != "ask":
            return self._by_policy(planned.item, planned.verdict, planned.old, planned.scope)
        return self._ask(planned.item, planned.old)

    def _by_policy(
        self,
        item: OpenRequest,
        verdict: PolicyVerdict,
        old: OpenRequest | None,
        scope: Scope | None = None,
    ) -> asyncio.Future[Decision]:
        """Decide `item` as the person's policy says (auto-approve or block), no card;
        `scope` says which allowance let it run ("always": Asks first is off; "session":
        the person allowed it for this asker's session)."""
        request = item.request
        call_id = request.call_id
        if old is not None:
            self._finish(
                old, "superseded", "agent", message=f"superseded by {call_id!r}", dismiss=True
            )
        runs = verdict.verdict == "autoApprove"
        decision = Decision(
            call_id,
            "autoApproved" if runs else "blocked",
            request.integration_id,
            request.tool_name,
            request.arguments if runs else None,
            (),
            item.digest if runs else None,
            "policy",
            request.created_at,
            verdict.reason or (None if runs else "the person blocked this action"),
            scope=scope if runs else None,
        )
        decision = self._told(sealed(decision, item.tool, item), item.tool, request.arguments)
        if not runs and verdict.for_model:
            # A "refuses when" rule: the agent hears what the person does not allow and
            # what it can do instead, not the stock "blocked".
            decision = replace(decision, for_model=verdict.for_model)
        item.ending = decision
        self._open[call_id] = item  # a repeat while it is written joins this one

        def decided(error: StoreError | None) -> None:
            if error is not None:
                self._open.pop(call_id, None)
                fail_future(item.future, ServiceError("storage", str(error)))
                return
            self._settle(item, decision)
            # The glance is the person's setting (Settings → "Show a glance"), read live.
            rule = rule_words(scope, self.allowances, self._ran_by_rule.get(call_id))
            if runs and getattr(self.policy, "glance", True) and rule is not None:
                # Which rule of theirs let it run, one click from removed (issue 22).
                title = item.tool.display_title
                self._cards.ran_by_rule(request, f"Ran without asking: {rule} for {title} · Undo")
            elif runs and getattr(self.policy, "glance", True):
                self._cards.glance(request, verdict.reason or item.tool.display_title)
            elif not runs and verdict.for_model and verdict.reason:
                # A refusal always says so in one line: the person should know a rule
                # of theirs stopped something, even with glances off.
                self._cards.glance(request, verdict.reason)

        self._writes.write(
            NewDecision(
                decision, self._logged(item, decision), request.context, request, item.owner
            ),
            decided,
        )
        return item.future

    def _ask(self, item: OpenRequest, old: OpenRequest | None) -> asyncio.Future[Decision]:
        """Show `item`'s card (in `old`'s place when it supersedes one) and store it."""
        request = item.request
        call_id = request.call_id
        if self.pause.holds_cards and (old is None or old.request.parked):
            # The person holds all cards (tray): it waits parked until they resume.
            item.request = request = replace(request, parked=True)
            self.pause.hold(call_id)
        superseded: NewDecision | None = None
        if old is not None:
            ended = self._ended(old, "superseded", "agent", f"superseded by {call_id!r}")
            old.ending = ended
            superseded = NewDecision(ended, self._logged(old, ended), old.request.context)
        item.stored = False
        self._open[call_id] = item  # a repeat while it is written joins this one

        def written(error: StoreError | None) -> None:
            if error is not None:
                self._request_not_stored(item, old, superseded, error)
                return
            # The request is on disk: from here a crash brings it back as a parked card.
            item.stored = True
            held, item.held = item.held, None
            self._emit(
                item,
                "confirmationRequired",
                {
                    "integration": request.integration_id,
                    "tool": request.tool_name,
                    "reason": request.reason,
                    # What a voice agent says aloud: built from the validated arguments only.
                    "readBack": read_back_line(item.tool, request.arguments),
                    # What differs from what the person approved before (issue 20).
                    "changes": [c.to_json() for c in request.changes],
                },
            )
            for event, data in held or ():
                self._emit(item, event, data)
            if old is not None and superseded is not None:
                self._settle(old, superseded.decision)

        # Queued before the card is shown, so whatever the person (or the timer, or a
        # withdraw) decides is queued behind this row on the same FIFO writer, and the store
        # refuses a decision whose request row is missing. The card is shown at once, in
        # this loop turn, instead of after the commit (an fsync: ~2 ms, more under load).
        # A crash before the commit loses the request: acceptable, because nothing was
        # acknowledged yet (no decision was sent; confirmationRequired, the durable "Notch
        # has it" event, is only sent after the commit; a `wait: false` caller's "pending"
        # reply only ever meant queued).
        # The row alone (no superseded decision with it) is held until the card's first
        # frame is painted (`shown`), at most `row_hold_s`: its commit's Python would
        # otherwise run on the writer thread during that paint and compete for the GIL.
        # Nothing is lost by it: a decision or any other write commits it first, in a
        # batch of its own (write_behind.py); without a presenter nothing will report
        # `shown`, so it is not held.
        hold = None if superseded is not None or self._cards.shown is None else self.row_hold_s
        self._writes.write(NewRequest(request, superseded, item.owner), written, hold_s=hold)
        self._arm_timer(item)
        if old is not None:
            self._cards.replace(old.request.call_id, request)
        else:
            self._cards.present(request)
        return item.future

    def _request_not_stored(
        self,
        item: OpenRequest,
        old: OpenRequest | None,
        superseded: NewDecision | None,
        error: StoreError,
    ) -> None:
        """The request's row could not be written: take its card away and fail its waiters.
        A decision already queued behind it is refused by the store (no request row)."""
        call_id = item.request.call_id
        log.error("could not store the request %s: %s", call_id, error)
        if self._open.get(call_id) is item:
            del self._open[call_id]
        if item.timer is not None:
            item.timer.cancel()
            item.timer = None
        item.held = None
        if not item.future.done():
            fail_future(item.future, ServiceError("storage", str(error)))
        item.listeners.clear()
        # "withdrawn": the service ended it and nothing ran (as for a removed integration).
        self._cards.dismiss(call_id, "withdrawn")
        if (
            old is not None
            and superseded is not None
            and old.ending is superseded.decision
            and self._open.get(old.request.call_id) is old
        ):
            # The supersede did not happen: the old request is open again, with its card.
            old.ending = None
            self._cards.present(old.request)

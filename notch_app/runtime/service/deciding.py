"""The person's decision on a card, and how far an approval reaches (once, session, always)."""

from __future__ import annotations

import logging
from typing import Any

from notch_app.card.scope_reach import always_label, session_reach
from notch_app.manifest.schema import argument_problems, surely_valid
from notch_app.runtime.allowances import Allowance, session_key
from notch_app.runtime.decision import (
    Reason,
    changed_paths,
)
from notch_app.runtime.presenter import (
    DecidedBy,
    Scope,
)
from notch_app.runtime.service.ending import RequestEndings
from notch_app.runtime.service.notes import (
    bounded_words,
    on_phone,
)
from notch_app.runtime.service.open_request import (
    OpenRequest,
)

log = logging.getLogger("notch.service")


class PersonDecisions(RequestEndings):
    """What the person decides, and the scope of their approvals (a part of
    ConfirmationService)."""

    # --- DecisionSink: what the presenter reports ------------------------------------

    def decide(
        self,
        call_id: str,
        approved: bool,
        final_arguments: dict[str, Any] | None,
        edited_paths: list[str],
        decided_by: DecidedBy,
        scope: Scope = "once",
        *,
        reason: Reason | None = None,
        feedback: str | None = None,
        words: str | None = None,
        answered_on: str | None = None,
    ) -> bool:
        """The person approved or declined `call_id` (`answered_on`: the name of the
        paired phone they answered on, kept in the decision's message for the log). A
        decline with `reason` "revise" carries the person's `feedback` (their words: what
        to change); `words` are what the person typed or said to decide (kept for the
        log). With an approval, `scope` "session" also lets later calls to this action
        from the same asker session run without a card (autoApproved, scope "session")
        until that session ends; "always" turns the
        action's Asks first off as Settings does. A Block or a guard that trips still wins
        over either. The scope is recorded on the decision (only what took effect: an
        allowance that cannot be kept is recorded "once"). Returns True once the decision is
        queued for the store: the presenter then hears `decision_saved` when it is on
        disk (and sent), or `decision_not_saved` with the reason when it is not (nothing
        is sent, the request stays open, the person can decide again). Returns False,
        ignoring it, when the request is no longer open (a click that raced a withdraw)
        or is already ending. Raises ValueError when approved final arguments fail the
        tool's inputSchema (the card must not allow that): the request stays open."""
        item = self._open.get(call_id)
        if item is None or item.ending is not None:
            log.info("decision for %s ignored: it is no longer open", call_id)
            return False
        heard = bounded_words(words)
        if approved:
            final = dict(item.request.arguments if final_arguments is None else final_arguments)
            self._approve(item, final, edited_paths, decided_by, scope, heard, answered_on)
            return True
        wants = bounded_words(feedback) if reason == "revise" else None
        declined = "the person asked for a change" if wants else "the person declined"
        self._finish(
            item,
            "declined",
            decided_by,
            message=on_phone(declined, answered_on),
            person=True,
            reason="revise" if wants else None,
            feedback=wants,
            words=heard,
        )
        return True

    def _approve(
        self,
        item: OpenRequest,
        final: dict[str, Any],
        edited_paths: list[str],
        decided_by: DecidedBy,
        scope: Scope,
        heard: str | None,
        answered_on: str | None,
    ) -> None:
        """The person approved `item` with `final` arguments, as far as `scope` takes
        effect (see `decide`). Raises ValueError when they fail the inputSchema."""
        call_id = item.request.call_id
        problems = [] if surely_valid(item.tool, final) else argument_problems(item.tool, final)
        if problems:
            raise ValueError(
                f"final arguments for {call_id!r} fail the inputSchema: "
                + "; ".join(str(p) for p in problems[:5])
            )
        edited = set(edited_paths) | set(changed_paths(item.request.arguments, final))
        edited.discard("")
        kept = self._allowance(item, scope)
        session = session_key(item.request.context, item.owner, item.integration.id)

        def remembered() -> None:
            # What was approved, for the next card's "changed since" marks (no secrets).
            self.memory.remember(item.integration.id, item.tool, final)
            if kept == "session" and session is not None:
                # As far as the card said: the command's prefix in its folder, one exact
                # command, or the action (card/scope_reach.py), from what was approved.
                self.allowances.add(session, item.integration.id, item.tool.name,
                                    item.tool.display_title, session_reach(item.tool, final),
                                    call_id)  # fmt: skip

        self._finish(
            item,
            "approved",
            decided_by,
            message=on_phone(None, answered_on),
            arguments=final,
            edited=sorted(edited),
            person=True,
            scope=kept,
            saved=remembered,
            words=heard,
        )

    def forget_allowance(self, allowance_id: str) -> Allowance | None:
        """The person removed an "Allow for this session" (Settings, the pill): later
        calls it covered ask again. Returns it, or None when it had already ended."""
        return self.allowances.forget(allowance_id)

    def undo_scope(self, call_id: str) -> str | None:
        """Undo how far the person's approval of `call_id` reached, from its pill: its
        session allowance ends, or the action's Asks first turns back on ("always").
        Also the Undo on the note of a call that ran unasked under such a rule: the
        rule goes, and the words say the call itself already ran.
        Returns what was undone, in a few words, or None when there was nothing to."""
        ran = call_id in self._ran_by_rule
        behind = self._ran_by_rule.pop(call_id, None)
        done = " · it already ran" if ran else ""  # the rule goes; the call is not undone
        allowance = self.allowances.made_by(call_id)
        if allowance is None and behind is not None:
            allowance = self.allowances.forget(behind)
        if allowance is not None:
            self.allowances.forget(allowance.id)
            return f"Asks again: {allowance.label}{done}"
        stored = self.store.decision(call_id)
        if ran and stored is not None and stored.scope == "session":
            return "That session rule had already ended: it asks again"
        if stored is None or stored.scope != "always":
            return None
        integration = self.catalog.integration(stored.integration_id)
        tool = self.catalog.tool(stored.integration_id, stored.tool_name)
        turn_on = getattr(self.policy, "undo_always", None)
        if integration is None or tool is None or turn_on is None:
            return None
        try:
            turn_on(integration, tool)
        except Exception:  # a settings file that cannot be written
            log.exception("could not turn Asks first back on for %s", tool.name)
            return None
        return f"Asks first again: {tool.display_title}{done}"

    def _allowance(self, item: OpenRequest, scope: Scope) -> Scope:
        """The scope that takes effect for the person's approval of `item`: "session"
        needs an asker (a socket client); "always" turns Asks first off now, through
        the policy (`allow_always`), and falls back to "once" when that fails."""
        if scope == "session":
            named = session_key(item.request.context, item.owner, item.integration.id)
            return "session" if named is not None else "once"
        if scope != "always":
            return "once"
        if always_label(item.tool, item.request.arguments) is None:
            # Never offered for a shell command, a file edit, a risky or destructive call
            # (card/scope_reach.py); a presenter that sent it anyway gets a plain yes.
            log.warning("'always' is not offered for %s; approving it once", item.tool.name)
            return "once"
        allow = getattr(self.policy, "allow_always", None)
        if allow is None:
            log.warning("the policy cannot remember 'always'; approving %s once", item.tool.name)
            return "once"
        try:
            allow(item.integration, item.tool, item.source)
        except Exception:  # a settings file that cannot be written: the yes stands, once
            log.exception("could not turn Asks first off for %s", item.tool.name)
            return "once"
        return "always"

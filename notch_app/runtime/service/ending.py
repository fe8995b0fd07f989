"""How an open request ends: its decision stored first, then told; expiry; a damaged store."""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Concatenate, ParamSpec, TypeVar

from notch_app.manifest.facts import tool_facts
from notch_app.manifest.model import Tool
from notch_app.runtime.allowances import Allowances
from notch_app.runtime.approval_memory import ApprovalMemory
from notch_app.runtime.argument_checks import ArgumentChecks
from notch_app.runtime.askers import (
    DEFAULT_GRACE_S,
    MAX_OPEN_PER_ASKER,
    Askers,
)
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.decision import (
    Decision,
    Reason,
    arguments_digest,
)
from notch_app.runtime.model_sentence import sentence_for_model
from notch_app.runtime.pause import Pause
from notch_app.runtime.policy import AlwaysAsk, Policy
from notch_app.runtime.presenter import (
    ContainedPresenter,
    DecidedBy,
    Outcome,
    Scope,
)
from notch_app.runtime.redaction import redact
from notch_app.runtime.service.calls import (
    Event,
    ServiceError,
)
from notch_app.runtime.service.limits import (
    ASKER_GONE,
    MAX_PENDING,
    RETRY_EXPIRY_AFTER_S,
    ROW_HOLD_S,
    SAME_TURN_S,
    STORE_STOPPED,
)
from notch_app.runtime.service.open_request import (
    GONE_TOOL,
    OpenRequest,
    fail_future,
    sealed,
)
from notch_app.runtime.store import (
    DecisionStore,
    NewDecision,
    StoreDamaged,
    StoreError,
)
from notch_app.runtime.write_behind import WriteBehind, why_not_stored

log = logging.getLogger("notch.service")


class RequestEndings:
    """The service's state, and how each open request ends (a part of ConfirmationService)."""

    def __init__(
        self,
        catalog: Catalog,
        store: DecisionStore,
        *,
        policy: Policy | None = None,
        clock: Callable[[], float] = time.time,
        max_pending: int = MAX_PENDING,
        max_open_per_asker: int = MAX_OPEN_PER_ASKER,
        asker_grace: float | None = None,
    ) -> None:
        self.catalog = catalog
        self.store = store
        self.policy: Policy = policy or AlwaysAsk()
        """Part 4 replaces this with the person's "Asks first" settings; never set remotely."""
        self._clock = clock
        self._max_pending = max_pending
        self.max_open_per_asker = max_open_per_asker
        """Open requests one asking process may have (see `_check_share`)."""
        self._by_process: dict[str, set[str]] = {}
        """callIds asked by each process (`AskingProcess.key`); pruned as they are counted."""
        self._open: dict[str, OpenRequest] = {}
        self._cards = ContainedPresenter()
        self.argument_checks = ArgumentChecks()
        """Checks arguments off the loop ahead of `submit` (see `check_ahead`)."""
        """Every presenter call goes through this: a presenter bug never breaks the service."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writes = WriteBehind(store, damaged=self._halt)
        self.halted: str | None = None
        """Why Notch stopped taking requests (its store is damaged), until restarted."""
        self.asker_grace = asker_grace
        """Seconds an asker's cards wait for it after its last connection closes; None:
        the person's setting (`policy.asker_grace_seconds`), else DEFAULT_GRACE_S."""
        self.askers = Askers(self._grace_seconds, self._asker_gone)
        """Which askers have a connection open (the socket server tells it)."""
        self.memory = ApprovalMemory()
        """What the person approved before, per action (kept in the data dir when the
        runner gives it one): a new card marks what differs (approval_memory.py)."""
        self.allowances = Allowances(self._clock)
        """What the person allowed "for this session", each as far as it reaches, per
        session (the agent's own, else its asker's): see allowances.py."""
        self._reads: OrderedDict[str, tuple[str | None, str, str]] = OrderedDict()
        """Recent read-only calls answered notRequired: callId → (asker, integration, tool)."""
        self.pause = Pause(clock)
        """The person's pause from the tray (runtime/pause.py); no socket method reaches it."""
        self._ran_by_rule: OrderedDict[str, str | None] = OrderedDict()
        """Recent calls that ran unasked under the person's rule: callId → the session
        allowance's id (None: "Always allow"), for the Undo on their note."""
        self.row_hold_s = ROW_HOLD_S
        """A shown card's request row waits at most this long for the card's first frame
        (`shown`) before it is committed (see `Asking._ask`)."""
        self.same_turn_s = SAME_TURN_S
        """Calls of one tool by one asker this close together are one turn's parallel
        calls (each its own card); a later one replaces the open card (`_repeat_of`)."""

    def _grace_seconds(self) -> float:
        if self.asker_grace is not None:
            return self.asker_grace
        grace = getattr(self.policy, "asker_grace_seconds", DEFAULT_GRACE_S)
        return float(grace) if isinstance(grace, int | float) else DEFAULT_GRACE_S

    def _asker_gone(self, owner: str) -> None:
        """`owner`'s connections closed and none came back in time: withdraw its open
        requests (nothing would run them) and end its session's allowances."""
        self.allowances.end_session(f"asker:{owner}")
        for item in [i for i in self._open.values() if i.owner == owner]:
            if item.ending is None:
                self._finish(item, "withdrawn", "service", message=ASKER_GONE, dismiss=True)

    def _ended(
        self,
        item: OpenRequest,
        outcome: Outcome,
        by: DecidedBy,
        message: str | None,
        arguments: dict[str, Any] | None = None,
        edited: list[str] | None = None,
        scope: Scope | None = None,
    ) -> Decision:
        runs = outcome in ("approved", "autoApproved")
        ended = Decision(
            call_id=item.request.call_id,
            outcome=outcome,
            integration_id=item.request.integration_id,
            tool_name=item.request.tool_name,
            arguments=arguments if runs else None,
            edited_paths=tuple(edited or ()),
            digest=arguments_digest(arguments) if runs and arguments is not None else None,
            decided_by=by,
            decided_at=self._clock(),
            message=message,
            scope=scope if runs else None,
        )
        return self._told(sealed(ended, item.tool, item), item.tool, item.request.arguments)

    def _told(self, decision: Decision, tool: Tool, asked: Mapping[str, Any]) -> Decision:
        """`decision` with its sentence for the model (see model_sentence.py)."""
        secrets = tool_facts(tool) if tool is not GONE_TOOL else None
        title = tool.display_title if tool is not GONE_TOOL else decision.tool_name
        told = sentence_for_model(decision, title, asked, secrets)
        return decision if told == decision.for_model else replace(decision, for_model=told)

    def _replayed(self, stored: Decision) -> Decision:
        """A stored decision reported again, with a sentence for the model even when it
        was stored before sentences were (made again from the decision)."""
        if not stored.for_model:
            tool = self.catalog.tool(stored.integration_id, stored.tool_name) or GONE_TOOL
            stored = self._told(stored, tool, {})
        return stored.replayed()

    def _logged(self, item: OpenRequest, decision: Decision) -> dict[str, Any]:
        shown = decision.arguments if decision.arguments is not None else item.request.arguments
        if item.tool is GONE_TOOL:
            return dict(shown)  # not installed: as the store, which knows no secrets of it
        return redact(shown, tool_facts(item.tool))

    def _finish(
        self,
        item: OpenRequest,
        outcome: Outcome,
        by: DecidedBy,
        *,
        message: str | None = None,
        arguments: dict[str, Any] | None = None,
        edited: list[str] | None = None,
        dismiss: bool = False,
        why: str | None = None,
        person: bool = False,
        scope: Scope | None = None,
        saved: Callable[[], None] | None = None,
        reason: Reason | None = None,
        feedback: str | None = None,
        words: str | None = None,
    ) -> Decision:
        """End `item` with this decision; waiters hear it once it is on disk. A `person`'s
        decision (from `decide`) is answered to the presenter either way: saved, or not
        saved with the reason (the card stays and the request stays open)."""
        if item.ending is not None:
            return item.ending
        decision = self._ended(item, outcome, by, message, arguments, edited, scope)
        if reason is not None or feedback is not None or words is not None:
            decision = self._told(
                replace(decision, reason=reason, feedback=feedback, words=words),
                item.tool,
                item.request.arguments,
            )
        item.ending = decision
        if item.timer is not None:
            item.timer.cancel()
            item.timer = None
        call_id = item.request.call_id

        def written(error: StoreError | None) -> None:
            ended = decision
            if error is not None:
                log.error("could not store the decision for %s: %s", call_id, error)
                if self._open.get(call_id) is not item:
                    return  # its request was never stored: already ended and dismissed
                stored = self._decision_on_disk(call_id)
                if stored is None:
                    # Not stored, so not sent: the request stays open and can be decided again.
                    item.ending = None
                    self._arm_timer(item, not_before=RETRY_EXPIRY_AFTER_S)
                    if person:
                        self._cards.decision_not_saved(call_id, why_not_stored(error))
                    return
                # A write reported failed was on disk after all (an earlier attempt whose
                # commit outcome was uncertain): that decision is the one, never a second.
                same = (stored.outcome, stored.digest) == (decision.outcome, decision.digest)
                ended = decision if same else stored
            if saved is not None and ended is decision:
                saved()  # e.g. the session's allowance: only once the approval is stored
            self._settle(item, ended)
            if person:
                self._cards.decision_saved(call_id, ended.outcome)
            if dismiss:
                said = why if ended.outcome == "withdrawn" else None  # a withdraw's reason
                self._cards.dismiss(call_id, ended.outcome, said)

        self._writes.write(
            NewDecision(decision, self._logged(item, decision), item.request.context), written
        )
        return decision

    def _halt(self, error: StoreError) -> None:
        """The store is damaged (a read or write found corrupt pages, or no database): stop
        taking requests until Notch is restarted. Each open request ends for its waiters
        with the reason (nothing was decided, nothing stored), its card goes, and the
        person is told once, in one line. Later calls are refused (`minding_store`)."""
        if self.halted is not None:
            return
        said = " ".join(str(error.__cause__ or why_not_stored(error)).split())[:200]
        self.halted = (
            f"{self.store.path}: Notch's decision store is damaged (SQLite: {said}), "
            "so Notch stopped taking requests and nothing was decided. Restart it with "
            "`notch run --reset-store` (the damaged file is moved aside), or use another "
            "--data-dir"
        )
        log.error("%s", self.halted)  # one line: the traceback says nothing more
        stopped = ServiceError("storage", self.halted)
        for item in list(self._open.values()):
            if item.timer is not None:
                item.timer.cancel()
                item.timer = None
            fail_future(item.future, stopped)
            item.listeners.clear()
            self._cards.dismiss(item.request.call_id, "withdrawn")
        self._open.clear()
        self._cards.store_failed(STORE_STOPPED)

    async def drain(self) -> None:
        """Wait until every write queued so far is on disk (and its waiters told)."""
        await self._writes.drain()

    def _settle(self, item: OpenRequest, decision: Decision) -> None:
        self._open.pop(item.request.call_id, None)
        if item.timer is not None:
            item.timer.cancel()
            item.timer = None
        if not item.future.done():
            item.future.set_result(decision)
        self._emit(item, "decided", {"outcome": decision.outcome})
        item.listeners.clear()

    def _decision_on_disk(self, call_id: str) -> Decision | None:
        """The decision the store holds for `call_id`, or None (also when it cannot be read)."""
        try:
            return self.store.decision(call_id)
        except StoreError as exc:
            log.error("could not read back the decision for %s: %s", call_id, exc)
            return None

    def _arm_timer(self, item: OpenRequest, not_before: float = 0.0) -> None:
        expires_at = item.request.expires_at
        if expires_at is None or self._loop is None:
            return
        delay = max(not_before, expires_at - self._clock())
        if math.isfinite(delay):
            item.timer = self._loop.call_later(delay, self._expire, item.request.call_id)

    def _expire(self, call_id: str) -> None:
        item = self._open.get(call_id)
        if item is None:
            return
        item.timer = None
        self._finish(
            item, "expired", "timeout", message="no decision before it expired", dismiss=True
        )

    def _emit(self, item: OpenRequest, event: Event, data: dict[str, Any]) -> None:
        if not item.stored:
            # The card is up before its request is stored; the client hears confirmationRequired
            # first, once the row is committed, then these.
            if item.held is None:
                item.held = []
            item.held.append((event, data))
            return
        for listener in list(item.listeners):
            try:
                listener(item.request.call_id, event, data)
            except Exception:  # one client's broken listener must not stop the others
                log.exception("event listener failed for %s", item.request.call_id)


_S = TypeVar("_S", bound=RequestEndings)
_P = ParamSpec("_P")
_R = TypeVar("_R")


def minding_store(method: Callable[Concatenate[_S, _P], _R]) -> Callable[Concatenate[_S, _P], _R]:
    """A request method that answers ServiceError(storage) when the store fails it (a clear
    JSON-RPC error, not an internal one), and once the store is damaged, for every call
    until Notch is restarted (see `RequestEndings._halt`)."""

    @functools.wraps(method)
    def minding(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if self.halted is not None:
            raise ServiceError("storage", self.halted)
        try:
            return method(self, *args, **kwargs)
        except StoreError as exc:
            if isinstance(exc, StoreDamaged):
                self._halt(exc)
                assert self.halted is not None
                raise ServiceError("storage", self.halted) from None
            raise ServiceError("storage", str(exc)) from None

    return minding

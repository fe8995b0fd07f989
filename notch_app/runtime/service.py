"""The confirmation service: requests in, decisions out, exactly once.

Qt-free and single-threaded: everything runs on one asyncio loop (qasync in the app), so
the presenter calls `decide()` and friends as plain methods. The order of work for a
request is: check it (unknown integration/tool, arguments vs inputSchema, callId reuse)
before any card; read-only tools answer `notRequired` at once; ask the person's policy;
queue the request's write and show its card at once, while the row is being committed. A
decision is committed to the store before any waiter hears it, and only after (or with)
its request's row: if that row cannot be written, the card is taken away and nothing is
ever approved for it.

A request belongs to its asker (see ownership.py): a repeated request, `wait`, `get`,
`withdraw` and a `supersedes` naming it are refused (ServiceError `notYours`) unless they
come with its token, checked before anything else about the request is compared or
changed. `status` is the bare state anyone may read: pending (parked or not) or decided.
An asker whose connections all closed and did not come back within the grace period
(askers.py) has its open requests withdrawn and its session's allowances forgotten.

Every decision carries its sentence for the model (model_sentence.py) and, when it runs,
its scope: "once", "session" (the person's "Allow for this session": later calls to the
same action from the same asker run without a card, unless a Block or a guard says
otherwise) or "always" (Asks first off). Only `decide()` (the person) sets a scope.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Concatenate, Final, Literal, ParamSpec, TypeVar

from notch_app.card.count_claims import count_disagreements
from notch_app.card.display_text import agents_line
from notch_app.card.read_back import read_back
from notch_app.card.scope_reach import always_label, session_reach
from notch_app.manifest.facts import tool_facts
from notch_app.manifest.model import Manifest, Tool
from notch_app.manifest.schema import argument_problems, surely_valid
from notch_app.runtime.allowances import Allowance, Allowances, session_key
from notch_app.runtime.approval_memory import ApprovalMemory
from notch_app.runtime.argument_checks import ArgumentChecks
from notch_app.runtime.askers import (
    DEFAULT_GRACE_S,
    MAX_OPEN_PER_ASKER,
    Askers,
    AskingProcess,
)
from notch_app.runtime.call_ids import MAX_CALL_ID_CHARS as MAX_CALL_ID_CHARS  # re-exported
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.decision import (
    MAX_FEEDBACK_CHARS,
    Decision,
    NotDigestible,
    Reason,
    arguments_digest,
    canonical_json,
    changed_paths,
    new_digest_salt,
)
from notch_app.runtime.model_sentence import sentence_for_model
from notch_app.runtime.ownership import IN_PROCESS, Asker, holds, owner_of
from notch_app.runtime.pause import PAUSED_REASON, Pause
from notch_app.runtime.policy import ASK, AlwaysAsk, Policy, PolicyVerdict
from notch_app.runtime.policy_book.fingerprint import integration_source
from notch_app.runtime.presenter import (
    ConfirmationRequest,
    ContainedPresenter,
    DecidedBy,
    Outcome,
    Presenter,
    Scope,
)
from notch_app.runtime.redaction import redact, redact_paths
from notch_app.runtime.repeats import updated_note
from notch_app.runtime.store import (
    DecisionStore,
    NewDecision,
    NewRequest,
    StoreDamaged,
    StoreError,
)
from notch_app.runtime.write_behind import WriteBehind, why_not_stored

log = logging.getLogger("notch.service")

MAX_CONTEXT_CHARS: Final = 4096
MAX_EXPIRES_IN_MS: Final = 30 * 24 * 3600 * 1000
MAX_PENDING: Final = 10_000
"""Open requests across all clients; beyond it new requests are refused (`overloaded`)."""
MAX_READS_KEPT: Final = 1024
"""Read-only calls remembered for the glances of their results (`read_answered`)."""
MAX_BATCH: Final = 256
SHOWN_REASON_CHARS: Final = 120
"""A withdraw's reason as stored and shown: one line, cut here."""
"""Calls one `confirm.batch` asks about; the rest of a longer batch each get an error."""
STORE_STOPPED: Final = "Store damaged: restart with notch run --reset-store"
"""The line the person reads on the notch once the store is damaged: one line at the
notch's width (the socket's error and the log say more)."""
ASKER_GONE: Final = "the asking agent went away"
"""Why a request is withdrawn when its asker's connections closed and none came back."""
SAME_TURN_S: Final = 1.0
"""A model's parallel tool calls of one turn reach Notch within milliseconds of each
other; an agent calling the same tool again to update it has waited for an answer first
(a "waiting for the person" status, a timeout): seconds. So a second call of the same
tool by the same asker replaces its open card only once that card is this old."""
RETRY_EXPIRY_AFTER_S: Final = 5.0
"""An expiry whose write failed (a full disk) is tried again this long after, not at once:
a due expiry re-armed with no delay would retry the failing write every loop turn."""

Event = Literal["confirmationRequired", "shown", "parked", "restored", "decided"]
EventListener = Callable[[str, Event, dict[str, Any]], None]
"""Called with (callId, event, data) for requests the listener asked about."""

ErrorKind = Literal[
    "invalidParams", "unknownCall", "callIdInUse", "notOpen", "overloaded", "storage", "notYours"
]
Status = Literal["pending", "decided"]


class ServiceError(Exception):
    """A request the service refuses. `field` names the bad parameter, if one is."""

    def __init__(self, kind: ErrorKind, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.field = field


@dataclass(slots=True)
class ToolCall:
    """One tool call an executor asks about: the params of `confirm.request`. Read-only
    by convention: not `frozen`, because a frozen dataclass costs ~2 µs more to build and
    one is built for every request on the socket."""

    call_id: str
    """The executor's id for this call: a repeat with the same id is the same call."""
    integration_id: str
    tool_name: str
    arguments: Mapping[str, Any]
    supersedes: str | None = None
    """The callId of an open request whose card this one takes the place of."""
    expires_in_ms: int | None = None
    """Ends the request `expired` if it is still undecided this long after it arrived."""
    context: Mapping[str, Any] | None = None
    """Free-form, bounded (e.g. {"agent": "Mail assistant"}); shown, never trusted."""
    token: Asker = IN_PROCESS
    """The asker's token (the socket always has one); only its hash is kept."""
    process: AskingProcess | None = None
    """The process that sent it, as the kernel says (the socket sets it): what its share
    of open requests is counted against. None for the app itself."""


@dataclass(slots=True, eq=False)
class _Open:
    """A request waiting for the person."""

    request: ConfirmationRequest
    integration: Manifest
    tool: Tool
    digest: str
    future: asyncio.Future[Decision]
    timer: asyncio.TimerHandle | None = None
    listeners: list[EventListener] = field(default_factory=list)
    ending: Decision | None = None
    """Set while its decision is being written: no other decision can take its place."""
    stored: bool = True
    """False while its request row is being written (its card is already shown)."""
    held: list[tuple[Event, dict[str, Any]]] | None = None
    """Events from the card before the request was stored, sent after confirmationRequired."""
    owner: str | None = None
    """The hash of its asker's token; None when the app itself asked."""
    source: str | None = None
    """Where its integration came from when it was asked (`integration_source`): what an
    "Always allow" on its card is bound to, even if another attach replaced it since."""
    salt: bytes | None = None
    """Keys the secret values in its decision's digest (made once, at its first decision
    holding one: a retried write of the same decision has the same digest)."""


@dataclass(slots=True)
class _Planned:
    """A checked call of `submit` about to be decided by policy or shown as a card."""

    item: _Open
    verdict: PolicyVerdict
    old: _Open | None
    scope: Scope | None


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _minding_store(
    method: Callable[Concatenate[ConfirmationService, _P], _R],
) -> Callable[Concatenate[ConfirmationService, _P], _R]:
    """A request method that answers ServiceError(storage) when the store fails it (a clear
    JSON-RPC error, not an internal one), and once the store is damaged, for every call
    until Notch is restarted (see `ConfirmationService._halt`)."""

    @functools.wraps(method)
    def minding(self: ConfirmationService, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
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


def _names(items: list[str], limit: int = 20) -> str:
    shown = ", ".join(items[:limit]) or "none"
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


class ConfirmationService:
    """Implements `DecisionSink`. Create, `set_presenter()`, `await start()`, then submit."""

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
        self._open: dict[str, _Open] = {}
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
        self.same_turn_s = SAME_TURN_S
        """Calls of one tool by one asker this close together are one turn's parallel
        calls (each its own card); a later one replaces the open card (`_repeat_of`)."""

    # --- lifecycle -------------------------------------------------------------------

    def set_presenter(self, presenter: Presenter | None) -> None:
        """Show cards with `presenter` from now on; every open request is presented to it."""
        self._cards.shown = presenter
        for item in list(self._open.values()):
            self._cards.present(item.request)

    @property
    def presenter(self) -> ContainedPresenter:
        """Where cards, result glances and background work are shown; never raises."""
        return self._cards

    async def start(self) -> None:
        """Bring back undecided requests from the store as parked cards (ending those past
        their expiry, or whose integration or tool is gone). Raises StoreError."""
        self._loop = asyncio.get_running_loop()
        now = self._clock()
        for request in self.store.pending():
            integration = self.catalog.integration(request.integration_id)
            tool = self.catalog.tool(request.integration_id, request.tool_name)
            future: asyncio.Future[Decision] = self._loop.create_future()
            item = _Open(request, integration or _GONE, tool or _GONE_TOOL, "", future)
            item.owner = self.store.request_owner(request.call_id)
            self._open[request.call_id] = item
            if integration is None or tool is None:
                self._finish(
                    item,
                    "withdrawn",
                    "service",
                    message=f"{request.integration_id}/{request.tool_name} is no longer "
                    "installed, so its request was withdrawn after the restart",
                )
            elif request.expires_at is not None and request.expires_at <= now:
                self._finish(item, "expired", "timeout", message="expired while Notch was stopped")
            else:
                # What the agent sent: the stored arguments lack its secret values.
                known = self.store.request_digest(request.call_id)
                item.digest = known[2] if known else arguments_digest(request.arguments)
                self._arm_timer(item)
                self._cards.present(request)
                if item.owner is not None:
                    # Its asker gets the grace period to come back, as after a disconnect.
                    self.askers.unheld(item.owner)
        await self.drain()  # start settled: requests ended above are stored and answerable

    def close(self) -> None:
        """Finish pending writes, stop timers and close the store. Open requests stay
        stored and come back parked on the next start."""
        self._writes.close()
        self.argument_checks.close()
        self.askers.close()
        for item in self._open.values():
            if item.timer is not None:
                item.timer.cancel()
            if not item.future.done():
                item.future.cancel()
        self._open.clear()
        self.store.close()

    # --- requests from executors -----------------------------------------------------

    @_minding_store
    def submit(
        self, call: ToolCall, listener: EventListener | None = None
    ) -> asyncio.Future[Decision]:
        """Check and queue one tool call; the future resolves with its decision.
        `listener` hears the call's events (confirmationRequired, shown, …, decided).

        Three steps: validate (`_validate`), ask the person's policy (`_verdict`), then
        decide by policy (`_by_policy`) or show a card (`_ask`). Already done when no card
        is needed (notRequired, a policy verdict, a repeated callId). Raises ServiceError
        for anything refused before a card: unknown integration or tool, arguments
        failing the inputSchema (the bad field named), a callId already used for a
        different call, a `supersedes` that is not open, too many open requests, or a
        store failure.
        """
        planned = self._plan(call, listener, repeat_replaces=True)
        return planned if isinstance(planned, asyncio.Future) else self._launch(planned)

    def check_ahead(self, calls: list[ToolCall]) -> asyncio.Future[None] | None:
        """Check these calls' arguments in a worker thread, so that `submit` or
        `submit_many` of these very call objects, once the future is done, does not check
        them on the loop (one request's slow check never holds other clients). None when
        there is nothing slow to check: submit at once."""
        asked = []
        for call in calls:
            tool = self.catalog.tool(call.integration_id, call.tool_name)
            if tool is not None and isinstance(call.arguments, Mapping):
                asked.append((call, tool, call.arguments))
        return self.argument_checks.ahead(asked) if asked else None

    @_minding_store
    def submit_many(
        self, calls: list[ToolCall], listener: EventListener | None = None
    ) -> list[asyncio.Future[Decision] | ServiceError]:
        """Check and queue the tool calls of one model turn at once; one entry per call,
        in order: its future, or the ServiceError that refused it (as `submit` raises
        them). A bad call never keeps the others from being asked. A callId repeated in
        the batch (field `callId`) and every call past MAX_BATCH (field `calls`) is
        refused (invalidParams). When two or more calls show cards, their requests carry
        the batch's id, their index and the count (the notch offers "Approve all"). All
        are queued in this loop turn, so their rows are written in one transaction."""
        out: list[asyncio.Future[Decision] | ServiceError] = []
        plans: list[tuple[int, _Planned]] = []
        seen: set[str] = set()
        for index, call in enumerate(calls):
            if index >= MAX_BATCH:
                out.append(ServiceError(
                    "invalidParams",
                    f"a batch holds at most {MAX_BATCH} calls; this one was not asked: send "
                    "it in another batch",
                    "calls",
                ))  # fmt: skip
                continue
            if call.call_id in seen:
                out.append(ServiceError(
                    "invalidParams",
                    f"callId {str(call.call_id)[:MAX_CALL_ID_CHARS]!r} appears twice in this "
                    "batch; the first one was asked, give each call its own callId",
                    "callId",
                ))  # fmt: skip
                continue
            seen.add(call.call_id)
            try:
                planned = self._plan(call, listener, queued=len(plans))
            except ServiceError as exc:
                out.append(exc)
                continue
            if isinstance(planned, asyncio.Future):
                out.append(planned)
            else:
                plans.append((len(out), planned))
                out.append(ServiceError("storage", "not asked"))  # replaced below
        asking = [p for _, p in plans if p.verdict.verdict == "ask"]
        if len(asking) >= 2:
            batch_id = uuid.uuid4().hex
            for place, planned in enumerate(asking):
                planned.item.request = replace(
                    planned.item.request,
                    batch_id=batch_id,
                    batch_index=place,
                    batch_size=len(asking),
                )
        for slot, planned in plans:
            out[slot] = self._launch(planned)
        return out

    def _plan(
        self,
        call: ToolCall,
        listener: EventListener | None,
        queued: int = 0,
        *,
        repeat_replaces: bool = False,
    ) -> asyncio.Future[Decision] | _Planned:
        """Check `call` (see `submit`): a future when it is answered without a card or a
        policy decision, else what `_launch` decides or shows. `queued` calls of the same
        batch are planned but not yet open (they count against MAX_PENDING). With
        `repeat_replaces` (a single call, not a batch), a call of a tool whose card its
        asker already has open replaces that card (repeats.py)."""
        loop = self._loop or asyncio.get_running_loop()
        self._loop = loop
        _check_call_id(call.call_id, "callId")
        context = dict(call.context or {})
        args = dict(call.arguments)
        try:  # NaN, lone surrogates, huge ints: no canonical JSON, so no digest (RFC 8785)
            if context and len(canonical_json(context, "context")) > MAX_CONTEXT_CHARS:
                raise ServiceError(
                    "invalidParams", f"context is over {MAX_CONTEXT_CHARS} characters", "context"
                )
            digest = arguments_digest(args)
        except NotDigestible as exc:
            raise ServiceError("invalidParams", str(exc), exc.path) from None
        known_tool = self.catalog.tool(call.integration_id, call.tool_name)
        keyed = _keyed_paths(known_tool, args)
        if keyed:  # a repeat is told by what the store keeps: its secret values masked
            digest = arguments_digest(redact_paths(args, keyed))
        earlier = self._earlier(call, digest, known_tool, listener)
        if earlier is not None:
            return earlier
        integration, tool = self._validate(call, known_tool, args)
        now = self._clock()
        if tool.confirmation is None:
            # A glance for this read's result may name it (see read_answered).
            self._reads[call.call_id] = (owner_of(call.token), call.integration_id, tool.name)
            if len(self._reads) > MAX_READS_KEPT:
                self._reads.popitem(last=False)
            # Read-only: answered at once and not logged (no card, nothing to decide).
            free = Decision(call.call_id, "notRequired", call.integration_id, call.tool_name,
                            args, (), digest, "service", now)  # fmt: skip
            return _done(loop, self._told(_sealed(free, tool), tool, args))
        old = self._to_supersede(call, queued)
        updated: str | None = None
        if old is None and call.supersedes is None and repeat_replaces:
            old = self._repeat_of(call)
            if old is not None:
                updated = updated_note(old.request.arguments, args, tool_facts(tool))
        self._check_share(call, old, queued)
        source = integration_source(self.catalog.entry(integration.id), integration)
        verdict = self._verdict(integration, tool, args, source)
        owner = owner_of(call.token)
        scope: Scope | None = "always" if verdict.verdict == "autoApprove" else None
        session = session_key(context, owner, integration.id)
        # Neither a block nor a guard that tripped (an ask with a reason): those win.
        plain_ask = verdict.verdict == "ask" and verdict.reason is None
        allowed = (
            self.allowances.find(session, integration.id, tool.name, args) if plain_ask else None
        )
        if allowed is not None:
            verdict = PolicyVerdict("autoApprove")
            scope = "session"
        verdict, scope = _with_count_check(verdict, scope, tool, args)
        if verdict.verdict == "autoApprove" and self.pause.asks_for_everything:
            # The person paused their rules from the tray: it asks, and says why.
            verdict, scope = PolicyVerdict("ask", PAUSED_REASON), None
        if verdict.verdict == "autoApprove" and scope is not None:
            self._ran_by_rule[call.call_id] = allowed.id if allowed is not None else None
            while len(self._ran_by_rule) > MAX_READS_KEPT:
                self._ran_by_rule.popitem(last=False)
        request = ConfirmationRequest(
            call_id=call.call_id,
            integration_id=call.integration_id,
            tool_name=call.tool_name,
            arguments=args,
            context=context,
            created_at=now,
            expires_at=None if call.expires_in_ms is None else now + call.expires_in_ms / 1000,
            reason=_with_update(verdict.reason if verdict.verdict == "ask" else None, updated),
            process=call.process,
            changes=tuple(self.memory.changes(integration.id, tool, args))
            if verdict.verdict == "ask"
            else (),
        )
        item = _Open(request, integration, tool, digest, loop.create_future())
        item.owner = owner
        item.source = source
        if listener is not None:
            item.listeners.append(listener)
        return _Planned(item, verdict, old, scope)

    def _launch(self, planned: _Planned) -> asyncio.Future[Decision]:
        if planned.verdict.verdict != "ask":
            return self._by_policy(planned.item, planned.verdict, planned.old, planned.scope)
        return self._ask(planned.item, planned.old)

    def _earlier(
        self, call: ToolCall, digest: str, tool: Tool | None, listener: EventListener | None
    ) -> asyncio.Future[Decision] | None:
        """The future of the same call asked before (open, or decided and stored), else
        None. A repeated callId never makes a second card, nor a second approval; one
        used for a different call raises ServiceError(callIdInUse)."""
        item = self._open.get(call.call_id)
        if item is not None:
            # Before the call is compared: a stranger learns nothing of what it asked.
            _check_holds(call.call_id, call.token, item.owner)
            request = item.request
            _same_call(call, digest, request.integration_id, request.tool_name, item.digest)
            if listener is not None:
                item.listeners.append(listener)
            return item.future
        if tool is not None and tool.confirmation is None:
            return None  # read-only tools never reach the store: nothing to decide twice
        stored = self.store.decision(call.call_id)
        if stored is None:
            return None
        _check_holds(call.call_id, call.token, self.store.request_owner(call.call_id))
        known = self.store.request_digest(call.call_id)
        if known is not None:
            _same_call(call, digest, *known)
        return _done(self._loop or asyncio.get_running_loop(), self._replayed(stored))

    def _validate(
        self, call: ToolCall, tool: Tool | None, args: dict[str, Any]
    ) -> tuple[Manifest, Tool]:
        """The call's integration and tool, once its arguments pass the tool's
        inputSchema and its expiry is in range. Raises ServiceError(invalidParams)."""
        if tool is None:
            self._lookup(call.integration_id, call.tool_name)  # raises, naming what is unknown
        assert tool is not None
        problems = self.argument_checks.taken(call, tool)  # checked ahead, off the loop
        if problems is None:
            problems = [] if surely_valid(tool, args) else argument_problems(tool, args)
        if problems:
            first = problems[0]
            more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
            where = f"arguments.{first.path}" if first.path else "arguments"
            raise ServiceError(
                "invalidParams",
                f"{where} {first.message}, per the inputSchema of "
                f"{call.integration_id}/{call.tool_name}{more}",
                where,
            )
        expires_in_ms = call.expires_in_ms
        if expires_in_ms is not None and not (0 < expires_in_ms <= MAX_EXPIRES_IN_MS):
            raise ServiceError(
                "invalidParams",
                f"expiresInMs must be between 1 and {MAX_EXPIRES_IN_MS} (30 days)",
                "expiresInMs",
            )
        integration = self.catalog.integration(call.integration_id)
        assert integration is not None  # the tool was found in it
        return integration, tool

    def _to_supersede(self, call: ToolCall, queued: int = 0) -> _Open | None:
        """The open request `call.supersedes` names (None if it names none, or names a
        request of the same asker the person sent back for a change: the revision is the
        new card), once there is room for one more. Raises ServiceError(notOpen,
        overloaded, notYours)."""
        old: _Open | None = None
        if call.supersedes is not None:
            _check_call_id(call.supersedes, "supersedes")
            old = self._open.get(call.supersedes)
            owner = old.owner if old is not None else self.store.request_owner(call.supersedes)
            before = None if old is not None else self.store.decision(call.supersedes)
            if (old is not None or before is not None) and not holds(call.token, owner):
                raise ServiceError(
                    "notYours",
                    f"supersedes: callId {call.supersedes!r} belongs to another asker, so "
                    "this request cannot replace its card; only the client holding its token "
                    "can (send that token as this request's `token`)",
                    "supersedes",
                )
            revised = before is not None and before.reason == "revise"
            if old is not None and old.ending is not None:
                # Already being decided (an approve whose write is under way): superseding
                # it now would race its stored decision; it is decided, as below.
                raise ServiceError(
                    "notOpen",
                    f"callId {call.supersedes!r} was already decided ({old.ending.outcome}); "
                    "nothing to supersede",
                    "supersedes",
                )
            if old is None and not revised:
                raise ServiceError(
                    "notOpen",
                    f"callId {call.supersedes!r} was already decided ({before.outcome}); "
                    "nothing to supersede"
                    if before is not None
                    else f"no open request has callId {call.supersedes!r}; nothing to supersede",
                    "supersedes",
                )
        if len(self._open) + queued >= self._max_pending:
            raise ServiceError(
                "overloaded",
                f"{len(self._open)} requests are already waiting for the person; "
                "wait for some decisions, then ask again",
            )
        return old

    def _repeat_of(self, call: ToolCall) -> _Open | None:
        """The open card, not in a batch and not being decided, that `call`'s asker (its
        token) has for the same tool: the newest one, or None. A card asked less than
        `same_turn_s` ago is not replaced: calls that arrive together are one model turn's
        parallel calls (each gets its card), not an update. The app's own calls (no token)
        never replace one another."""
        owner = owner_of(call.token)
        if owner is None:
            return None
        found: _Open | None = None
        turn_began = self._clock() - self.same_turn_s
        for item in self._open.values():
            request = item.request
            if (
                item.owner == owner
                and item.ending is None
                and request.batch_id is None
                and request.created_at <= turn_began
                and request.integration_id == call.integration_id
                and request.tool_name == call.tool_name
            ):
                found = item
        return found

    def _check_share(self, call: ToolCall, old: _Open | None, queued: int = 0) -> None:
        """Raises ServiceError(overloaded) when the process sending `call` already has
        `max_open_per_asker` requests waiting for the person (`queued` more of its batch
        are planned; a supersede takes its old card's place). So one agent, however many
        tokens or connections it uses, cannot bury another's card. The app's own requests
        and those of a process the platform cannot name are not counted."""
        process = call.process
        if process is None:
            return
        key = process.key
        mine = self._by_process.setdefault(key, set())
        mine.difference_update([c for c in mine if not self._asked_by(c, key)])
        replaced = old is not None and self._asked_by(old.request.call_id, key)
        waiting = len(mine) + queued - int(replaced)  # a supersede takes its old card's place
        if waiting >= self.max_open_per_asker:
            raise ServiceError(
                "overloaded",
                f"{process.label} already has {waiting} requests waiting for the person, the "
                f"most one process may have ({self.max_open_per_asker}); wait for some "
                "decisions, or withdraw some, then ask again",
            )
        mine.add(call.call_id)

    def _asked_by(self, call_id: str, key: str) -> bool:
        """True while `call_id` is open and was asked by the process `key`."""
        item = self._open.get(call_id)
        process = item.request.process if item is not None else None
        return process is not None and process.key == key

    def _by_policy(
        self, item: _Open, verdict: PolicyVerdict, old: _Open | None, scope: Scope | None = None
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
        decision = self._told(_sealed(decision, item.tool, item), item.tool, request.arguments)
        if not runs and verdict.for_model:
            # A "refuses when" rule: the agent hears what the person does not allow and
            # what it can do instead, not the stock "blocked".
            decision = replace(decision, for_model=verdict.for_model)
        item.ending = decision
        self._open[call_id] = item  # a repeat while it is written joins this one

        def decided(error: StoreError | None) -> None:
            if error is not None:
                self._open.pop(call_id, None)
                _fail(item.future, ServiceError("storage", str(error)))
                return
            self._settle(item, decision)
            # The glance is the person's setting (Settings → "Show a glance"), read live.
            rule = _rule_words(scope, self.allowances, self._ran_by_rule.get(call_id))
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

    def _ask(self, item: _Open, old: _Open | None) -> asyncio.Future[Decision]:
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
                    "readBack": _read_back(item.tool, request.arguments),
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
        self._writes.write(NewRequest(request, superseded, item.owner), written)
        self._arm_timer(item)
        if old is not None:
            self._cards.replace(old.request.call_id, request)
        else:
            self._cards.present(request)
        return item.future

    async def request(self, call: ToolCall) -> Decision:
        """`submit()` and wait for the decision. Cancelling the wait leaves the request open."""
        return await asyncio.shield(self.submit(call))

    @_minding_store
    def wait(
        self, call_id: str, listener: EventListener | None = None, token: Asker = IN_PROCESS
    ) -> asyncio.Future[Decision]:
        """A future for the decision of `call_id` (done at once if already decided).
        Raises ServiceError(unknownCall) for a callId never seen, ServiceError(notYours)
        unless `token` is its asker's."""
        item = self._open.get(call_id)
        if item is not None:
            _check_holds(call_id, token, item.owner)
            if listener is not None:
                item.listeners.append(listener)
            return item.future
        stored = self.store.decision(call_id)
        if stored is None:
            raise ServiceError("unknownCall", f"no request has callId {call_id!r}", "callId")
        _check_holds(call_id, token, self.store.request_owner(call_id))
        loop = self._loop or asyncio.get_running_loop()
        done: asyncio.Future[Decision] = loop.create_future()
        done.set_result(self._replayed(stored))
        return done

    @_minding_store
    def get(self, call_id: str, token: Asker = IN_PROCESS) -> Decision | ConfirmationRequest:
        """The decision for `call_id`, or its open request. Raises ServiceError(unknownCall),
        or ServiceError(notYours) unless `token` is its asker's."""
        item = self._open.get(call_id)
        if item is not None:
            _check_holds(call_id, token, item.owner)
            return item.request
        stored = self.store.decision(call_id)
        if stored is None:
            raise ServiceError("unknownCall", f"no request has callId {call_id!r}", "callId")
        _check_holds(call_id, token, self.store.request_owner(call_id))
        return self._replayed(stored)

    @_minding_store
    def status(self, call_id: str) -> tuple[Status, bool]:
        """The bare status anyone may read: (pending or decided, parked). Nothing of what
        was asked or decided. Raises ServiceError(unknownCall)."""
        item = self._open.get(call_id)
        if item is not None:
            return "pending", item.request.parked
        if self.store.decision(call_id) is None:
            raise ServiceError("unknownCall", f"no request has callId {call_id!r}", "callId")
        return "decided", False

    @_minding_store
    def withdraw(
        self, call_id: str, token: Asker = IN_PROCESS, reason: str | None = None
    ) -> asyncio.Future[Decision]:
        """End an open request `withdrawn` and remove its card; the future resolves once
        that is stored. If a decision came first, it resolves with that decision instead
        (marked already decided when it was stored before this call). `reason` is the
        agent's own why ("the client stopped waiting"): made one plain line
        (`agents_line`), kept in the decision's message and shown with the card's going
        as the agent's words, never as Notch's.
        Raises ServiceError(unknownCall) for a callId never seen, ServiceError(notYours)
        unless `token` is its asker's (its card is then left as it is)."""
        item = self._open.get(call_id)
        if item is None:
            return self.wait(call_id, token=token)
        _check_holds(call_id, token, item.owner)
        if item.ending is None:
            why = agents_line(reason, SHOWN_REASON_CHARS) if reason else ""
            message = f"withdrawn by the agent: “{why}”" if why else "withdrawn by the agent"
            self._finish(item, "withdrawn", "agent", message=message, dismiss=True, why=why or None)
        return item.future

    def unsubscribe(self, call_id: str, listener: EventListener) -> None:
        """Stop sending events for `call_id` to `listener` (its client went away)."""
        item = self._open.get(call_id)
        if item is not None and listener in item.listeners:
            item.listeners.remove(listener)

    def read_answered(self, call_id: str, token: Asker = IN_PROCESS) -> tuple[str, str] | None:
        """(integration, tool) of a recent read-only call `call_id` of `token`'s asker that
        was answered notRequired (one of the last MAX_READS_KEPT), else None."""
        found = self._reads.get(call_id)
        if found is None or not holds(token, found[0]):
            return None
        return found[1], found[2]

    @property
    def open_requests(self) -> list[ConfirmationRequest]:
        """Requests waiting for the person, oldest first."""
        return [item.request for item in self._open.values()]

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
        paired phone they answered on, kept in the decision's message for the log). A decline with `reason` "revise"
        carries the person's `feedback` (their words: what to change); `words` are what
        the person typed or said to decide (kept for the log). With an approval, `scope` "session"
        also lets later calls to this action from the same asker session run without a
        card (autoApproved, scope "session") until that session ends; "always" turns the
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
        heard = _bounded_words(words)
        if not approved:
            wants = _bounded_words(feedback) if reason == "revise" else None
            declined = "the person asked for a change" if wants else "the person declined"
            self._finish(
                item,
                "declined",
                decided_by,
                message=_on_phone(declined, answered_on),
                person=True,
                reason="revise" if wants else None,
                feedback=wants,
                words=heard,
            )
            return True
        final = dict(item.request.arguments if final_arguments is None else final_arguments)
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
            message=_on_phone(None, answered_on),
            arguments=final,
            edited=sorted(edited),
            person=True,
            scope=kept,
            saved=remembered,
            words=heard,
        )
        return True

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
        done = " — what already ran stays done" if ran else ""
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

    def _allowance(self, item: _Open, scope: Scope) -> Scope:
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

    # --- askers: who is still there to run it ---------------------------------------

    def asker_here(self, token: str, holder: object) -> None:
        """A connection (`holder`) used `token`: its asker is here (see askers.py)."""
        owner = owner_of(token)
        if owner is not None:
            self.askers.here(owner, holder)

    def asker_left(self, holder: object) -> None:
        """The connection `holder` closed; askers it was the last connection of get their
        grace period, then their open requests are withdrawn."""
        self.askers.left(holder)

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

    def parked(self, call_id: str) -> None:
        item = self._open.get(call_id)
        if item is not None:
            item.request = replace(item.request, parked=True)
            self._emit(item, "parked", {})

    def restored(self, call_id: str) -> None:
        item = self._open.get(call_id)
        if item is not None:
            item.request = replace(item.request, parked=False)
            self._emit(item, "restored", {})

    def shown(self, call_id: str) -> None:
        item = self._open.get(call_id)
        if item is not None:
            self._emit(item, "shown", {})

    # --- internals -------------------------------------------------------------------

    def _lookup(self, integration_id: str, tool_name: str) -> tuple[Manifest, Tool]:
        integration = self.catalog.integration(integration_id)
        if integration is None:
            raise ServiceError(
                "invalidParams",
                f"unknown integration {integration_id!r}; known: {_names(self.catalog.ids())}",
                "integration",
            )
        tool = integration.tool(tool_name)
        if tool is None:
            raise ServiceError(
                "invalidParams",
                f"integration {integration_id!r} has no tool {tool_name!r}; its tools: "
                f"{_names([t.name for t in integration.tools])}",
                "tool",
            )
        return integration, tool

    def _verdict(
        self, integration: Manifest, tool: Tool, args: dict[str, Any], source: str | None = None
    ) -> PolicyVerdict:
        try:
            # A policy that binds allowances to sources (PersonPolicy) hears where from.
            from_source = getattr(self.policy, "verdict_from", None)
            verdict = (
                from_source(source, integration, tool, args)
                if from_source is not None
                else self.policy.verdict(integration, tool, args)
            )
        except Exception:  # a broken policy must fail safe: the person is asked
            log.exception("policy failed for %s/%s; asking", integration.id, tool.name)
            return ASK
        return verdict if verdict.verdict in ("ask", "autoApprove", "block") else ASK

    def _request_not_stored(
        self,
        item: _Open,
        old: _Open | None,
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
            _fail(item.future, ServiceError("storage", str(error)))
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

    def _ended(
        self,
        item: _Open,
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
        return self._told(_sealed(ended, item.tool, item), item.tool, item.request.arguments)

    def _told(self, decision: Decision, tool: Tool, asked: Mapping[str, Any]) -> Decision:
        """`decision` with its sentence for the model (see model_sentence.py)."""
        secrets = tool_facts(tool) if tool is not _GONE_TOOL else None
        title = tool.display_title if tool is not _GONE_TOOL else decision.tool_name
        return replace(decision, for_model=sentence_for_model(decision, title, asked, secrets))

    def _replayed(self, stored: Decision) -> Decision:
        """A stored decision reported again, with a sentence for the model even when it
        was stored before sentences were (made again from the decision)."""
        if not stored.for_model:
            tool = self.catalog.tool(stored.integration_id, stored.tool_name) or _GONE_TOOL
            stored = self._told(stored, tool, {})
        return stored.replayed()

    def _logged(self, item: _Open, decision: Decision) -> dict[str, Any]:
        shown = decision.arguments if decision.arguments is not None else item.request.arguments
        if item.tool is _GONE_TOOL:
            return dict(shown)  # not installed: as the store, which knows no secrets of it
        return redact(shown, tool_facts(item.tool))

    def _finish(
        self,
        item: _Open,
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
        person is told once, in one line. Later calls are refused (`_minding_store`)."""
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
            _fail(item.future, stopped)
            item.listeners.clear()
            self._cards.dismiss(item.request.call_id, "withdrawn")
        self._open.clear()
        self._cards.store_failed(STORE_STOPPED)

    async def drain(self) -> None:
        """Wait until every write queued so far is on disk (and its waiters told)."""
        await self._writes.drain()

    def _settle(self, item: _Open, decision: Decision) -> None:
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

    def _arm_timer(self, item: _Open, not_before: float = 0.0) -> None:
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

    def _emit(self, item: _Open, event: Event, data: dict[str, Any]) -> None:
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


def _done(loop: asyncio.AbstractEventLoop, decision: Decision) -> asyncio.Future[Decision]:
    done: asyncio.Future[Decision] = loop.create_future()
    done.set_result(decision)
    return done


def _keyed_paths(tool: Tool | None, arguments: Mapping[str, Any]) -> tuple[str, ...]:
    """The paths in `arguments` holding a secret value of `tool` (`ToolFacts.secrets_in`:
    the same the store withholds)."""
    if tool is None or tool is _GONE_TOOL:
        return ()
    return tool_facts(tool).secrets_in(arguments)


def _sealed(decision: Decision, tool: Tool, item: _Open | None = None) -> Decision:
    """`decision` with the digest its executor checks: the plain digest of its arguments,
    unless they hold secret values; then keyed (decision.py: `arguments_digest`) with the
    request's salt, which only this live decision carries. Nothing else changes."""
    arguments = decision.arguments
    if not decision.runs or arguments is None:
        return decision
    keyed = _keyed_paths(tool, arguments)
    if not keyed:
        return decision
    salt = new_digest_salt() if item is None else item.salt or new_digest_salt()
    if item is not None:
        item.salt = salt
    return replace(
        decision,
        digest=arguments_digest(arguments, keyed, salt),
        digest_keyed=keyed,
        digest_salt=salt.hex(),
    )


def _fail(future: asyncio.Future[Decision], error: ServiceError) -> None:
    """End `future` with `error`, marked as seen: a request asked with `wait: false`, or
    whose client went away, has nobody awaiting it, and asyncio would log "Future exception
    was never retrieved" for it. Anyone awaiting it still gets the error."""
    if not future.done():
        future.set_exception(error)
        future.exception()


def _same_call(
    call: ToolCall, digest: str, had_integration: str, had_tool: str, had_digest: str
) -> None:
    """Raises ServiceError(callIdInUse) unless `call` is the call its callId was used for."""
    if (had_integration, had_tool, had_digest) != (call.integration_id, call.tool_name, digest):
        raise ServiceError(
            "callIdInUse",
            f"callId {call.call_id!r} was already used for a different call "
            f"({had_integration}/{had_tool}); send a new callId, or `supersedes` to "
            "replace an open card",
            "callId",
        )


def _with_count_check(
    verdict: PolicyVerdict, scope: Scope | None, tool: Tool, args: Mapping[str, Any]
) -> tuple[PolicyVerdict, Scope | None]:
    """A card whose words count something its list does not bear out ("Delete 1 file"
    over nine paths) shows, with the warning on it, even where the person's policy would
    let it run; a Block still blocks."""
    disagree = count_disagreements(tool, args)
    if not disagree or verdict.verdict == "block":
        return verdict, scope
    note = "Check the count: " + " ".join(disagree)
    if verdict.verdict == "ask" and verdict.reason:
        note = f"{verdict.reason} {note}"
    return PolicyVerdict("ask", note), None


def _rule_words(scope: Scope | None, allowances: Allowances, behind: str | None) -> str | None:
    """ "your 'this session' rule" / "your 'Always allow' rule" for a call that ran under
    one (with what a narrower session rule covers), else None."""
    if scope == "always":
        return "your 'Always allow' rule"
    if scope != "session":
        return None
    allowance = next((a for a in allowances.listed() if a.id == behind), None)
    reach = allowance.reach if allowance is not None else None
    if reach is not None and reach.kind != "action":
        return f"your 'this session' rule ({reach.label})"
    return "your 'this session' rule"


def _on_phone(message: str | None, device: str | None) -> str | None:
    """A decision's message with the phone it was answered on ("answered on Pixel 8")."""
    if device is None:
        return message
    where = f"answered on {' '.join(device.split())[:40]}"
    return f"{message} · {where}" if message else where


def _with_update(reason: str | None, updated: str | None) -> str | None:
    """A replacing card's notice: the guard's reason (if one tripped), then what the agent
    updated."""
    if updated is None:
        return reason
    return f"{reason} {updated}" if reason else updated


def _read_back(tool: Tool, arguments: Mapping[str, Any]) -> str:
    try:
        return read_back(tool, arguments)
    except Exception:  # a read-back must never stop a card: the card says it all
        log.exception("no read-back for %s", tool.name)
        return ""


def _bounded_words(text: str | None) -> str | None:
    """The person's words on one line, bounded (None when there are none)."""
    if text is None:
        return None
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat[:MAX_FEEDBACK_CHARS] or None


def _check_holds(call_id: str, asker: Asker, owner: str | None) -> None:
    """Raises ServiceError(notYours) unless `asker` may act on a request held by `owner`."""
    if not holds(asker, owner):
        raise ServiceError(
            "notYours",
            f"callId {call_id!r} belongs to another asker: only the client holding its "
            "token can await, read, withdraw or repeat it. Send the `token` it was "
            "requested with (a client that reconnects or restarts sends the same token); "
            "without a token, confirm.get answers only its bare status",
            "token",
        )


def _check_call_id(value: str, name: str) -> None:
    if (
        not isinstance(value, str)
        or not 0 < len(value) <= MAX_CALL_ID_CHARS
        or not value.isprintable()
    ):
        raise ServiceError(
            "invalidParams",
            f"{name} must be 1 to {MAX_CALL_ID_CHARS} printable characters",
            name,
        )


# Stand-ins for a stored request whose integration was removed before a restart.
_GONE_TOOL: Final = Tool(name="gone", input_schema={"type": "object"})
_GONE: Final = Manifest(schema_version=1, id="gone.gone", version="0", name="gone", tools=[])

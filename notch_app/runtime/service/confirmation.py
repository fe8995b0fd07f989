"""The confirmation service: requests in, decisions out, exactly once (see the package's docstring)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping
from dataclasses import replace

from notch_app.card.display_text import agents_line
from notch_app.runtime.call_ids import MAX_CALL_ID_CHARS
from notch_app.runtime.decision import (
    Decision,
    arguments_digest,
)
from notch_app.runtime.ownership import IN_PROCESS, Asker, holds, owner_of
from notch_app.runtime.presenter import (
    ConfirmationRequest,
    ContainedPresenter,
    Presenter,
)
from notch_app.runtime.service.asking import Asking
from notch_app.runtime.service.calls import (
    EventListener,
    ServiceError,
    Status,
    ToolCall,
    check_holds,
)
from notch_app.runtime.service.deciding import PersonDecisions
from notch_app.runtime.service.ending import minding_store
from notch_app.runtime.service.limits import (
    MAX_BATCH,
    SHOWN_REASON_CHARS,
)
from notch_app.runtime.service.open_request import (
    GONE_INTEGRATION,
    GONE_TOOL,
    OpenRequest,
    Planned,
)
from notch_app.runtime.service.planning import Planning

log = logging.getLogger("notch.service")


class ConfirmationService(Planning, Asking, PersonDecisions):
    """Implements `DecisionSink`. Create, `set_presenter()`, `await start()`, then submit."""

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
            item = OpenRequest(
                request, integration or GONE_INTEGRATION, tool or GONE_TOOL, "", future
            )
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

    @minding_store
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

    @minding_store
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
        plans: list[tuple[int, Planned]] = []
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

    async def request(self, call: ToolCall) -> Decision:
        """`submit()` and wait for the decision. Cancelling the wait leaves the request open."""
        return await asyncio.shield(self.submit(call))

    @minding_store
    def wait(
        self, call_id: str, listener: EventListener | None = None, token: Asker = IN_PROCESS
    ) -> asyncio.Future[Decision]:
        """A future for the decision of `call_id` (done at once if already decided).
        Raises ServiceError(unknownCall) for a callId never seen, ServiceError(notYours)
        unless `token` is its asker's."""
        item = self._open.get(call_id)
        if item is not None:
            check_holds(call_id, token, item.owner)
            if listener is not None:
                item.listeners.append(listener)
            return item.future
        stored = self.store.decision(call_id)
        if stored is None:
            raise ServiceError("unknownCall", f"no request has callId {call_id!r}", "callId")
        check_holds(call_id, token, self.store.request_owner(call_id))
        loop = self._loop or asyncio.get_running_loop()
        done: asyncio.Future[Decision] = loop.create_future()
        done.set_result(self._replayed(stored))
        return done

    @minding_store
    def get(self, call_id: str, token: Asker = IN_PROCESS) -> Decision | ConfirmationRequest:
        """The decision for `call_id`, or its open request. Raises ServiceError(unknownCall),
        or ServiceError(notYours) unless `token` is its asker's."""
        item = self._open.get(call_id)
        if item is not None:
            check_holds(call_id, token, item.owner)
            return item.request
        stored = self.store.decision(call_id)
        if stored is None:
            raise ServiceError("unknownCall", f"no request has callId {call_id!r}", "callId")
        check_holds(call_id, token, self.store.request_owner(call_id))
        return self._replayed(stored)

    @minding_store
    def status(self, call_id: str) -> tuple[Status, bool]:
        """The bare status anyone may read: (pending or decided, parked). Nothing of what
        was asked or decided. Raises ServiceError(unknownCall)."""
        item = self._open.get(call_id)
        if item is not None:
            return "pending", item.request.parked
        if self.store.decision(call_id) is None:
            raise ServiceError("unknownCall", f"no request has callId {call_id!r}", "callId")
        return "decided", False

    @minding_store
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
        check_holds(call_id, token, item.owner)
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
        """The card's first frame is painted: its request row, held until now, is
        committed (see `Asking._ask`), and its client hears "shown" after
        confirmationRequired."""
        item = self._open.get(call_id)
        if item is not None:
            if not item.stored:
                self._writes.commit_held()
            self._emit(item, "shown", {})

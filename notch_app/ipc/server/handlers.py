"""What each socket method does: confirm.*, integrations.list, gateway.attach, glances, work,
session.end, server.info."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from notch_app import __version__
from notch_app.ipc import protocol as rpc
from notch_app.ipc.methods import NAMES as METHOD_NAMES
from notch_app.ipc.methods import (
    BatchCall,
    CallIdParams,
    ConfirmAwaitParams,
    ConfirmBatchParams,
    ConfirmRequestParams,
    GlanceShowParams,
    NoParams,
    SessionEndParams,
    WithdrawParams,
    WorkBeginParams,
    WorkEndParams,
    parse_params,
)
from notch_app.ipc.server.connection import Connection
from notch_app.ipc.server.replies import (
    NOT_ASKED,
    Later,
    Result,
    batch_call_id,
    batch_entry,
    pending_reply,
    shown_reply,
    token_with_call_id,
    with_token,
)
from notch_app.runtime.decision import Decision
from notch_app.runtime.glances import Glances
from notch_app.runtime.ownership import new_token
from notch_app.runtime.service import (
    MAX_BATCH,
    ConfirmationService,
    ServiceError,
    ToolCall,
)

log = logging.getLogger("notch.ipc")


class MethodHandlers:
    """The socket's methods (a part of NotchServer), each from checked params to a
    reply, or to a `Later` that waits for a decision."""

    service: ConfirmationService
    loop: asyncio.AbstractEventLoop
    glances: Glances

    def _confirm_request(self, conn: Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(ConfirmRequestParams, params)
        token = asked.token or new_token()
        call = asked.tool_call(token)
        call.process = conn.process  # what its open requests count against
        checking = self.service.check_ahead([call])
        if checking is not None:  # its arguments are checked off the loop first
            return self._after(
                checking, asked.call_id, lambda: self._request_checked(conn, asked, call, token)
            )
        return self._request_checked(conn, asked, call, token)

    def _after(
        self, checking: asyncio.Future[None], call_id: str, then: Callable[[], Result]
    ) -> Later:
        """The reply to a request whose arguments a worker thread is checking: what
        `then()` answers once they are checked (its decision, when it waits for one)."""

        async def checked() -> Any:
            await checking
            result = then()
            if isinstance(result, Later):
                value = await asyncio.shield(result.future)  # the service's: never cancelled
                if result.render is not None:
                    return result.render(value)
                return with_token(value, result.token)
            return result

        return Later(self.loop.create_task(checked()), call_id, render=lambda reply: reply)

    def _request_checked(
        self, conn: Connection, asked: ConfirmRequestParams, call: ToolCall, token: str
    ) -> Result:
        call_id = asked.call_id
        future = self.service.submit(call, conn.on_event)
        if future.done():
            return with_token(future.result(), token)
        conn.watch(call_id)
        if not asked.wait:
            return {"callId": call_id, "status": "pending", "parked": False, "token": token}
        return Later(future, call_id, token=token)

    def _confirm_batch(self, conn: Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(ConfirmBatchParams, params)
        token = asked.token or new_token()
        if asked.token is None:
            conn.tokens.add(token)
            self.service.asker_here(token, conn)
        # Each entry: the call's future, or the error that kept it from being asked.
        entries: list[asyncio.Future[Decision] | ServiceError | rpc.RpcError] = []
        calls: list[ToolCall] = []
        places: list[int] = []
        for index, raw in enumerate(asked.calls):
            entries.append(NOT_ASKED)
            if index >= MAX_BATCH:
                entries[index] = ServiceError(
                    "invalidParams",
                    f"a batch holds at most {MAX_BATCH} calls; this one was not asked: send "
                    "it in another batch",
                    "calls",
                )
                continue
            try:
                if not isinstance(raw, dict):
                    raise rpc.RpcError(
                        rpc.INVALID_PARAMS,
                        "invalid params: a call must be an object {callId, integration, "
                        "tool, arguments}",
                    )
                call = parse_params(BatchCall, raw)
            except rpc.RpcError as exc:
                entries[index] = exc
                continue
            places.append(index)
            calls.append(asked.tool_call(call, token))
            calls[-1].process = conn.process
        checking = self.service.check_ahead(calls)
        if checking is not None:  # their arguments are checked off the loop first
            return self._after(
                checking,
                "",
                lambda: self._batch_checked(conn, asked, token, entries, calls, places),
            )
        return self._batch_checked(conn, asked, token, entries, calls, places)

    def _batch_checked(
        self,
        conn: Connection,
        asked: ConfirmBatchParams,
        token: str,
        entries: list[asyncio.Future[Decision] | ServiceError | rpc.RpcError],
        calls: list[ToolCall],
        places: list[int],
    ) -> Result:
        for index, result in zip(
            places, self.service.submit_many(calls, conn.on_event), strict=True
        ):
            entries[index] = result
        ids = [batch_call_id(raw) for raw in asked.calls]
        every: asyncio.Future[None] = self.loop.create_future()
        waiting = [e for e in entries if isinstance(e, asyncio.Future) and not e.done()]
        left = len(waiting)

        def one_done(_: asyncio.Future[Decision]) -> None:
            nonlocal left
            left -= 1
            if left == 0 and not every.done():
                every.set_result(None)

        for index, entry in enumerate(entries):
            if isinstance(entry, asyncio.Future) and not entry.done():
                conn.watch(ids[index] or "")
                entry.add_done_callback(one_done)
        if left == 0:
            every.set_result(None)

        def render(_: None) -> dict[str, Any]:
            results = [batch_entry(e, ids[i], i) for i, e in enumerate(entries)]
            return {"results": results, "token": token}

        return Later(every, "", render=render)

    def _confirm_await(self, conn: Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(ConfirmAwaitParams, params)
        future = self.service.wait(asked.call_id, conn.on_event, asked.token)
        if future.done():
            return future.result().to_wire()
        conn.watch(asked.call_id)
        timeout_ms = asked.timeout_ms
        return Later(future, asked.call_id, None if timeout_ms is None else timeout_ms / 1000)

    def _confirm_get(self, conn: Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(CallIdParams, params)
        if asked.token is None:  # the bare status: nothing of what was asked or decided
            status, parked = self.service.status(asked.call_id)
            if status == "pending":
                return {"callId": asked.call_id, "status": status, "parked": parked}
            return {"callId": asked.call_id, "status": status}
        found = self.service.get(asked.call_id, asked.token)
        return found.to_wire() if isinstance(found, Decision) else pending_reply(found)

    def _confirm_withdraw(self, conn: Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(WithdrawParams, params)
        call_id = asked.call_id
        future = self.service.withdraw(call_id, asked.token, asked.reason)
        return future.result().to_wire() if future.done() else Later(future, call_id)

    def _integrations_list(self, conn: Connection, params: dict[str, Any]) -> Result:
        parse_params(NoParams, params)
        return {"integrations": self.service.catalog.describe()}

    def _attached(self, conn: Connection, integration_id: str) -> None:
        # This connection is the integration's own gateway: its reads' glances may come
        # without a callId, and before any card (the overlay readies the glance code).
        self.glances.fronts(conn, integration_id)
        self.service.presenter.results_may_follow()

    def _glance_show(self, conn: Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(GlanceShowParams, params)
        token_with_call_id(asked.call_id, asked.token)
        reading = self.glances.show(
            asked.integration,
            asked.tool,
            asked.blocks,
            call_id=asked.call_id,
            token=asked.token,
            owner=conn,
        )
        return shown_reply(reading)

    def _work_begin(self, conn: Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(WorkBeginParams, params)
        token_with_call_id(asked.call_id, asked.token)
        work = self.glances.begin(
            asked.integration,
            asked.tool,
            owner=conn,
            call_id=asked.call_id,
            token=asked.token,
            estimated_ms=asked.estimated_duration_ms,
        )
        return {"workId": work.work_id}

    def _work_end(self, conn: Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(WorkEndParams, params)
        reading = self.glances.end(
            asked.work_id, owner=conn, ok=asked.ok, message=asked.message, blocks=asked.blocks
        )
        return shown_reply(reading)

    def _session_end(self, conn: Connection, params: dict[str, Any]) -> Result:
        # Anyone may end a session: it only takes allowances away (the next call asks).
        asked = parse_params(SessionEndParams, params)
        ended = self.service.allowances.end_agent_session(asked.session)
        if ended:
            log.info("session %s ended: %d allowance(s) ended", asked.session, len(ended))
        return {"ended": len(ended)}

    def _server_info(self, conn: Connection, params: dict[str, Any]) -> Result:
        parse_params(NoParams, params)
        return {
            "name": "notch",
            "version": __version__,
            "methods": list(METHOD_NAMES),
            "maxMessageBytes": rpc.MAX_MESSAGE_BYTES,
        }

"""The asyncio client: one connection, many concurrent calls, reconnecting when it drops."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from notch_app.ipc import protocol as rpc
from notch_app.ipc.address import find_socket
from notch_app.ipc.client.calls import (
    BatchCall,
    bare_status,
    batch_params,
    batch_results,
    batch_timed_out,
    decided_or_timed_out,
    decision_or_none,
    glance_params,
    reason_refused,
    request_params,
    stopped_waiting,
    verified_decision,
    withdraw_failed,
    withdraw_params,
)
from notch_app.ipc.client.connecting import (
    CONNECT_WAIT_S,
    REPLY_LIMIT,
    WITHDRAW_WAIT_S,
    Backoff,
    Dropped,
    answer_limit,
    checked_token,
    connect_failed,
    connected_socket,
    encode_call,
    no_answer,
    request_error,
    routed,
    socket_search,
)
from notch_app.ipc.client.errors import (
    NotchError,
    NotchNotRunning,
    NotchRequestError,
    NotchTimeout,
    NotchUntrusted,
)
from notch_app.ipc.client.events import CallListeners, ConfirmationEvent, EventHandler
from notch_app.ipc.peer import UntrustedServer, verify_server
from notch_app.runtime.decision import Decision


class _Link(asyncio.BufferedProtocol):
    """One open connection. Replies are routed to their futures straight from
    `buffer_updated` (no reader task): a reply wakes its caller in one loop turn.
    Reads land in one buffer kept for the connection's life (see the server's)."""

    def __init__(self, on_event: Callable[[ConfirmationEvent], None]) -> None:
        self.on_event = on_event
        self.transport: asyncio.Transport | None = None
        self.inbox = memoryview(bytearray(64 * 1024))
        self.splitter = rpc.LineSplitter(REPLY_LIMIT)
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self.ids = itertools.count(1)
        self.alive = True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.inbox

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(bytes(self.inbox[:nbytes]))

    def data_received(self, data: bytes) -> None:
        try:
            events, replies = routed(self.splitter.feed(data))
        except Dropped:
            self._lose()
            return
        for event in events:
            self.on_event(event)
        for reply in replies:
            future = self.waiting.get(reply.get("id"))  # type: ignore[arg-type]
            if future is None or future.done():
                continue
            if "error" in reply:
                future.set_exception(request_error(reply["error"]))
            else:
                future.set_result(reply.get("result"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._lose()

    def _lose(self) -> None:
        self.alive = False
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(Dropped())
        if self.transport is not None:
            self.transport.close()

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        if not self.alive or self.transport is None:
            raise Dropped
        request_id = next(self.ids)
        data = encode_call(request_id, method, params)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        try:
            self.transport.write(data)
            return await future
        finally:
            del self.waiting[request_id]

    async def close(self) -> None:
        self.alive = False
        if self.transport is not None:
            self.transport.close()


class AsyncNotchClient:
    """Talks to a running Notch over its socket. Use as `async with AsyncNotchClient() as c`.

    `on_event` receives every `ConfirmationEvent` for requests this client made or awaits.
    `token` is the secret its requests are made with, and so the only key to them: a new
    one per client unless given (pass the one you kept to pick up requests made by an
    earlier run of yours). Raises ValueError for a token that cannot be one.
    """

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None = None,
        *,
        reconnect_for: float = 10.0,
        on_event: EventHandler | None = None,
        token: str | None = None,
    ) -> None:
        self.token = checked_token(token)
        self._fixed = socket_search(socket_path)
        self._search = self._fixed or find_socket()
        self.socket_path = self._search.path
        self.reconnect_for = reconnect_for
        self.on_event = on_event
        self._link: _Link | None = None
        self._connecting: asyncio.Lock | None = None
        self._listeners = CallListeners()

    async def __aenter__(self) -> AsyncNotchClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Open the connection now (calls also connect on demand).
        Raises NotchNotRunning when nothing listens on the socket."""
        await self._ensure_link()

    async def close(self) -> None:
        if self._link is not None:
            await self._link.close()
            self._link = None

    # --- the API ---------------------------------------------------------------------

    async def confirm(
        self,
        integration: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        call_id: str | None = None,
        supersedes: str | None = None,
        expires_in: float | None = None,
        context: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        on_event: EventHandler | None = None,
    ) -> Decision:
        """Ask the person (unless no card is needed) and return the decision.

        `call_id` defaults to a fresh UUID; pass your tool-call id so a retry after a crash
        finds the same request. `expires_in` (seconds) ends it `expired` if undecided.
        Raises NotchRequestError (unknown integration/tool, bad arguments: `.field`; a
        callId or `supersedes` made with another token: code -32008), NotchNotRunning,
        NotchConnectionLost, or NotchTimeout (a TimeoutError) after `timeout` seconds,
        once the request is withdrawn (if the person decided just before the withdraw
        arrived, that decision is returned instead).
        """
        params = request_params(
            integration, tool, arguments, call_id, supersedes, expires_in, context, self.token
        )
        if timeout is None and on_event is None:  # the common case, without the extras
            return verified_decision(await self.call("confirm.request", params))
        try:
            async with asyncio.timeout(timeout):
                with self._listeners.listening(params["callId"], on_event):
                    result = await self.call("confirm.request", params)
        except TimeoutError:
            return await self._gave_up(params["callId"], timeout)
        return verified_decision(result)

    async def confirm_many(
        self,
        calls: Sequence[BatchCall | Mapping[str, Any]],
        *,
        context: Mapping[str, Any] | None = None,
        expires_in: float | None = None,
        timeout: float | None = None,
    ) -> list[Decision | NotchError]:
        """Ask about the tool calls of one model turn at once (`confirm.batch`): the
        person sees them as "1 of N" with Approve all / Decline all. Returns one entry
        per call, in order: its Decision, or the NotchError that kept it from being asked
        (a NotchRequestError with `.field` such as `calls.2.arguments.to`) or from being
        run (NotchDecisionRefused); one bad call never loses the others. A call is a
        BatchCall or a mapping {integration, tool, arguments, callId?}.
        Raises NotchUsageError for a call without integration or tool, NotchTimeout after
        `timeout` seconds (every call still open is withdrawn first), and the errors
        of `confirm()` for the batch as a whole."""
        params = batch_params(calls, self.token, context, expires_in)
        try:
            async with asyncio.timeout(timeout):
                result = await self.call("confirm.batch", params)
        except TimeoutError:
            ended = await self._withdraw_all([call["callId"] for call in params["calls"]])
            raise batch_timed_out(timeout, ended) from None
        return batch_results(result, len(params["calls"]))

    async def submit(
        self,
        integration: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        call_id: str | None = None,
        supersedes: str | None = None,
        expires_in: float | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> tuple[str, Decision | None]:
        """Queue a request without waiting: (callId, decision or None while pending).
        Same errors as `confirm()`."""
        params = request_params(
            integration, tool, arguments, call_id, supersedes, expires_in, context, self.token
        )
        params["wait"] = False
        result = await self.call("confirm.request", params)
        return params["callId"], decision_or_none(result)

    async def await_decision(
        self, call_id: str, *, timeout: float | None = None, on_event: EventHandler | None = None
    ) -> Decision:
        """Wait for the decision on `call_id`. Raises NotchTimeout after `timeout` seconds
        (the request stays open), NotchRequestError(-32001) for a callId Notch never saw,
        (-32008) for one made with another token."""
        params = {"callId": call_id, "token": self.token}
        try:
            async with asyncio.timeout(timeout):
                with self._listeners.listening(call_id, on_event):
                    while True:
                        result = await self.call("confirm.await", params)
                        decision = decision_or_none(result)
                        if decision is not None:
                            return decision
        except TimeoutError:
            raise NotchTimeout(
                f"no decision on {call_id!r} within {timeout:g} s; it stays open"
            ) from None

    async def get(self, call_id: str) -> Decision | None:
        """The decision on `call_id`, or None while it is pending. Raises
        NotchRequestError(-32008) for a callId made with another token (`status()` is
        what anyone may read)."""
        params = {"callId": call_id, "token": self.token}
        return decision_or_none(await self.call("confirm.get", params))

    async def status(self, call_id: str) -> str:
        """The bare status of any request, whoever made it: "pending" or "decided".
        Raises NotchRequestError(-32001) for a callId Notch never saw."""
        return bare_status(await self.call("confirm.get", {"callId": call_id}))

    async def withdraw(
        self, call_id: str, *, timeout: float | None = None, reason: str | None = None
    ) -> Decision:
        """Withdraw `call_id`; returns `withdrawn`, or the decision if it came first.
        `reason` says why, in a few words the person sees with the card's going (as
        yours; cut to MAX_WITHDRAW_REASON_CHARS). Raises NotchRequestError(-32008) for a
        callId made with another token, NotchTimeout without an answer within `timeout`
        (default ANSWER_WAIT_S)."""
        params = withdraw_params(call_id, self.token, reason)
        try:
            result = await self.call("confirm.withdraw", params, timeout=timeout)
        except NotchRequestError as exc:
            if "reason" not in params or not reason_refused(exc):
                raise
            del params["reason"]  # a Notch from before reasons: withdrawn all the same
            result = await self.call("confirm.withdraw", params, timeout=timeout)
        return verified_decision(result)

    async def integrations(self, *, timeout: float | None = None) -> list[dict[str, Any]]:
        """The integrations Notch has loaded, each with its tools. Raises NotchTimeout
        without an answer within `timeout` (default ANSWER_WAIT_S)."""
        result = await self.call("integrations.list", {}, timeout=timeout)
        return list(result["integrations"])

    async def show_glance(
        self,
        integration: str,
        tool: str,
        blocks: list[Any],
        *,
        call_id: str | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Show a tool result's glance (`_voiceos_glance.blocks`) in the notch; with
        `call_id`, the result of that call of this client's, which must have run.
        Returns {shown, dropped: [{index, kind, reason}]}. Raises NotchRequestError,
        NotchTimeout without an answer within `timeout` (default ANSWER_WAIT_S)."""
        params = glance_params(integration, tool, blocks, call_id, self.token)
        return dict(await self.call("glance.show", params, timeout=timeout))

    async def call(
        self, method: str, params: dict[str, Any], *, timeout: float | None = None
    ) -> Any:
        """Call any method; retries on a new connection if the old one drops. Raises
        NotchTimeout without an answer within `timeout` seconds, or, for a method Notch
        answers at once, within ANSWER_WAIT_S (see `answer_limit`)."""
        limit = answer_limit(method, params, timeout)
        if limit is None:  # a person's decision: the caller bounds it (confirm's timeout)
            return await self._call(method, params)
        try:
            async with asyncio.timeout(limit):
                return await self._call(method, params)
        except TimeoutError as exc:
            if isinstance(exc, NotchTimeout):
                raise
            raise no_answer(method, limit) from None

    # --- internals -------------------------------------------------------------------

    async def _call(self, method: str, params: dict[str, Any]) -> Any:
        link = self._link
        dropped = False
        if link is not None and link.alive:  # fast path: already connected
            try:
                return await link.call(method, params)
            except Dropped:
                dropped = True
        loop = asyncio.get_running_loop()
        backoff = Backoff(self.socket_path, self.reconnect_for)
        if dropped:
            backoff.dropped(loop.time())
        while True:
            try:
                link = await self._ensure_link()
                return await link.call(method, params)
            except (Dropped, NotchNotRunning) as exc:
                await asyncio.sleep(backoff.pause_after(exc, loop.time()))

    async def _gave_up(self, call_id: str, timeout: float | None) -> Decision:
        """`confirm()` ran out of time: withdraw the request (within WITHDRAW_WAIT_S),
        then raise NotchTimeout — unless the person decided just before the withdraw
        arrived: that decision is the answer then."""
        try:
            ended = await self.withdraw(
                call_id, timeout=WITHDRAW_WAIT_S, reason=stopped_waiting(timeout)
            )
        except NotchError as exc:
            raise withdraw_failed(call_id, timeout, exc) from None
        return decided_or_timed_out(call_id, timeout, ended)

    async def _withdraw_all(self, call_ids: Sequence[str]) -> list[Decision | NotchError]:
        """Withdraw every one of `call_ids` at once, all within WITHDRAW_WAIT_S: each
        one's answer (its withdrawn decision, or the one that came first), or the
        NotchError that kept it from one."""

        async def one(call_id: str) -> Decision | NotchError:
            try:
                return await self.withdraw(call_id, timeout=WITHDRAW_WAIT_S)
            except NotchError as exc:
                return exc

        tasks = [asyncio.ensure_future(one(call_id)) for call_id in call_ids]
        done, late = await asyncio.wait(tasks, timeout=WITHDRAW_WAIT_S)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)
        return [
            task.result() if task in done else no_answer("confirm.withdraw", WITHDRAW_WAIT_S)
            for task in tasks
        ]

    def _dispatch(self, event: ConfirmationEvent) -> None:
        self._listeners.dispatch(event, self.on_event)

    async def _ensure_link(self) -> _Link:
        if self._link is not None and self._link.alive:
            return self._link
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._link is not None and self._link.alive:
                return self._link
            loop = asyncio.get_running_loop()
            if self._fixed is None:  # a Notch started since, or elsewhere, is found
                self._search = find_socket()
                self.socket_path = self._search.path
            sock = connected_socket(self.socket_path, self._search.looked)
            try:
                async with asyncio.timeout(CONNECT_WAIT_S):
                    transport, link = await loop.create_unix_connection(
                        lambda: _Link(self._dispatch), sock=sock
                    )
            except OSError as exc:
                sock.close()
                raise connect_failed(self.socket_path, exc, self._search.looked) from None
            try:  # before anything is sent on it
                verify_server(transport.get_extra_info("socket"), self.socket_path)
            except UntrustedServer as exc:
                transport.abort()
                raise NotchUntrusted(str(exc)) from None
            self._link = link
            return link

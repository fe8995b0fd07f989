"""The asyncio client for a running Notch (public face: `notch_app.client`).

One connection, many concurrent calls (matched by JSON-RPC id). If the connection drops
mid-call, the client reconnects for up to `reconnect_for` seconds and sends the call
again: `confirm.request` is keyed by callId, so sending it again never makes a second
card, it picks up the same request (or its stored decision) on the new connection.
Timeouts are the caller's: pass `timeout=` (seconds) or wrap calls in `asyncio.timeout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from notch_app.ipc import protocol as rpc
from notch_app.ipc.address import default_socket_path
from notch_app.runtime.decision import Decision

_READ_LIMIT: Final = 4 * rpc.MAX_MESSAGE_BYTES


class NotchError(Exception):
    """Anything that kept a call from getting an answer."""


class NotchNotRunning(NotchError):
    """Nothing is listening on the socket."""


class NotchConnectionLost(NotchError):
    """The connection dropped and could not be re-established in time."""


class NotchRequestError(NotchError):
    """Notch refused the call (a JSON-RPC error): `code`, `message`, `field`."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    @property
    def field(self) -> str | None:
        """The parameter Notch named as wrong (`arguments.to`, `integration`…), if any."""
        if isinstance(self.data, dict) and isinstance(self.data.get("field"), str):
            return str(self.data["field"])
        return None


@dataclass(frozen=True, slots=True)
class ConfirmationEvent:
    """A notification about one request: confirmationRequired, shown, parked, restored,
    decided."""

    call_id: str
    event: str
    data: dict[str, Any] = field(default_factory=dict)


EventHandler = Callable[[ConfirmationEvent], None]


class _Lost(Exception):
    pass


class _Link:
    """One open connection: a reader task routing replies to futures."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_event: Callable[[ConfirmationEvent], None],
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.on_event = on_event
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self.ids = itertools.count(1)
        self.alive = True
        self.task = asyncio.ensure_future(self._read())

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        if not self.alive:
            raise _Lost
        request_id = next(self.ids)
        data = rpc.encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        if len(data) > rpc.MAX_MESSAGE_BYTES + 1:
            raise NotchRequestError(
                rpc.INVALID_REQUEST,
                f"the request is {len(data)} bytes; Notch accepts at most "
                f"{rpc.MAX_MESSAGE_BYTES} (1 MiB) per message",
            )
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        try:
            self.writer.write(data)
            return await future
        finally:
            self.waiting.pop(request_id, None)

    async def _read(self) -> None:
        try:
            while True:
                line = await self.reader.readuntil(b"\n")
                try:
                    message = rpc.decode(line)
                except rpc.RpcError:
                    continue
                if not isinstance(message, dict):
                    continue
                if "method" in message:
                    params = message.get("params")
                    if message["method"] == rpc.EVENT_METHOD and isinstance(params, dict):
                        call_id = str(params.get("callId", ""))
                        event = str(params.get("event", ""))
                        rest = {k: v for k, v in params.items() if k not in ("callId", "event")}
                        self.on_event(ConfirmationEvent(call_id, event, rest))
                    continue
                future = self.waiting.get(message.get("id"))  # type: ignore[arg-type]
                if future is None or future.done():
                    continue
                error = message.get("error")
                if isinstance(error, dict):
                    future.set_exception(
                        NotchRequestError(
                            int(error.get("code", rpc.INTERNAL_ERROR)),
                            str(error.get("message", "error")),
                            error.get("data"),
                        )
                    )
                else:
                    future.set_result(message.get("result"))
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, OSError):
            pass
        finally:
            self.alive = False
            for future in self.waiting.values():
                if not future.done():
                    future.set_exception(_Lost())
            self.writer.close()

    async def close(self) -> None:
        self.alive = False
        self.writer.close()
        self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task


class AsyncNotchClient:
    """Talks to a running Notch over its socket. Use as `async with AsyncNotchClient() as c`.

    `on_event` receives every `ConfirmationEvent` for requests this client made or awaits.
    """

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None = None,
        *,
        reconnect_for: float = 10.0,
        on_event: EventHandler | None = None,
    ) -> None:
        self.socket_path = Path(socket_path) if socket_path else default_socket_path()
        self.reconnect_for = reconnect_for
        self.on_event = on_event
        self._link: _Link | None = None
        self._connecting: asyncio.Lock | None = None
        self._handlers: dict[str, list[EventHandler]] = {}

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
        Raises NotchRequestError (unknown integration/tool, bad arguments: `.field`),
        NotchNotRunning, NotchConnectionLost, or TimeoutError after `timeout` seconds (the
        request stays open: `withdraw()` it if you give up).
        """
        params = self._request_params(
            integration, tool, arguments, call_id, supersedes, expires_in, context
        )
        async with asyncio.timeout(timeout):
            with self._listening(params["callId"], on_event):
                result = await self.call("confirm.request", params)
        return Decision.from_wire(result)

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
        params = self._request_params(
            integration, tool, arguments, call_id, supersedes, expires_in, context
        )
        params["wait"] = False
        result = await self.call("confirm.request", params)
        return params["callId"], _decision_or_none(result)

    async def await_decision(
        self, call_id: str, *, timeout: float | None = None, on_event: EventHandler | None = None
    ) -> Decision:
        """Wait for the decision on `call_id`. Raises TimeoutError after `timeout` seconds,
        NotchRequestError(-32001) for a callId Notch never saw."""
        async with asyncio.timeout(timeout):
            with self._listening(call_id, on_event):
                while True:
                    result = await self.call("confirm.await", {"callId": call_id})
                    decision = _decision_or_none(result)
                    if decision is not None:
                        return decision

    async def get(self, call_id: str) -> Decision | None:
        """The decision on `call_id`, or None while it is pending."""
        return _decision_or_none(await self.call("confirm.get", {"callId": call_id}))

    async def withdraw(self, call_id: str) -> Decision:
        """Withdraw `call_id`; returns `withdrawn`, or the decision if it came first."""
        return Decision.from_wire(await self.call("confirm.withdraw", {"callId": call_id}))

    async def integrations(self) -> list[dict[str, Any]]:
        """The integrations Notch has loaded, each with its tools."""
        result = await self.call("integrations.list", {})
        return list(result["integrations"])

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        """Call any method; retries on a new connection if the old one drops."""
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        delay = 0.05
        while True:
            try:
                link = await self._ensure_link()
                return await link.call(method, params)
            except (_Lost, NotchNotRunning) as exc:
                if deadline is None:
                    if isinstance(exc, NotchNotRunning):
                        raise  # never connected for this call: nothing to resume
                    deadline = loop.time() + self.reconnect_for
                if loop.time() >= deadline:
                    raise NotchConnectionLost(
                        f"lost the connection to Notch at {self.socket_path} and could not "
                        f"reconnect within {self.reconnect_for:g} s"
                    ) from None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)

    # --- internals -------------------------------------------------------------------

    def _request_params(
        self,
        integration: str,
        tool: str,
        arguments: Mapping[str, Any],
        call_id: str | None,
        supersedes: str | None,
        expires_in: float | None,
        context: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        params: dict[str, Any] = {
            "callId": call_id or uuid.uuid4().hex,
            "integration": integration,
            "tool": tool,
            "arguments": dict(arguments),
        }
        if supersedes is not None:
            params["supersedes"] = supersedes
        if expires_in is not None:
            params["expiresInMs"] = max(1, round(expires_in * 1000))
        if context:
            params["context"] = dict(context)
        return params

    @contextlib.contextmanager
    def _listening(self, call_id: str, handler: EventHandler | None) -> Any:
        if handler is None:
            yield
            return
        self._handlers.setdefault(call_id, []).append(handler)
        try:
            yield
        finally:
            handlers = self._handlers.get(call_id, [])
            if handler in handlers:
                handlers.remove(handler)
            if not handlers:
                self._handlers.pop(call_id, None)

    def _dispatch(self, event: ConfirmationEvent) -> None:
        for handler in [*self._handlers.get(event.call_id, ()), self.on_event]:
            if handler is not None:
                handler(event)

    async def _ensure_link(self) -> _Link:
        if self._link is not None and self._link.alive:
            return self._link
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._link is not None and self._link.alive:
                return self._link
            try:
                reader, writer = await asyncio.open_unix_connection(
                    os.fspath(self.socket_path), limit=_READ_LIMIT
                )
            except (FileNotFoundError, ConnectionRefusedError):
                raise NotchNotRunning(
                    f"no Notch is running at {self.socket_path}: start it with `notch run`"
                ) from None
            except OSError as exc:
                raise NotchNotRunning(
                    f"cannot connect to Notch at {self.socket_path}: {exc.strerror}"
                ) from None
            self._link = _Link(reader, writer, self._dispatch)
            return self._link


def _decision_or_none(result: Any) -> Decision | None:
    if isinstance(result, dict) and result.get("status") == "pending":
        return None
    if not isinstance(result, dict):
        raise NotchRequestError(rpc.INTERNAL_ERROR, "Notch sent a reply that is not a decision")
    return Decision.from_wire(result)

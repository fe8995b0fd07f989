"""The asyncio JSON-RPC server in front of the confirmation service.

No client can crash or stall it: every line is bounded (1 MiB; longer ones are answered
with an error and skipped without being buffered), parsing is bounded in depth, each
connection has a bounded number of requests in flight and a bounded write buffer (a
client that stops reading is disconnected), and handlers never block. A client that
disconnects mid-request leaves its request open: the decision is stored for `confirm.get`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Final

from notch_app import __version__
from notch_app.ipc import protocol as rpc
from notch_app.ipc.address import claim_socket_path
from notch_app.runtime.decision import Decision
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.service import ConfirmationService, Event, ServiceError

log = logging.getLogger("notch.ipc")

MAX_IN_FLIGHT: Final = 256
"""Requests one connection may have waiting at once (decisions being awaited)."""
MAX_WRITE_BUFFER: Final = 16 * 1024 * 1024
"""Unread bytes queued for one client before it is disconnected as not reading."""
MAX_CONNECTIONS: Final = 512
MAX_AWAIT_MS: Final = 24 * 3600 * 1000
_SLICE_S: Final = 0.004

_ERROR_CODES: Final[Mapping[str, int]] = {
    "invalidParams": rpc.INVALID_PARAMS,
    "unknownCall": rpc.UNKNOWN_CALL,
    "callIdInUse": rpc.CALL_ID_IN_USE,
    "notOpen": rpc.NOT_OPEN,
    "overloaded": rpc.OVERLOADED,
    "storage": rpc.STORAGE_ERROR,
}

Result = Any | Awaitable[Any]
Handler = Callable[["_Connection", dict[str, Any]], Result]


def _bad(field: str, message: str) -> rpc.RpcError:
    return rpc.RpcError(rpc.INVALID_PARAMS, f"invalid params: {field} {message}", {"field": field})


def _text(params: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = params.get(name)
    if value is None:
        if required:
            raise _bad(name, "is required")
        return None
    if not isinstance(value, str):
        raise _bad(name, "must be a string")
    return value


def _whole(params: dict[str, Any], name: str, low: int, high: int) -> int | None:
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _bad(name, f"must be a whole number from {low} to {high}")
    return value


def _only(params: dict[str, Any], allowed: frozenset[str]) -> None:
    extra = sorted(set(params) - allowed)
    if extra:
        raise _bad(
            extra[0], f"is not a parameter of this method (it takes {', '.join(sorted(allowed))})"
        )


def _pending(request: ConfirmationRequest) -> dict[str, Any]:
    return {"callId": request.call_id, "status": "pending", "parked": request.parked}


class _Connection:
    def __init__(
        self, server: NotchServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        self.tasks: set[asyncio.Task[None]] = set()
        self.watched: set[str] = set()
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        if self.closed or self.writer.is_closing():
            return
        try:
            data = rpc.encode(message)
        except ValueError:  # e.g. NaN smuggled into arguments: never send invalid JSON
            data = rpc.encode(
                rpc.error_response(
                    message.get("id"),
                    rpc.RpcError(rpc.INTERNAL_ERROR, "internal error: reply is not valid JSON"),
                )
            )
        self.writer.write(data)
        if self.writer.transport.get_write_buffer_size() > MAX_WRITE_BUFFER:
            log.warning("a client stopped reading its replies; disconnecting it")
            self.closed = True
            self.writer.transport.abort()

    def on_event(self, call_id: str, event: Event, data: dict[str, Any]) -> None:
        self.send(rpc.notification(rpc.EVENT_METHOD, {"callId": call_id, "event": event, **data}))
        if event == "decided":
            self.watched.discard(call_id)

    def watch(self, call_id: str) -> None:
        self.watched.add(call_id)

    def close(self) -> None:
        self.closed = True
        for task in self.tasks:
            task.cancel()
        # The requests stay open in the service; only this client stops hearing about them.
        for call_id in self.watched:
            self.server.service.unsubscribe(call_id, self.on_event)
        self.watched.clear()
        self.writer.close()


class NotchServer:
    """Serves `service` on the Unix socket `path` (owner-only)."""

    def __init__(self, service: ConfirmationService, path: Path) -> None:
        self.service = service
        self.path = path
        self._server: asyncio.Server | None = None
        self._connections: set[_Connection] = set()
        self._inode: int | None = None
        self._methods: dict[str, Handler] = {
            "confirm.request": self._confirm_request,
            "confirm.await": self._confirm_await,
            "confirm.get": self._confirm_get,
            "confirm.withdraw": self._confirm_withdraw,
            "integrations.list": self._integrations_list,
            "server.info": self._server_info,
        }

    async def start(self) -> None:
        """Claim the socket and listen. Raises SocketError if another Notch owns it."""
        claim_socket_path(self.path)
        self._server = await asyncio.start_unix_server(
            self._serve, path=os.fspath(self.path), limit=rpc.MAX_MESSAGE_BYTES + 1
        )
        os.chmod(self.path, 0o600)
        self._inode = self.path.stat().st_ino

    async def close(self) -> None:
        """Stop listening, drop every connection and remove the socket file (if still ours)."""
        if self._server is not None:
            self._server.close()
        for conn in list(self._connections):
            conn.close()
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None
        with contextlib.suppress(OSError):
            if self._inode is not None and self.path.stat().st_ino == self._inode:
                self.path.unlink()

    # --- connection loop -------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = _Connection(self, reader, writer)
        if len(self._connections) >= MAX_CONNECTIONS:
            conn.send(rpc.error_response(None, rpc.RpcError(
                rpc.TOO_MANY_CONNECTIONS,
                f"too many clients connected ({MAX_CONNECTIONS}); close some connections",
            )))  # fmt: skip
            conn.close()
            return
        self._connections.add(conn)
        busy = 0.0
        try:
            while not conn.closed:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as exc:
                    if exc.partial.strip():
                        self._handle(conn, exc.partial)
                    break
                except asyncio.LimitOverrunError:
                    conn.send(rpc.error_response(None, rpc.RpcError(
                        rpc.INVALID_REQUEST,
                        f"message is larger than {rpc.MAX_MESSAGE_BYTES} bytes (1 MiB); it was "
                        "skipped. Send smaller arguments",
                        {"maxMessageBytes": rpc.MAX_MESSAGE_BYTES},
                    )))  # fmt: skip
                    if not await _skip_line(reader):
                        break
                    continue
                if line.strip():
                    began = time.perf_counter()
                    self._handle(conn, line)
                    busy += time.perf_counter() - began
                # Buffered lines are read without yielding; give other clients (and the
                # presenter) a turn every few milliseconds of work.
                if busy > _SLICE_S:
                    busy = 0.0
                    await asyncio.sleep(0)
        except (ConnectionError, OSError):
            pass
        finally:
            self._connections.discard(conn)
            conn.close()

    def _handle(self, conn: _Connection, line: bytes) -> None:
        try:
            message = rpc.decode(line)
        except rpc.RpcError as exc:
            conn.send(rpc.error_response(None, exc))
            return
        if isinstance(message, list):
            conn.send(rpc.error_response(None, rpc.RpcError(
                rpc.INVALID_REQUEST,
                "batch requests are not supported: send one request object per line",
            )))  # fmt: skip
            return
        request_id = message.get("id") if isinstance(message, dict) else None
        if isinstance(request_id, bool) or not isinstance(request_id, str | int | None):
            request_id = None
        if (
            not isinstance(message, dict)
            or message.get("jsonrpc") != "2.0"
            or not isinstance(message.get("method"), str)
        ):
            conn.send(rpc.error_response(request_id, rpc.RpcError(
                rpc.INVALID_REQUEST,
                'invalid request: send {"jsonrpc": "2.0", "id": ..., "method": ..., "params": {...}}',
            )))  # fmt: skip
            return
        is_notification = "id" not in message
        method: str = message["method"]
        params = message.get("params", {})
        try:
            handler = self._methods.get(method)
            if handler is None:
                raise rpc.RpcError(
                    rpc.METHOD_NOT_FOUND,
                    f"unknown method {method[:80]!r}; methods: {', '.join(rpc.METHODS)}",
                    {"methods": list(rpc.METHODS)},
                )
            if not isinstance(params, dict):
                raise rpc.RpcError(
                    rpc.INVALID_PARAMS, "invalid params: params must be an object {...}"
                )
            if len(conn.tasks) >= MAX_IN_FLIGHT:
                raise rpc.RpcError(
                    rpc.TOO_MANY_IN_FLIGHT,
                    f"{MAX_IN_FLIGHT} requests are already waiting on this connection; "
                    "await some first or open another connection",
                )
            result = handler(conn, params)
        except rpc.RpcError as exc:
            if not is_notification:
                conn.send(rpc.error_response(request_id, exc))
            return
        except ServiceError as exc:
            if not is_notification:
                conn.send(rpc.error_response(request_id, _service_error(exc)))
            return
        except Exception:
            log.exception("%s failed", method)
            if not is_notification:
                conn.send(rpc.error_response(request_id, rpc.RpcError(
                    rpc.INTERNAL_ERROR, f"internal error in {method}; see Notch's log"
                )))  # fmt: skip
            return
        if isinstance(result, Awaitable):
            task = asyncio.ensure_future(
                self._reply_later(conn, request_id, result, is_notification)
            )
            conn.tasks.add(task)
            task.add_done_callback(conn.tasks.discard)
        elif not is_notification:
            conn.send(rpc.response(request_id, result))

    async def _reply_later(
        self, conn: _Connection, request_id: Any, result: Awaitable[Any], quiet: bool
    ) -> None:
        try:
            value = await result
        except asyncio.CancelledError:
            raise
        except ServiceError as exc:
            if not quiet:
                conn.send(rpc.error_response(request_id, _service_error(exc)))
            return
        except Exception:
            log.exception("request %r failed", request_id)
            if not quiet:
                conn.send(rpc.error_response(request_id, rpc.RpcError(
                    rpc.INTERNAL_ERROR, "internal error; see Notch's log"
                )))  # fmt: skip
            return
        if not quiet:
            conn.send(rpc.response(request_id, value))

    # --- methods ---------------------------------------------------------------------

    def _confirm_request(self, conn: _Connection, params: dict[str, Any]) -> Result:
        _only(params, _REQUEST_PARAMS)
        call_id = _text(params, "callId")
        integration = _text(params, "integration")
        tool = _text(params, "tool")
        arguments = params.get("arguments", {})
        if not isinstance(arguments, dict):
            raise _bad("arguments", "must be an object")
        context = params.get("context")
        if context is not None and not isinstance(context, dict):
            raise _bad("context", "must be an object")
        wait = params.get("wait", True)
        if not isinstance(wait, bool):
            raise _bad("wait", "must be true or false")
        assert call_id is not None and integration is not None and tool is not None
        future = self.service.submit(
            call_id,
            integration,
            tool,
            arguments,
            supersedes=_text(params, "supersedes", required=False),
            expires_in_ms=_whole(params, "expiresInMs", 1, 30 * 24 * 3600 * 1000),
            context=context,
            listener=conn.on_event,
        )
        if future.done():
            return future.result().to_wire()
        conn.watch(call_id)
        if not wait:
            return {"callId": call_id, "status": "pending", "parked": False}
        return _wire(future)

    def _confirm_await(self, conn: _Connection, params: dict[str, Any]) -> Result:
        _only(params, frozenset({"callId", "timeoutMs"}))
        call_id = _text(params, "callId")
        timeout_ms = _whole(params, "timeoutMs", 0, MAX_AWAIT_MS)
        assert call_id is not None
        future = self.service.wait(call_id, conn.on_event)
        if future.done():
            return future.result().to_wire()
        conn.watch(call_id)
        return _wire(future, call_id, None if timeout_ms is None else timeout_ms / 1000)

    def _confirm_get(self, conn: _Connection, params: dict[str, Any]) -> Result:
        _only(params, frozenset({"callId"}))
        call_id = _text(params, "callId")
        assert call_id is not None
        found = self.service.get(call_id)
        return found.to_wire() if isinstance(found, Decision) else _pending(found)

    def _confirm_withdraw(self, conn: _Connection, params: dict[str, Any]) -> Result:
        _only(params, frozenset({"callId"}))
        call_id = _text(params, "callId")
        assert call_id is not None
        future = self.service.withdraw(call_id)
        return future.result().to_wire() if future.done() else _wire(future)

    def _integrations_list(self, conn: _Connection, params: dict[str, Any]) -> Result:
        _only(params, frozenset())
        return {"integrations": self.service.catalog.describe()}

    def _server_info(self, conn: _Connection, params: dict[str, Any]) -> Result:
        _only(params, frozenset())
        return {
            "name": "notch",
            "version": __version__,
            "methods": list(rpc.METHODS),
            "maxMessageBytes": rpc.MAX_MESSAGE_BYTES,
        }


_REQUEST_PARAMS: Final = frozenset(
    {"callId", "integration", "tool", "arguments", "supersedes", "expiresInMs", "context", "wait"}
)


async def _wire(
    future: asyncio.Future[Decision], call_id: str | None = None, timeout: float | None = None
) -> dict[str, Any]:
    # shield: a client going away cancels its wait, never the request itself.
    if timeout is None:
        return (await asyncio.shield(future)).to_wire()
    try:
        return (await asyncio.wait_for(asyncio.shield(future), timeout)).to_wire()
    except TimeoutError:
        return {"callId": call_id, "status": "pending"}


def _service_error(exc: ServiceError) -> rpc.RpcError:
    data = {"field": exc.field} if exc.field else None
    return rpc.RpcError(_ERROR_CODES.get(exc.kind, rpc.INTERNAL_ERROR), exc.message, data)


async def _skip_line(reader: asyncio.StreamReader) -> bool:
    """Drop the rest of an oversized line without buffering it. False at end of input."""
    while True:
        try:
            await reader.readuntil(b"\n")
            return True
        except asyncio.LimitOverrunError as exc:
            await reader.read(exc.consumed)
        except asyncio.IncompleteReadError:
            return False

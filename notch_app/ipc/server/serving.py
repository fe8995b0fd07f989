"""The server itself: listening, lines handled round-robin under a time budget, each routed to its method."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from notch_app.ipc import protocol as rpc
from notch_app.ipc.address import claim_socket_path
from notch_app.ipc.attach import attach_handler
from notch_app.ipc.methods import NAMES as METHOD_NAMES
from notch_app.ipc.server.admission import Admission
from notch_app.ipc.server.connection import Connection
from notch_app.ipc.server.handlers import MethodHandlers
from notch_app.ipc.server.limits import (
    ID_TYPES,
    IDLE_TIMEOUT_S,
    LISTEN_BACKLOG,
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_PER_ASKER,
    MAX_IN_FLIGHT,
    MAX_QUEUED_LINES,
    PARTIAL_LINE_TIMEOUT_S,
    SLICE_S,
)
from notch_app.ipc.server.replies import Later, Result, invalid_id_error, service_error
from notch_app.runtime.glances import Glances
from notch_app.runtime.ownership import token_problem
from notch_app.runtime.service import (
    ConfirmationService,
    ServiceError,
)

log = logging.getLogger("notch.ipc")

Handler = Callable[["Connection", dict[str, Any]], Result]


class NotchServer(Admission, MethodHandlers):
    """Serves `service` on the Unix socket `path` (owner-only).

    `max_connections`, `partial_line_timeout` and `idle_timeout` (seconds) default to
    MAX_CONNECTIONS, PARTIAL_LINE_TIMEOUT_S and IDLE_TIMEOUT_S; tests pass smaller ones.
    """

    def __init__(
        self,
        service: ConfirmationService,
        path: Path,
        *,
        max_connections: int = MAX_CONNECTIONS,
        partial_line_timeout: float = PARTIAL_LINE_TIMEOUT_S,
        idle_timeout: float = IDLE_TIMEOUT_S,
        max_connections_per_asker: int = MAX_CONNECTIONS_PER_ASKER,
    ) -> None:
        self.service = service
        self.path = path
        self.max_connections = max_connections
        self.max_connections_per_asker = max_connections_per_asker
        self._by_process: dict[str, set[Connection]] = {}
        """The open connections of each asking process (by `AskingProcess.key`)."""
        self.partial_line_timeout = partial_line_timeout
        self.idle_timeout = idle_timeout
        # Timeouts are checked by one sweep over the connections, timed for the nearest
        # deadline (no timer per connection or per line on the hot path, no tick). A
        # connection not read from (paused) while holding half a line is looked at again
        # this often.
        self._look_again_in = max(0.01, min(partial_line_timeout, idle_timeout) / 4)
        self._sweep: asyncio.Handle | None = None
        self._sweep_at = 0.0
        self._trim: asyncio.TimerHandle | None = None
        self._server: asyncio.Server | None = None
        self._connections: set[Connection] = set()
        self.glances = Glances(service)
        """Result glances and background work shown for clients (glance.show, work.*)."""
        self._inode: int | None = None
        handlers: dict[str, Handler] = {
            "confirm.request": self._confirm_request,
            "confirm.batch": self._confirm_batch,
            "confirm.await": self._confirm_await,
            "confirm.get": self._confirm_get,
            "confirm.withdraw": self._confirm_withdraw,
            "integrations.list": self._integrations_list,
            "gateway.attach": attach_handler(lambda: self.service.catalog, self._attached),
            "glance.show": self._glance_show,
            "work.begin": self._work_begin,
            "work.end": self._work_end,
            "session.end": self._session_end,
            "server.info": self._server_info,
        }
        if set(handlers) != set(METHOD_NAMES):  # the table in ipc/methods/table.py is the one list
            raise RuntimeError(
                "socket methods without both a handler and a description: "
                + ", ".join(sorted(set(handlers) ^ set(METHOD_NAMES)))
            )
        self._methods = {name: handlers[name] for name in METHOD_NAMES}
        # Lines waiting to be handled, round-robin over connections; see `_drain`.
        self.loop: asyncio.AbstractEventLoop
        """The running loop, set by `start()`; kept so hot paths need not look it up."""
        self._ready: deque[Connection] = deque()
        self._drain_scheduled = False
        self._spent = 0.0
        self._tick_pending = False
        self._handling = False
        self._corked: list[Connection] = []
        """Connections with replies held back while `_drain` runs."""

    async def start(self) -> None:
        """Claim the socket and listen. Raises SocketError if another Notch owns it."""
        claim_socket_path(self.path)
        loop = self.loop = asyncio.get_running_loop()
        # bind() makes the socket file 0777 minus the umask: with umask 000 it would be
        # 0777 until the chmod below. Any file made meanwhile only comes out narrower.
        umask = os.umask(0o077)
        try:
            self._server = await loop.create_unix_server(
                lambda: Connection(self), path=os.fspath(self.path), backlog=LISTEN_BACKLOG
            )
        finally:
            os.umask(umask)
        os.chmod(self.path, 0o600)
        self._inode = self.path.stat().st_ino

    async def close(self) -> None:
        """Stop listening, drop every connection and remove the socket file (if still ours)."""
        if self._server is not None:
            self._server.close()
        for timer in (self._sweep, self._trim):
            if timer is not None:
                timer.cancel()
        self._sweep = self._trim = None
        for conn in list(self._connections):
            conn.close()
        self._ready.clear()
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None
        with contextlib.suppress(OSError):
            if self._inode is not None and self.path.stat().st_ino == self._inode:
                self.path.unlink()

    # --- connections and their lines -------------------------------------------------

    def _memory_freed(self) -> None:
        """A closed connection freed a large buffer: once closes stop for a moment, hand
        free heap pages back to the system (glibc keeps them otherwise: 200 x 1 MB held
        lines stayed resident). Pushed back by each close, so a wave of them trims once."""
        if _malloc_trim is not None:
            if self._trim is not None:
                self._trim.cancel()
            self._trim = self.loop.call_later(0.05, self._trimmed)

    def _trimmed(self) -> None:
        self._trim = None
        if _malloc_trim is not None:
            _malloc_trim(0)

    def _ready_to_handle(self, conn: Connection) -> None:
        if not conn.queued:
            conn.queued = True
            self._ready.append(conn)
        if len(conn.lines) > MAX_QUEUED_LINES and not conn.paused and conn.transport:
            # Backpressure: stop reading a client that sends faster than we handle.
            conn.paused = True
            conn.transport.pause_reading()
        if not self._drain_scheduled:
            self._drain()  # at once when there is no backlog: no extra loop turn

    def _drain(self) -> None:
        """Handle queued lines, one per connection in turn, for at most `SLICE_S` of
        work per loop turn across all connections; then yield so timers, other I/O and
        the presenter run (a flood of 1,000 requests never stalls the loop)."""
        self._drain_scheduled = False
        loop = self.loop
        ready = self._ready
        began = time.perf_counter()
        self._handling = True
        try:
            self._handle_ready(ready, began, loop)
        finally:
            self._handling = False
            corked, self._corked = self._corked, []
            for conn in corked:
                conn._uncork()
        self._spent += time.perf_counter() - began
        if self._spent > SLICE_S / 4 and not self._tick_pending:
            # Forget the spent time once the loop has gone round. Only armed past a
            # quarter slice: a lone request does not pay for an extra loop turn.
            self._tick_pending = True
            loop.call_soon(self._new_tick)

    def _handle_ready(
        self, ready: deque[Connection], began: float, loop: asyncio.AbstractEventLoop
    ) -> None:
        while ready:
            if self._spent + (time.perf_counter() - began) > SLICE_S:
                self._drain_scheduled = True
                loop.call_soon(self._drain)
                break
            conn = ready.popleft()
            if conn.closed:
                conn.queued = False
                continue
            self._handle(conn, conn.lines.popleft())
            if conn.lines and not conn.closed:
                ready.append(conn)
                continue
            conn.queued = False
            if conn.eof:
                conn.close()
            elif conn.paused and conn.transport is not None:
                conn.paused = False
                conn.transport.resume_reading()

    def _new_tick(self) -> None:
        self._tick_pending = False
        self._spent = 0.0

    def _handle(self, conn: Connection, line: bytes) -> None:
        checked = self._request_in(conn, line)
        if checked is not None:
            self._run(conn, *checked)

    def _request_in(self, conn: Connection, line: bytes) -> tuple[Any, dict[str, Any]] | None:
        """The id and the message of the request on `line`; None once the error that
        refuses it was answered (then nothing runs)."""
        if line is rpc.OVERSIZED:
            conn.send(rpc.error_response(None, rpc.RpcError(
                rpc.INVALID_REQUEST,
                f"message is larger than {rpc.MAX_MESSAGE_BYTES} bytes (1 MiB); it was "
                "skipped. Send smaller arguments",
                {"maxMessageBytes": rpc.MAX_MESSAGE_BYTES},
            )))  # fmt: skip
            return None
        try:
            message, bad = rpc.decode_request(line)
        except rpc.RpcError as exc:
            conn.send(rpc.error_response(None, exc))
            return None
        if isinstance(message, list):
            conn.send(rpc.error_response(None, rpc.RpcError(
                rpc.INVALID_REQUEST,
                "batch requests are not supported: send one request object per line",
            )))  # fmt: skip
            return None
        request_id = message.get("id") if isinstance(message, dict) else None
        bad_id = bad is not None and bad.path[:1] == ("id",)
        if bad_id or isinstance(request_id, bool) or not isinstance(request_id, ID_TYPES):
            if isinstance(message, dict) and "id" in message:
                # Never run a method whose reply could not name its request (JSON-RPC
                # answers an invalid id with id null).
                conn.send(rpc.error_response(None, invalid_id_error(request_id, bad)))
                return None
            request_id = None
        if bad is not None and isinstance(message, dict):
            if bad.path[:1] != ("params",):
                conn.send(rpc.error_response(request_id, rpc.RpcError(
                    rpc.INVALID_REQUEST, f"invalid request: {bad.where()}: {bad.problem}; {bad.fix}"
                )))  # fmt: skip
            elif "id" in message:  # a notification gets no reply, and does not run either
                field = bad.where(1) or "params"
                conn.send(rpc.error_response(request_id, rpc.RpcError(
                    rpc.INVALID_PARAMS,
                    f"{field}: {bad.problem}; {bad.fix} (invalid params, nothing was run)",
                    {"field": field},
                )))  # fmt: skip
            return None
        if (
            not isinstance(message, dict)
            or message.get("jsonrpc") != "2.0"
            or not isinstance(message.get("method"), str)
        ):
            conn.send(rpc.error_response(request_id, rpc.RpcError(
                rpc.INVALID_REQUEST,
                'invalid request: send {"jsonrpc": "2.0", "id": ..., "method": ..., "params": {...}}',
            )))  # fmt: skip
            return None
        return request_id, message

    def _run(self, conn: Connection, request_id: Any, message: dict[str, Any]) -> None:
        """Run the request's method and answer it (a notification is answered nothing)."""
        is_notification = "id" not in message
        method: str = message["method"]
        params = message.get("params", {})
        try:
            handler = self._methods.get(method)
            if handler is None:
                raise rpc.RpcError(
                    rpc.METHOD_NOT_FOUND,
                    f"unknown method {method[:80]!r}; methods: {', '.join(METHOD_NAMES)}",
                    {"methods": list(METHOD_NAMES)},
                )
            if not isinstance(params, dict):
                raise rpc.RpcError(
                    rpc.INVALID_PARAMS, "invalid params: params must be an object {...}"
                )
            if len(conn.waiting) >= MAX_IN_FLIGHT:
                raise rpc.RpcError(
                    rpc.TOO_MANY_IN_FLIGHT,
                    f"{MAX_IN_FLIGHT} requests are already waiting on this connection; "
                    "await some first or open another connection",
                )
            token = params.get("token")
            if type(token) is str and token not in conn.tokens and token_problem(token) is None:
                # Any call with its token shows its asker is (back) on this connection.
                conn.tokens.add(token)
                self.service.asker_here(token, conn)
            result = handler(conn, params)
        except rpc.RpcError as exc:
            if not is_notification:
                conn.send(rpc.error_response(request_id, exc))
            return
        except ServiceError as exc:
            if not is_notification:
                conn.send(rpc.error_response(request_id, service_error(exc)))
            return
        except Exception:
            log.exception("%s failed", method)
            if not is_notification:
                conn.send(rpc.error_response(request_id, rpc.RpcError(
                    rpc.INTERNAL_ERROR, f"internal error in {method}; see Notch's log"
                )))  # fmt: skip
            return
        if isinstance(result, Later):
            conn.reply_later(request_id, result, is_notification)
        elif not is_notification:
            conn.send(rpc.response(request_id, result))


def _find_malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (e.g. musl)
        return None
    return trim


_malloc_trim: Final = _find_malloc_trim()

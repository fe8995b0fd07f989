"""The asyncio JSON-RPC server in front of the confirmation service.

No client can crash or stall it: every line is bounded (1 MiB; longer ones are answered
with an error and skipped without being buffered), parsing is bounded in depth, each
connection has a bounded number of requests in flight and a bounded write buffer (a
client that stops reading is disconnected), and handlers never block. Lines from all
clients are handled a few milliseconds at a time, round-robin, so a burst from one agent
neither starves the others nor stalls the loop. A client that disconnects mid-request
leaves its request open: the decision is stored for `confirm.get`.

Every message is checked once as it is parsed (`rpc.decode_request`): a lone surrogate or
NaN/±Infinity anywhere, or an id that is not a string, whole number or null, is refused
before any method runs. Connections cannot be hoarded: a line unfinished after 10 s or a
connection idle 5 min with no open request is closed, and at the connection limit an
idle one makes room for a new client.

A request belongs to its asker: the token sent with `confirm.request` (or made here when
none was) must come with every later call that acts on it or reads more than its bare
status; the service checks it (ownership.py) and refuses others with -32008.

No asking process can take the room of others (askers.py): each connection is counted
against the process the kernel says is on its other end, at most 32 per process (beyond
that its own idlest connection makes room, else the new one is refused); and at the
connection limit a newcomer makes room from the process holding the most connections,
idle ones first, then, while that process holds more than one more than the newcomer's,
its least recently heard one (its requests stay open for its reconnect).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from notch_app import __version__
from notch_app.ipc import protocol as rpc
from notch_app.ipc.address import claim_socket_path
from notch_app.ipc.attach import attach_handler
from notch_app.ipc.methods import NAMES as METHOD_NAMES
from notch_app.ipc.methods import (
    BatchCall,
    CallIdParams,
    ConfirmAwaitParams,
    ConfirmBatchParams,
    ConfirmRequestParams,
    GlanceShowParams,
    NoParams,
    WithdrawParams,
    WorkBeginParams,
    WorkEndParams,
    parse_params,
)
from notch_app.ipc.peer import peer_process
from notch_app.manifest.glance import GlanceReading
from notch_app.runtime.askers import AskingProcess
from notch_app.runtime.decision import Decision
from notch_app.runtime.glances import Glances
from notch_app.runtime.ownership import new_token, token_problem
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.service import (
    MAX_BATCH,
    MAX_CALL_ID_CHARS,
    ConfirmationService,
    Event,
    ServiceError,
    ToolCall,
)

log = logging.getLogger("notch.ipc")

MAX_IN_FLIGHT: Final = 256
"""Requests one connection may have waiting at once (decisions being awaited)."""
MAX_WRITE_BUFFER: Final = 16 * 1024 * 1024
"""Unread bytes queued for one client before it is disconnected as not reading."""
MAX_CONNECTIONS: Final = 512
"""Connections at once. At the limit an idle one (no open request) is closed to admit a
new one, taken from the process holding the most connections, least recently heard."""
MAX_CONNECTIONS_PER_ASKER: Final = 32
"""Connections one asking process may hold (a client needs one; a pool, a few)."""
PARTIAL_LINE_TIMEOUT_S: Final = 10.0
"""A client writes a message in one go (a 1 MiB line takes milliseconds), so a line still
unfinished after this long is a slow-loris holding a buffer: the connection is closed."""
IDLE_TIMEOUT_S: Final = 300.0
"""A connection with no open request that sent nothing for this long is closed; the
clients reconnect on their next call, so an agent between tool calls loses nothing."""
LISTEN_BACKLOG: Final = 4096
"""Connects queued before `accept` (the kernel caps it at net.core.somaxconn, 4096 on
current Linux): a burst of agents starting at once waits in it instead of getting
EAGAIN (asyncio's default of 100 refused 1,663 of 2,000 non-blocking connects)."""
_TRIM_AFTER_BYTES: Final = 256 * 1024
"""Give freed memory back to the system after a connection held at least this much."""
_SLICE_S: Final = 0.004
"""Work handled per loop turn, across all connections, before yielding to the loop."""
_READ_BYTES: Final = 64 * 1024
_MAX_QUEUED_LINES: Final = 64
"""Lines read ahead from one client before its socket stops being read (backpressure)."""

_ID_TYPES: Final = (str, int, type(None))
"""What a JSON-RPC id may be (a tuple: `str | int | None` builds a union on every call)."""
_ERROR_CODES: Final[Mapping[str, int]] = {
    "invalidParams": rpc.INVALID_PARAMS,
    "unknownCall": rpc.UNKNOWN_CALL,
    "callIdInUse": rpc.CALL_ID_IN_USE,
    "notOpen": rpc.NOT_OPEN,
    "overloaded": rpc.OVERLOADED,
    "storage": rpc.STORAGE_ERROR,
    "notYours": rpc.NOT_YOURS,
}

Result = Any
"""A JSON-ready result, or a `_Later` for one that waits on a decision."""
Handler = Callable[["_Connection", dict[str, Any]], Result]


def _pending(request: ConfirmationRequest) -> dict[str, Any]:
    return {"callId": request.call_id, "status": "pending", "parked": request.parked}


class _Later:
    """A reply that waits for a decision: `future` (the service's, shared with other
    waiters, never cancelled here), or `{callId, status: "pending"}` after `timeout` s.
    `token` is added to the decision (the reply to `confirm.request` carries it).
    `render`, when given, makes the reply from the future's result instead (a batch)."""

    __slots__ = ("call_id", "future", "render", "timeout", "token")

    def __init__(
        self,
        future: asyncio.Future[Any],
        call_id: str,
        timeout: float | None = None,
        token: str | None = None,
        render: Callable[[Any], Any] | None = None,
    ) -> None:
        self.future = future
        self.call_id = call_id
        self.timeout = timeout
        self.token = token
        self.render = render


class _Connection(asyncio.BufferedProtocol):
    """One client. Lines are split here (no reader task, no StreamReader), queued, and
    handled by the server's `_drain` under a time budget shared by all connections.
    Reads land in one buffer kept for the connection's life (`get_buffer`): a plain
    Protocol gets a fresh 256 KiB bytes object per read, which glibc may mmap and
    munmap every time."""

    def __init__(self, server: NotchServer) -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.inbox = memoryview(bytearray(_READ_BYTES))
        self.splitter = rpc.LineSplitter()
        self.lines: deque[bytes] = deque()
        self.queued = False
        """In the server's ready queue (has lines waiting to be handled)."""
        self.paused = False
        self.eof = False
        self.waiting: dict[object, tuple[asyncio.Future[Any], Callable[..., None]]] = {}
        """Replies waiting for a decision, each with its done callback (and timer)."""
        self.timers: dict[object, asyncio.TimerHandle] = {}
        self.watched: set[str] = set()
        self.tokens: set[str] = set()
        """Tokens used on this connection: its askers are here while it is open."""
        self.closed = False
        self.last_heard = server.loop.time()
        """When this client last sent something or had a request open (loop time)."""
        self.line_began: float | None = None
        """When the line being received began, while one is unfinished."""
        self.process: AskingProcess | None = None
        """The process that connected (SO_PEERCRED), learned as it connects."""
        self.held_much = False
        """Held a large unfinished line at some point: its close frees much memory."""
        self.corked: list[bytes] | None = None
        """Messages held back until the end of this loop turn (see `send`)."""
        self.corked_bytes = 0

    # --- asyncio.Protocol ------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        self.process = peer_process(sock) if sock is not None else None
        self.server._accepted(self)

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.inbox

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(bytes(self.inbox[:nbytes]))

    def data_received(self, data: bytes) -> None:
        if self.closed:
            return
        now = self.last_heard = self.server.loop.time()
        lines = self.splitter.feed(data)
        if not self.splitter.in_line:
            self.line_began = None
        elif lines or self.line_began is None:
            self.line_began = now  # a new line began in this read
        if lines:
            self.lines.extend(lines)
            self.server._ready_to_handle(self)

    def eof_received(self) -> bool:
        self.held_much = self.held_much or self.splitter.partial >= _TRIM_AFTER_BYTES
        leftover = self.splitter.finish()
        if leftover is not None:
            self.lines.append(leftover)
        self.eof = True
        if self.lines:
            self.server._ready_to_handle(self)
            return True  # closed once its last lines are handled
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.close()

    # --- replies ---------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        transport = self.transport
        if self.closed or transport is None or transport.is_closing():
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
        # Replies to lines being handled are written together when `_drain` ends. Outside
        # it, the first message of a loop turn goes out at once (no added latency) and
        # any more in the same turn (a burst of events or decisions) are joined into one
        # write at the end of the turn: one syscall instead of hundreds.
        if self.corked is not None:
            self.corked.append(data)
            self.corked_bytes += len(data)
        elif self.server._handling:
            self.corked = [data]
            self.corked_bytes = len(data)
            self.server._corked.append(self)
        else:
            transport.write(data)
            self.corked = []
            self.corked_bytes = 0
            self.server.loop.call_soon(self._uncork)
        if transport.get_write_buffer_size() + self.corked_bytes > MAX_WRITE_BUFFER:
            log.warning("a client stopped reading its replies; disconnecting it")
            self.closed = True
            self.corked = None
            transport.abort()

    def _uncork(self) -> None:
        held, self.corked = self.corked, None
        if held and not self.closed and self.transport is not None:
            self.transport.write(held[0] if len(held) == 1 else b"".join(held))

    def reply_later(self, request_id: Any, later: _Later, quiet: bool) -> None:
        """Send the decision when `later.future` resolves: a done callback, not a task,
        so a flood of waiters costs one callback each when decided."""
        key = object()

        def done(future: asyncio.Future[Any]) -> None:
            self.waiting.pop(key, None)
            timer = self.timers.pop(key, None)
            if timer is not None:
                timer.cancel()
            if quiet or future.cancelled():
                return
            exc = future.exception()
            if exc is None and later.render is not None:
                self.send(rpc.response(request_id, later.render(future.result())))
            elif exc is None:
                self.send(rpc.response(request_id, _with_token(future.result(), later.token)))
            elif isinstance(exc, ServiceError):
                self.send(rpc.error_response(request_id, _service_error(exc)))
            else:
                log.error("request %r failed: %r", request_id, exc)
                self.send(rpc.error_response(request_id, rpc.RpcError(
                    rpc.INTERNAL_ERROR, "internal error; see Notch's log"
                )))  # fmt: skip

        self.waiting[key] = (later.future, done)
        later.future.add_done_callback(done)
        if later.timeout is not None:

            def timed_out() -> None:
                self.timers.pop(key, None)
                if self.waiting.pop(key, None) is not None:
                    later.future.remove_done_callback(done)
                    if not quiet:
                        self.send(
                            rpc.response(request_id, {"callId": later.call_id, "status": "pending"})
                        )

            self.timers[key] = self.server.loop.call_later(later.timeout, timed_out)

    def on_event(self, call_id: str, event: Event, data: dict[str, Any]) -> None:
        self.send(rpc.notification(rpc.EVENT_METHOD, {"callId": call_id, "event": event, **data}))
        if event == "decided":
            self.watched.discard(call_id)

    def watch(self, call_id: str) -> None:
        self.watched.add(call_id)

    @property
    def busy(self) -> bool:
        """Has a request open (awaited, or heard about) or lines waiting to be handled:
        never closed as idle, never closed to make room."""
        return bool(self.waiting or self.watched or self.lines or self.queued)

    @property
    def process_key(self) -> str | None:
        """What this connection counts against: its process (None where unknown)."""
        return self.process.key if self.process is not None else None

    def close(self) -> None:
        if self.closed and self.transport is None:
            return
        if self.corked and not self.closed and self.transport is not None:
            self._uncork()  # replies already made still go out before the close
        self.closed = True
        self.lines.clear()
        if self.held_much or self.splitter.partial >= _TRIM_AFTER_BYTES:
            self.server._memory_freed()
        self.splitter.clear()
        # The requests stay open in the service; only this client stops hearing about them.
        for future, done in self.waiting.values():
            future.remove_done_callback(done)
        self.waiting.clear()
        for timer in self.timers.values():
            timer.cancel()
        self.timers.clear()
        for call_id in self.watched:
            self.server.service.unsubscribe(call_id, self.on_event)
        self.watched.clear()
        self.server._connections.discard(self)
        self.server._forget(self)
        # Its askers get their grace period to come back on another connection.
        self.server.service.asker_left(self)
        # Nobody will say how its background work ended: it ends failed, not "running" forever.
        self.server.glances.end_all_of(
            self, "the tool's connection to Notch closed before it finished"
        )
        if self.transport is not None:
            self.transport.close()
            self.transport = None


class NotchServer:
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
        self._by_process: dict[str, set[_Connection]] = {}
        """The open connections of each asking process (by `AskingProcess.key`)."""
        self.partial_line_timeout = partial_line_timeout
        self.idle_timeout = idle_timeout
        # Timeouts are checked by one sweep over the connections, a few times per timeout
        # (no timer per connection or per line on the hot path).
        self._sweep_every = max(0.01, min(partial_line_timeout, idle_timeout) / 4)
        self._sweep: asyncio.TimerHandle | None = None
        self._trim: asyncio.TimerHandle | None = None
        self._server: asyncio.Server | None = None
        self._connections: set[_Connection] = set()
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
            "server.info": self._server_info,
        }
        if set(handlers) != set(METHOD_NAMES):  # the table in methods.py is the one list
            raise RuntimeError(
                "socket methods without both a handler and a description: "
                + ", ".join(sorted(set(handlers) ^ set(METHOD_NAMES)))
            )
        self._methods = {name: handlers[name] for name in METHOD_NAMES}
        # Lines waiting to be handled, round-robin over connections; see `_drain`.
        self.loop: asyncio.AbstractEventLoop
        """The running loop, set by `start()`; kept so hot paths need not look it up."""
        self._ready: deque[_Connection] = deque()
        self._drain_scheduled = False
        self._spent = 0.0
        self._tick_pending = False
        self._handling = False
        self._corked: list[_Connection] = []
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
                lambda: _Connection(self), path=os.fspath(self.path), backlog=LISTEN_BACKLOG
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

    def _accepted(self, conn: _Connection) -> None:
        key = conn.process_key
        mine = self._by_process.get(key, set()) if key is not None else set()
        if len(mine) >= self.max_connections_per_asker and not self._make_room_in(mine):
            who = conn.process.label if conn.process is not None else "this process"
            conn.send(rpc.error_response(None, rpc.RpcError(
                rpc.TOO_MANY_CONNECTIONS,
                f"{who} already has {len(mine)} connections to Notch, each with a request "
                f"open (at most {self.max_connections_per_asker} per process); await or "
                "withdraw some, or send more requests on one connection",
                {"perProcess": self.max_connections_per_asker},
            )))  # fmt: skip
            conn.close()
            return
        if len(self._connections) >= self.max_connections and not self._make_room(conn):
            conn.send(rpc.error_response(None, rpc.RpcError(
                rpc.TOO_MANY_CONNECTIONS,
                f"too many clients connected ({self.max_connections}), each with a request "
                "open; close some connections",
            )))  # fmt: skip
            conn.close()
            return
        self._connections.add(conn)
        if key is not None:
            self._by_process.setdefault(key, set()).add(conn)
        if self._sweep is None:
            self._sweep = self.loop.call_later(self._sweep_every, self._swept)

    def _make_room(self, newcomer: _Connection) -> bool:
        """Close one connection so `newcomer` gets in: an idle one (no open request) from
        the process holding the most connections, the one heard from least recently; if
        none is idle, the least recently heard one of the process holding the most, as
        long as it holds more than one more than the newcomer's process (its requests stay
        open: its client reconnects and awaits them). So neither idle sockets nor open
        requests of some processes can lock out another agent. False otherwise."""
        held: dict[str | None, int] = {}
        for conn in self._connections:
            held[conn.process_key] = held.get(conn.process_key, 0) + 1
        idle = [conn for conn in self._connections if not conn.busy]
        if idle:
            victim = max(idle, key=lambda conn: (held[conn.process_key], -conn.last_heard))
            why = "this connection had no open request; reconnect when you next call"
            log.info("%d connections: closing an idle one to admit a new client", len(idle))
        else:
            # Unknown processes (no SO_PEERCRED) are not one process: never taken from.
            counted = [conn for conn in self._connections if conn.process_key is not None]
            if not counted or newcomer.process_key is None:
                return False
            victim = max(counted, key=lambda conn: (held[conn.process_key], -conn.last_heard))
            if held[victim.process_key] <= held.get(newcomer.process_key, 0) + 1:
                return False  # every process holds about as many as the newcomer's: fair
            why = (
                "your process holds more connections than any other; your open requests "
                "stay open: reconnect and await them"
            )
            log.info("%d connections: closing one of the busiest process's", len(counted))
        victim.send(rpc.error_response(None, rpc.RpcError(
            rpc.TOO_MANY_CONNECTIONS,
            f"closed to make room: {self.max_connections} clients are connected and {why}",
        )))  # fmt: skip
        victim.close()
        return True

    def _make_room_in(self, mine: set[_Connection]) -> bool:
        """A process at its own connection limit connects again: close its idle connection
        heard from least recently (it is the same client). False if all have requests."""
        idle = [conn for conn in mine if not conn.busy]
        if not idle:
            return False
        victim = min(idle, key=lambda conn: conn.last_heard)
        victim.send(rpc.error_response(None, rpc.RpcError(
            rpc.TOO_MANY_CONNECTIONS,
            f"closed to make room: your process opened more than "
            f"{self.max_connections_per_asker} connections and this one had no open "
            "request; reconnect when you next call",
        )))  # fmt: skip
        victim.close()
        return True

    def _forget(self, conn: _Connection) -> None:
        """`conn` closed: it no longer counts against its process."""
        key = conn.process_key
        mine = self._by_process.get(key) if key is not None else None
        if key is not None and mine is not None:
            mine.discard(conn)
            if not mine:
                del self._by_process[key]

    def _swept(self) -> None:
        """Close connections holding an unfinished line past `partial_line_timeout`, and
        idle ones (no open request) silent past `idle_timeout`."""
        self._sweep = None
        now = self.loop.time()
        for conn in list(self._connections):
            began = conn.line_began
            if began is not None and now - began > self.partial_line_timeout and not conn.paused:
                # Even with a request open: a real client never leaves a line half-sent.
                log.info("closing a connection whose line stayed unfinished")
                conn.send(rpc.error_response(None, rpc.RpcError(
                    rpc.INVALID_REQUEST,
                    f"a line stayed unfinished for {self.partial_line_timeout:g} s; closing "
                    "the connection. End each message with a newline",
                )))  # fmt: skip
                conn.close()
            elif conn.busy:
                conn.last_heard = now  # idle time counts from when its last request ended
            elif now - conn.last_heard > self.idle_timeout:
                conn.close()
        if self._connections:
            self._sweep = self.loop.call_later(self._sweep_every, self._swept)

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

    def _ready_to_handle(self, conn: _Connection) -> None:
        if not conn.queued:
            conn.queued = True
            self._ready.append(conn)
        if len(conn.lines) > _MAX_QUEUED_LINES and not conn.paused and conn.transport:
            # Backpressure: stop reading a client that sends faster than we handle.
            conn.paused = True
            conn.transport.pause_reading()
        if not self._drain_scheduled:
            self._drain()  # at once when there is no backlog: no extra loop turn

    def _drain(self) -> None:
        """Handle queued lines, one per connection in turn, for at most `_SLICE_S` of
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
        if self._spent > _SLICE_S / 4 and not self._tick_pending:
            # Forget the spent time once the loop has gone round. Only armed past a
            # quarter slice: a lone request does not pay for an extra loop turn.
            self._tick_pending = True
            loop.call_soon(self._new_tick)

    def _handle_ready(
        self, ready: deque[_Connection], began: float, loop: asyncio.AbstractEventLoop
    ) -> None:
        while ready:
            if self._spent + (time.perf_counter() - began) > _SLICE_S:
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

    def _handle(self, conn: _Connection, line: bytes) -> None:
        if line is rpc.OVERSIZED:
            conn.send(rpc.error_response(None, rpc.RpcError(
                rpc.INVALID_REQUEST,
                f"message is larger than {rpc.MAX_MESSAGE_BYTES} bytes (1 MiB); it was "
                "skipped. Send smaller arguments",
                {"maxMessageBytes": rpc.MAX_MESSAGE_BYTES},
            )))  # fmt: skip
            return
        try:
            message, bad = rpc.decode_request(line)
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
        bad_id = bad is not None and bad.path[:1] == ("id",)
        if bad_id or isinstance(request_id, bool) or not isinstance(request_id, _ID_TYPES):
            if isinstance(message, dict) and "id" in message:
                # Never run a method whose reply could not name its request (JSON-RPC
                # answers an invalid id with id null).
                conn.send(rpc.error_response(None, _bad_id(request_id, bad)))
                return
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
            return
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
                conn.send(rpc.error_response(request_id, _service_error(exc)))
            return
        except Exception:
            log.exception("%s failed", method)
            if not is_notification:
                conn.send(rpc.error_response(request_id, rpc.RpcError(
                    rpc.INTERNAL_ERROR, f"internal error in {method}; see Notch's log"
                )))  # fmt: skip
            return
        if isinstance(result, _Later):
            conn.reply_later(request_id, result, is_notification)
        elif not is_notification:
            conn.send(rpc.response(request_id, result))

    # --- methods ---------------------------------------------------------------------

    def _confirm_request(self, conn: _Connection, params: dict[str, Any]) -> Result:
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
    ) -> _Later:
        """The reply to a request whose arguments a worker thread is checking: what
        `then()` answers once they are checked (its decision, when it waits for one)."""

        async def checked() -> Any:
            await checking
            result = then()
            if isinstance(result, _Later):
                value = await asyncio.shield(result.future)  # the service's: never cancelled
                if result.render is not None:
                    return result.render(value)
                return _with_token(value, result.token)
            return result

        return _Later(self.loop.create_task(checked()), call_id, render=lambda reply: reply)

    def _request_checked(
        self, conn: _Connection, asked: ConfirmRequestParams, call: ToolCall, token: str
    ) -> Result:
        call_id = asked.call_id
        future = self.service.submit(call, conn.on_event)
        if future.done():
            return _with_token(future.result(), token)
        conn.watch(call_id)
        if not asked.wait:
            return {"callId": call_id, "status": "pending", "parked": False, "token": token}
        return _Later(future, call_id, token=token)

    def _confirm_batch(self, conn: _Connection, params: dict[str, Any]) -> Result:
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
            entries.append(_not_asked)
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
        conn: _Connection,
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
        ids = [_batch_call_id(raw) for raw in asked.calls]
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
            results = [_batch_entry(e, ids[i], i) for i, e in enumerate(entries)]
            return {"results": results, "token": token}

        return _Later(every, "", render=render)

    def _confirm_await(self, conn: _Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(ConfirmAwaitParams, params)
        future = self.service.wait(asked.call_id, conn.on_event, asked.token)
        if future.done():
            return future.result().to_wire()
        conn.watch(asked.call_id)
        timeout_ms = asked.timeout_ms
        return _Later(future, asked.call_id, None if timeout_ms is None else timeout_ms / 1000)

    def _confirm_get(self, conn: _Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(CallIdParams, params)
        if asked.token is None:  # the bare status: nothing of what was asked or decided
            status, parked = self.service.status(asked.call_id)
            if status == "pending":
                return {"callId": asked.call_id, "status": status, "parked": parked}
            return {"callId": asked.call_id, "status": status}
        found = self.service.get(asked.call_id, asked.token)
        return found.to_wire() if isinstance(found, Decision) else _pending(found)

    def _confirm_withdraw(self, conn: _Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(WithdrawParams, params)
        call_id = asked.call_id
        future = self.service.withdraw(call_id, asked.token, asked.reason)
        return future.result().to_wire() if future.done() else _Later(future, call_id)

    def _integrations_list(self, conn: _Connection, params: dict[str, Any]) -> Result:
        parse_params(NoParams, params)
        return {"integrations": self.service.catalog.describe()}

    def _attached(self, conn: _Connection, integration_id: str) -> None:
        # This connection is the integration's own gateway: its reads' glances may come
        # without a callId, and before any card (the overlay readies the glance code).
        self.glances.fronts(conn, integration_id)
        self.service.presenter.results_may_follow()

    def _glance_show(self, conn: _Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(GlanceShowParams, params)
        _token_with(asked.call_id, asked.token)
        reading = self.glances.show(
            asked.integration,
            asked.tool,
            asked.blocks,
            call_id=asked.call_id,
            token=asked.token,
            owner=conn,
        )
        return _shown(reading)

    def _work_begin(self, conn: _Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(WorkBeginParams, params)
        _token_with(asked.call_id, asked.token)
        work = self.glances.begin(
            asked.integration,
            asked.tool,
            owner=conn,
            call_id=asked.call_id,
            token=asked.token,
            estimated_ms=asked.estimated_duration_ms,
        )
        return {"workId": work.work_id}

    def _work_end(self, conn: _Connection, params: dict[str, Any]) -> Result:
        asked = parse_params(WorkEndParams, params)
        reading = self.glances.end(
            asked.work_id, owner=conn, ok=asked.ok, message=asked.message, blocks=asked.blocks
        )
        return _shown(reading)

    def _server_info(self, conn: _Connection, params: dict[str, Any]) -> Result:
        parse_params(NoParams, params)
        return {
            "name": "notch",
            "version": __version__,
            "methods": list(METHOD_NAMES),
            "maxMessageBytes": rpc.MAX_MESSAGE_BYTES,
        }


def _token_with(call_id: str | None, token: str | None) -> None:
    """A callId names another request: its token must come with it (refused before
    anything is looked up, so a client without it learns nothing)."""
    if call_id is not None and token is None:
        raise rpc.RpcError(
            rpc.INVALID_PARAMS,
            "invalid params: token is required with callId: send the token the request "
            "was made with; only its asker can tie anything to it",
            {"field": "token"},
        )


def _shown(reading: GlanceReading | None) -> dict[str, Any]:
    if reading is None:
        return {"shown": 0, "dropped": []}
    return {
        "shown": len(reading.blocks),
        "dropped": [
            {"index": d.index, "kind": d.kind, "reason": d.reason} for d in reading.dropped
        ],
    }


_not_asked: Final = rpc.RpcError(rpc.INTERNAL_ERROR, "internal error: this call was not asked")


def _batch_call_id(raw: Any) -> str | None:
    call_id = raw.get("callId") if isinstance(raw, dict) else None
    return call_id[:MAX_CALL_ID_CHARS] if isinstance(call_id, str) else None


def _batch_entry(entry: Any, call_id: str | None, index: int) -> dict[str, Any]:
    """One result of `confirm.batch`: the decision, or {callId, error} with the field
    named under `calls.N` (the call's place in the batch)."""
    if isinstance(entry, asyncio.Future):
        exc = entry.exception()
        if exc is None:
            return dict(entry.result().to_wire())
        entry = exc
    if isinstance(entry, ServiceError):
        entry = _service_error(entry)
    if not isinstance(entry, rpc.RpcError):
        log.error("a batch call failed: %r", entry)
        entry = rpc.RpcError(rpc.INTERNAL_ERROR, "internal error; see Notch's log")
    field = entry.data.get("field") if isinstance(entry.data, dict) else None
    where = f"calls.{index}"
    if isinstance(field, str) and field != "calls":
        where = f"{where}.{field}"
    return {
        "callId": call_id,
        "error": {"code": entry.code, "message": entry.message, "field": where},
    }


def _with_token(decision: Decision, token: str | None) -> dict[str, Any]:
    wire = decision.to_wire()
    if token is not None:
        wire["token"] = token
    return wire


def _find_malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (e.g. musl)
        return None
    return trim


_malloc_trim: Final = _find_malloc_trim()


def _bad_id(request_id: Any, bad: rpc.BadValue | None) -> rpc.RpcError:
    if bad is not None and bad.path == ("id",):
        got = bad.problem
    else:
        what = type(request_id).__name__
        got = f"{_JSON_TYPE_NAMES.get(what, what)} is not an id"
    return rpc.RpcError(
        rpc.INVALID_REQUEST,
        f"invalid request: id: {got}; an id must be a string, a whole number or null "
        "(the method was not run)",
        {"field": "id"},
    )


_JSON_TYPE_NAMES: Final = {
    "dict": "an object",
    "list": "an array",
    "bool": "true or false",
    "float": "a number with a fraction or exponent",
}


def _service_error(exc: ServiceError) -> rpc.RpcError:
    data = {"field": exc.field} if exc.field else None
    return rpc.RpcError(_ERROR_CODES.get(exc.kind, rpc.INTERNAL_ERROR), exc.message, data)

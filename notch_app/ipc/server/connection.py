"""One client's connection: its lines split and queued, its replies written, its waits and close."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from notch_app.ipc import protocol as rpc
from notch_app.ipc.peer import peer_process
from notch_app.ipc.server.limits import MAX_WRITE_BUFFER, READ_BYTES, TRIM_AFTER_BYTES
from notch_app.ipc.server.replies import Later, service_error, with_token
from notch_app.runtime.askers import AskingProcess
from notch_app.runtime.glances import Glances
from notch_app.runtime.service import (
    ConfirmationService,
    Event,
    ServiceError,
)

log = logging.getLogger("notch.ipc")


class Host(Protocol):
    """What a connection asks of the server it belongs to (NotchServer)."""

    loop: asyncio.AbstractEventLoop
    service: ConfirmationService
    glances: Glances
    _handling: bool
    _corked: list[Connection]
    _connections: set[Connection]
    partial_line_timeout: float

    def _sweep_by(self, when: float) -> None: ...

    def _accepted(self, conn: Connection) -> None: ...

    def _ready_to_handle(self, conn: Connection) -> None: ...

    def _memory_freed(self) -> None: ...

    def _forget(self, conn: Connection) -> None: ...


class Connection(asyncio.BufferedProtocol):
    """One client. Lines are split here (no reader task, no StreamReader), queued, and
    handled by the server's `_drain` under a time budget shared by all connections.
    Reads land in one buffer kept for the connection's life (`get_buffer`): a plain
    Protocol gets a fresh 256 KiB bytes object per read, which glibc may mmap and
    munmap every time."""

    def __init__(self, server: Host) -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.inbox = memoryview(bytearray(READ_BYTES))
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
            self.server._sweep_by(now + self.server.partial_line_timeout)
        if lines:
            self.lines.extend(lines)
            self.server._ready_to_handle(self)

    def eof_received(self) -> bool:
        self.held_much = self.held_much or self.splitter.partial >= TRIM_AFTER_BYTES
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

    def reply_later(self, request_id: Any, later: Later, quiet: bool) -> None:
        """Send the decision when `later.future` resolves: a done callback, not a task,
        so a flood of waiters costs one callback each when decided."""
        key = object()

        def done(future: asyncio.Future[Any]) -> None:
            self.waiting.pop(key, None)
            self._request_ended()
            timer = self.timers.pop(key, None)
            if timer is not None:
                timer.cancel()
            if quiet or future.cancelled():
                return
            exc = future.exception()
            if exc is None and later.render is not None:
                self.send(rpc.response(request_id, later.render(future.result())))
            elif exc is None:
                self.send(rpc.response(request_id, with_token(future.result(), later.token)))
            elif isinstance(exc, ServiceError):
                self.send(rpc.error_response(request_id, service_error(exc)))
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
                    self._request_ended()
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
            self._request_ended()

    def _request_ended(self) -> None:
        """A request this connection had open ended: its idle time counts from now (the
        server's sweep looks at an idle connection at `last_heard` + the idle timeout)."""
        self.last_heard = self.server.loop.time()

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
        if self.held_much or self.splitter.partial >= TRIM_AFTER_BYTES:
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

"""The asyncio client for a running Notch (public face: `notch_app.client`).

One connection, many concurrent calls (matched by JSON-RPC id). If the connection drops
mid-call, the client reconnects for up to `reconnect_for` seconds and sends the call
again: `confirm.request` is keyed by callId, so sending it again never makes a second
card, it picks up the same request (or its stored decision) on the new connection.

Every request the client makes carries its `token` (a fresh secret per client, or yours:
`token=`), which Notch requires to await, withdraw, supersede, repeat or read a request:
pass the same token to a new client after a restart of your own to carry on with
requests made before it. Keep it secret; Notch stores only its hash.
How long a person may take is the caller's: pass `timeout=` (seconds). A
`confirm(timeout=…)` that runs out withdraws its request before it raises
`NotchTimeout`, so no card is left that the person could approve with nothing waiting
to run it. Every other wait is bounded by the client itself, so a Notch that accepts and
never answers (frozen, or not Notch at all) holds no caller: a connect gives up after
`CONNECT_WAIT_S`, a method Notch answers at once (everything but a person's decision)
after `ANSWER_WAIT_S`, and the withdraw after a timeout after `WITHDRAW_WAIT_S`, so a
`confirm(timeout=T)` returns or raises by T + `WITHDRAW_WAIT_S`.

Every error the clients raise is a `NotchError`: `NotchNotRunning`, `NotchConnectionLost`,
`NotchUntrusted`, `NotchRequestError` (Notch refused the call), `NotchDecisionRefused`
(a decision that must not run), `NotchTimeout` (also a TimeoutError) and
`NotchUsageError` (a wrong argument to the client itself; also a ValueError).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from notch_app.ipc import protocol as rpc
from notch_app.ipc.address import SocketSearch, find_socket
from notch_app.ipc.peer import UntrustedServer, verify_server
from notch_app.runtime.decision import Decision, DecisionNotVerified
from notch_app.runtime.ownership import new_token, token_problem

REPLY_LIMIT: Final = 4 * rpc.MAX_MESSAGE_BYTES
"""Longest line a client reads; nothing Notch sends is that long, so past it the peer
is not Notch and the connection is dropped."""
WITHDRAW_WAIT_S: Final = 1.0
"""How long a timed-out `confirm()` waits for its withdraw to be answered (all the
withdraws of a timed-out batch together): short and fixed, so a frozen Notch keeps a
caller at most this long past its own timeout. A healthy Notch answers in milliseconds."""
ANSWER_WAIT_S: Final = 10.0
"""How long a client waits for a method Notch answers at once (a read, a withdraw, a
glance, a request with `wait: false`) when the caller gave no `timeout`."""
CONNECT_WAIT_S: Final = 5.0
"""How long one connect may take (a Notch whose accept queue is full never accepts)."""
PERSON_WAITS: Final = frozenset({"confirm.request", "confirm.batch", "confirm.await"})
"""The methods whose answer waits for the person: bounded only by the caller's timeout."""
FIRST_PAUSE_S: Final = 0.05
LONGEST_PAUSE_S: Final = 1.0


class NotchError(Exception):
    """Anything that kept a call from getting an answer."""


class NotchNotRunning(NotchError):
    """Nothing is listening on the socket."""


class NotchConnectionLost(NotchError):
    """The connection dropped and could not be re-established in time."""


class NotchTimeout(NotchError, TimeoutError):
    """No answer in time: no decision within the caller's `timeout`, or no answer at all
    from a Notch that does not answer (see ANSWER_WAIT_S). For `confirm()` the request
    was withdrawn first (`decision` is the withdrawn decision, None when the withdraw
    itself got no answer); for `confirm_many()`, `ended` holds how each call ended (its
    withdrawn decision, or the NotchError of its withdraw), in order; for
    `await_decision()` the request stays open."""

    def __init__(
        self,
        message: str,
        decision: Decision | None = None,
        ended: Sequence[Decision | NotchError] = (),
    ) -> None:
        super().__init__(message)
        self.decision = decision
        self.ended = tuple(ended)


class NotchUsageError(NotchError, ValueError):
    """A wrong argument to the client itself (a token that cannot be one, a batch call
    without an integration…); nothing was sent."""


class NotchUntrusted(NotchError):
    """What listens on the socket is not this user's Notch (another user's process, or a
    socket folder that is not ours with mode 0700). Nothing was sent to it."""


class NotchDecisionRefused(NotchError):
    """A decision that says "run" failed its check: no digest, a digest that is not the
    digest of its arguments (not Notch's decision, or altered), or secret values that
    must be asked for again (`withheld`). Never run it. `decision` is what was received."""

    def __init__(self, message: str, decision: Decision | None = None) -> None:
        super().__init__(message)
        self.decision = decision

    @property
    def withheld(self) -> tuple[str, ...]:
        """Paths of the secret values to ask for again (the approval itself stands)."""
        return self.decision.secrets_withheld if self.decision is not None else ()


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


class CallListeners:
    """The per-call event handlers of a client: `confirm(on_event=...)` hears the events
    of its own callId while it waits. Locked, so the threaded client's callers and its
    reading thread can share it."""

    def __init__(self) -> None:
        self._by_call: dict[str, list[EventHandler]] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def listening(self, call_id: str, handler: EventHandler | None) -> Iterator[None]:
        """Route the events of `call_id` to `handler` (if any) inside the `with`."""
        if handler is None:
            yield
            return
        with self._lock:
            self._by_call.setdefault(call_id, []).append(handler)
        try:
            yield
        finally:
            with self._lock:
                handlers = self._by_call.get(call_id, [])
                if handler in handlers:
                    handlers.remove(handler)
                if not handlers:
                    self._by_call.pop(call_id, None)

    def dispatch(self, event: ConfirmationEvent, everything: EventHandler | None) -> None:
        """Run the handlers of `event`'s callId, then `everything` (the client's on_event)."""
        with self._lock:  # a copy: handlers may come and go while these run
            handlers = [*self._by_call.get(event.call_id, ())]
        if everything is not None:
            handlers.append(everything)
        for handler in handlers:
            handler(event)


def not_running(socket_path: Path, error: OSError, looked: Sequence[str] = ()) -> NotchNotRunning:
    """The error for a failed connect, saying how to start Notch when nothing listens;
    `looked` (a client given no path: `address.find_socket`) names every place tried."""
    if isinstance(error, FileNotFoundError | ConnectionRefusedError):
        if looked:
            return NotchNotRunning(
                f"no Notch is running: looked at {'; '.join(looked)}. Start it with "
                "`notch run`, or point NOTCH_SOCKET (or --socket) at its socket"
            )
        return NotchNotRunning(f"no Notch is running at {socket_path}: start it with `notch run`")
    return NotchNotRunning(f"cannot connect to Notch at {socket_path}: {error.strerror}")


def socket_search(socket_path: str | os.PathLike[str] | None) -> SocketSearch | None:
    """A client's fixed socket (`socket_path` given), or None: then it looks for the
    running Notch before each connect (`find_socket`), so one started later, or at
    another place, is found."""
    return SocketSearch(Path(socket_path)) if socket_path else None


def connection_lost(socket_path: Path, reconnect_for: float) -> NotchConnectionLost:
    """The error once reconnecting for `reconnect_for` seconds has failed."""
    return NotchConnectionLost(
        f"lost the connection to Notch at {socket_path} and could not "
        f"reconnect within {reconnect_for:g} s"
    )


class Dropped(Exception):
    """The connection a call was sent on went away (internal to the clients: callers see
    a resent call, or NotchConnectionLost)."""


class Backoff:
    """When to try a call again after its connection dropped: pauses doubling from 50 ms
    to 1 s, until `reconnect_for` seconds after the first drop. I/O-free (each client
    sleeps its own way); one per call."""

    __slots__ = ("_pause", "_until", "reconnect_for", "socket_path")

    def __init__(self, socket_path: Path, reconnect_for: float) -> None:
        self.socket_path = socket_path
        self.reconnect_for = reconnect_for
        self._until: float | None = None
        self._pause = FIRST_PAUSE_S

    def dropped(self, now: float) -> None:
        """The call was sent on a connection that then dropped: it may be resumed."""
        if self._until is None:
            self._until = now + self.reconnect_for

    def pause_after(self, error: Exception, now: float) -> float:
        """Seconds to wait before the next try after `error` (a drop, or no Notch).
        Raises `error` itself when it is NotchNotRunning and the call never connected
        (nothing to resume), NotchConnectionLost once `reconnect_for` has passed."""
        if self._until is None:
            if isinstance(error, NotchNotRunning):
                raise error
            self._until = now + self.reconnect_for
        if now >= self._until:
            raise connection_lost(self.socket_path, self.reconnect_for) from None
        pause = self._pause
        self._pause = min(pause * 2, LONGEST_PAUSE_S)
        return pause


def routed(lines: list[bytes]) -> tuple[list[ConfirmationEvent], list[dict[str, Any]]]:
    """The events and the replies in lines a client read (anything else is skipped).
    Raises Dropped on a line past REPLY_LIMIT (the peer is not Notch)."""
    events: list[ConfirmationEvent] = []
    replies: list[dict[str, Any]] = []
    for line in lines:
        if line is rpc.OVERSIZED:
            raise Dropped
        try:
            message = rpc.decode(line)
        except rpc.RpcError:
            continue
        if not isinstance(message, dict):
            continue
        if "method" not in message:
            replies.append(message)
        elif message["method"] == rpc.EVENT_METHOD:
            event = event_from(message.get("params"))
            if event is not None:
                events.append(event)
    return events, replies


def event_from(params: Any) -> ConfirmationEvent | None:
    """The `ConfirmationEvent` in a `confirm.event` notification's params, else None."""
    if not isinstance(params, dict):
        return None
    rest = {k: v for k, v in params.items() if k not in ("callId", "event")}
    return ConfirmationEvent(str(params.get("callId", "")), str(params.get("event", "")), rest)


def request_error(error: Any) -> NotchRequestError:
    """The exception for a JSON-RPC `error` member."""
    if not isinstance(error, dict):
        return NotchRequestError(rpc.INTERNAL_ERROR, "Notch sent a malformed error")
    return NotchRequestError(
        int(error.get("code", rpc.INTERNAL_ERROR)),
        str(error.get("message", "error")),
        error.get("data"),
    )


def answer_limit(method: str, params: Mapping[str, Any], timeout: float | None) -> float | None:
    """How long one call may wait for its answer: the caller's `timeout`; else none for
    a person's decision (PERSON_WAITS, unless `wait` is false), ANSWER_WAIT_S for
    anything Notch answers at once."""
    if timeout is not None:
        return timeout
    if method in PERSON_WAITS and params.get("wait") is not False:
        return None
    return ANSWER_WAIT_S


def no_answer(method: str, limit: float) -> NotchTimeout:
    """The error for a call whose answer did not come within `limit` seconds."""
    if method in PERSON_WAITS:
        return NotchTimeout(f"no decision within {limit:g} s")
    return NotchTimeout(
        f"Notch did not answer {method} within {limit:g} s; it may be busy or frozen "
        "(restart notch run if it stays so)"
    )


def connect_failed(
    socket_path: Path, error: OSError, looked: Sequence[str] = ()
) -> NotchNotRunning:
    """The error for a connect that failed or did not finish within CONNECT_WAIT_S."""
    if isinstance(error, TimeoutError | BlockingIOError):
        return NotchNotRunning(
            f"Notch at {socket_path} does not accept connections (within "
            f"{CONNECT_WAIT_S:g} s); it may be frozen: restart notch run"
        )
    return not_running(socket_path, error, looked)


def connected_socket(socket_path: Path, looked: Sequence[str] = ()) -> socket.socket:
    """A non-blocking socket connected to `socket_path`. A Unix socket connects at once
    or not at all: a Notch whose accept queue is full (it stopped accepting) fails here
    with EAGAIN. (asyncio's own connect waits on such a socket and then takes it for
    connected: its peer is nobody.) Raises NotchNotRunning."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        sock.connect(os.fspath(socket_path))
    except OSError as exc:
        sock.close()
        raise connect_failed(socket_path, exc, looked) from None
    return sock


def encode_call(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    """One request line. Raises NotchRequestError when it is over Notch's 1 MiB limit."""
    try:
        data = rpc.encode({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
    except ValueError as exc:  # NaN, a lone surrogate…: not JSON, never sent
        raise NotchUsageError(f"{method}: the params cannot be sent as JSON ({exc})") from None
    if len(data) > rpc.MAX_MESSAGE_BYTES + 1:
        raise NotchRequestError(
            rpc.INVALID_REQUEST,
            f"the request is {len(data)} bytes; Notch accepts at most "
            f"{rpc.MAX_MESSAGE_BYTES} (1 MiB) per message",
        )
    return data


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


def checked_token(token: str | None) -> str:
    """`token`, or a fresh one when None. Raises NotchUsageError (a ValueError) naming
    `token` when it cannot be one (see ownership.TOKEN_RULE)."""
    if token is None:
        return new_token()
    problem = token_problem(token)
    if problem is not None:
        raise NotchUsageError(f"token {problem}")
    return token


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


def decision_or_none(result: Any) -> Decision | None:
    """A decision reply as a checked Decision (`verified_decision`); None for
    `{status: "pending"}`."""
    if isinstance(result, dict) and result.get("status") == "pending":
        return None
    return verified_decision(result)


def bare_status(result: Any) -> str:
    """The `status` of a bare `confirm.get` reply. Raises NotchRequestError if it has none."""
    status = result.get("status") if isinstance(result, dict) else None
    if status not in ("pending", "decided"):
        raise NotchRequestError(rpc.INTERNAL_ERROR, "Notch sent a reply that is not a status")
    return str(status)


def verified_decision(result: Any) -> Decision:
    """A decision reply as a Decision that may be run as it says: one that runs carries
    the digest of its arguments (`Decision.verify`). Raises NotchDecisionRefused when it
    does not, NotchRequestError when the reply is not a decision at all."""
    if not isinstance(result, dict):
        raise NotchRequestError(rpc.INTERNAL_ERROR, "Notch sent a reply that is not a decision")
    try:
        decision = Decision.from_wire(result)
    except ValueError as exc:
        raise NotchDecisionRefused(
            f"the server sent a decision that is not well-formed ({exc}); do not run anything"
        ) from None
    try:
        decision.verify()
    except DecisionNotVerified as exc:
        raise NotchDecisionRefused(str(exc), decision) from exc
    return decision


def stopped_waiting(timeout: float | None) -> str:
    """Why a `confirm(timeout=…)` that ran out withdraws its request, in the person's words."""
    return f"stopped waiting after {timeout:g} s" if timeout is not None else "stopped waiting"


def withdraw_failed(call_id: str, timeout: float | None, exc: Exception) -> NotchTimeout:
    """What `confirm(timeout=…)` raises when its request could not be withdrawn."""
    return NotchTimeout(
        f"no decision within {timeout:g} s, and withdrawing {call_id!r} failed "
        f"({exc}); withdraw it yourself"
    )


def batch_timed_out(timeout: float | None, ended: Sequence[Decision | NotchError]) -> NotchTimeout:
    """What `confirm_many(timeout=…)` raises once its open calls were withdrawn."""
    return NotchTimeout(
        f"no decisions within {timeout:g} s; the open calls were withdrawn", ended=ended
    )


def decided_or_timed_out(call_id: str, timeout: float | None, ended: Decision) -> Decision:
    """After `confirm(timeout=…)` withdrew its request: the person's decision if it came
    first; else raises NotchTimeout carrying the withdrawn one."""
    if ended.outcome != "withdrawn":
        return ended
    raise NotchTimeout(
        f"no decision within {timeout:g} s; the request {call_id!r} was withdrawn", ended
    )


def glance_params(
    integration: str, tool: str, blocks: list[Any], call_id: str | None, token: str
) -> dict[str, Any]:
    """`glance.show` params: the call's token goes only with its callId."""
    params: dict[str, Any] = {"integration": integration, "tool": tool, "blocks": blocks}
    if call_id is not None:
        params["callId"] = call_id
        params["token"] = token
    return params


def withdraw_params(call_id: str, token: str, reason: str | None) -> dict[str, Any]:
    """`confirm.withdraw` params; `reason` cut to what Notch takes."""
    params: dict[str, Any] = {"callId": call_id, "token": token}
    if reason:
        limit = rpc.MAX_WITHDRAW_REASON_CHARS
        params["reason"] = reason if len(reason) <= limit else reason[: limit - 1] + "…"
    return params


def reason_refused(error: NotchRequestError) -> bool:
    """A Notch too old to know `confirm.withdraw`'s `reason` refused it."""
    return error.code == rpc.INVALID_PARAMS and error.field == "reason"


def request_params(
    integration: str,
    tool: str,
    arguments: Mapping[str, Any],
    call_id: str | None,
    supersedes: str | None,
    expires_in: float | None,
    context: Mapping[str, Any] | None,
    token: str,
) -> dict[str, Any]:
    """The params of `confirm.request`; `call_id` defaults to a fresh UUID."""
    params: dict[str, Any] = {
        "callId": call_id or uuid.uuid4().hex,
        "token": token,
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


@dataclass(frozen=True, slots=True)
class BatchCall:
    """One tool call of a `confirm_many` batch; `call_id` defaults to a fresh UUID (pass
    the model's tool-call id, so a retried turn never asks or runs twice)."""

    integration: str
    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    call_id: str | None = None


def batch_params(
    calls: Sequence[BatchCall | Mapping[str, Any]],
    token: str,
    context: Mapping[str, Any] | None,
    expires_in: float | None,
) -> dict[str, Any]:
    """The params of `confirm.batch`. Raises NotchUsageError for an empty batch or a call
    without integration or tool (nothing is sent)."""
    if not calls:
        raise NotchUsageError("confirm_many needs at least one call")
    wire: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        integration: Any
        tool: Any
        arguments: Any
        call_id: Any
        if isinstance(call, BatchCall):
            integration, tool, arguments, call_id = (
                call.integration, call.tool, call.arguments, call.call_id
            )  # fmt: skip
        else:
            integration, tool = call.get("integration"), call.get("tool")
            arguments = call.get("arguments", {})
            call_id = call.get("callId", call.get("call_id"))
        if not isinstance(integration, str) or not isinstance(tool, str):
            raise NotchUsageError(f"calls[{index}] needs an integration and a tool (text)")
        if not isinstance(arguments, Mapping):
            raise NotchUsageError(f"calls[{index}].arguments must be a mapping")
        wire.append({
            "callId": call_id if isinstance(call_id, str) and call_id else uuid.uuid4().hex,
            "integration": integration,
            "tool": tool,
            "arguments": dict(arguments),
        })  # fmt: skip
    params: dict[str, Any] = {"calls": wire, "token": token}
    if context:
        params["context"] = dict(context)
    if expires_in is not None:
        params["expiresInMs"] = max(1, round(expires_in * 1000))
    return params


def batch_results(result: Any, count: int) -> list[Decision | NotchError]:
    """The entries of a `confirm.batch` reply: a checked Decision, or the NotchError for
    that call. Raises NotchRequestError when the reply is not a batch result."""
    entries = result.get("results") if isinstance(result, dict) else None
    if not isinstance(entries, list) or len(entries) != count:
        raise NotchRequestError(rpc.INTERNAL_ERROR, "Notch sent a reply that is not a batch result")
    out: list[Decision | NotchError] = []
    for entry in entries:
        if isinstance(entry, dict) and "error" in entry:
            error = entry["error"]
            data = {"field": error.get("field")} if isinstance(error, dict) else None
            refused = request_error(error)
            out.append(NotchRequestError(refused.code, refused.message, data))
            continue
        try:
            out.append(verified_decision(entry))
        except NotchError as exc:
            out.append(exc)
    return out

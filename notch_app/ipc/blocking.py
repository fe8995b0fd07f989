"""The blocking client for a running Notch (public face: `notch_app.client.NotchClient`).

A plain socket, no event loop and no helper thread: a call sends one line and reads
until its reply comes back, so a round trip costs what a blocking echo costs plus
Notch's own work. One client may be shared by threads: whichever caller is waiting
reads for all of them (the others sleep on a condition until their reply is routed to
them), and event handlers run on that reading thread.

Like the async client it reconnects for up to `reconnect_for` seconds when the
connection drops mid-call and sends the call again (`confirm.request` is keyed by
callId, so that never makes a second card). How long a person may take is the caller's
(`timeout=`); every other wait (connect, send, a method Notch answers at once, the
withdraw after a timeout) is bounded as the async client's are (`notch_app.ipc.client`).
Its requests carry its `token`, as the async client's do.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import select
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

from notch_app.ipc import protocol as rpc
from notch_app.ipc.address import find_socket
from notch_app.ipc.client import (
    ANSWER_WAIT_S,
    CONNECT_WAIT_S,
    REPLY_LIMIT,
    WITHDRAW_WAIT_S,
    Backoff,
    BatchCall,
    CallListeners,
    ConfirmationEvent,
    Dropped,
    EventHandler,
    NotchError,
    NotchNotRunning,
    NotchRequestError,
    NotchTimeout,
    NotchUntrusted,
    answer_limit,
    bare_status,
    batch_params,
    batch_results,
    batch_timed_out,
    checked_token,
    connect_failed,
    decided_or_timed_out,
    decision_or_none,
    encode_call,
    glance_params,
    no_answer,
    reason_refused,
    request_error,
    request_params,
    routed,
    socket_search,
    stopped_waiting,
    verified_decision,
    withdraw_failed,
    withdraw_params,
)
from notch_app.ipc.peer import UntrustedServer, verify_server
from notch_app.runtime.decision import Decision

_RECV_BYTES: Final = 64 * 1024
_LEAST_WAIT_S: Final = 0.01
"""A deadline already past still gets one short try (a connect, a send)."""


class NotchClient:
    """Blocking client with the same methods as `AsyncNotchClient`. Safe to share
    between threads; usable inside or outside asyncio (it never touches a loop).
    `on_event` and per-call handlers run on whichever calling thread is reading.
    `token` as for `AsyncNotchClient`: the key to this client's requests."""

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
        self._lock = threading.Lock()
        self._state = threading.Condition(self._lock)
        self._sleepers = 0
        self._send_lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._sender: socket.socket | None = None
        """The connection again (a dup), for sending: its own timeout stays None, so a
        send never waits inside Python on the reader's timeout (see `_send`)."""
        self._generation = 0
        """Bumped whenever the connection is dropped: a waiter on an older one resends."""
        self._sock_timeout: float | None = None
        self._splitter = rpc.LineSplitter(REPLY_LIMIT)
        self._inbox = memoryview(bytearray(_RECV_BYTES))
        """Every read lands here: no fresh allocation per read."""
        self._ids = itertools.count(1)
        self._expected: set[int] = set()
        self._replies: dict[int, dict[str, Any]] = {}
        self._reading = False
        self._closed = False
        self._listeners = CallListeners()

    def __enter__(self) -> NotchClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connect(self) -> None:
        """Open the connection now (calls also connect on demand).
        Raises NotchNotRunning when nothing listens on the socket."""
        with self._lock:
            self._connected()

    def close(self) -> None:
        """Close the connection; calls waiting in other threads raise NotchError.
        Safe to call twice."""
        with self._state:
            self._closed = True
            self._drop(self._generation)
            self._state.notify_all()

    # --- the API ---------------------------------------------------------------------

    def confirm(
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
        See `AsyncNotchClient.confirm`: same arguments, same errors (NotchTimeout after
        `timeout` seconds, once the request is withdrawn)."""
        params = request_params(
            integration, tool, arguments, call_id, supersedes, expires_in, context, self.token
        )
        try:
            if on_event is None:  # the common case, without the listener's scope
                return verified_decision(self.call("confirm.request", params, timeout=timeout))
            with self._listeners.listening(params["callId"], on_event):
                return verified_decision(self.call("confirm.request", params, timeout=timeout))
        except NotchTimeout:
            return self._gave_up(params["callId"], timeout)

    def confirm_many(
        self,
        calls: Sequence[BatchCall | Mapping[str, Any]],
        *,
        context: Mapping[str, Any] | None = None,
        expires_in: float | None = None,
        timeout: float | None = None,
    ) -> list[Decision | NotchError]:
        """Ask about the tool calls of one model turn at once; one Decision or NotchError
        per call, in order. See `AsyncNotchClient.confirm_many`."""
        params = batch_params(calls, self.token, context, expires_in)
        try:
            result = self.call("confirm.batch", params, timeout=timeout)
        except NotchTimeout:
            # Every withdraw within one budget: a Notch that answers none holds this
            # WITHDRAW_WAIT_S in all, not that much per call.
            until = time.monotonic() + WITHDRAW_WAIT_S
            ended: list[Decision | NotchError] = []
            for call in params["calls"]:
                try:
                    left = until - time.monotonic()
                    if left <= 0:
                        raise no_answer("confirm.withdraw", WITHDRAW_WAIT_S)
                    ended.append(self.withdraw(call["callId"], timeout=left))
                except NotchError as exc:
                    ended.append(exc)
            raise batch_timed_out(timeout, ended) from None
        return batch_results(result, len(params["calls"]))

    def submit(
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
        """Queue a request without waiting: (callId, decision or None while pending)."""
        params = request_params(
            integration, tool, arguments, call_id, supersedes, expires_in, context, self.token
        )
        params["wait"] = False
        return params["callId"], decision_or_none(self.call("confirm.request", params))

    def await_decision(
        self, call_id: str, *, timeout: float | None = None, on_event: EventHandler | None = None
    ) -> Decision:
        """Wait for the decision on `call_id`. Raises NotchTimeout after `timeout` seconds
        (the request stays open), NotchRequestError(-32001) for a callId Notch never saw,
        (-32008) for one made with another token."""
        params = {"callId": call_id, "token": self.token}
        with self._listeners.listening(call_id, on_event):
            while True:
                result = self.call("confirm.await", params, timeout=timeout)
                decision = decision_or_none(result)
                if decision is not None:
                    return decision

    def get(self, call_id: str) -> Decision | None:
        """The decision on `call_id`, or None while it is pending. Raises
        NotchRequestError(-32008) for a callId made with another token."""
        params = {"callId": call_id, "token": self.token}
        return decision_or_none(self.call("confirm.get", params))

    def status(self, call_id: str) -> str:
        """The bare status of any request, whoever made it: "pending" or "decided"."""
        return bare_status(self.call("confirm.get", {"callId": call_id}))

    def withdraw(
        self, call_id: str, *, timeout: float | None = None, reason: str | None = None
    ) -> Decision:
        """Withdraw `call_id`; returns `withdrawn`, or the decision if it came first.
        `reason` says why, in a few words the person sees with the card's going (as
        yours; cut to MAX_WITHDRAW_REASON_CHARS). Raises NotchRequestError(-32008) for a
        callId made with another token, NotchTimeout without an answer within `timeout`
        (default ANSWER_WAIT_S)."""
        params = withdraw_params(call_id, self.token, reason)
        try:
            result = self.call("confirm.withdraw", params, timeout=timeout)
        except NotchRequestError as exc:
            if "reason" not in params or not reason_refused(exc):
                raise
            del params["reason"]  # a Notch from before reasons: withdrawn all the same
            result = self.call("confirm.withdraw", params, timeout=timeout)
        return verified_decision(result)

    def integrations(self, *, timeout: float | None = None) -> list[dict[str, Any]]:
        """The integrations Notch has loaded, each with its tools. Raises NotchTimeout
        without an answer within `timeout` (default ANSWER_WAIT_S)."""
        return list(self.call("integrations.list", {}, timeout=timeout)["integrations"])

    def end_session(self, session: str, *, timeout: float | None = None) -> int:
        """Tell Notch the agent's session `session` ended: its "Allow for this session"
        choices end. How many ended. Raises NotchTimeout without an answer within
        `timeout` (default ANSWER_WAIT_S)."""
        result = self.call("session.end", {"session": session}, timeout=timeout)
        return int(result["ended"])

    def show_glance(
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
        return dict(self.call("glance.show", params, timeout=timeout))

    def call(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        """Call any method and return its result; retries on a new connection if the old
        one drops. Raises NotchRequestError, NotchNotRunning, NotchConnectionLost, or
        NotchTimeout without an answer within `timeout` seconds (for a method Notch
        answers at once, within ANSWER_WAIT_S when no `timeout` is given)."""
        limit = answer_limit(method, params, timeout)
        deadline = None if limit is None else time.monotonic() + limit
        backoff: Backoff | None = None
        while True:
            try:
                return self._call_once(method, params, deadline)
            except NotchTimeout:
                assert limit is not None  # only a call with a deadline times out
                raise no_answer(method, limit) from None
            except (Dropped, NotchNotRunning) as exc:
                if self._closed:
                    raise NotchError("this NotchClient is closed") from None
                if backoff is None:
                    backoff = Backoff(self.socket_path, self.reconnect_for)
                now = time.monotonic()
                pause = backoff.pause_after(exc, now)
                if limit is not None and deadline is not None and now + pause >= deadline:
                    raise no_answer(method, limit) from None
                time.sleep(pause)

    # --- internals -------------------------------------------------------------------

    def _gave_up(self, call_id: str, timeout: float | None) -> Decision:
        """`confirm()` ran out of time: withdraw, then raise NotchTimeout (or return the
        decision the person made just before the withdraw arrived)."""
        try:
            ended = self.withdraw(call_id, timeout=WITHDRAW_WAIT_S, reason=stopped_waiting(timeout))
        except NotchError as exc:
            raise withdraw_failed(call_id, timeout, exc) from None
        return decided_or_timed_out(call_id, timeout, ended)

    def _call_once(self, method: str, params: dict[str, Any], deadline: float | None) -> Any:
        request_id = next(self._ids)
        data = encode_call(request_id, method, params)
        with self._lock:
            if self._closed:
                raise NotchError("this NotchClient is closed")
            self._connected(deadline)
            sender = self._sender
            assert sender is not None  # made with the connection
            generation = self._generation
            self._expected.add(request_id)
        try:
            try:
                with self._send_lock:
                    _send(sender, data, deadline)
            except (OSError, NotchTimeout) as exc:
                with self._lock:  # part of a request may be on it: never use it again
                    self._drop(generation)
                if isinstance(exc, NotchTimeout):
                    raise
                raise Dropped from None
            message = self._reply(request_id, generation, deadline)
        except BaseException:
            with self._lock:
                self._expected.discard(request_id)
                self._replies.pop(request_id, None)
            raise
        if "error" in message:
            raise request_error(message["error"])
        return message.get("result")

    def _reply(self, request_id: int, generation: int, deadline: float | None) -> dict[str, Any]:
        """Wait for the reply to `request_id`, reading the socket while no other thread is
        (the reader routes every reply it reads; the others sleep until theirs arrives)."""
        state = self._state
        while True:
            with self._lock:  # the Condition's own lock: waits below still work
                while True:
                    reply = self._replies.pop(request_id, None)
                    if reply is not None:
                        self._expected.discard(request_id)
                        return reply
                    if self._generation != generation:
                        raise Dropped
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        raise NotchTimeout("no decision yet; the request stays open")
                    if not self._reading:
                        self._reading = True
                        sock = self._sock
                        break
                    self._sleepers += 1
                    try:
                        state.wait(left)
                    finally:
                        self._sleepers -= 1
            events: list[ConfirmationEvent] = []
            replies: list[dict[str, Any]] = []
            lost = False
            try:
                if sock is None:
                    raise Dropped
                events, replies = routed(self._receive(sock, left))
            except Dropped:
                lost = True
            except BaseException:
                # A signal's exception mid-read (the hook's SIGTERM): hand the reading on,
                # or every other caller of this client would sleep for ever.
                with self._lock:
                    self._reading = False
                    if self._sleepers:
                        state.notify_all()
                raise
            mine: dict[str, Any] | None = None
            with self._lock:
                self._reading = False
                for message in replies:
                    reply_id = message.get("id")
                    if reply_id == request_id:
                        mine = message
                        self._expected.discard(request_id)
                    elif isinstance(reply_id, int) and reply_id in self._expected:
                        self._replies[reply_id] = message
                if lost:
                    self._drop(generation)
                elif self._sleepers:
                    state.notify_all()  # a reply for them, or their turn to read
            for event in events:
                self._dispatch(event)
            if mine is not None:
                return mine

    def _receive(self, sock: socket.socket, timeout: float | None) -> list[bytes]:
        """Read at least once (up to `timeout` s) and return the lines completed."""
        if timeout != self._sock_timeout:  # settimeout is a syscall: only when it changes
            sock.settimeout(timeout)
            self._sock_timeout = timeout
        try:
            got = sock.recv_into(self._inbox)
        except TimeoutError:
            return []
        except OSError:
            raise Dropped from None
        if not got:
            raise Dropped
        return self._splitter.feed(bytes(self._inbox[:got]))

    def _connected(self, deadline: float | None = None) -> socket.socket:
        """The open socket, connecting first if needed (within CONNECT_WAIT_S, and by
        `deadline`). Call with `_lock` held."""
        if self._sock is not None:
            return self._sock
        if self._fixed is None:  # a Notch started since, or elsewhere, is found
            self._search = find_socket()
            self.socket_path = self._search.path
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        wait = CONNECT_WAIT_S
        if deadline is not None:
            wait = max(_LEAST_WAIT_S, min(wait, deadline - time.monotonic()))
        sock.settimeout(wait)  # a full accept queue fails at once (EAGAIN), never blocks
        try:
            sock.connect(os.fspath(self.socket_path))
        except OSError as exc:
            sock.close()
            raise connect_failed(self.socket_path, exc, self._search.looked) from None
        try:  # before anything is sent on it
            verify_server(sock, self.socket_path)
        except UntrustedServer as exc:
            sock.close()
            raise NotchUntrusted(str(exc)) from None
        try:
            sender = socket.socket(sock.family, sock.type, sock.proto, os.dup(sock.fileno()))
        except OSError as exc:
            sock.close()
            raise connect_failed(self.socket_path, exc) from None
        if sender.gettimeout() is not None:  # only under socket.setdefaulttimeout()
            sender.settimeout(None)
        self._sock, self._sender = sock, sender
        self._sock_timeout = wait
        self._splitter.clear()
        return sock

    def _drop(self, generation: int) -> None:
        """Close the connection of `generation` (if still current) and wake every waiter
        to resend on a new one. Call with `_lock` held."""
        if generation != self._generation:
            return
        self._generation += 1
        if self._sleepers:
            self._state.notify_all()
        sock, self._sock = self._sock, None
        if self._sender is not None:
            self._sender.close()
            self._sender = None
        self._splitter.clear()
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked in recv
            sock.close()

    def _dispatch(self, event: ConfirmationEvent) -> None:
        self._listeners.dispatch(event, self.on_event)


def _send(sock: socket.socket, data: bytes, deadline: float | None) -> None:
    """Send all of `data` by `deadline`, and within ANSWER_WAIT_S in any case: a Notch
    that stopped reading (its buffer full) never holds the sender. Never blocks in a
    send (MSG_DONTWAIT, whatever the socket's own timeout, which the reading thread
    owns). Raises NotchTimeout when the time runs out, OSError when the socket fails."""
    until = time.monotonic() + ANSWER_WAIT_S
    if deadline is not None:
        until = min(until, deadline)
    view = memoryview(data)
    while view:
        try:
            view = view[sock.send(view, socket.MSG_DONTWAIT) :]
            continue
        except (BlockingIOError, TimeoutError):
            pass
        left = until - time.monotonic()
        if left <= 0:
            raise NotchTimeout("Notch stopped reading what was sent to it")
        _writable(sock, left)


def _writable(sock: socket.socket, within: float) -> None:
    """Wait until `sock` can take more bytes, at most `within` seconds."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(sock, select.POLLOUT)
        poller.poll(max(1, round(within * 1000)))
    else:  # pragma: no cover - every POSIX Notch runs on has poll
        select.select([], [sock], [], within)

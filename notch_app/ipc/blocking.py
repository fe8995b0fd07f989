"""The blocking client for a running Notch (public face: `notch_app.client.NotchClient`).

A plain socket, no event loop and no helper thread: a call sends one line and reads
until its reply comes back, so a round trip costs what a blocking echo costs plus
Notch's own work. One client may be shared by threads: whichever caller is waiting
reads for all of them (the others sleep on a condition until their reply is routed to
them), and event handlers run on that reading thread.

Like the async client it reconnects for up to `reconnect_for` seconds when the
connection drops mid-call and sends the call again (`confirm.request` is keyed by
callId, so that never makes a second card). Timeouts are the caller's (`timeout=`).
Its requests carry its `token`, as the async client's do.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from notch_app.ipc import protocol as rpc
from notch_app.ipc.address import default_socket_path
from notch_app.ipc.client import (
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
    NotchTimeout,
    NotchUntrusted,
    bare_status,
    batch_params,
    batch_results,
    checked_token,
    decided_or_timed_out,
    decision_or_none,
    encode_call,
    glance_params,
    not_running,
    request_error,
    request_params,
    routed,
    verified_decision,
    withdraw_failed,
)
from notch_app.ipc.peer import UntrustedServer, verify_server
from notch_app.runtime.decision import Decision

_RECV_BYTES: Final = 64 * 1024


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
        self.socket_path = Path(socket_path) if socket_path else default_socket_path()
        self.reconnect_for = reconnect_for
        self.on_event = on_event
        self._lock = threading.Lock()
        self._state = threading.Condition(self._lock)
        self._sleepers = 0
        self._send_lock = threading.Lock()
        self._sock: socket.socket | None = None
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
            for call in params["calls"]:
                with contextlib.suppress(NotchError):
                    self.call(
                        "confirm.withdraw",
                        {"callId": call["callId"], "token": self.token},
                        timeout=WITHDRAW_WAIT_S,
                    )
            raise NotchTimeout(
                f"no decisions within {timeout:g} s; the open calls were withdrawn"
            ) from None
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

    def withdraw(self, call_id: str) -> Decision:
        """Withdraw `call_id`; returns `withdrawn`, or the decision if it came first.
        Raises NotchRequestError(-32008) for a callId made with another token."""
        params = {"callId": call_id, "token": self.token}
        return verified_decision(self.call("confirm.withdraw", params))

    def integrations(self) -> list[dict[str, Any]]:
        """The integrations Notch has loaded, each with its tools."""
        return list(self.call("integrations.list", {})["integrations"])

    def show_glance(
        self, integration: str, tool: str, blocks: list[Any], *, call_id: str | None = None
    ) -> dict[str, Any]:
        """Show a tool result's glance (`_voiceos_glance.blocks`) in the notch; with
        `call_id`, the result of that call of this client's, which must have run.
        Returns {shown, dropped: [{index, kind, reason}]}. Raises NotchRequestError."""
        params = glance_params(integration, tool, blocks, call_id, self.token)
        return dict(self.call("glance.show", params))

    def call(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        """Call any method and return its result; retries on a new connection if the old
        one drops. Raises NotchRequestError, NotchNotRunning, NotchConnectionLost, or
        NotchTimeout after `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        backoff: Backoff | None = None
        while True:
            try:
                return self._call_once(method, params, deadline)
            except (Dropped, NotchNotRunning) as exc:
                if self._closed:
                    raise NotchError("this NotchClient is closed") from None
                if backoff is None:
                    backoff = Backoff(self.socket_path, self.reconnect_for)
                now = time.monotonic()
                pause = backoff.pause_after(exc, now)
                if deadline is not None and now + pause >= deadline:
                    raise NotchTimeout(f"no answer from Notch within {timeout:g} s") from None
                time.sleep(pause)

    # --- internals -------------------------------------------------------------------

    def _gave_up(self, call_id: str, timeout: float | None) -> Decision:
        """`confirm()` ran out of time: withdraw, then raise NotchTimeout (or return the
        decision the person made just before the withdraw arrived)."""
        try:
            ended = verified_decision(
                self.call(
                    "confirm.withdraw",
                    {"callId": call_id, "token": self.token},
                    timeout=WITHDRAW_WAIT_S,
                )
            )
        except NotchError as exc:
            raise withdraw_failed(call_id, timeout, exc) from None
        return decided_or_timed_out(call_id, timeout, ended)

    def _call_once(self, method: str, params: dict[str, Any], deadline: float | None) -> Any:
        request_id = next(self._ids)
        data = encode_call(request_id, method, params)
        with self._lock:
            if self._closed:
                raise NotchError("this NotchClient is closed")
            sock = self._connected()
            generation = self._generation
            self._expected.add(request_id)
        try:
            try:
                with self._send_lock:
                    sock.sendall(data)
            except OSError:
                with self._lock:
                    self._drop(generation)
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

    def _connected(self) -> socket.socket:
        """The open socket, connecting first if needed. Call with `_lock` held."""
        if self._sock is not None:
            return self._sock
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(os.fspath(self.socket_path))
        except OSError as exc:
            sock.close()
            raise not_running(self.socket_path, exc) from None
        try:  # before anything is sent on it
            verify_server(sock, self.socket_path)
        except UntrustedServer as exc:
            sock.close()
            raise NotchUntrusted(str(exc)) from None
        self._sock = sock
        self._sock_timeout = None
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
        self._splitter.clear()
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked in recv
            sock.close()

    def _dispatch(self, event: ConfirmationEvent) -> None:
        self._listeners.dispatch(event, self.on_event)

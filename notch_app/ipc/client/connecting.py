"""Reaching Notch: connecting, how long each wait may take, retries, and the lines sent and read."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from notch_app.ipc import protocol as rpc
from notch_app.ipc.address import SocketSearch
from notch_app.ipc.client.errors import (
    NotchConnectionLost,
    NotchNotRunning,
    NotchRequestError,
    NotchTimeout,
    NotchUsageError,
)
from notch_app.ipc.client.events import ConfirmationEvent, event_from
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


def checked_token(token: str | None) -> str:
    """`token`, or a fresh one when None. Raises NotchUsageError (a ValueError) naming
    `token` when it cannot be one (see ownership.TOKEN_RULE)."""
    if token is None:
        return new_token()
    problem = token_problem(token)
    if problem is not None:
        raise NotchUsageError(f"token {problem}")
    return token

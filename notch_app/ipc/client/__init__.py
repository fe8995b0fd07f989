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

One module a concern: `async_client` (AsyncNotchClient and its connection), and what the
blocking client (`ipc/blocking.py`) shares with it: `errors`, `events` (confirm.event
routed to each call's handlers), `connecting` (the bounded waits, retries, lines sent and
read) and `calls` (each method's params, and its reply checked).
"""

from __future__ import annotations

from notch_app.ipc.client.async_client import (
    AsyncNotchClient,
)
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
    ANSWER_WAIT_S,
    CONNECT_WAIT_S,
    FIRST_PAUSE_S,
    LONGEST_PAUSE_S,
    PERSON_WAITS,
    REPLY_LIMIT,
    WITHDRAW_WAIT_S,
    Backoff,
    Dropped,
    answer_limit,
    checked_token,
    connect_failed,
    connected_socket,
    connection_lost,
    encode_call,
    no_answer,
    not_running,
    request_error,
    routed,
    socket_search,
)
from notch_app.ipc.client.errors import (
    NotchConnectionLost,
    NotchDecisionRefused,
    NotchError,
    NotchNotRunning,
    NotchRequestError,
    NotchTimeout,
    NotchUntrusted,
    NotchUsageError,
)
from notch_app.ipc.client.events import (
    CallListeners,
    ConfirmationEvent,
    EventHandler,
    event_from,
)

__all__ = [
    "ANSWER_WAIT_S",
    "CONNECT_WAIT_S",
    "FIRST_PAUSE_S",
    "LONGEST_PAUSE_S",
    "PERSON_WAITS",
    "REPLY_LIMIT",
    "WITHDRAW_WAIT_S",
    "AsyncNotchClient",
    "Backoff",
    "BatchCall",
    "CallListeners",
    "ConfirmationEvent",
    "Dropped",
    "EventHandler",
    "NotchConnectionLost",
    "NotchDecisionRefused",
    "NotchError",
    "NotchNotRunning",
    "NotchRequestError",
    "NotchTimeout",
    "NotchUntrusted",
    "NotchUsageError",
    "answer_limit",
    "bare_status",
    "batch_params",
    "batch_results",
    "batch_timed_out",
    "checked_token",
    "connect_failed",
    "connected_socket",
    "connection_lost",
    "decided_or_timed_out",
    "decision_or_none",
    "encode_call",
    "event_from",
    "glance_params",
    "no_answer",
    "not_running",
    "reason_refused",
    "request_error",
    "request_params",
    "routed",
    "socket_search",
    "stopped_waiting",
    "verified_decision",
    "withdraw_failed",
    "withdraw_params",
]

"""The Python client for a running Notch: `NotchClient` (blocking) and `AsyncNotchClient`.

    from notch_app.client import NotchClient

    with NotchClient() as notch:
        decision = notch.confirm("com.example.mail", "send_email", {"to": "sam@example.com"})
        if decision.runs:
            send_email(**decision.arguments)   # exactly once per callId

`decision.outcome` is approved / notRequired / autoApproved (run it, with
`decision.arguments`) or declined / superseded / withdrawn / expired / blocked (don't).
An approval is single-use: run a callId at most once, even if a repeated request for it
returns the decision again (`decision.already_decided`).

Both clients check whom they talk to and what they are told: a server that is not this
user's own Notch raises `NotchUntrusted` before anything is sent, and a decision that
says "run" without the digest of its arguments raises `NotchDecisionRefused`.

Every error either client raises is a `NotchError` (see `notch_app.ipc.client`).
How long the person may take is yours (`timeout=`); every other wait is bounded, so a
Notch that accepts and never answers raises `NotchTimeout` instead of holding you: a
`confirm(timeout=T)` ends by T plus a one-second withdraw, a method Notch answers at once
(a read, a withdraw, a glance) after 10 s unless you pass `timeout=`.
`confirm_many([...])` asks about the several tool calls of one model turn at once.
"""

from __future__ import annotations

from notch_app.ipc.blocking import NotchClient
from notch_app.ipc.client import (
    AsyncNotchClient,
    BatchCall,
    ConfirmationEvent,
    EventHandler,
    NotchConnectionLost,
    NotchDecisionRefused,
    NotchError,
    NotchNotRunning,
    NotchRequestError,
    NotchTimeout,
    NotchUntrusted,
    NotchUsageError,
)
from notch_app.runtime.decision import Decision, arguments_digest

__all__ = [
    "AsyncNotchClient",
    "BatchCall",
    "ConfirmationEvent",
    "Decision",
    "EventHandler",
    "NotchClient",
    "NotchConnectionLost",
    "NotchDecisionRefused",
    "NotchError",
    "NotchNotRunning",
    "NotchRequestError",
    "NotchTimeout",
    "NotchUntrusted",
    "NotchUsageError",
    "arguments_digest",
]

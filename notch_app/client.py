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
"""

from __future__ import annotations

from notch_app.ipc.blocking import NotchClient
from notch_app.ipc.client import (
    AsyncNotchClient,
    ConfirmationEvent,
    EventHandler,
    NotchConnectionLost,
    NotchError,
    NotchNotRunning,
    NotchRequestError,
)
from notch_app.runtime.decision import Decision, arguments_digest

__all__ = [
    "AsyncNotchClient",
    "ConfirmationEvent",
    "Decision",
    "EventHandler",
    "NotchClient",
    "NotchConnectionLost",
    "NotchError",
    "NotchNotRunning",
    "NotchRequestError",
    "arguments_digest",
]

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

import asyncio
import os
import threading
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

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
    "NotchClient",
    "NotchConnectionLost",
    "NotchError",
    "NotchNotRunning",
    "NotchRequestError",
    "arguments_digest",
]

T = TypeVar("T")


class NotchClient:
    """Blocking client: the same methods as `AsyncNotchClient`, run on a private event
    loop in a background thread (so it works from any thread, inside or outside asyncio).
    Event handlers are called on that background thread."""

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None = None,
        *,
        reconnect_for: float = 10.0,
        on_event: EventHandler | None = None,
    ) -> None:
        self._async = AsyncNotchClient(socket_path, reconnect_for=reconnect_for, on_event=on_event)
        self.socket_path = self._async.socket_path
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="notch-client", daemon=True
        )
        self._thread.start()

    def __enter__(self) -> NotchClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

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
        """See `AsyncNotchClient.confirm`."""
        return self._run(
            self._async.confirm(
                integration, tool, arguments, call_id=call_id, supersedes=supersedes,
                expires_in=expires_in, context=context, timeout=timeout, on_event=on_event,
            )
        )  # fmt: skip

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
        """See `AsyncNotchClient.submit`."""
        return self._run(
            self._async.submit(
                integration, tool, arguments, call_id=call_id, supersedes=supersedes,
                expires_in=expires_in, context=context,
            )
        )  # fmt: skip

    def await_decision(self, call_id: str, *, timeout: float | None = None) -> Decision:
        return self._run(self._async.await_decision(call_id, timeout=timeout))

    def get(self, call_id: str) -> Decision | None:
        return self._run(self._async.get(call_id))

    def withdraw(self, call_id: str) -> Decision:
        return self._run(self._async.withdraw(call_id))

    def integrations(self) -> list[dict[str, Any]]:
        return self._run(self._async.integrations())

    def close(self) -> None:
        """Close the connection and stop the background loop. Safe to call twice."""
        if self._loop.is_closed():
            return
        if self._thread.is_alive():
            self._run(self._async.close())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
        self._loop.close()

"""What a client hears while it waits: confirm.event notifications, routed to each call's handlers."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


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


def event_from(params: Any) -> ConfirmationEvent | None:
    """The `ConfirmationEvent` in a `confirm.event` notification's params, else None."""
    if not isinstance(params, dict):
        return None
    rest = {k: v for k, v in params.items() if k not in ("callId", "event")}
    return ConfirmationEvent(str(params.get("callId", "")), str(params.get("event", "")), rest)

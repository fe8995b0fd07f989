"""What an executor asks and what the service refuses: ToolCall, ServiceError and its checks."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from notch_app.runtime.askers import (
    AskingProcess,
)
from notch_app.runtime.call_ids import MAX_CALL_ID_CHARS
from notch_app.runtime.ownership import IN_PROCESS, Asker, holds

log = logging.getLogger("notch.service")

Event = Literal["confirmationRequired", "shown", "parked", "restored", "decided"]
EventListener = Callable[[str, Event, dict[str, Any]], None]
"""Called with (callId, event, data) for requests the listener asked about."""

ErrorKind = Literal[
    "invalidParams", "unknownCall", "callIdInUse", "notOpen", "overloaded", "storage", "notYours"
]
Status = Literal["pending", "decided"]


class ServiceError(Exception):
    """A request the service refuses. `field` names the bad parameter, if one is."""

    def __init__(self, kind: ErrorKind, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.field = field


@dataclass(slots=True)
class ToolCall:
    """One tool call an executor asks about: the params of `confirm.request`. Read-only
    by convention: not `frozen`, because a frozen dataclass costs ~2 µs more to build and
    one is built for every request on the socket."""

    call_id: str
    """The executor's id for this call: a repeat with the same id is the same call."""
    integration_id: str
    tool_name: str
    arguments: Mapping[str, Any]
    supersedes: str | None = None
    """The callId of an open request whose card this one takes the place of."""
    expires_in_ms: int | None = None
    """Ends the request `expired` if it is still undecided this long after it arrived."""
    context: Mapping[str, Any] | None = None
    """Free-form, bounded (e.g. {"agent": "Mail assistant"}); shown, never trusted."""
    token: Asker = IN_PROCESS
    """The asker's token (the socket always has one); only its hash is kept."""
    process: AskingProcess | None = None
    """The process that sent it, as the kernel says (the socket sets it): what its share
    of open requests is counted against. None for the app itself."""


def same_call(
    call: ToolCall, digest: str, had_integration: str, had_tool: str, had_digest: str
) -> None:
    """Raises ServiceError(callIdInUse) unless `call` is the call its callId was used for."""
    if (had_integration, had_tool, had_digest) != (call.integration_id, call.tool_name, digest):
        raise ServiceError(
            "callIdInUse",
            f"callId {call.call_id!r} was already used for a different call "
            f"({had_integration}/{had_tool}); send a new callId, or `supersedes` to "
            "replace an open card",
            "callId",
        )


def check_holds(call_id: str, asker: Asker, owner: str | None) -> None:
    """Raises ServiceError(notYours) unless `asker` may act on a request held by `owner`."""
    if not holds(asker, owner):
        raise ServiceError(
            "notYours",
            f"callId {call_id!r} belongs to another asker: only the client holding its "
            "token can await, read, withdraw or repeat it. Send the `token` it was "
            "requested with (a client that reconnects or restarts sends the same token); "
            "without a token, confirm.get answers only its bare status",
            "token",
        )


def check_call_id(value: str, name: str) -> None:
    if (
        not isinstance(value, str)
        or not 0 < len(value) <= MAX_CALL_ID_CHARS
        or not value.isprintable()
    ):
        raise ServiceError(
            "invalidParams",
            f"{name} must be 1 to {MAX_CALL_ID_CHARS} printable characters",
            name,
        )

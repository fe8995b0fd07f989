"""What the server answers: replies that wait for a decision, results and errors in JSON-RPC's words."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from notch_app.ipc import protocol as rpc
from notch_app.runtime.decision import Decision
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.service import (
    MAX_CALL_ID_CHARS,
    ServiceError,
)

if TYPE_CHECKING:
    from notch_app.manifest.glance import GlanceReading

log = logging.getLogger("notch.ipc")


_ERROR_CODES: Final[Mapping[str, int]] = {
    "invalidParams": rpc.INVALID_PARAMS,
    "unknownCall": rpc.UNKNOWN_CALL,
    "callIdInUse": rpc.CALL_ID_IN_USE,
    "notOpen": rpc.NOT_OPEN,
    "overloaded": rpc.OVERLOADED,
    "storage": rpc.STORAGE_ERROR,
    "notYours": rpc.NOT_YOURS,
}

Result = Any
"""A JSON-ready result, or a `Later` for one that waits on a decision."""


def pending_reply(request: ConfirmationRequest) -> dict[str, Any]:
    return {"callId": request.call_id, "status": "pending", "parked": request.parked}


class Later:
    """A reply that waits for a decision: `future` (the service's, shared with other
    waiters, never cancelled here), or `{callId, status: "pending"}` after `timeout` s.
    `token` is added to the decision (the reply to `confirm.request` carries it).
    `render`, when given, makes the reply from the future's result instead (a batch)."""

    __slots__ = ("call_id", "future", "render", "timeout", "token")

    def __init__(
        self,
        future: asyncio.Future[Any],
        call_id: str,
        timeout: float | None = None,
        token: str | None = None,
        render: Callable[[Any], Any] | None = None,
    ) -> None:
        self.future = future
        self.call_id = call_id
        self.timeout = timeout
        self.token = token
        self.render = render


def token_with_call_id(call_id: str | None, token: str | None) -> None:
    """A callId names another request: its token must come with it (refused before
    anything is looked up, so a client without it learns nothing)."""
    if call_id is not None and token is None:
        raise rpc.RpcError(
            rpc.INVALID_PARAMS,
            "invalid params: token is required with callId: send the token the request "
            "was made with; only its asker can tie anything to it",
            {"field": "token"},
        )


def shown_reply(reading: GlanceReading | None) -> dict[str, Any]:
    if reading is None:
        return {"shown": 0, "dropped": []}
    return {
        "shown": len(reading.blocks),
        "dropped": [
            {"index": d.index, "kind": d.kind, "reason": d.reason} for d in reading.dropped
        ],
    }


NOT_ASKED: Final = rpc.RpcError(rpc.INTERNAL_ERROR, "internal error: this call was not asked")


def batch_call_id(raw: Any) -> str | None:
    call_id = raw.get("callId") if isinstance(raw, dict) else None
    return call_id[:MAX_CALL_ID_CHARS] if isinstance(call_id, str) else None


def batch_entry(entry: Any, call_id: str | None, index: int) -> dict[str, Any]:
    """One result of `confirm.batch`: the decision, or {callId, error} with the field
    named under `calls.N` (the call's place in the batch)."""
    if isinstance(entry, asyncio.Future):
        exc = entry.exception()
        if exc is None:
            return dict(entry.result().to_wire())
        entry = exc
    if isinstance(entry, ServiceError):
        entry = service_error(entry)
    if not isinstance(entry, rpc.RpcError):
        log.error("a batch call failed: %r", entry)
        entry = rpc.RpcError(rpc.INTERNAL_ERROR, "internal error; see Notch's log")
    field = entry.data.get("field") if isinstance(entry.data, dict) else None
    where = f"calls.{index}"
    if isinstance(field, str) and field != "calls":
        where = f"{where}.{field}"
    return {
        "callId": call_id,
        "error": {"code": entry.code, "message": entry.message, "field": where},
    }


def with_token(decision: Decision, token: str | None) -> dict[str, Any]:
    wire = decision.to_wire()
    if token is not None:
        wire["token"] = token
    return wire


def invalid_id_error(request_id: Any, bad: rpc.BadValue | None) -> rpc.RpcError:
    if bad is not None and bad.path == ("id",):
        got = bad.problem
    else:
        what = type(request_id).__name__
        got = f"{_JSON_TYPE_NAMES.get(what, what)} is not an id"
    return rpc.RpcError(
        rpc.INVALID_REQUEST,
        f"invalid request: id: {got}; an id must be a string, a whole number or null "
        "(the method was not run)",
        {"field": "id"},
    )


_JSON_TYPE_NAMES: Final = {
    "dict": "an object",
    "list": "an array",
    "bool": "true or false",
    "float": "a number with a fraction or exponent",
}


def service_error(exc: ServiceError) -> rpc.RpcError:
    data = {"field": exc.field} if exc.field else None
    return rpc.RpcError(_ERROR_CODES.get(exc.kind, rpc.INTERNAL_ERROR), exc.message, data)

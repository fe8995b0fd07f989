"""The method table: every socket method with its params, results and errors, and what each error means."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from notch_app.ipc import protocol as rpc
from notch_app.ipc.methods.catalog import (
    AttachParams,
    AttachResult,
    IntegrationsResult,
    ServerInfoResult,
)
from notch_app.ipc.methods.confirm import (
    BatchResult,
    CallIdParams,
    ConfirmAwaitParams,
    ConfirmBatchParams,
    ConfirmRequestParams,
    DecidedStatus,
    DecisionResult,
    NoParams,
    PendingResult,
    WithdrawParams,
)
from notch_app.ipc.methods.glances import (
    GlanceShowParams,
    GlanceShowResult,
    WorkBeginParams,
    WorkBeginResult,
    WorkEndParams,
    WorkEndResult,
)
from notch_app.ipc.methods.sessions import SessionEndParams, SessionEndResult
from notch_app.ipc.methods.wire import Wire

# --- the method table ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Method:
    """One socket method: its params model, its possible results, and its errors."""

    name: str
    summary: str
    params: type[Wire]
    results: tuple[type[Wire], ...]
    errors: tuple[int, ...] = ()


_CONFIRM_ERRORS: Final = (rpc.INVALID_PARAMS, rpc.TOO_MANY_IN_FLIGHT, rpc.STORAGE_ERROR)

METHODS: Final = (
    Method(
        "confirm.request",
        "Check and queue one tool call; answer its decision (or pending, with wait: false).",
        ConfirmRequestParams,
        (DecisionResult, PendingResult),
        (*_CONFIRM_ERRORS, rpc.CALL_ID_IN_USE, rpc.NOT_OPEN, rpc.OVERLOADED, rpc.NOT_YOURS),
    ),
    Method(
        "confirm.batch",
        'Check and queue the tool calls of one model turn at once (shown as "1 of N" with '
        "Approve all / Decline all); answer every call's decision or error, in order.",
        ConfirmBatchParams,
        (BatchResult,),
        (rpc.INVALID_PARAMS, rpc.TOO_MANY_IN_FLIGHT, rpc.STORAGE_ERROR),
    ),
    Method(
        "confirm.await",
        "The decision on a request, or pending once timeoutMs has passed.",
        ConfirmAwaitParams,
        (DecisionResult, PendingResult),
        (*_CONFIRM_ERRORS, rpc.UNKNOWN_CALL, rpc.NOT_YOURS),
    ),
    Method(
        "confirm.get",
        "The decision on a request, or pending (with parked) at once; without its token, "
        "only the bare status (pending or decided).",
        CallIdParams,
        (DecisionResult, PendingResult, DecidedStatus),
        (rpc.INVALID_PARAMS, rpc.UNKNOWN_CALL, rpc.NOT_YOURS),
    ),
    Method(
        "confirm.withdraw",
        "End an open request withdrawn; a decided one answers its decision (alreadyDecided: true).",
        WithdrawParams,
        (DecisionResult,),
        (*_CONFIRM_ERRORS, rpc.UNKNOWN_CALL, rpc.NOT_YOURS),
    ),
    Method(
        "integrations.list",
        "The integrations Notch has loaded, each with its tools.",
        NoParams,
        (IntegrationsResult,),
        (rpc.INVALID_PARAMS,),
    ),
    Method(
        "gateway.attach",
        "A `notch mcp` gateway says where its cards come from (a folder Notch loads "
        "itself, or a bare server's tools); never replaces an installed integration.",
        AttachParams,
        (AttachResult,),
        (rpc.INVALID_PARAMS,),
    ),
    Method(
        "glance.show",
        "Show a tool result's glance in the notch for a moment (display only: no input, "
        "no button but dismiss); answers what shows and what was dropped, and why.",
        GlanceShowParams,
        (GlanceShowResult,),
        (rpc.INVALID_PARAMS, rpc.UNKNOWN_CALL, rpc.NOT_YOURS),
    ),
    Method(
        "work.begin",
        "List a tool running in the background in the side notch (elapsed against its "
        "estimate) until work.end, or until this connection closes.",
        WorkBeginParams,
        (WorkBeginResult,),
        (rpc.INVALID_PARAMS, rpc.UNKNOWN_CALL, rpc.NOT_YOURS, rpc.OVERLOADED),
    ),
    Method(
        "work.end",
        "Background work begun on this connection ended: show its glance, or a short failure line.",
        WorkEndParams,
        (WorkEndResult,),
        (rpc.INVALID_PARAMS, rpc.UNKNOWN_CALL),
    ),
    Method(
        "session.end",
        "An agent's session ended (Claude Code's SessionEnd hook): every \"Allow for this "
        'session" made in it ends now, so nothing it allowed carries to a later session.',
        SessionEndParams,
        (SessionEndResult,),
        (rpc.INVALID_PARAMS,),
    ),
    Method(
        "server.info",
        "Notch's name and version, its methods and the largest message it accepts.",
        NoParams,
        (ServerInfoResult,),
        (rpc.INVALID_PARAMS,),
    ),
)
BY_NAME: Final = {method.name: method for method in METHODS}
NAMES: Final = tuple(BY_NAME)
"""Every socket method, in the table's order: the one list (the server maps each to its
handler and refuses to start without one; the OpenRPC document follows the table)."""

ERROR_MEANINGS: Final = {
    rpc.PARSE_ERROR: "The line is not JSON (or not UTF-8, or nested too deep).",
    rpc.INVALID_REQUEST: "Not a JSON-RPC 2.0 request object, a line over 1 MiB, or an id "
    "that is not a string, whole number or null (answered with id null; nothing runs).",
    rpc.METHOD_NOT_FOUND: "No such method; data.methods lists them.",
    rpc.INVALID_PARAMS: "A param is missing or wrong, or holds a lone surrogate or "
    "NaN/Infinity anywhere; data.field names it.",
    rpc.INTERNAL_ERROR: "Notch failed; its log says why.",
    rpc.UNKNOWN_CALL: "No request has this callId.",
    rpc.CALL_ID_IN_USE: "The callId was already used for a different call.",
    rpc.NOT_OPEN: "`supersedes` names a request that is not open.",
    rpc.OVERLOADED: "Too many requests are waiting for the person.",
    rpc.TOO_MANY_IN_FLIGHT: "Too many requests are waiting on this connection.",
    rpc.STORAGE_ERROR: "Notch could not store the request or decision.",
    rpc.TOO_MANY_CONNECTIONS: "Too many clients are connected (sent before closing).",
    rpc.NOT_YOURS: "The request belongs to another asker: send the `token` it was requested "
    "with (`supersedes`: the superseded request's). Nothing was changed.",
}

"""The socket's methods as models: what each takes, what it answers, how it fails.

Params are frozen pydantic models with `extra="forbid"` and strict types (no coercion:
`"5"` is not a number, `1` is not `true`), checked once at the boundary by
`parse_params`, which answers -32602 naming the first bad field. The same models
generate the OpenRPC document (`notch_app/ipc/openrpc.py`, `schemas/notch-socket.openrpc.json`),
so the document and the server cannot disagree. Results are described by models too,
for the document only (the server builds results as plain dicts; a test holds the two
equal).

Requests belong to their asker: `token` (ownership.py) is what proves it, on every method
that acts on a request or reads more than its bare status.

One module a concern: `wire` (the base model, ids, `parse_params`), `confirm`,
`catalog` (integrations.list, gateway.attach, server.info), `glances` (glance.show,
work.*) and `table` (the one list of methods and error meanings).
"""

from __future__ import annotations

from notch_app.ipc.methods.catalog import (
    AttachedTool,
    AttachParams,
    AttachResult,
    IntegrationsResult,
    IntegrationSummary,
    ServerInfoResult,
    ToolSummary,
)
from notch_app.ipc.methods.confirm import (
    BatchCall,
    BatchCallError,
    BatchCallErrorDetail,
    BatchResult,
    CallIdParams,
    ConfirmAwaitParams,
    ConfirmBatchParams,
    ConfirmEvent,
    ConfirmRequestParams,
    DecidedStatus,
    DecisionResult,
    NoParams,
    PendingResult,
    WithdrawParams,
)
from notch_app.ipc.methods.glances import (
    MAX_GLANCE_ITEMS,
    DroppedGlanceBlock,
    GlanceShowParams,
    GlanceShowResult,
    WorkBeginParams,
    WorkBeginResult,
    WorkEndParams,
    WorkEndResult,
)
from notch_app.ipc.methods.sessions import SessionEndParams, SessionEndResult
from notch_app.ipc.methods.table import (
    BY_NAME,
    ERROR_MEANINGS,
    METHODS,
    NAMES,
    Method,
)
from notch_app.ipc.methods.wire import (
    MAX_AWAIT_MS,
    CallId,
    Token,
    Wire,
    parse_params,
)

__all__ = [
    "BY_NAME",
    "ERROR_MEANINGS",
    "MAX_AWAIT_MS",
    "MAX_GLANCE_ITEMS",
    "METHODS",
    "NAMES",
    "AttachParams",
    "AttachResult",
    "AttachedTool",
    "BatchCall",
    "BatchCallError",
    "BatchCallErrorDetail",
    "BatchResult",
    "CallId",
    "CallIdParams",
    "ConfirmAwaitParams",
    "ConfirmBatchParams",
    "ConfirmEvent",
    "ConfirmRequestParams",
    "DecidedStatus",
    "DecisionResult",
    "DroppedGlanceBlock",
    "GlanceShowParams",
    "GlanceShowResult",
    "IntegrationSummary",
    "IntegrationsResult",
    "Method",
    "NoParams",
    "PendingResult",
    "ServerInfoResult",
    "SessionEndParams",
    "SessionEndResult",
    "Token",
    "ToolSummary",
    "Wire",
    "WithdrawParams",
    "WorkBeginParams",
    "WorkBeginResult",
    "WorkEndParams",
    "WorkEndResult",
    "parse_params",
]

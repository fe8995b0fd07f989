"""The confirmation service: requests in, decisions out, exactly once.

Qt-free and single-threaded: everything runs on one asyncio loop (qasync in the app), so
the presenter calls `decide()` and friends as plain methods. The order of work for a
request is: check it (unknown integration/tool, arguments vs inputSchema, callId reuse)
before any card; read-only tools answer `notRequired` at once; ask the person's policy;
queue the request's write and show its card at once, while the row is being committed. A
decision is committed to the store before any waiter hears it, and only after (or with)
its request's row: if that row cannot be written, the card is taken away and nothing is
ever approved for it.

A request belongs to its asker (see ownership.py): a repeated request, `wait`, `get`,
`withdraw` and a `supersedes` naming it are refused (ServiceError `notYours`) unless they
come with its token, checked before anything else about the request is compared or
changed. `status` is the bare state anyone may read: pending (parked or not) or decided.
An asker whose connections all closed and did not come back within the grace period
(askers.py) has its open requests withdrawn and its session's allowances forgotten.

Every decision carries its sentence for the model (model_sentence.py) and, when it runs,
its scope: "once", "session" (the person's "Allow for this session": later calls to the
same action from the same asker run without a card, unless a Block or a guard says
otherwise) or "always" (Asks first off). Only `decide()` (the person) sets a scope.

One module a concern, combined in `ConfirmationService` (confirmation.py): `planning`
(a call checked, answered at once or ruled on by policy), `supersede` (which open card a
call replaces; each process's share), `asking` (decided by policy, or shown as a card),
`deciding` (the person's decision and its scope), `ending` (the service's state; how a
request ends: stored, told, expired; a damaged store), with `calls` (ToolCall,
ServiceError), `open_request`, `notes` and `limits` below them.
"""

from __future__ import annotations

from notch_app.runtime.call_ids import MAX_CALL_ID_CHARS
from notch_app.runtime.service.calls import (
    ErrorKind,
    Event,
    EventListener,
    ServiceError,
    Status,
    ToolCall,
)
from notch_app.runtime.service.confirmation import ConfirmationService
from notch_app.runtime.service.limits import (
    ASKER_GONE,
    MAX_BATCH,
    MAX_CONTEXT_CHARS,
    MAX_EXPIRES_IN_MS,
    MAX_PENDING,
    MAX_READS_KEPT,
    RETRY_EXPIRY_AFTER_S,
    SAME_TURN_S,
    SHOWN_REASON_CHARS,
    STORE_STOPPED,
)

__all__ = [
    "ASKER_GONE",
    "MAX_BATCH",
    "MAX_CALL_ID_CHARS",
    "MAX_CONTEXT_CHARS",
    "MAX_EXPIRES_IN_MS",
    "MAX_PENDING",
    "MAX_READS_KEPT",
    "RETRY_EXPIRY_AFTER_S",
    "SAME_TURN_S",
    "SHOWN_REASON_CHARS",
    "STORE_STOPPED",
    "ConfirmationService",
    "ErrorKind",
    "Event",
    "EventListener",
    "ServiceError",
    "Status",
    "ToolCall",
]

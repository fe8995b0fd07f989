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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from pydantic.alias_generators import to_camel

from notch_app.ipc import protocol as rpc
from notch_app.runtime.ownership import MAX_TOKEN_CHARS, MIN_TOKEN_CHARS, TOKEN_PATTERN, TOKEN_RULE
from notch_app.runtime.presenter import DecidedBy, Outcome, Scope
from notch_app.runtime.service import MAX_BATCH, MAX_CALL_ID_CHARS, MAX_EXPIRES_IN_MS, ToolCall

MAX_AWAIT_MS: Final = 24 * 3600 * 1000


class _Wire(BaseModel):
    """Fields are snake_case in Python and camelCase on the wire."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", strict=True, alias_generator=to_camel, populate_by_name=True
    )


CallId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_CALL_ID_CHARS,
        description="The executor's id for one tool call (e.g. its tool-call id). Sending "
        "the same callId again never makes a second card: it returns the same request.",
    ),
]


Token = Annotated[
    str,
    Field(
        min_length=MIN_TOKEN_CHARS,
        max_length=MAX_TOKEN_CHARS,
        pattern=TOKEN_PATTERN,
        description="The request's secret, sent with `confirm.request`: only a client "
        "sending it can await, withdraw, supersede, repeat or read more than the bare "
        f"status of the request. {TOKEN_RULE[0].upper()}{TOKEN_RULE[1:]}. Notch keeps only "
        "its SHA-256.",
    ),
]


# --- params ----------------------------------------------------------------------------


class ConfirmRequestParams(_Wire):
    """Check and queue one tool call."""

    call_id: CallId
    token: Token | None = Field(
        default=None,
        description="Your secret for this request, of your own making (keep it: sent again "
        "with the same callId after a lost reply, a reconnect or a restart of yours, it "
        "picks up the same request). Omitted: Notch makes one. Either way the reply "
        "carries it as `token`. A request that `supersedes` another must send that "
        "request's token.",
    )
    integration: str = Field(description="The integration's id, e.g. `com.example.mail`.")
    tool: str = Field(description="The tool's name within the integration.")
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="The call's arguments, checked against its inputSchema."
    )
    supersedes: CallId | None = Field(
        default=None,
        description="An open request's callId whose card this one replaces (it must have "
        "been requested with this request's `token`).",
    )
    expires_in_ms: int | None = Field(
        default=None,
        ge=1,
        le=MAX_EXPIRES_IN_MS,
        description="End the request `expired` if undecided this long after it arrives.",
    )
    context: dict[str, Any] | None = Field(
        default=None,
        description='Shown on the card, never trusted (e.g. {"agent": "Mail assistant"}); '
        "at most 4096 characters as JSON.",
    )
    wait: bool = Field(
        default=True,
        description='Answer with the decision (true) or at once with {status: "pending"} '
        "(false; then `confirm.await`).",
    )

    def tool_call(self, token: str | None = None) -> ToolCall:
        """These params as the service's `ToolCall`, asked with `token` (else the one sent;
        with neither, a request nothing on the socket can act on)."""
        return ToolCall(
            self.call_id,
            self.integration,
            self.tool,
            self.arguments,
            self.supersedes,
            self.expires_in_ms,
            self.context,
            token or self.token,
        )


class BatchCall(_Wire):
    """One tool call of a `confirm.batch` (checked on its own: a bad one gets its own
    error in the results, the others are asked)."""

    call_id: CallId
    integration: str = Field(max_length=200, description="The integration's id.")
    tool: str = Field(max_length=200, description="The tool's name within the integration.")
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="The call's arguments, checked against its inputSchema."
    )


class ConfirmBatchParams(_Wire):
    """Check and queue the tool calls of one model turn at once."""

    calls: list[Any] = Field(
        min_length=1,
        description=f"The calls, each a BatchCall {{callId, integration, tool, arguments}}. "
        f"At most {MAX_BATCH} are asked; each one past that, each call that is not a "
        "BatchCall, and each callId repeated in the batch gets its own error in the results.",
    )
    token: Token | None = Field(
        default=None, description="Your secret for these requests (as for confirm.request)."
    )
    context: dict[str, Any] | None = Field(
        default=None, description="Shown on each card, never trusted (as for confirm.request)."
    )
    expires_in_ms: int | None = Field(
        default=None,
        ge=1,
        le=MAX_EXPIRES_IN_MS,
        description="End each request `expired` if undecided this long after it arrives.",
    )

    def tool_call(self, call: BatchCall, token: str) -> ToolCall:
        """One of the batch's calls as the service's `ToolCall`, asked with `token`."""
        return ToolCall(
            call.call_id,
            call.integration,
            call.tool,
            call.arguments,
            None,
            self.expires_in_ms,
            self.context,
            token,
        )


class ConfirmAwaitParams(_Wire):
    """Wait for the decision on a request made earlier (on any connection, by the client
    holding its token)."""

    call_id: CallId
    timeout_ms: int | None = Field(
        default=None,
        ge=0,
        le=MAX_AWAIT_MS,
        description='Answer {status: "pending"} if no decision came within this many ms.',
    )
    token: Token


class CallIdParams(_Wire):
    """Names one request by its callId; with its token, for more than the bare status."""

    call_id: CallId
    token: Token | None = Field(
        default=None,
        description="The request's token. Without it the answer is only the bare status: "
        '{callId, status: "pending", parked} or {callId, status: "decided"}.',
    )


class WithdrawParams(_Wire):
    """Names one request by its callId and token, and says why it is withdrawn."""

    call_id: CallId
    token: Token
    reason: str | None = Field(
        default=None,
        max_length=rpc.MAX_WITHDRAW_REASON_CHARS,
        description='Why, in a few words the person can read (e.g. "the client stopped '
        "waiting after 60 s\"): shown with the card's going as the agent's own words, in "
        "quotes, on one line (line breaks, invisible characters and quotation marks are "
        "made plain), and kept in the decision's message.",
    )


class NoParams(_Wire):
    """Takes no params (an empty object, or none)."""


# --- results (for the document) --------------------------------------------------------


class DecisionResult(_Wire):
    """How a request ended (`Decision.to_wire()`)."""

    call_id: str
    outcome: Outcome
    arguments: dict[str, Any] | None = Field(
        description="What to run with (the final, possibly edited arguments) when the "
        "outcome is approved, autoApproved or notRequired; null otherwise: nothing runs."
    )
    integration: str
    tool: str
    edited_paths: list[str] = Field(description="Dotted paths the person changed.")
    digest: str | None = Field(
        description="`sha256:<hex>` of the canonical JSON (RFC 8785) of `arguments`, when it "
        "runs; with `digestKeyedPaths`, of `arguments` with the value at each of those paths "
        "replaced by `hmac-sha256:` + hex HMAC-SHA256(key: digestSalt's bytes, message: the "
        "value's canonical JSON)."
    )
    digest_keyed_paths: list[str] | None = Field(
        default=None,
        description="Dotted paths of secret values (a PIN, a password) that `digest` covers "
        "keyed with `digestSalt`, so a stored copy of the digest cannot be brute-forced back "
        "into the secret. Only in the live decision.",
    )
    digest_salt: str | None = Field(
        default=None,
        description="Hex key for `digestKeyedPaths` (256 bits, one per request); never "
        "stored, so a decision read back later carries none.",
    )
    decided_by: DecidedBy
    decided_at: float = Field(description="Unix time of the decision.")
    message: str | None = Field(default=None, description="Why, in words.")
    already_decided: bool | None = Field(
        default=None,
        description="true when this decision was made before the message that returned it "
        "(a repeated callId): the same single decision, never a second approval.",
    )
    token: str | None = Field(
        default=None,
        description="In replies to `confirm.request` only: the request's token (the one "
        "sent, or the one Notch made).",
    )
    secrets_withheld: list[str] | None = Field(
        default=None,
        description="Argument paths whose secret values were never stored, so this replayed "
        "decision carries a mask there: the approval stands, but ask the person for those "
        "values again (its digest is the live decision's, secrets keyed with a salt that "
        "was never stored).",
    )
    scope: Scope | None = Field(
        default=None,
        description="For a decision that runs, how far the person's yes reaches: once (this "
        "call), session (every call to this action from this asker until it goes away), "
        "always (the person turned Asks first off). Set by the person only; null otherwise.",
    )
    for_model: str = Field(
        description="One sentence to hand the model: what ran and with which of the "
        "person's changes, or why nothing ran. Made by Notch from the decision only, never "
        "from the model's words; secret values are never quoted."
    )
    feedback: str | None = Field(
        default=None, description="The person's own words with a decline, when they said some."
    )
    reason: Literal["revise"] | None = Field(
        default=None,
        description='"revise": the person declined in words, asking for a change '
        "(`feedback` holds them); send a new request with `supersedes`.",
    )
    words: str | None = Field(
        default=None,
        description='The words the person typed or said to decide ("yes, send it"), as '
        "heard; decidedBy says how.",
    )


class PendingResult(_Wire):
    """The request is open: no decision yet."""

    call_id: str
    status: Literal["pending"]
    parked: bool | None = Field(default=None, description="Its card is in the side notch.")
    token: str | None = Field(
        default=None, description="In replies to `confirm.request` only: the request's token."
    )


class DecidedStatus(_Wire):
    """The bare status of a decided request (`confirm.get` without its token): nothing of
    what was asked or decided."""

    call_id: str
    status: Literal["decided"]


class ToolSummary(_Wire):
    name: str
    title: str
    description: str | None
    confirms: bool = Field(description="true when the tool shows a card before it runs.")
    kind: str
    input_schema: dict[str, Any] = Field(
        description="The tool's inputSchema (JSON Schema), for the model's tool definitions."
    )
    annotations: dict[str, Any] | None = Field(
        description="The tool's MCP annotations (readOnlyHint, destructiveHint, …), if any."
    )
    schema_too_long: bool | None = Field(
        default=None,
        description="true when its inputSchema or annotations were over 64 KiB as JSON and "
        "are listed empty (calls are still checked against the real schema).",
    )


class IntegrationSummary(_Wire):
    id: str
    name: str
    version: str
    summary: str | None = None
    publisher: str | None = None
    tools: list[ToolSummary]


class IntegrationsResult(_Wire):
    integrations: list[IntegrationSummary]


class BatchCallErrorDetail(_Wire):
    code: int = Field(description="A JSON-RPC error code, as for confirm.request.")
    message: str = Field(description="What is wrong and the fix.")
    field: str | None = Field(
        description="The parameter named as wrong, e.g. calls.3.arguments.to."
    )


class BatchCallError(_Wire):
    """A call of the batch that was not asked (nothing ran)."""

    call_id: str | None = Field(description="Its callId, when it had a readable one.")
    error: BatchCallErrorDetail


class BatchResult(_Wire):
    """Every call's result, in the order sent: its decision, or why it was not asked."""

    results: list[DecisionResult | BatchCallError]
    token: str = Field(description="The requests' token (the one sent, or the one Notch made).")


class ServerInfoResult(_Wire):
    name: Literal["notch"]
    version: str
    methods: list[str]
    max_message_bytes: int


class AttachParams(_Wire):
    """Where a `notch mcp` gateway's cards come from: its integration folder, or a bare
    server's tools (one of the two)."""

    folder: str | None = Field(
        default=None,
        max_length=4096,
        description="The integration folder `notch mcp FOLDER` fronts (absolute path); "
        "Notch loads and checks its manifest itself.",
    )
    name: str | None = Field(
        default=None, max_length=200, description="A bare server's --name (with `tools`)."
    )
    tools: list[dict[str, Any]] | None = Field(
        default=None,
        max_length=256,
        description="A bare server's tools as its `tools/list` gave them; Notch generates "
        "every card from their inputSchemas.",
    )
    command: list[Annotated[str, StringConstraints(max_length=4096)]] | None = Field(
        default=None,
        max_length=256,
        description="A bare server's command line as the gateway starts it (with `name`): "
        'what an "Always allow" is bound to, so another server under the same name asks.',
    )
    cwd: str | None = Field(
        default=None, max_length=4096, description="The folder the bare server runs in."
    )


class AttachedTool(_Wire):
    name: str
    confirms: bool = Field(description="Whether calls to it ask the person.")


class AttachResult(_Wire):
    integration: str = Field(description="The integration id calls are asked under.")
    attached: Literal["added", "replaced", "same"]
    tools: list[AttachedTool]
    left_out: list[str] = Field(description="Bare-server tools left out, each with why.")
    warnings: list[str] = Field(
        default_factory=list,
        description="What the person is warned about on its cards: a name that claims to be "
        "the system or a vendor, a read-only hint Notch does not believe.",
    )


MAX_GLANCE_ITEMS: Final = 64
"""Blocks one message may carry (at most 3 show; the rest are reported as dropped)."""


class GlanceShowParams(_Wire):
    """A tool result's glance to show the person for a moment (display only)."""

    integration: str = Field(max_length=200, description="The integration's id.")
    tool: str = Field(max_length=200, description="The tool whose result this is.")
    blocks: list[Any] = Field(
        max_length=MAX_GLANCE_ITEMS,
        description="The result's `_voiceos_glance.blocks` as the tool returned them. "
        "Blocks off the glance schema are dropped (and listed in the reply); at most 3 show.",
    )
    call_id: CallId | None = Field(
        default=None,
        description="The approved request this is the result of (it must have run, for "
        "this integration and tool); send its `token` too.",
    )
    token: Token | None = Field(default=None, description="The `callId`'s token.")


class DroppedGlanceBlock(_Wire):
    index: int = Field(description="The block's position in `blocks`.")
    kind: str = Field(description="Its `type`, or ? when it has none.")
    reason: str = Field(description="Why it does not show, and the fix.")


class GlanceShowResult(_Wire):
    shown: int = Field(description="How many blocks show (0: nothing is shown).")
    dropped: list[DroppedGlanceBlock]


class WorkBeginParams(_Wire):
    """A tool started running in the background: list it in the side notch."""

    integration: str = Field(max_length=200)
    tool: str = Field(max_length=200)
    call_id: CallId | None = Field(
        default=None, description="The approved request that started it (with its `token`)."
    )
    token: Token | None = None
    estimated_duration_ms: int | None = Field(
        default=None,
        ge=0,
        le=86_400_000,
        description="How long it should take; default: the manifest's "
        "`execution.estimatedDurationMs`.",
    )


class WorkBeginResult(_Wire):
    work_id: str = Field(description="Send it with `work.end` on this connection.")


class WorkEndParams(_Wire):
    """Background work ended: its glance shows, or a short failure line."""

    work_id: str = Field(min_length=1, max_length=64)
    ok: bool = Field(description="true: it finished; false: it failed.")
    message: str | None = Field(
        default=None, max_length=2000, description="Why it failed, in one sentence."
    )
    blocks: list[Any] | None = Field(
        default=None,
        max_length=MAX_GLANCE_ITEMS,
        description="The result's `_voiceos_glance.blocks`, shown when it finished.",
    )


class WorkEndResult(_Wire):
    shown: int
    dropped: list[DroppedGlanceBlock]


class ConfirmEvent(_Wire):
    """Params of the `confirm.event` notification the server sends while a client waits."""

    call_id: str
    event: Literal["confirmationRequired", "shown", "parked", "restored", "decided"]
    read_back: str | None = Field(
        default=None,
        description="With confirmationRequired: one sentence saying what will run, built "
        "only from the validated arguments (phone numbers, IBANs, amounts and recipients "
        "always in it), for a voice agent to say aloud.",
    )


# --- the method table ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Method:
    """One socket method: its params model, its possible results, and its errors."""

    name: str
    summary: str
    params: type[_Wire]
    results: tuple[type[_Wire], ...]
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


P = TypeVar("P", bound=_Wire)


def parse_params(model: type[P], params: dict[str, Any]) -> P:
    """`params` checked against `model`. Raises RpcError(INVALID_PARAMS) naming the first
    bad field in the message and in `data.field`."""
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise _invalid(model, exc.errors(include_url=False, include_context=True)) from None


def _invalid(model: type[_Wire], errors: list[Any]) -> rpc.RpcError:
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "params"
    kind: str = first["type"]
    if kind == "extra_forbidden":
        takes = sorted(field.alias or name for name, field in model.model_fields.items())
        what = f"is not a parameter of this method (it takes {', '.join(takes) or 'none'})"
    elif kind == "missing" and where == "token":
        what = (
            "is required: send the token the request was made with (the reply to its "
            "confirm.request carries it); only its asker can do this"
        )
    elif kind == "missing":
        what = "is required"
    elif kind == "string_type":
        what = "must be a string"
    elif kind in ("dict_type", "model_type"):
        what = "must be an object"
    elif kind == "bool_type":
        what = "must be true or false"
    elif kind.startswith(("int_", "greater_", "less_")):
        low, high = _range(model, first["loc"][0])
        what = f"must be a whole number from {low} to {high}"
    elif where == "token" and kind.startswith("string_"):
        what = f"must be {TOKEN_RULE}"
    elif kind in ("string_too_short", "string_too_long"):
        what = f"must be 1 to {MAX_CALL_ID_CHARS} characters"
    else:
        what = str(first["msg"]).lower()
    return rpc.RpcError(rpc.INVALID_PARAMS, f"invalid params: {where} {what}", {"field": where})


def _range(model: type[_Wire], alias: object) -> tuple[int, int]:
    for name, field in model.model_fields.items():
        if (field.alias or name) == alias:
            low = high = None
            for rule in field.metadata:
                low = getattr(rule, "ge", low)
                high = getattr(rule, "le", high)
            return int(low or 0), int(high or 0)
    return 0, 0

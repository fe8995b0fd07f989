"""The confirm.* methods' params and results: asking, awaiting, reading and withdrawing."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from notch_app.ipc import protocol as rpc
from notch_app.ipc.methods.wire import MAX_AWAIT_MS, CallId, Token, Wire
from notch_app.runtime.outcomes import DecidedBy, Outcome, Scope
from notch_app.runtime.service import MAX_BATCH, MAX_EXPIRES_IN_MS, ToolCall

# --- params ----------------------------------------------------------------------------


class ConfirmRequestParams(Wire):
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


class BatchCall(Wire):
    """One tool call of a `confirm.batch` (checked on its own: a bad one gets its own
    error in the results, the others are asked)."""

    call_id: CallId
    integration: str = Field(max_length=200, description="The integration's id.")
    tool: str = Field(max_length=200, description="The tool's name within the integration.")
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="The call's arguments, checked against its inputSchema."
    )


class ConfirmBatchParams(Wire):
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


class ConfirmAwaitParams(Wire):
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


class CallIdParams(Wire):
    """Names one request by its callId; with its token, for more than the bare status."""

    call_id: CallId
    token: Token | None = Field(
        default=None,
        description="The request's token. Without it the answer is only the bare status: "
        '{callId, status: "pending", parked} or {callId, status: "decided"}.',
    )


class WithdrawParams(Wire):
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


class NoParams(Wire):
    """Takes no params (an empty object, or none)."""


# --- results (for the document) --------------------------------------------------------


class DecisionResult(Wire):
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


class PendingResult(Wire):
    """The request is open: no decision yet."""

    call_id: str
    status: Literal["pending"]
    parked: bool | None = Field(default=None, description="Its card is in the side notch.")
    token: str | None = Field(
        default=None, description="In replies to `confirm.request` only: the request's token."
    )


class DecidedStatus(Wire):
    """The bare status of a decided request (`confirm.get` without its token): nothing of
    what was asked or decided."""

    call_id: str
    status: Literal["decided"]


class BatchCallErrorDetail(Wire):
    code: int = Field(description="A JSON-RPC error code, as for confirm.request.")
    message: str = Field(description="What is wrong and the fix.")
    field: str | None = Field(
        description="The parameter named as wrong, e.g. calls.3.arguments.to."
    )


class BatchCallError(Wire):
    """A call of the batch that was not asked (nothing ran)."""

    call_id: str | None = Field(description="Its callId, when it had a readable one.")
    error: BatchCallErrorDetail


class BatchResult(Wire):
    """Every call's result, in the order sent: its decision, or why it was not asked."""

    results: list[DecisionResult | BatchCallError]
    token: str = Field(description="The requests' token (the one sent, or the one Notch made).")


class ConfirmEvent(Wire):
    """Params of the `confirm.event` notification the server sends while a client waits."""

    call_id: str
    event: Literal["confirmationRequired", "shown", "parked", "restored", "decided"]
    read_back: str | None = Field(
        default=None,
        description="With confirmationRequired: one sentence saying what will run, built "
        "only from the validated arguments (phone numbers, IBANs, amounts and recipients "
        "always in it), for a voice agent to say aloud.",
    )

"""What each method sends and what its reply means: params built, decisions checked."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from notch_app.ipc import protocol as rpc
from notch_app.ipc.client.connecting import request_error
from notch_app.ipc.client.errors import (
    NotchDecisionRefused,
    NotchError,
    NotchRequestError,
    NotchTimeout,
    NotchUsageError,
)
from notch_app.runtime.decision import Decision, DecisionNotVerified


def decision_or_none(result: Any) -> Decision | None:
    """A decision reply as a checked Decision (`verified_decision`); None for
    `{status: "pending"}`."""
    if isinstance(result, dict) and result.get("status") == "pending":
        return None
    return verified_decision(result)


def bare_status(result: Any) -> str:
    """The `status` of a bare `confirm.get` reply. Raises NotchRequestError if it has none."""
    status = result.get("status") if isinstance(result, dict) else None
    if status not in ("pending", "decided"):
        raise NotchRequestError(rpc.INTERNAL_ERROR, "Notch sent a reply that is not a status")
    return str(status)


def verified_decision(result: Any) -> Decision:
    """A decision reply as a Decision that may be run as it says: one that runs carries
    the digest of its arguments (`Decision.verify`). Raises NotchDecisionRefused when it
    does not, NotchRequestError when the reply is not a decision at all."""
    if not isinstance(result, dict):
        raise NotchRequestError(rpc.INTERNAL_ERROR, "Notch sent a reply that is not a decision")
    try:
        decision = Decision.from_wire(result)
    except ValueError as exc:
        raise NotchDecisionRefused(
            f"the server sent a decision that is not well-formed ({exc}); do not run anything"
        ) from None
    try:
        decision.verify()
    except DecisionNotVerified as exc:
        raise NotchDecisionRefused(str(exc), decision) from exc
    return decision


def stopped_waiting(timeout: float | None) -> str:
    """Why a `confirm(timeout=…)` that ran out withdraws its request, in the person's words."""
    return f"stopped waiting after {timeout:g} s" if timeout is not None else "stopped waiting"


def withdraw_failed(call_id: str, timeout: float | None, exc: Exception) -> NotchTimeout:
    """What `confirm(timeout=…)` raises when its request could not be withdrawn."""
    return NotchTimeout(
        f"no decision within {timeout:g} s, and withdrawing {call_id!r} failed "
        f"({exc}); withdraw it yourself"
    )


def batch_timed_out(timeout: float | None, ended: Sequence[Decision | NotchError]) -> NotchTimeout:
    """What `confirm_many(timeout=…)` raises once its open calls were withdrawn."""
    return NotchTimeout(
        f"no decisions within {timeout:g} s; the open calls were withdrawn", ended=ended
    )


def decided_or_timed_out(call_id: str, timeout: float | None, ended: Decision) -> Decision:
    """After `confirm(timeout=…)` withdrew its request: the person's decision if it came
    first; else raises NotchTimeout carrying the withdrawn one."""
    if ended.outcome != "withdrawn":
        return ended
    raise NotchTimeout(
        f"no decision within {timeout:g} s; the request {call_id!r} was withdrawn", ended
    )


def glance_params(
    integration: str, tool: str, blocks: list[Any], call_id: str | None, token: str
) -> dict[str, Any]:
    """`glance.show` params: the call's token goes only with its callId."""
    params: dict[str, Any] = {"integration": integration, "tool": tool, "blocks": blocks}
    if call_id is not None:
        params["callId"] = call_id
        params["token"] = token
    return params


def withdraw_params(call_id: str, token: str, reason: str | None) -> dict[str, Any]:
    """`confirm.withdraw` params; `reason` cut to what Notch takes."""
    params: dict[str, Any] = {"callId": call_id, "token": token}
    if reason:
        limit = rpc.MAX_WITHDRAW_REASON_CHARS
        params["reason"] = reason if len(reason) <= limit else reason[: limit - 1] + "…"
    return params


def reason_refused(error: NotchRequestError) -> bool:
    """A Notch too old to know `confirm.withdraw`'s `reason` refused it."""
    return error.code == rpc.INVALID_PARAMS and error.field == "reason"


def request_params(
    integration: str,
    tool: str,
    arguments: Mapping[str, Any],
    call_id: str | None,
    supersedes: str | None,
    expires_in: float | None,
    context: Mapping[str, Any] | None,
    token: str,
) -> dict[str, Any]:
    """The params of `confirm.request`; `call_id` defaults to a fresh UUID."""
    params: dict[str, Any] = {
        "callId": call_id or uuid.uuid4().hex,
        "token": token,
        "integration": integration,
        "tool": tool,
        "arguments": dict(arguments),
    }
    if supersedes is not None:
        params["supersedes"] = supersedes
    if expires_in is not None:
        params["expiresInMs"] = max(1, round(expires_in * 1000))
    if context:
        params["context"] = dict(context)
    return params


@dataclass(frozen=True, slots=True)
class BatchCall:
    """One tool call of a `confirm_many` batch; `call_id` defaults to a fresh UUID (pass
    the model's tool-call id, so a retried turn never asks or runs twice)."""

    integration: str
    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    call_id: str | None = None


def batch_params(
    calls: Sequence[BatchCall | Mapping[str, Any]],
    token: str,
    context: Mapping[str, Any] | None,
    expires_in: float | None,
) -> dict[str, Any]:
    """The params of `confirm.batch`. Raises NotchUsageError for an empty batch or a call
    without integration or tool (nothing is sent)."""
    if not calls:
        raise NotchUsageError("confirm_many needs at least one call")
    wire: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        integration: Any
        tool: Any
        arguments: Any
        call_id: Any
        if isinstance(call, BatchCall):
            integration, tool, arguments, call_id = (
                call.integration, call.tool, call.arguments, call.call_id
            )  # fmt: skip
        else:
            integration, tool = call.get("integration"), call.get("tool")
            arguments = call.get("arguments", {})
            call_id = call.get("callId", call.get("call_id"))
        if not isinstance(integration, str) or not isinstance(tool, str):
            raise NotchUsageError(f"calls[{index}] needs an integration and a tool (text)")
        if not isinstance(arguments, Mapping):
            raise NotchUsageError(f"calls[{index}].arguments must be a mapping")
        wire.append({
            "callId": call_id if isinstance(call_id, str) and call_id else uuid.uuid4().hex,
            "integration": integration,
            "tool": tool,
            "arguments": dict(arguments),
        })  # fmt: skip
    params: dict[str, Any] = {"calls": wire, "token": token}
    if context:
        params["context"] = dict(context)
    if expires_in is not None:
        params["expiresInMs"] = max(1, round(expires_in * 1000))
    return params


def batch_results(result: Any, count: int) -> list[Decision | NotchError]:
    """The entries of a `confirm.batch` reply: a checked Decision, or the NotchError for
    that call. Raises NotchRequestError when the reply is not a batch result."""
    entries = result.get("results") if isinstance(result, dict) else None
    if not isinstance(entries, list) or len(entries) != count:
        raise NotchRequestError(rpc.INTERNAL_ERROR, "Notch sent a reply that is not a batch result")
    out: list[Decision | NotchError] = []
    for entry in entries:
        if isinstance(entry, dict) and "error" in entry:
            error = entry["error"]
            data = {"field": error.get("field")} if isinstance(error, dict) else None
            refused = request_error(error)
            out.append(NotchRequestError(refused.code, refused.message, data))
            continue
        try:
            out.append(verified_decision(entry))
        except NotchError as exc:
            out.append(exc)
    return out

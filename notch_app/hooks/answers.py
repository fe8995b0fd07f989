"""The answer a hook writes: one `Verdict`, in each agent's documented format.

Claude Code reads PreToolUse's decision on exit 0 from stdout
(https://code.claude.com/docs/en/hooks, "PreToolUse decision control"):
`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow" |
"deny" | "ask", "permissionDecisionReason": "...", "updatedInput": {...},
"additionalContext": "..."}}`. The reason of an allow or ask is shown to the person, a
deny's to Claude; `updatedInput` replaces the whole input; exit 0 with no output leaves
the call to Claude Code's own permission rules (how reads pass). Notch's allow always
carries `updatedInput`, holding exactly the input the card showed (see `hooks/calls.py`):
an allow without it would run the agent's original input, keys the card never showed
included, so `claude_code_reply` turns such an allow into "ask".

Codex reads PermissionRequest's decision on exit 0 (https://developers.openai.com/codex/hooks;
`permission-request.command.output.schema.json`): `{"hookSpecificOutput": {"hookEventName":
"PermissionRequest", "decision": {"behavior": "allow" | "deny", "message": "..."}}}`.
It has no "ask" and refuses `updatedInput`; a hook that prints nothing falls back to
Codex's own approval prompt, which is how "ask" and "no opinion" are said to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Literal

Kind = Literal["allow", "deny", "ask", "none"]

MAX_REASON_CHARS: Final = 2000


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the hook answers: allow (maybe with an edited input), deny, ask (the agent's
    own prompt decides), or none (no opinion: the agent's rules decide, as for reads)."""

    kind: Kind
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    for_model: str = ""
    """A sentence the model reads beside an allowed call (what the person changed)."""


@dataclass(frozen=True, slots=True)
class HookReply:
    """What the hook process writes and exits with."""

    stdout: str
    stderr: str = ""
    exit_code: int = 0


def _bounded(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"


def claude_code_reply(verdict: Verdict) -> HookReply:
    """`verdict` as Claude Code's PreToolUse answer (always exit 0: JSON is read only then)."""
    note = f"notch hook: {_bounded(verdict.reason)}\n" if verdict.reason else ""
    if verdict.kind == "none":
        return HookReply("")  # no opinion: quiet, as a read should be
    if verdict.kind == "allow" and verdict.updated_input is None:
        # Never an allow of the agent's own input: only of the input the card showed.
        return claude_code_reply(
            Verdict("ask", "Notch approved, but has no shown input to send back; asking you")
        )
    out: dict[str, Any] = {
        "hookEventName": "PreToolUse",
        "permissionDecision": verdict.kind,
        "permissionDecisionReason": _bounded(verdict.reason or "Decided in Notch"),
    }
    if verdict.kind == "allow":
        out["updatedInput"] = verdict.updated_input
    if verdict.kind == "allow" and verdict.for_model:
        out["additionalContext"] = _bounded(verdict.for_model)
    text = json.dumps({"hookSpecificOutput": out}, ensure_ascii=False) + "\n"
    return HookReply(text, note if verdict.kind == "ask" else "")


def codex_reply(verdict: Verdict) -> HookReply:
    """`verdict` as Codex's PermissionRequest answer: allow and deny as decisions; ask
    and none as no output, so Codex's own approval prompt takes over."""
    note = f"notch hook: {_bounded(verdict.reason)}\n" if verdict.reason else ""
    if verdict.kind in ("ask", "none"):
        return HookReply("", note if verdict.kind == "ask" else "")
    decision: dict[str, Any] = {"behavior": verdict.kind}
    if verdict.kind == "deny":
        decision["message"] = _bounded(verdict.reason or "Declined in Notch")
    out = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
    return HookReply(json.dumps(out, ensure_ascii=False) + "\n")

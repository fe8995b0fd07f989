"""What a card or a decision says beside the arguments: count warnings, rule and phone notes, the person's words."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from notch_app.card.count_claims import count_disagreements
from notch_app.card.read_back import read_back
from notch_app.manifest.model import Tool
from notch_app.runtime.allowances import Allowances
from notch_app.runtime.decision import (
    MAX_FEEDBACK_CHARS,
)
from notch_app.runtime.policy import PolicyVerdict
from notch_app.runtime.presenter import (
    Scope,
)

log = logging.getLogger("notch.service")


def with_count_check(
    verdict: PolicyVerdict, scope: Scope | None, tool: Tool, args: Mapping[str, Any]
) -> tuple[PolicyVerdict, Scope | None]:
    """A card whose words count something its list does not bear out ("Delete 1 file"
    over nine paths) shows, with the warning on it, even where the person's policy would
    let it run; a Block still blocks."""
    disagree = count_disagreements(tool, args)
    if not disagree or verdict.verdict == "block":
        return verdict, scope
    note = "Check the count: " + " ".join(disagree)
    if verdict.verdict == "ask" and verdict.reason:
        note = f"{verdict.reason} {note}"
    return PolicyVerdict("ask", note), None


def rule_words(scope: Scope | None, allowances: Allowances, behind: str | None) -> str | None:
    """ "your 'this session' rule" / "your 'Always allow' rule" for a call that ran under
    one (with what a narrower session rule covers), else None."""
    if scope == "always":
        return "your 'Always allow' rule"
    if scope != "session":
        return None
    allowance = next((a for a in allowances.listed() if a.id == behind), None)
    reach = allowance.reach if allowance is not None else None
    if reach is not None and reach.kind != "action":
        return f"your 'this session' rule ({reach.label})"
    return "your 'this session' rule"


def on_phone(message: str | None, device: str | None) -> str | None:
    """A decision's message with the phone it was answered on ("answered on Pixel 8")."""
    if device is None:
        return message
    where = f"answered on {' '.join(device.split())[:40]}"
    return f"{message} · {where}" if message else where


def with_update(reason: str | None, updated: str | None) -> str | None:
    """A replacing card's notice: the guard's reason (if one tripped), then what the agent
    updated."""
    if updated is None:
        return reason
    return f"{reason} {updated}" if reason else updated


def read_back_line(tool: Tool, arguments: Mapping[str, Any]) -> str:
    try:
        return read_back(tool, arguments)
    except Exception:  # a read-back must never stop a card: the card says it all
        log.exception("no read-back for %s", tool.name)
        return ""


def bounded_words(text: str | None) -> str | None:
    """The person's words on one line, bounded (None when there are none)."""
    if text is None:
        return None
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat[:MAX_FEEDBACK_CHARS] or None

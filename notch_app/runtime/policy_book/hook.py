"""`PersonPolicy`: the person's `PolicyBook` as the confirmation service's policy hook.

The service (`notch_app.runtime.service`) asks `policy.verdict(...)` for every acting
call; this adapter answers from the book and, for an action that runs without a card,
supplies the glance text ("Delete 42 files") shown briefly in the notch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from notch_app.card.interpolate import interpolate
from notch_app.card.paths import MISSING, get_path
from notch_app.manifest.facts import tool_facts
from notch_app.manifest.model import Manifest, Tool
from notch_app.runtime.policy import ASK, PolicyVerdict
from notch_app.runtime.policy_book.book import PolicyBook

MAX_GLANCE_CHARS = 120


class PersonPolicy:
    """Implements the service's `Policy` protocol from a `PolicyBook`. Never raises."""

    def __init__(self, book: PolicyBook) -> None:
        self.book = book

    @property
    def glance(self) -> bool:
        """Whether an action that runs without a card shows a brief glance (a setting)."""
        return self.book.overlay.glance

    @property
    def asker_grace_seconds(self) -> float:
        """How long an agent's open cards wait for it to reconnect (a setting)."""
        return float(self.book.agents.asker_grace_seconds)

    def allow_always(self, integration: Manifest, tool: Tool, source: str | None = None) -> None:
        """The person chose "Always allow" on a card: Asks first off, exactly as in
        Settings, for the integration from `source` (its folder, command line or manifest
        digest) only. Raises PolicyRefused / PolicyWriteError as `set_asks_first` does."""
        self.book.set_asks_first(integration, tool, False, source)

    def undo_always(self, integration: Manifest, tool: Tool) -> None:
        """The person undid an "Always allow" (from the pill): the action asks first
        again, for every source. Raises as `set_asks_first` does."""
        self.book.set_asks_first(integration, tool, True)

    def verdict(
        self, integration: Manifest, tool: Tool, arguments: Mapping[str, Any]
    ) -> PolicyVerdict:
        return self.verdict_from(None, integration, tool, arguments)

    def verdict_from(
        self, source: str | None, integration: Manifest, tool: Tool, arguments: Mapping[str, Any]
    ) -> PolicyVerdict:
        """The person's policy for a call to an integration from `source` (see
        `PolicyBook.verdict`)."""
        verdict = self.book.verdict(integration, tool, arguments, source)
        if verdict.action == "auto":
            return PolicyVerdict("autoApprove", glance_text(tool, arguments))
        if verdict.action == "block":
            return PolicyVerdict("block", verdict.reason, verdict.for_model)
        if verdict.reason is not None:
            return PolicyVerdict("ask", verdict.reason)
        return ASK


def glance_text(tool: Tool, arguments: Mapping[str, Any]) -> str:
    """What the passive glance says: the card's title with the arguments filled in.

    A title that reads a secret argument (`ToolFacts.is_secret`) is not filled in; the tool's
    plain title is used instead. Bounded to MAX_GLANCE_CHARS.
    """
    title = getattr(tool.confirmation.root, "title", None) if tool.confirmation else None
    text = tool.display_title
    if isinstance(title, str) and title.strip():
        facts = tool_facts(tool)

        def lookup(path: str) -> Any:
            if facts.is_secret(path):
                raise LookupError(path)
            try:
                return get_path(arguments, path)
            except Exception:
                return MISSING

        try:
            text = interpolate(title, lookup).strip() or text
        except LookupError:
            text = tool.display_title
    text = " ".join(text.split())
    if len(text) > MAX_GLANCE_CHARS:
        text = text[: MAX_GLANCE_CHARS - 1].rstrip() + "…"
    return text

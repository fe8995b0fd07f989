"""The per-action policy hook: ask (a card), run at once (autoApproved), or block.

The service asks `policy.verdict(...)` for every acting tool call that passed its checks.
Part 4 ("Asks first" per action, guards) supplies a real policy read from the person's
settings; until then `AlwaysAsk` is the only one. A policy is only ever changed by the
person on their own machine, never over the socket.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from notch_app.manifest.model import Manifest, Tool

Verdict = Literal["ask", "autoApprove", "block"]


@dataclass(frozen=True, slots=True)
class PolicyVerdict:
    """What the person's policy says about one call."""

    verdict: Verdict
    reason: str | None = None
    """For `ask` despite "Asks first" off: the guard that tripped (shown on the card).
    For `block`: what the agent is told. For `autoApprove`: the glance text, if any."""
    for_model: str | None = None
    """For a `block` by a "refuses when" rule: the sentence the agent is told instead of
    the stock "blocked" one (what the person does not allow and what it can do instead);
    the person sees `reason` as a one-line glance."""


ASK = PolicyVerdict("ask")


class Policy(Protocol):
    """Decides per (integration, tool, arguments) whether the person is asked."""

    def verdict(
        self, integration: Manifest, tool: Tool, arguments: Mapping[str, Any]
    ) -> PolicyVerdict:
        """Must be quick and must not raise; if it does, the service asks (the safe default)."""
        ...


class KnowsSources(Protocol):
    """A policy that binds what the person allowed to where the integration comes from
    (`PersonPolicy` does): the service then asks `verdict_from(source, ...)` instead of
    `verdict(...)`, with the integration's folder, command line or manifest digest
    (`policy_book.integration_source`)."""

    def verdict_from(
        self, source: str | None, integration: Manifest, tool: Tool, arguments: Mapping[str, Any]
    ) -> PolicyVerdict:
        """As `Policy.verdict`, for an integration from `source`."""
        ...


class RemembersAllowances(Protocol):
    """A policy that can keep the person's "Always allow" from a card (the service uses it
    when the policy has it; `PersonPolicy` does)."""

    def allow_always(self, integration: Manifest, tool: Tool, source: str | None = None) -> None:
        """Turn the action's Asks first off, as Settings does, for the integration from
        `source` only (when given). Raises when it cannot."""
        ...


class AlwaysAsk:
    """Every acting tool shows its card: the default before the person changes anything."""

    def verdict(
        self, integration: Manifest, tool: Tool, arguments: Mapping[str, Any]
    ) -> PolicyVerdict:
        return ASK

"""What the person's policy says about one call (`Verdict`), and about one action as the
person sees it (`ActionState`), with the reasons a card or a refusal gives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from notch_app.runtime.outcomes import Outcome
from notch_app.runtime.settings import Guard

VerdictAction = Literal["ask", "auto", "block", "notRequired"]

BLOCKED_REASON = "You blocked this action in Notch's settings."
CARD_CHANGED_REASON = "Asks again: this action's card changed since you turned Asks first off."
OTHER_SOURCE_REASON = (
    "Asks again: you turned Asks first off for {name} from another source; this one comes "
    "from {source}."
)
"""An integration with the same name and id as the one allowed, from elsewhere."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the person's policy says about one tool call.

    `ask`: show the card. `auto`: run at once (outcome `autoApproved`). `block`: never
    run (outcome `blocked`). `notRequired`: a read-only tool. `reason` says why a card
    shows although Asks first is off (a guard tripped, the card changed), or why a call
    is blocked; it goes on the card as `ConfirmationRequest.reason`.
    """

    action: VerdictAction
    reason: str | None = None
    for_model: str | None = None
    """For a refusal (a "refuses when" rule that tripped): the sentence the agent is
    told, one it can act on ("... ask them, or lower amount to 5,000 or less")."""

    @property
    def outcome(self) -> Outcome | None:
        """The outcome to record without a card, or None when the card must show."""
        return {"auto": "autoApproved", "block": "blocked", "notRequired": "notRequired"}.get(
            self.action  # type: ignore[return-value]
        )


@dataclass(frozen=True, slots=True)
class ActionState:
    """One action's setting as the person sees it (Settings, `notch policy list`)."""

    integration_id: str
    tool_name: str
    asks_first: bool
    """Effective: True when the stored "off" no longer applies because the card changed."""
    blocked: bool
    guards: tuple[Guard, ...]
    card_changed: bool
    """A stored "off" (or block) was made for a different card than the manifest's now."""
    refusals: tuple[Guard, ...] = ()
    """"Refuses when": calls past these never run and show no card."""

    @property
    def label(self) -> str:
        if self.blocked:
            return "blocked"
        if self.card_changed:
            return "asks first (reset: the card changed)"
        return "asks first" if self.asks_first else "off"

"""The settings file's shape: `{"version": 1, "policies": {...}, "overlay": {...},
"integrations": {...}}` (the last only once the person set a preference).

The file is plain JSON the person may read or edit, so every shape is closed
(`extra="forbid"`) and bounded: a typo is reported as a corrupt file, never guessed at.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator
from pydantic.alias_generators import to_camel

from notch_app.manifest import limits

SETTINGS_VERSION: Literal[1] = 1

MAX_GUARDS_PER_ACTION = 32
MAX_ALLOWED_VALUES = 500
MAX_INTEGRATIONS = 1000
MAX_TOOLS_PER_INTEGRATION = limits.MAX_TOOLS

IntegrationId = Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_NAME_CHARS)]
ToolName = Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_NAME_CHARS)]
ArgumentPath = Annotated[
    str,
    StringConstraints(
        min_length=1,
        max_length=limits.MAX_NAME_CHARS * 4,
        pattern=r"^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$",
    ),
]
AllowedValue = Annotated[str, StringConstraints(max_length=limits.MAX_LABEL_CHARS)]

IdleLook = Literal["pill", "hidden"]
"""What the notch shows while nothing is waiting: a small pill, or nothing at all."""
OverlayTheme = Literal["system", "light", "dark"]
"""The overlay's look: following the desktop's light or dark scheme, or always one."""
OVERLAY_THEMES: tuple[OverlayTheme, ...] = ("system", "light", "dark")

DEFAULT_PARK_AFTER_S = 60
PARK_AFTER_MIN_S = 5
GLANCE_SECONDS_CHOICES = (2, 4, 6, 10, 20)
"""How long a result glance may stay, in seconds (the Settings menu offers exactly these)."""
DEFAULT_GLANCE_SECONDS: Literal[2, 4, 6, 10, 20] = 4
"""Shorter than this, a card would park while the person is still reading it."""
PARK_AFTER_MAX_S = 3600
DEFAULT_ASKER_GRACE_S = 10
ASKER_GRACE_MIN_S = 1
ASKER_GRACE_MAX_S = 3600


class _Closed(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )


class OverGuard(_Closed):
    """Ask anyway when the number at `argument` is over `limit`."""

    kind: Literal["over"] = "over"
    argument: ArgumentPath
    limit: int | float

    @field_validator("limit")
    @classmethod
    def _finite(cls, value: int | float) -> int | float:
        if not math.isfinite(value):
            raise ValueError("the limit must be a finite number")
        return value

    def describe(self) -> str:
        return f"{self.argument} is over {format_number(self.limit)}"


class NotOneOfGuard(_Closed):
    """Ask anyway when the value at `argument` (every element, for a list) is not allowed."""

    kind: Literal["notOneOf"] = "notOneOf"
    argument: ArgumentPath
    allowed: list[AllowedValue] = Field(min_length=1, max_length=MAX_ALLOWED_VALUES)

    def describe(self) -> str:
        shown = ", ".join(self.allowed[:3])
        more = len(self.allowed) - 3
        if more > 0:
            shown += f" and {more} more"
        return f"{self.argument} is not one of {shown}"


Guard = Annotated[OverGuard | NotOneOfGuard, Field(discriminator="kind")]


class ActionPolicy(_Closed):
    """What the person chose for one action (integration id, tool name)."""

    asks_first: bool = True
    blocked: bool = False
    card: Annotated[str, StringConstraints(max_length=80)] | None = Field(
        default=None,
        description="Fingerprint of the tool's card and inputSchema when Asks first was "
        "turned off or the action blocked; a different card asks again.",
    )
    guards: list[Guard] = Field(default_factory=list, max_length=MAX_GUARDS_PER_ACTION)
    source: Annotated[str, StringConstraints(max_length=80)] | None = Field(
        default=None,
        description="Fingerprint of where the integration came from (its folder, a bare "
        "server's command line, or its manifest) when Asks first was turned off; another "
        "source under the same name asks again. Absent: made before sources were kept.",
    )
    refusals: list[Guard] = Field(
        default_factory=list,
        max_length=MAX_GUARDS_PER_ACTION,
        description="Refuses when: a call whose argument is over the limit (or not one of "
        'the allowed values) never runs and shows no card ("never pay over 5000"); the '
        "agent is told why at once. Applies to every source and every card, asking first "
        "or not. (The confirmation-tiers seed's threshold escalation to review/never.)",
    )

    @property
    def is_default(self) -> bool:
        return self.asks_first and not self.blocked and not self.guards and not self.refusals


class OverlayPreferences(_Closed):
    """Preferences of the notch overlay that live in the same file."""

    glance: bool = Field(
        default=True,
        description="Show a brief passive glance in the notch when an action runs without "
        "a card (Asks first off).",
    )
    glance_seconds: Literal[2, 4, 6, 10, 20] = Field(
        default=DEFAULT_GLANCE_SECONDS,
        description="How long a tool result's glance stays in the notch, in seconds "
        "(paused while the pointer is on it; a pinned glance stays until dismissed).",
    )
    answer_by_voice: bool = Field(
        default=False,
        description="Say each card's read-back aloud and listen for a spoken yes, no or "
        "revision (offline; the microphone is open only while a card is answered).",
    )
    theme: OverlayTheme = Field(
        default="system",
        description="The cards' look: \"system\" follows the desktop's light or dark scheme, "
        '"light" or "dark" always that one. Applies to the next card, without a restart.',
    )
    idle: IdleLook = Field(
        default="pill",
        description='While nothing is waiting: "pill" keeps a small pill at the top of the '
        'screen, "hidden" shows no window until a card arrives.',
    )
    park_after_seconds: int | float = Field(
        default=DEFAULT_PARK_AFTER_S,
        description="A card left untouched this many seconds parks in the side notch; "
        f"0 never parks, else {PARK_AFTER_MIN_S} to {PARK_AFTER_MAX_S}.",
    )

    @field_validator("park_after_seconds", mode="before")
    @classmethod
    def _park_after_is_a_number(cls, value: object) -> object:
        # "60" or true in the file is a typo to report, not a number to guess at.
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("must be a number of seconds (0 never parks)")
        return value

    @field_validator("park_after_seconds")
    @classmethod
    def _park_after_in_range(cls, value: int | float) -> int | float:
        if not math.isfinite(value) or not (
            value == 0 or PARK_AFTER_MIN_S <= value <= PARK_AFTER_MAX_S
        ):
            raise ValueError(
                f"must be 0 (never park) or {PARK_AFTER_MIN_S} to {PARK_AFTER_MAX_S} seconds"
            )
        return value


class AgentPreferences(_Closed):
    """How Notch treats the agents that ask (the person's choice, never the agent's)."""

    asker_grace_seconds: int | float = Field(
        default=DEFAULT_ASKER_GRACE_S,
        description="When an agent's last connection closes, its open cards wait this many "
        "seconds for it to come back (a reconnect, a restart) before they are withdrawn "
        f'("the asking agent went away"); {ASKER_GRACE_MIN_S} to {ASKER_GRACE_MAX_S}.',
    )

    @field_validator("asker_grace_seconds", mode="before")
    @classmethod
    def _grace_is_a_number(cls, value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("must be a number of seconds")
        return value

    @field_validator("asker_grace_seconds")
    @classmethod
    def _grace_in_range(cls, value: int | float) -> int | float:
        if not math.isfinite(value) or not ASKER_GRACE_MIN_S <= value <= ASKER_GRACE_MAX_S:
            raise ValueError(f"must be {ASKER_GRACE_MIN_S} to {ASKER_GRACE_MAX_S} seconds")
        return value


DEFAULT_PHONE_PORT = 47800


class PhonePreferences(_Closed):
    """Answer from your phone (opt-in): Notch serves a page on the local network, over
    TLS, to the phones paired with it (the devices themselves are kept beside the store,
    `notch_app.phone.devices`)."""

    enabled: bool = Field(
        default=False,
        description="Serve the phone page while Notch runs; off by default.",
    )
    port: int = Field(
        default=DEFAULT_PHONE_PORT,
        ge=1024,
        le=65535,
        description="The TCP port the phone page listens on.",
    )
    host: str | None = Field(
        default=None,
        max_length=45,
        description="The address the phone page listens on (`notch phone on --host`): one "
        "of this computer's local-network addresses, checked when it is set and when the "
        "page starts; unset, the computer's local-network address (the first of several).",
    )


FieldName = Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_NAME_CHARS)]
PreferenceValue = (
    Annotated[str, StringConstraints(max_length=limits.MAX_TEXT_CHARS)] | bool | int | float
)
"""A preference as stored; whether it fits the manifest's type is checked where it is used,
so a value that no longer fits is reported by name, never dropped with the whole file."""
MAX_FIELDS_PER_INTEGRATION = 64


class IntegrationValues(_Closed):
    """The person's values for one integration: its preferences and its auth fields that
    are not secret. Secret fields (API keys) are never here: they live in the OS keyring."""

    preferences: dict[FieldName, PreferenceValue] = Field(
        default_factory=dict, max_length=MAX_FIELDS_PER_INTEGRATION
    )
    auth: dict[FieldName, Annotated[str, StringConstraints(max_length=limits.MAX_TEXT_CHARS)]] = (
        Field(default_factory=dict, max_length=MAX_FIELDS_PER_INTEGRATION)
    )

    @field_validator("preferences")
    @classmethod
    def _finite(
        cls, value: dict[str, str | bool | int | float]
    ) -> dict[str, str | bool | int | float]:
        for name, item in value.items():
            if isinstance(item, float) and not math.isfinite(item):
                raise ValueError(f"{name}: a number must be finite")
        return value

    @property
    def is_empty(self) -> bool:
        return not self.preferences and not self.auth


class SettingsDocument(_Closed):
    """The whole settings file."""

    version: Literal[1] = SETTINGS_VERSION
    policies: dict[IntegrationId, dict[ToolName, ActionPolicy]] = Field(
        default_factory=dict, max_length=MAX_INTEGRATIONS
    )
    overlay: OverlayPreferences = Field(default_factory=OverlayPreferences)
    agents: AgentPreferences = Field(
        default_factory=AgentPreferences,
        description="How agents that ask are treated (absent from older files).",
    )
    phone: PhonePreferences = Field(
        default_factory=PhonePreferences,
        description="Answer from your phone (absent from older files: off).",
    )
    integrations: dict[IntegrationId, IntegrationValues] = Field(
        default_factory=dict,
        max_length=MAX_INTEGRATIONS,
        description="Preference values and non-secret auth fields per integration id "
        "(absent from files written before preferences existed).",
    )

    @field_validator("policies")
    @classmethod
    def _bounded(
        cls, value: dict[str, dict[str, ActionPolicy]]
    ) -> dict[str, dict[str, ActionPolicy]]:
        for integration_id, tools in value.items():
            if len(tools) > MAX_TOOLS_PER_INTEGRATION:
                raise ValueError(f"{integration_id}: more than {MAX_TOOLS_PER_INTEGRATION} tools")
        return value


def format_number(value: int | float) -> str:
    """500.0 → "500", 12.5 → "12.5": limits read as the person typed them."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)

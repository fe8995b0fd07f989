"""How the notch overlay behaves: idle look, walk-away parking, timings.

A plain dataclass with sensible defaults so the overlay works before any settings file
exists; the settings window (part 4) builds one of these from the person's choices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

IdleMode = Literal["pill", "hidden"]


@dataclass(frozen=True, slots=True)
class OverlaySettings:
    """The person's overlay preferences. All durations are in milliseconds unless `_s`."""

    idle_mode: IdleMode = "pill"
    """`pill`: a small pill stays at the top centre while nothing is pending; `hidden`: no
    window at all until a card arrives."""
    park_after_s: float = 60.0
    """A card left untouched this long parks in the side notch. 0 turns parking off."""
    expand_ms: int = 180
    """Length of the eased pill → card (and card → pill) animation. 0 snaps."""
    done_ms: int = 900
    """How long the passive "Approved ✓" note stays before the notch goes idle."""
    glance_ms: int = 4000
    """How long a tool result's glance stays (paused while the pointer is on it; a pinned
    glance stays until dismissed)."""
    answer_by_voice: bool = False
    """Say each card's read-back and listen for a spoken yes / no / revision (opt-in)."""
    theme: Literal["dark", "light", "system"] = "system"
    """The cards' theme; `system` follows the desktop's light or dark scheme, read as
    each card is drawn (`notch run --theme`)."""
    card_width: int = 440
    top_margin: int = 6
    """Gap between the top edge of the screen's available area and the notch."""

    def __post_init__(self) -> None:
        if self.idle_mode not in ("pill", "hidden"):
            raise ValueError(f"idle_mode must be 'pill' or 'hidden', not {self.idle_mode!r}")
        if self.park_after_s < 0:
            raise ValueError("park_after_s must be 0 (never park) or more seconds")
        if self.expand_ms < 0 or self.done_ms < 0:
            raise ValueError("expand_ms and done_ms must be 0 or more milliseconds")
        if self.glance_ms < 500:
            raise ValueError("glance_ms must be 500 or more milliseconds")
        if not 280 <= self.card_width <= 1000:
            raise ValueError("card_width must be between 280 and 1000 pixels")

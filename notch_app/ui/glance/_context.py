"""What every glance block builder shares while one glance is built: the theme, the width
a block has, the clock, the installed integration's icon, the HTML widget factory and
the parts that tick (clock, countdown).

A builder with children (`row`) builds them through `ctx.build`: the registry hands
itself to the context, so no block module imports the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from notch_app.manifest.glance import WidgetBlock
from notch_app.ui.theme import Look, ThemeName
from notch_app.ui.widgets.integration_icon import InstalledIcon

Clock = Callable[[], float]
"""The current unix time (time.time, or a fixed clock in tests and goldens)."""

WidgetFactory = Callable[[WidgetBlock, str], QWidget]
"""Builds a `widget` block's sandboxed page for a theme ("dark" or "light")."""

# A tone in words (neutral | good | bad) → the palette's token for it.
TONE_TEXT = {"good": "badge_success_text", "bad": "badge_danger_text", "neutral": "text_quiet"}
"""Text in a tone (a stat's change): the badge text colours, readable on both glasses."""
TONE_FILL = {"good": "success_fill", "bad": "danger_fill", "neutral": "progress_fill"}
"""Painted marks in a tone (a line, a bar, a share)."""
TONE_BADGE = {"good": "success", "bad": "danger", "neutral": "neutral"}
"""A badge's tone name in the card's Badge shape."""


class Ticker(Protocol):
    """A part that shows the time (clock, countdown): redrawn on each tick while shown."""

    def tick(self, now: float) -> bool:
        """Show the time at `now`; False once it will never change again (a countdown
        that reached zero), so the view can stop its timer."""
        ...


BuildGlanceBlock = Callable[[Any, "GlanceContext"], QWidget]


@dataclass(slots=True)
class GlanceContext:
    """Shared by the builders of one glance. Created by GlanceView."""

    look: Look
    theme: ThemeName
    width: int
    """The width the block being built gets (the glance's, or its share of a row)."""
    clock: Clock
    build_block: BuildGlanceBlock
    app_icon: InstalledIcon | None = None
    widget_factory: WidgetFactory | None = None
    tickers: list[Ticker] = field(default_factory=list)
    parent: QWidget | None = None

    def build(self, block: Any, width: int, parent: QWidget | None = None) -> QWidget:
        """The widget for a child block given `width` pixels (a row's share)."""
        child = replace(self, width=width, parent=parent or self.parent)
        return self.build_block(block, child)

    def tone_text(self, tone: str) -> QColor:
        """The colour of text in `tone` (neutral for an unknown tone)."""
        return self.look.color(TONE_TEXT.get(tone, TONE_TEXT["neutral"]))

    def tone_fill(self, tone: str) -> QColor:
        """The colour of a painted mark in `tone` (neutral for an unknown tone)."""
        return self.look.color(TONE_FILL.get(tone, TONE_FILL["neutral"]))

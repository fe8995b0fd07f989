"""GlanceView: a tool result's glance as the notch shows it, a 2-second read.

Blocks are laid out top to bottom in the card's glass, palette and fonts, so a glance sits
in the notch where a card sits. Nothing in it takes input or keyboard focus: the notch
adds its own dismiss and pin around it. Clocks and countdowns tick from one timer that
runs only while the glance is on screen.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any, Literal

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QLayout, QVBoxLayout, QWidget

from notch_app.manifest.glance import MAX_GLANCE_BLOCKS
from notch_app.ui import theme as theme_module
from notch_app.ui.glance._context import Clock, GlanceContext, Ticker, WidgetFactory
from notch_app.ui.glance.registry import build_glance_block
from notch_app.ui.widgets.integration_icon import InstalledIcon
from notch_app.ui.widgets.shapes import GlassFrame

MARGIN_X = 20
MARGIN_TOP = 18
MARGIN_BOTTOM = 16
BLOCK_GAP = 12
MIN_WIDTH = 200


class GlanceView(QWidget):
    """A glance's blocks (as `read_glance` kept them) in the notch's glass, `width` wide.

    `app_icon` is the installed integration's icon, drawn where a header asks for the
    app's icon; `widget_factory(block, theme)` builds an HTML widget block (without it a
    quiet line names the widget). `clock` gives the current unix time (time.time unless
    a test fixes it). Blocks past MAX_GLANCE_BLOCKS are not built.
    """

    def __init__(
        self,
        blocks: Sequence[Any],
        *,
        theme: Literal["dark", "light"] = "dark",
        width: int = 440,
        app_icon: InstalledIcon | None = None,
        widget_factory: WidgetFactory | None = None,
        clock: Clock = time.time,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("NotchGlanceView")
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground, True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        look = theme_module.look(theme_module.theme_name(theme))
        # As on a card: palette and font set before any child exists reach every block.
        self.setPalette(look.base_palette)
        self.setFont(theme_module.card_font())
        width = max(int(width), MIN_WIDTH)
        self._clock = clock

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)
        glass = GlassFrame(look, "card", self)
        glass.setObjectName("NotchGlance")
        glass.setFixedWidth(width)
        outer.addWidget(glass)
        column = QVBoxLayout(glass)
        column.setContentsMargins(MARGIN_X, MARGIN_TOP, MARGIN_X, MARGIN_BOTTOM)
        column.setSpacing(BLOCK_GAP)

        self._ctx = GlanceContext(
            look=look,
            theme=look.name,
            width=width - 2 * MARGIN_X,
            clock=clock,
            build_block=build_glance_block,
            app_icon=app_icon,
            widget_factory=widget_factory,
            parent=glass,
        )
        self.blocks: list[QWidget] = []
        for block in list(blocks)[:MAX_GLANCE_BLOCKS]:
            widget = build_glance_block(block, self._ctx)
            column.addWidget(widget)
            self.blocks.append(widget)
        # Display only: nothing in a glance can take the keyboard, whatever it holds.
        for child in self.findChildren(QWidget):
            child.setFocusPolicy(Qt.FocusPolicy.NoFocus)

        self._tickers: list[Ticker] = list(self._ctx.tickers)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)  # re-armed for each next second, only while shown
        self._timer.timeout.connect(self._tick)

    @property
    def ticking(self) -> bool:
        """Whether the clock/countdown timer is armed (only while shown and counting)."""
        return self._timer.isActive()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._tick()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._timer.stop()

    def _tick(self) -> None:
        if not self._tickers:
            return
        now = self._clock()
        self._tickers = [t for t in self._tickers if t.tick(now)]
        if self._tickers and self.isVisible():
            # Wake at the next whole second, when the shown time can change.
            fraction = now - math.floor(now) if math.isfinite(now) else 0.0
            self._timer.start(max(int((1.0 - fraction) * 1000) + 5, 20))
        else:
            self._timer.stop()


__all__ = ["GlanceView"]

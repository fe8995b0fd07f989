"""The glance `progress` block: a bar under its label and share, or a ring with the share
in its middle and the label beside it."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QVBoxLayout, QWidget

from notch_app.manifest.glance import ProgressBlock
from notch_app.ui.glance._context import GlanceContext
from notch_app.ui.glance._text import GlanceText, glance_font, number_text
from notch_app.ui.theme import Look
from notch_app.ui.widgets.shapes import paint_round

RING_SIZE = 48
_RING_WIDTH = 5.0


def fraction_of(value: float, maximum: float) -> float:
    """`value / maximum` within 0..1 (0 for anything not a finite number)."""
    if not (math.isfinite(value) and math.isfinite(maximum)) or maximum <= 0:
        return 0.0
    return min(max(value / maximum, 0.0), 1.0)


def percent_text(fraction: float) -> str:
    """A share as a person reads it: "62%", never "100%" before it is done."""
    percent = math.floor(fraction * 100) if fraction < 1 else 100
    return f"{percent}%"


class _Track(QWidget):
    """The bar: a rounded track and its filled part."""

    def __init__(self, fraction: float, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fraction = fraction
        self._look = look
        self.setFixedHeight(look.metrics["progress"]["height"])
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def paintEvent(self, event: QPaintEvent) -> None:
        look = self._look
        painter = QPainter(self)
        radius = look.radius["progress"]
        rect = QRectF(self.rect())
        paint_round(painter, rect, radius, look.color("progress_track"))
        if self.fraction > 0:
            width = max(rect.width() * self.fraction, 2.0 * radius)
            paint_round(
                painter, QRectF(0, 0, width, rect.height()), radius, look.color("progress_fill")
            )
        painter.end()


class _Ring(QWidget):
    """A ring filled clockwise from the top, the share written in its middle."""

    def __init__(self, fraction: float, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fraction = fraction
        self._look = look
        self._font = glance_font(look, "Badge")
        self.setFixedSize(QSize(RING_SIZE, RING_SIZE))

    def paintEvent(self, event: QPaintEvent) -> None:
        look = self._look
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        inset = _RING_WIDTH / 2 + 0.5
        ring = QRectF(self.rect()).adjusted(inset, inset, -inset, -inset)
        pen = QPen(look.color("progress_track"), _RING_WIDTH)
        painter.setPen(pen)
        painter.drawEllipse(ring)
        if self.fraction > 0:
            pen = QPen(look.color("progress_fill"), _RING_WIDTH)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            # Qt's angles are sixteenths of a degree, counter-clockwise from 3 o'clock.
            painter.drawArc(ring, 90 * 16, -round(self.fraction * 360 * 16))
        painter.setFont(self._font)
        painter.setPen(look.color("text"))
        painter.drawText(
            QRectF(self.rect()), int(Qt.AlignmentFlag.AlignCenter), percent_text(self.fraction)
        )
        painter.end()


class ProgressBuilder:
    def build(self, block: ProgressBlock, ctx: GlanceContext) -> QWidget:
        fraction = fraction_of(block.value, block.max)
        box = QWidget(ctx.parent)
        box.setObjectName("GlanceProgress")
        box.setProperty("style", block.style)
        of_max = f"{number_text(block.value)} of {number_text(block.max)}"
        box.setAccessibleName(f"{block.label or 'Progress'}: {percent_text(fraction)}")
        if block.style == "ring":
            line = QHBoxLayout(box)
            line.setContentsMargins(0, 0, 0, 0)
            line.setSpacing(12)
            line.addWidget(_Ring(fraction, ctx.look, box))
            texts = QVBoxLayout()
            texts.setSpacing(2)
            texts.addStretch(1)
            if block.label:
                texts.addWidget(GlanceText(block.label, "ListTitle", ctx.look, parent=box))
            texts.addWidget(GlanceText(of_max, "caption", ctx.look, parent=box))
            texts.addStretch(1)
            line.addLayout(texts, 1)
            return box
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(5)
        top = QHBoxLayout()
        top.setSpacing(8)
        if block.label:
            top.addWidget(GlanceText(block.label, "ListTitle", ctx.look, parent=box), 1)
        else:
            top.addWidget(GlanceText(of_max, "caption", ctx.look, parent=box), 1)
        top.addWidget(
            GlanceText(
                percent_text(fraction), "ListTrailing", ctx.look, align=Qt.AlignmentFlag.AlignRight
            )
        )
        column.addLayout(top)
        column.addWidget(_Track(fraction, ctx.look, box))
        return box


__all__ = ["ProgressBuilder", "fraction_of", "percent_text"]

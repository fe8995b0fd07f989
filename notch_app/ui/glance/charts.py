"""The glance charts, painted with QPainter: `bars`, `line` (with an optional dashed
baseline) and `splitBar` (one bar in shares, with a legend). At most one per glance.

The painters take plain values (numbers, labels, colours), not blocks, so each chart is
its look alone; the builders at the bottom turn a block into one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFontMetrics,
    QLinearGradient,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from notch_app.manifest.glance import BarsBlock, LineBlock, SplitBarBlock
from notch_app.ui.glance._context import GlanceContext
from notch_app.ui.glance._text import glance_font, glance_line, number_text
from notch_app.ui.theme import Look

BARS_HEIGHT = 104
LINE_HEIGHT = 72
_LABEL_GAP = 4
_ALIGN_CENTER = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter)
_ALIGN_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
_ALIGN_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def _finite(values: Sequence[float]) -> list[float]:
    return [v if math.isfinite(v) else 0.0 for v in values]


class _Chart(QWidget):
    """A chart at the full width it is given and a fixed height."""

    def __init__(self, look: Look, height: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._look = look
        self._height = height
        self.setFixedHeight(height)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(200, self._height)

    def minimumSizeHint(self) -> QSize:
        return QSize(40, self._height)


class BarsChart(_Chart):
    """Vertical bars from a zero line, each value over its bar (when it fits) and each
    label under it; negative values hang below the zero line."""

    def __init__(
        self,
        labels: Sequence[str],
        values: Sequence[float],
        unit: str | None,
        look: Look,
        color: QColor,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(look, BARS_HEIGHT, parent)
        self.setObjectName("GlanceBars")
        count = min(len(labels), len(values))
        self.labels = [glance_line(label, 32) for label in labels[:count]]
        self.values = _finite(values[:count])
        self.unit = glance_line(unit, 12) if unit else ""
        self._color = color
        self._font = glance_font(look, "GlanceChart")
        self._value_font = glance_font(look, "GlanceChartValue")
        self.setAccessibleName(
            ", ".join(
                f"{label} {self.value_text(v)}"
                for label, v in zip(self.labels, self.values, strict=True)
            )
        )

    def value_text(self, value: float) -> str:
        """A bar's value as written over it, with the unit."""
        return f"{number_text(value)} {self.unit}".strip()

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.values:
            return
        look = self._look
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        label_metrics = QFontMetrics(self._font)
        value_metrics = QFontMetrics(self._value_font)
        text_h = label_metrics.height()
        top = value_metrics.height() + _LABEL_GAP
        bottom = self.height() - text_h - _LABEL_GAP
        lo, hi = min(0.0, *self.values), max(0.0, *self.values)
        span = (hi - lo) or 1.0
        zero_y = top + (hi / span) * (bottom - top)
        slot = self.width() / len(self.values)
        bar_w = max(min(slot * 0.62, 40.0), 2.0)
        painter.setPen(QPen(look.color("divider"), 1))
        painter.drawLine(
            QPointF(0, round(zero_y) + 0.5), QPointF(self.width(), round(zero_y) + 0.5)
        )
        tallest = max(range(len(self.values)), key=lambda i: abs(self.values[i]))
        for i, (label, value) in enumerate(zip(self.labels, self.values, strict=True)):
            x = i * slot + (slot - bar_w) / 2
            height = abs(value) / span * (bottom - top)
            y = zero_y - height if value >= 0 else zero_y
            fill = QColor(self._color)
            if i != tallest:
                fill.setAlpha(170)  # the largest bar reads first
            path = QPainterPath()
            radius = min(3.0, bar_w / 2, max(height / 2, 0.0))
            path.addRoundedRect(QRectF(x, y, bar_w, max(height, 1.0)), radius, radius)
            painter.fillPath(path, fill)
            cell = QRectF(i * slot + 1, 0, slot - 2, value_metrics.height())
            text = self.value_text(value)
            if value_metrics.horizontalAdvance(text) > cell.width():
                text = number_text(value)
            if value_metrics.horizontalAdvance(text) <= cell.width():
                painter.setFont(self._value_font)
                painter.setPen(look.color("text"))
                above = y - value_metrics.height() - 2 if value >= 0 else y + height + 2
                painter.drawText(cell.translated(0, max(above, 0.0)), _ALIGN_CENTER, text)
            painter.setFont(self._font)
            painter.setPen(look.color("text_quiet"))
            shown = label_metrics.elidedText(label, Qt.TextElideMode.ElideRight, int(slot) - 2)
            painter.drawText(
                QRectF(i * slot + 1, self.height() - text_h, slot - 2, text_h), _ALIGN_CENTER, shown
            )
        painter.end()


class LineChart(_Chart):
    """A line through the points, filled softly beneath, in its tone; the last point is
    marked and its value written at the right; a baseline is a dashed line with its value."""

    def __init__(
        self,
        points: Sequence[float],
        baseline: float | None,
        look: Look,
        color: QColor,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(look, LINE_HEIGHT, parent)
        self.setObjectName("GlanceLine")
        self.points = _finite(points)
        self.baseline = baseline if baseline is not None and math.isfinite(baseline) else None
        self._color = color
        self._font = glance_font(look, "GlanceChart")
        self._value_font = glance_font(look, "GlanceChartValue")
        last = number_text(self.points[-1]) if self.points else ""
        self.setAccessibleName(f"line of {len(self.points)} points, last {last}")

    def paintEvent(self, event: QPaintEvent) -> None:
        if len(self.points) < 2:
            return
        look = self._look
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        value_metrics = QFontMetrics(self._value_font)
        last_text = number_text(self.points[-1])
        label_w = value_metrics.horizontalAdvance(last_text) + 8
        plot = QRectF(3, 6, self.width() - label_w - 6, self.height() - 12)
        known = [*self.points, *([self.baseline] if self.baseline is not None else [])]
        lo, hi = min(known), max(known)
        if hi - lo < 1e-12:
            lo, hi = lo - 1, hi + 1

        def at(i: int, v: float) -> QPointF:
            x = plot.left() + plot.width() * i / (len(self.points) - 1)
            return QPointF(x, plot.bottom() - (v - lo) / (hi - lo) * plot.height())

        line = QPainterPath(at(0, self.points[0]))
        for i, v in enumerate(self.points[1:], start=1):
            line.lineTo(at(i, v))
        area = QPainterPath(line)
        area.lineTo(plot.right(), plot.bottom())
        area.lineTo(plot.left(), plot.bottom())
        area.closeSubpath()
        shade = QLinearGradient(0, plot.top(), 0, plot.bottom())
        top, bottom = QColor(self._color), QColor(self._color)
        top.setAlpha(70)
        bottom.setAlpha(0)
        shade.setColorAt(0, top)
        shade.setColorAt(1, bottom)
        painter.fillPath(area, shade)
        if self.baseline is not None:
            y = at(0, self.baseline).y()
            dashed = QPen(look.color("text_faint"), 1, Qt.PenStyle.DashLine)
            painter.setPen(dashed)
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setFont(self._font)
            painter.setPen(look.color("text_faint"))
            metrics = QFontMetrics(self._font)
            text_y = y - metrics.height() - 1 if y - metrics.height() > 0 else y + 1
            painter.drawText(
                QRectF(plot.left() + 2, text_y, plot.width(), metrics.height()),
                _ALIGN_LEFT,
                number_text(self.baseline),
            )
        pen = QPen(self._color, 2)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(line)
        end = at(len(self.points) - 1, self.points[-1])
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._color)
        painter.drawEllipse(end, 3.5, 3.5)
        painter.setFont(self._value_font)
        painter.setPen(look.color("text"))
        h = value_metrics.height()
        text_y = min(max(end.y() - h / 2, 0.0), self.height() - h)
        painter.drawText(QRectF(end.x() + 6, text_y, label_w, h), _ALIGN_LEFT, last_text)
        painter.end()


class SplitBar(_Chart):
    """One rounded bar split into shares, and a legend: a dot, the label and its share."""

    BAR_HEIGHT = 10
    PER_LINE = 3

    def __init__(
        self,
        segments: Sequence[tuple[str, float, QColor]],
        look: Look,
        parent: QWidget | None = None,
    ) -> None:
        self._font = glance_font(look, "caption")
        line_h = QFontMetrics(self._font).height() + 2
        lines = max(1, math.ceil(len(segments) / self.PER_LINE))
        super().__init__(look, self.BAR_HEIGHT + 8 + lines * line_h, parent)
        self.setObjectName("GlanceSplitBar")
        self._line_h = line_h
        self.segments = [
            (glance_line(label, 32), max(value, 0.0) if math.isfinite(value) else 0.0, color)
            for label, value, color in segments
        ]
        self.total = sum(v for _, v, _ in self.segments)
        self.setAccessibleName(
            ", ".join(f"{label} {self.share_text(v)}" for label, v, _ in self.segments)
        )

    def share_text(self, value: float) -> str:
        """A segment's share of the whole, as a person reads it ("42%", "<1%")."""
        if self.total <= 0:
            return "0%"
        share = value / self.total * 100
        if 0 < share < 1:
            return "<1%"
        return f"{round(share)}%"

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.total <= 0:
            return
        look = self._look
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        bar = QRectF(0, 0, self.width(), self.BAR_HEIGHT)
        clip = QPainterPath()
        clip.addRoundedRect(bar, bar.height() / 2, bar.height() / 2)
        painter.setClipPath(clip)
        painter.fillRect(bar, look.color("progress_track"))
        x = 0.0
        shown = [(label, v, c) for label, v, c in self.segments if v > 0]
        for n, (_, value, color) in enumerate(shown):
            width = bar.width() * value / self.total
            gap = 2.0 if n < len(shown) - 1 else 0.0  # a hairline of glass between shares
            painter.fillRect(QRectF(x, 0, max(width - gap, 1.0), bar.height()), color)
            x += width
        painter.setClipping(False)
        metrics = QFontMetrics(self._font)
        painter.setFont(self._font)
        cell_w = self.width() / self.PER_LINE
        for i, (label, value, color) in enumerate(self.segments):
            row, col = divmod(i, self.PER_LINE)
            cell = QRectF(
                col * cell_w, bar.height() + 8 + row * self._line_h, cell_w - 8, self._line_h
            )
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            painter.drawEllipse(QPointF(cell.left() + 4, cell.center().y()), 4, 4)
            share = self.share_text(value)
            share_w = metrics.horizontalAdvance(share)
            text_rect = cell.adjusted(13, 0, 0, 0)
            painter.setPen(look.color("text_quiet"))
            name = metrics.elidedText(
                label, Qt.TextElideMode.ElideRight, max(int(text_rect.width() - share_w - 5), 0)
            )
            painter.drawText(text_rect, _ALIGN_LEFT, name)
            painter.setPen(look.color("text"))
            name_w = metrics.horizontalAdvance(name) + (5 if name else 0)
            painter.drawText(text_rect.adjusted(name_w, 0, 0, 0), _ALIGN_LEFT, share)
        painter.end()


_NEUTRAL_SHADES = (255, 165, 105, 70)
"""Neutral shares are one colour in steps of opacity, so they stay told apart."""


class BarsBuilder:
    def build(self, block: BarsBlock, ctx: GlanceContext) -> QWidget:
        return BarsChart(
            block.labels, block.values, block.unit, ctx.look, ctx.tone_fill("neutral"), ctx.parent
        )


class LineBuilder:
    def build(self, block: LineBlock, ctx: GlanceContext) -> QWidget:
        chart = LineChart(
            block.points, block.baseline, ctx.look, ctx.tone_fill(block.tone), ctx.parent
        )
        chart.setProperty("tone", block.tone)
        return chart


class SplitBarBuilder:
    def build(self, block: SplitBarBlock, ctx: GlanceContext) -> QWidget:
        segments: list[tuple[str, float, QColor]] = []
        neutral = 0
        for segment in block.segments:
            color = QColor(ctx.tone_fill(segment.tone))
            if segment.tone == "neutral":
                color.setAlpha(_NEUTRAL_SHADES[neutral % len(_NEUTRAL_SHADES)])
                neutral += 1
            segments.append((segment.label, segment.value, color))
        return SplitBar(segments, ctx.look, ctx.parent)


__all__ = [
    "BarsBuilder",
    "BarsChart",
    "LineBuilder",
    "LineChart",
    "SplitBar",
    "SplitBarBuilder",
]

"""Painted shapes of the card: the rounded-rectangle painter every widget shares, the
glass and its sections, rounded panels, badges, the progress line, dividers and the thin
scroll bar.

Colours and radii come from `resources/theme/*.json` through `Look`, never from here. A
style sheet would cost ~170 µs per widget of the card (QStyleSheetStyle polishes and lays
out every widget under it); these cost nothing until they paint.
"""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtCore import QPoint, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QProgressBar,
    QScrollBar,
    QStyle,
    QStyleOptionSlider,
    QWidget,
)

from notch_app.ui.theme import Look

_AA = QPainter.RenderHint.Antialiasing

_SHAPES: dict[tuple[int, int, float, int, int, float], QPixmap] = {}
_MAX_SHAPES = 256


def paint_round(
    painter: QPainter,
    rect: QRectF,
    radius: float,
    fill: QColor | None,
    border: QColor | None = None,
) -> None:
    """A rounded rectangle with an optional 1 px border drawn inside `rect`.

    Antialiased rounded outlines are slow to rasterise (~0.3 ms for a field box), and a
    card repeats the same few shapes, so whole-pixel shapes are drawn once into a
    pixmap and reused, as Qt's own styles do with their frames.
    """
    x, y, w, h = rect.x(), rect.y(), rect.width(), rect.height()
    if w <= 0 or h <= 0:
        return
    if not (x.is_integer() and y.is_integer() and w.is_integer() and h.is_integer()):
        _draw_round(painter, rect, radius, fill, border)
        return
    device = painter.device()
    dpr = device.devicePixelRatioF() if device is not None else 1.0
    key = (
        int(w),
        int(h),
        radius,
        fill.rgba() if fill is not None else -1,
        border.rgba() if border is not None else -1,
        dpr,
    )
    pixmap = _SHAPES.get(key)
    if pixmap is None:
        pixmap = QPixmap(round(w * dpr), round(h * dpr))
        pixmap.setDevicePixelRatio(dpr)
        pixmap.fill(Qt.GlobalColor.transparent)
        shape = QPainter(pixmap)
        _draw_round(shape, QRectF(0, 0, w, h), radius, fill, border)
        shape.end()
        if len(_SHAPES) >= _MAX_SHAPES:
            _SHAPES.pop(next(iter(_SHAPES)))
        _SHAPES[key] = pixmap
    painter.drawPixmap(QPoint(int(x), int(y)), pixmap)


def _draw_round(
    painter: QPainter, rect: QRectF, radius: float, fill: QColor | None, border: QColor | None
) -> None:
    painter.setRenderHint(_AA)
    if border is not None:
        painter.setPen(QPen(border, 1.0))
        rect = rect.adjusted(0.5, 0.5, -0.5, -0.5)
        radius = max(radius - 0.5, 0.0)
    else:
        painter.setPen(Qt.PenStyle.NoPen)
    if fill is not None:
        painter.setBrush(fill)
    else:
        painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(rect, radius, radius)


class GlassFrame(QFrame):
    """A rounded panel: the card's glass (`card`), a nested card (`section`) or the link
    prompt (`link_prompt`)."""

    _TOKENS: ClassVar[dict[str, tuple[str, str, str]]] = {
        "card": ("glass_fill", "glass_border", "card"),
        "section": ("section_fill", "section_border", "section"),
        "link_prompt": ("section_fill", "section_border", "link_prompt"),
    }

    def __init__(self, look: Look, kind: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        fill, border, radius = self._TOKENS[kind]
        self._fill = look.color(fill)
        self._border = look.color(border)
        self._radius = look.radius[radius]

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        paint_round(p, QRectF(self.rect()), self._radius, self._fill, self._border)


class ThinScrollBar(QScrollBar):
    """A slim vertical scroll bar: a rounded handle on a clear track. The handle is drawn
    where the style places the slider, so dragging and clicking behave as usual."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self._look = look

    def sizeHint(self) -> QSize:
        return QSize(self._look.metrics["scrollbar"]["width"], super().sizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        handle = self.style().subControlRect(
            QStyle.ComplexControl.CC_ScrollBar,
            option,
            QStyle.SubControl.SC_ScrollBarSlider,
            self,
        )
        m = self._look.metrics["scrollbar"]["margin"]
        rect = QRectF(m, handle.y() + m, self.width() - 2 * m, handle.height() - 2 * m)
        radius = min(self._look.radius["scroll_handle"], rect.width() / 2)
        paint_round(QPainter(self), rect, radius, self._look.color("scroll_handle"))


class Badge(QLabel):
    """A small tinted label (`tone`: neutral, info, success, warning, danger)."""

    def __init__(self, look: Look, tone: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        if f"badge_{tone}" not in look.colors:
            tone = "neutral"
        self._fill = look.color(f"badge_{tone}")
        self._radius = look.radius["badge"]
        self.setFont(look.font("Badge"))
        self.setPalette(
            look.tinted_palette(
                f"badge_{tone}", look.base_palette.ColorRole.WindowText, f"badge_{tone}_text"
            )
        )
        b = look.metrics["badge"]
        self.setContentsMargins(b["padding_x"], b["padding_y"], b["padding_x"], b["padding_y"])

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        paint_round(p, QRectF(self.rect()), self._radius, self._fill)
        p.end()
        super().paintEvent(event)


class ProgressLine(QProgressBar):
    """A thin progress track with its filled part."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._look = look
        self.setTextVisible(False)
        self.setFixedHeight(look.metrics["progress"]["height"])

    def paintEvent(self, event: QPaintEvent) -> None:
        look = self._look
        p = QPainter(self)
        radius = look.radius["progress"]
        rect = QRectF(self.rect())
        paint_round(p, rect, radius, look.color("progress_track"))
        span = self.maximum() - self.minimum()
        done = (self.value() - self.minimum()) / span if span > 0 else 0.0
        if done > 0:
            filled = QRectF(rect.x(), rect.y(), max(rect.width() * done, 2 * radius), rect.height())
            paint_round(p, filled, radius, look.color("progress_fill"))


class Rule(QFrame):
    """A one-pixel line in the divider colour (the `divider` block)."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._color = look.color("divider")
        self.setFixedHeight(1)

    def paintEvent(self, event: QPaintEvent) -> None:
        QPainter(self).fillRect(self.rect(), self._color)


class RoundedPanel(QFrame):
    """A rounded box in two palette tokens (a chip, an image's frame)."""

    def __init__(
        self,
        look: Look,
        fill: str,
        border: str | None,
        radius: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._fill = look.color(fill)
        self._border = look.color(border) if border else None
        self._radius = look.radius[radius]

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        paint_round(p, QRectF(self.rect()), self._radius, self._fill, self._border)

"""Glance icons on screen: painted into a rectangle, as cached pixmaps sharp at any pixel
ratio, and as a fixed-size widget."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from notch_app.ui.glance.icons.drawings import icon_drawing
from notch_app.ui.glance.icons.pen import GRID, STROKE


def paint_glance_icon(painter: QPainter, name: str, rect: QRectF, color: QColor) -> bool:
    """Draw icon `name` into the square `rect` in `color`. False (nothing drawn) for a
    name outside the set."""
    drawing = icon_drawing(name)
    if drawing is None:
        return False
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.translate(rect.topLeft())
    scale = min(rect.width(), rect.height()) / GRID
    painter.scale(scale, scale)
    pen = QPen(color, STROKE)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPath(drawing.stroke)
    if drawing.fill is not None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawPath(drawing.fill)
    painter.restore()
    return True


_PIXMAPS: dict[tuple[str, int, int, float], QPixmap] = {}


def glance_icon_pixmap(name: str, size: int, color: QColor, ratio: float = 1.0) -> QPixmap:
    """Icon `name` at `size` device-independent pixels, drawn with `ratio` device pixels
    to each (sharp on a HiDPI screen), cached. An empty pixmap for an unknown name."""
    ratio = ratio if 0.5 <= ratio <= 8 else 1.0
    key = (name, size, color.rgba(), round(ratio, 3))
    pixmap = _PIXMAPS.get(key)
    if pixmap is None:
        side = max(1, round(size * ratio))
        pixmap = QPixmap(side, side)
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        paint_glance_icon(painter, name, QRectF(0, 0, size, size), color)
        painter.end()
        if len(_PIXMAPS) > 512:  # two themes × a few sizes × 34 names fit with room
            _PIXMAPS.clear()
        _PIXMAPS[key] = pixmap
    return pixmap


class GlanceIcon(QWidget):
    """One glance icon as a fixed-size widget, in `color` (the theme's text colour or a
    tone's), drawn at the pixel ratio of the screen it paints on."""

    def __init__(self, name: str, size: int, color: QColor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._color = QColor(color)
        self.setFixedSize(QSize(size, size))
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setAccessibleName(name)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.drawPixmap(
            QPointF(0, 0),
            glance_icon_pixmap(self.name, self.width(), self._color, self.devicePixelRatioF()),
        )
        painter.end()

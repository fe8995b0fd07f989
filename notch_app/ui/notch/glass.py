"""The notch's glass: how the notch and the side notch are drawn, and how they float.

Dark rounded glass (the card's own a shade lighter), the installed integration's icon in
the notch's chrome, a frameless always-on-top window that never takes focus when shown,
and the screen it belongs on.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QCursor, QGuiApplication, QPainter, QPainterPath, QPen, QScreen
from PySide6.QtWidgets import QWidget

from notch_app.ui.desktop.placement import overlay_flags
from notch_app.ui.widgets.integration_icon import InstalledIcon

RADIUS = 18.0
ICON_SIZE = 16
"""The integration's icon in the header, the idle pill and the side notch (px)."""


def float_above_windows(widget: QWidget) -> None:
    """Make `widget` a frameless, translucent, always-on-top tool window that never steals
    focus when shown (the notch and the side notch)."""
    # Override-redirect through XWayland, where no window manager would place it right
    # (notch_app/ui/desktop/placement.py says which desktop takes which route).
    widget.setWindowFlags(overlay_flags())
    widget.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
    widget.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)


NOTCH_FILL = QColor(12, 13, 17, 244)
"""The notch's dark glass (idle pill, done note, side notch); a card gets CARD_FILL."""
CARD_FILL = QColor(18, 19, 25, 246)
NOTCH_BORDER = QColor(255, 255, 255, 34)


def paint_notch_glass(painter: QPainter, rect: QRectF, radius: float, fill: QColor) -> None:
    """Fill and outline the notch's rounded shape (the notch and the side notch)."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    path = QPainterPath()
    path.addRoundedRect(rect, radius, radius)
    painter.fillPath(path, fill)
    painter.setPen(QPen(NOTCH_BORDER, 1.0))
    painter.drawPath(path)


ICON_EDGE = QColor(255, 255, 255, 40)


def paint_integration_icon(painter: QPainter, icon: InstalledIcon, x: float, y: float) -> None:
    """Draw `icon` at (x, y), ICON_SIZE square, in the notch's dark chrome: sharp at the
    screen's pixel ratio, with a faint edge so a dark icon's tile still reads on the glass."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    rect = QRectF(x, y, ICON_SIZE, ICON_SIZE)
    icon.paint(painter, rect)
    radius = ICON_SIZE * 0.22  # the monogram's and the bundled icons' corner
    painter.setPen(QPen(ICON_EDGE, 1.0))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), radius, radius)


def screen_for_notch() -> QScreen | None:
    """The screen under the mouse pointer, else the primary screen."""
    return QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()

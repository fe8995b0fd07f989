"""The line at the top of a card that says why Notch asks although the person turned
Asks first off: a guard tripped ("Asks anyway: amount is over 500"), or the action's card
changed since. Quiet (a soft tint, small text) so the card's own content leads, but
always there, so the person knows this card is not a mistake.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPainterPath, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QHBoxLayout, QWidget

from notch_app.ui.theme import Look
from notch_app.ui.widgets.label_text import shown, unshown
from notch_app.ui.widgets.shapes import paint_round
from notch_app.ui.widgets.wrapped_label import WrappedLabel

MAX_NOTICE_CHARS = 240
"""A reason names an argument and a limit or a list; past this it is cut (a long
allow-list would otherwise push the card's content off the notch)."""

_ICON = 16


class _ShieldMark(QWidget):
    """A small shield with an exclamation mark: "a guard of yours spoke up"."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._color = look.color("badge_info_text")
        self.setFixedSize(_ICON, _ICON)

    def sizeHint(self) -> QSize:
        return QSize(_ICON, _ICON)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        s = _ICON / 16
        shield = QPainterPath()
        shield.moveTo(8 * s, 1.5 * s)
        shield.lineTo(13.5 * s, 3.6 * s)
        shield.lineTo(13.5 * s, 7.6 * s)
        shield.cubicTo(13.5 * s, 11.0 * s, 11.2 * s, 13.4 * s, 8 * s, 14.7 * s)
        shield.cubicTo(4.8 * s, 13.4 * s, 2.5 * s, 11.0 * s, 2.5 * s, 7.6 * s)
        shield.lineTo(2.5 * s, 3.6 * s)
        shield.closeSubpath()
        pen = QPen(self._color, 1.4 * s)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPath(shield)
        p.drawLine(QPointF(8 * s, 5.2 * s), QPointF(8 * s, 8.6 * s))
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(self._color)
        p.drawEllipse(QPointF(8 * s, 11.0 * s), 0.95 * s, 0.95 * s)
        p.end()


class GuardNotice(QWidget):
    """Why this card shows although Asks first is off, in a soft tinted row with a shield.

    `text` is the service's `ConfirmationRequest.reason`, shown as plain text (never rich
    text), flattened to one paragraph and bounded to MAX_NOTICE_CHARS.
    """

    def __init__(self, look: Look, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("GuardNotice")
        self._fill = look.color("badge_info")
        self._radius = look.radius["field"]
        flat = " ".join(str(text).split())
        if len(flat) > MAX_NOTICE_CHARS:
            flat = flat[: MAX_NOTICE_CHARS - 1] + "…"
        self._text = flat

        row = QHBoxLayout(self)
        row.setContentsMargins(10, 7, 12, 7)
        row.setSpacing(8)
        mark = _ShieldMark(look, self)
        row.addWidget(mark, 0, Qt.AlignmentFlag.AlignTop)
        label = WrappedLabel(self)  # plain text
        label.setText(shown(flat))
        label.setObjectName("GuardNoticeText")
        label.setFont(look.font("SmallButton"))
        label.setPalette(
            look.tinted_palette("guard_notice", QPalette.ColorRole.WindowText, "badge_info_text")
        )
        # The first line's middle sits level with the shield's.
        label.setContentsMargins(0, max(0, (_ICON - label.fontMetrics().height()) // 2), 0, 0)
        row.addWidget(label, 1)
        self._label = label
        self.setToolTip(
            "Asks first is off for this action; Notch asks this time for the reason"
            " shown. Change it in Notch's Settings."
        )
        self.setAccessibleName("Why Notch asks")
        self.setAccessibleDescription(flat)

    @property
    def text(self) -> str:
        """The reason as the person reads it (bounded, one paragraph)."""
        return unshown(self._label.text())

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        paint_round(p, QRectF(self.rect()), self._radius, self._fill)
        p.end()

"""The line under a card's footer that says the person's decision could not be saved
("Couldn't save your decision: the disk is full."), and that nothing was sent yet.

Notch's own words, never the manifest's: the card places it below its footer, where no
block is laid out, in the danger tint, with a mark no block draws. It stays until the
decision is saved (the card then goes) or the next attempt fails (its text is replaced).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QFont, QPainter, QPainterPath, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from notch_app.ui.theme import Look
from notch_app.ui.widgets.label_text import shown, unshown
from notch_app.ui.widgets.shapes import paint_round

MAX_FAILURE_CHARS = 240
"""The service bounds its reason; this bounds the whole line, whatever a caller passes."""

NOTHING_SENT = "Nothing was sent. Try again, or cancel."
"""What the person can do now: the agent has heard nothing, the card still decides."""

_ICON = 16


class _WarningMark(QWidget):
    """A small triangle with an exclamation mark: "this did not work"."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._color = look.color("badge_danger_text")
        self.setFixedSize(_ICON, _ICON)

    def sizeHint(self) -> QSize:
        return QSize(_ICON, _ICON)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        s = _ICON / 16
        triangle = QPainterPath()
        triangle.moveTo(8 * s, 1.8 * s)
        triangle.lineTo(14.6 * s, 13.8 * s)
        triangle.lineTo(1.4 * s, 13.8 * s)
        triangle.closeSubpath()
        pen = QPen(self._color, 1.4 * s)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPath(triangle)
        p.drawLine(QPointF(8 * s, 6.0 * s), QPointF(8 * s, 9.4 * s))
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(self._color)
        p.drawEllipse(QPointF(8 * s, 11.6 * s), 0.9 * s, 0.9 * s)
        p.end()


class SaveFailureNotice(QWidget):
    """Why the decision was not saved (bold, one paragraph, plain text) over a quieter
    line saying nothing was sent, in a danger-tinted row. `show_text` replaces the reason."""

    def __init__(self, look: Look, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("SaveFailureNotice")
        self._fill = look.color("badge_danger")
        self._radius = look.radius["field"]
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 7, 12, 8)
        row.setSpacing(8)
        row.addWidget(_WarningMark(look, self), 0, Qt.AlignmentFlag.AlignTop)
        lines = QVBoxLayout()
        lines.setSpacing(2)
        tint = look.tinted_palette(
            "save_failure", QPalette.ColorRole.WindowText, "badge_danger_text"
        )
        self._label = QLabel(self)
        self._label.setObjectName("SaveFailureText")
        self._label.setTextFormat(Qt.TextFormat.PlainText)
        self._label.setWordWrap(True)
        font = QFont(look.font("SmallButton"))  # a copy: the theme's fonts are shared
        font.setBold(True)
        self._label.setFont(font)
        self._label.setPalette(tint)
        # The first line's middle sits level with the mark's.
        self._label.setContentsMargins(
            0, max(0, (_ICON - self._label.fontMetrics().height()) // 2), 0, 0
        )
        lines.addWidget(self._label)
        hint = QLabel(NOTHING_SENT, self)
        hint.setObjectName("SaveFailureHint")
        hint.setTextFormat(Qt.TextFormat.PlainText)
        hint.setWordWrap(True)
        hint.setFont(look.font("SmallButton"))
        hint.setPalette(tint)
        lines.addWidget(hint)
        row.addLayout(lines, 1)
        self.setAccessibleName("Your decision was not saved")
        self.show_text(text)

    def show_text(self, text: str) -> None:
        """Say `text` (flattened to one paragraph, cut at MAX_FAILURE_CHARS)."""
        flat = " ".join(str(text).split())
        if len(flat) > MAX_FAILURE_CHARS:
            flat = flat[: MAX_FAILURE_CHARS - 1] + "…"
        self._label.setText(shown(flat))
        self.setAccessibleDescription(f"{flat} {NOTHING_SENT}")

    @property
    def text(self) -> str:
        """The reason as the person reads it (bounded, one paragraph)."""
        return unshown(self._label.text())

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        paint_round(p, QRectF(self.rect()), self._radius, self._fill)
        p.end()

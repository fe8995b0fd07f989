"""One line of glance text: bounded, cleaned of tricks, elided at the width it gets.

A glance is read in two seconds, so every text is one line: a long title ends in "…"
instead of wrapping or pushing the glance wider. Characters that reorder text or draw
nothing are shown as their codes (`⟨U+202E⟩`), as on a card; line breaks read as spaces.
"""

from __future__ import annotations

import math
import re

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from notch_app.card.display_text import mark_invisible
from notch_app.ui.theme import Look

MAX_LINE_CHARS = 200
"""What one line keeps of an author's text before eliding (a 10,000-char title is cut
here first, so laying it out stays cheap)."""

_SPACES = re.compile(r"[\n\r\t\v\f]+| {2,}")

# Glance text roles not in the card's typography (resources/theme/card.json): the big
# figures. Size in px, bold, colour token.
_OWN_ROLES: dict[str, tuple[int, bool, str]] = {
    "GlanceStat": (22, True, "text"),
    "GlanceClock": (26, True, "text"),
    "GlanceHeader": (15, True, "text"),
    "GlanceChart": (10, False, "text_quiet"),
    "GlanceChartValue": (10, True, "text"),
}


def glance_line(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """`text` as one line of a glance: at most `limit` characters (then "…"), breaks and
    runs of spaces as one space, invisible and reordering characters marked."""
    text = text[: limit * 2]  # the marks below make text longer; bound the work first
    text = _SPACES.sub(" ", text).strip()
    text = mark_invisible(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def number_text(value: float) -> str:
    """A figure as a glance shows it: whole numbers with thousands separators, others
    with at most two decimals ("1,234", "3.5", "0.25")."""
    value = float(value)
    if not math.isfinite(value):
        return "–"
    if value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def glance_font(look: Look, role: str) -> QFont:
    """The font of a text role: the glance's own figures, else the card's roles."""
    own = _OWN_ROLES.get(role)
    if own is None:
        return look.font(role)
    font = QFont(look.font("base"))
    font.setPixelSize(own[0])
    font.setBold(own[1])
    return font


def glance_color(look: Look, role: str) -> QColor:
    """The text colour of a role (see `glance_font`)."""
    own = _OWN_ROLES.get(role)
    return look.color(own[2]) if own is not None else look.text_color(role)


class GlanceText(QWidget):
    """A one-line text painted elided at the widget's width; it never asks for more width
    than its text needs and accepts any less. `text()` is the whole (bounded) line."""

    def __init__(
        self,
        text: str,
        role: str,
        look: Look,
        *,
        color: QColor | None = None,
        align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft,
        limit: int = MAX_LINE_CHARS,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName(role)
        self._text = glance_line(text, limit)
        self._font = glance_font(look, role)
        self._color = QColor(color) if color is not None else glance_color(look, role)
        self._align = align
        self._metrics = QFontMetrics(self._font)
        self.setFont(self._font)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setAccessibleName(self._text)

    def text(self) -> str:
        """The line as written (bounded and cleaned), before eliding."""
        return self._text

    def set_text(self, text: str) -> None:
        """Show another line (a clock's next minute)."""
        self._text = glance_line(text)
        self.setAccessibleName(self._text)
        self.updateGeometry()
        self.update()

    def shown_text(self) -> str:
        """The line as drawn at the current width ("…" where it was cut)."""
        return self._metrics.elidedText(self._text, Qt.TextElideMode.ElideRight, self.width())

    def sizeHint(self) -> QSize:
        return QSize(self._metrics.horizontalAdvance(self._text) + 1, self._metrics.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(min(self.sizeHint().width(), 12), self._metrics.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.setFont(self._font)
        painter.setPen(self._color)
        painter.drawText(
            QRectF(self.rect()),
            int(self._align | Qt.AlignmentFlag.AlignVCenter) | int(Qt.TextFlag.TextSingleLine),
            self.shown_text(),
        )
        painter.end()


__all__ = ["MAX_LINE_CHARS", "GlanceText", "glance_color", "glance_font", "glance_line"]

"""The frame Notch draws around a page an integration drew: a caption saying whose page it
is, then a dashed outline with the page inset inside it. Both are Notch's own widgets
around the page's, so the page can neither paint over them nor draw outside them: whatever
buttons a page draws sit visibly inside "the integration's page", apart from Notch's own.

A widget card adds a "Notch" divider under the frame: what follows (What will run, Cancel
and confirm) is Notch's. Only Qt widgets here, never the web engine: a picture of a card
(`notch render`) frames its still panel the same way.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from notch_app.ui.theme import Look, style_text
from notch_app.ui.widgets.shapes import Rule

CARD_CAPTION = "Drawn by the integration · Notch’s own buttons are below"
"""Over a widget card's page: whatever it shows is the integration's; the buttons that
answer are Notch's, under the "Notch" divider."""
GLANCE_CAPTION = "Drawn by the integration · nothing here can be clicked"
"""Over a glance's page: the integration's picture, which takes no clicks or keys."""
NOTCH_DIVIDER = "Notch"
"""The divider under a widget card's page: what follows is Notch's own."""
INSET = 6
"""Pixels between the outline and the page: the page never touches Notch's line."""


class _Outline(QWidget):
    """The dashed rounded line the page sits inside."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._color = look.color("text_faint")
        self._radius = float(look.radius["section"])

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(self._color, 1.0, Qt.PenStyle.DashLine)
        pen.setDashPattern([4.0, 3.0])
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        box = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.drawRoundedRect(box, self._radius, self._radius)


class PageFrame(QWidget):
    """`page` (a live page, its still panel, or a note in its place) under `caption`,
    inside Notch's outline. `page` is reparented into the frame."""

    def __init__(
        self, page: QWidget, look: Look, caption: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("WidgetPageFrame")
        self.page = page
        """The framed widget (an HtmlWidget when the page runs live)."""
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.caption = QLabel(caption, self)
        self.caption.setObjectName("WidgetPageCaption")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        # The card's width decides; a caption never widens it.
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        style_text(self.caption, "caption", look)
        column.addWidget(self.caption)
        self.outline = _Outline(look, self)
        self.outline.setObjectName("WidgetPageOutline")
        inside = QVBoxLayout(self.outline)
        inside.setContentsMargins(INSET, INSET, INSET, INSET)
        inside.setSpacing(0)
        page.setParent(self.outline)
        inside.addWidget(page)
        column.addWidget(self.outline)
        self.setAccessibleName(f"{caption}: {page.accessibleName()}".rstrip(": "))


class NotchDivider(QWidget):
    """The word "Notch" and a line across: under a widget card's page, above Notch's own
    part."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("NotchDivider")
        self.setAccessibleName("Notch's own part of the card follows")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 2, 0, 0)
        row.setSpacing(8)
        name = QLabel(NOTCH_DIVIDER, self)
        name.setTextFormat(Qt.TextFormat.PlainText)
        style_text(name, "AlsoSendsTitle", look)
        row.addWidget(name)
        row.addWidget(Rule(look, self), 1, Qt.AlignmentFlag.AlignVCenter)


__all__ = ["CARD_CAPTION", "GLANCE_CAPTION", "NOTCH_DIVIDER", "NotchDivider", "PageFrame"]

"""The card's "changed since your last approval" marks (issue 20, item 6).

One line per difference the service found between this call and what the person
approved for the action before ("kim@exarnple.com looks like example.com, which you
approved before", "12,500 EUR is above your usual (up to 1,250 EUR)"), in an amber panel
under the risk lines. Notch's own part of the card; no block can hide or restyle it. A
card with marks opens expanded, scrolled to the first marked field.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from notch_app.runtime.approval_memory import Change
from notch_app.ui.theme import Look
from notch_app.ui.widgets.shapes import paint_round
from notch_app.ui.widgets.wrapped_label import WrappedLabel

TITLE = "Changed since you last approved this"


class ChangeMarks(QWidget):
    """The panel of marks; hidden when there are none."""

    def __init__(
        self, look: Look, changes: Sequence[Change], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ChangeMarks")
        self._look = look
        self.changes = tuple(changes)
        self.setAccessibleName(TITLE)
        if not self.changes:
            # Most cards: nothing to mark, and the marks are fixed for the card's life, so
            # no labels are built and polished hidden with every card.
            self.setVisible(False)
            return
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 8, 12, 8)
        column.setSpacing(2)
        title = QLabel(TITLE, self)
        title.setFont(look.font("AlsoSendsTitle"))
        self.label = WrappedLabel(self)  # plain text: argument text is never markup
        self.label.setObjectName("ChangeLines")
        self.label.setFont(look.font("body"))
        self.label.setText("\n".join(f"\u25cf  {c.text}" for c in self.changes))
        for label in (title, self.label):
            palette = label.palette()
            palette.setColor(label.foregroundRole(), look.color("badge_warning_text"))
            label.setPalette(palette)
            column.addWidget(label)
        self.setAccessibleDescription("\n".join(c.text for c in self.changes))
        self.setVisible(True)

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(c.text for c in self.changes)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        paint_round(painter, QRectF(self.rect()), self._look.radius["field"],
                    self._look.color("badge_warning"), None)  # fmt: skip
        painter.end()

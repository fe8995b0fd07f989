"""Notch's own parts of a card that say what the blocks may not: the "Also sends" section
(every argument the call carries that the card neither binds nor displays) and the
"Check before you approve" lines (hidden characters and look-alike letters in what the
card shows). A manifest cannot remove, restyle or reorder either.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from notch_app.card.also_sends import AlsoSent
from notch_app.ui.theme import Look, style_text
from notch_app.ui.widgets.shapes import GlassFrame
from notch_app.ui.widgets.wrapped_label import WrappedLabel

FOLD_AT = 8
"""Rows of "Also sends" shown before a "Show N more" control. A section of this many rows
or fewer is always shown whole; a longer one is folded, never hidden: its heading says
how many arguments it holds."""


def _label(text: str, role: str, look: Look, parent: QWidget) -> QLabel:
    label = WrappedLabel(parent)  # plain text: argument text is never markup
    label.setText(text)
    label.setObjectName(role)
    style_text(label, role, look)
    return label


def link_button(text: str, look: Look, parent: QWidget) -> QPushButton:
    """A quiet flat button in the link colour ("Show 3 more", "Undo the widget's changes")."""
    button = QPushButton(text, parent)
    button.setFlat(True)
    button.setAutoDefault(False)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setFont(look.font("ListMore"))
    button.setPalette(look.tinted_palette("ShowMore", QPalette.ColorRole.ButtonText, "link"))
    return button


class ArgumentsSection(GlassFrame):
    """Notch's own glass section listing arguments as label/value rows under a heading,
    with a link under them: the card's "Also sends" and a widget card's "What will run"."""

    def __init__(self, look: Look, heading: str, link: str, parent: QWidget | None) -> None:
        super().__init__(look, "section", parent)
        self._look = look
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(12, 10, 12, 10)
        self.column.setSpacing(6)
        self.heading = _label(heading, "AlsoSendsTitle", look, self)
        self.column.addWidget(self.heading)
        self._rows = QWidget(self)
        self._grid = QGridLayout(self._rows)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(14)
        self._grid.setVerticalSpacing(4)
        self._grid.setColumnStretch(1, 1)
        self.column.addWidget(self._rows)
        self.link = link_button(link, look, self)
        self.column.addWidget(self.link, 0, Qt.AlignmentFlag.AlignLeft)
        self._next_row = 0

    def _clear_rows(self) -> None:
        while self._grid.count():
            item = self._grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()
                widget.setParent(None)
                widget.deleteLater()
        self._next_row = 0

    def _add_row(
        self, label: str, value: str, warnings: tuple[str, ...] | list[str]
    ) -> tuple[QLabel, QLabel]:
        """One `label  value` row, then a line under the value for each warning; returns the
        two labels (to add a tooltip or a weight)."""
        look = self._look
        key = _label(label, "KeyLabel", look, self._rows)
        # As wide as its words up to 150 px: a grid squeezes a wrapping label to a word.
        wide = look.font_metrics("KeyLabel").horizontalAdvance(label) + 2
        key.setMinimumWidth(min(wide, 150))
        key.setMaximumWidth(150)
        shown = _label(value, "KeyValue", look, self._rows)
        shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._grid.addWidget(key, self._next_row, 0, Qt.AlignmentFlag.AlignTop)
        self._grid.addWidget(shown, self._next_row, 1)
        self._next_row += 1
        for line in warnings:
            self._grid.addWidget(
                _label(line, "LookalikeWarning", look, self._rows), self._next_row, 1
            )
            self._next_row += 1
        return key, shown

    def _show_rows_now(self) -> None:
        """Show the new rows at once, not at the next event loop turn (when on screen)."""
        if not self.isVisible():
            return
        for i in range(self._grid.count()):
            item = self._grid.itemAt(i)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.show()


class AlsoSendsSection(ArgumentsSection):
    """The "Also sends" section at the end of the card's content."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(look, "", "", parent)
        self.setObjectName("AlsoSends")
        self.entries: tuple[AlsoSent, ...] = ()
        self.expanded = False
        self.more = self.link
        self.more.clicked.connect(self._expand)

    def show_entries(self, entries: list[AlsoSent]) -> None:
        """Show `entries` (redrawn only when they changed); hidden while there are none."""
        wanted = tuple(entries)
        if wanted == self.entries:
            return
        self.entries = wanted
        self._redraw()

    def _expand(self) -> None:
        self.expanded = True
        self._redraw()

    def _redraw(self) -> None:
        self._clear_rows()
        entries = self.entries
        count = sum(1 for e in entries if e.path != "…")
        self.heading.setText(
            f"Also sends {count} more argument{'s' if count != 1 else ''}, not shown above"
        )
        shown = entries if self.expanded or len(entries) <= FOLD_AT else entries[:FOLD_AT]
        for entry in shown:
            key, _value = self._add_row(entry.label, entry.text, entry.warnings)
            if entry.hidden_input:
                key.setToolTip("Its field is hidden now; this value is sent as proposed")
        self._show_rows_now()
        folded = len(entries) - len(shown)
        self.more.setText(f"Show {folded} more" if folded else "")
        self.more.setVisible(folded > 0)
        self.setVisible(bool(entries))


class CheckNotes(QWidget):
    """ "Check before you approve": one line per hidden character run or look-alike word
    in what the card shows. Hidden while there is nothing to say."""

    MAX_LINES = 6

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CheckNotes")
        self._look = look
        self.lines: tuple[str, ...] = ()
        self.label = _label("", "LookalikeWarning", look, self)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.label)
        self.hide()

    def show_lines(self, lines: list[str]) -> None:
        """Show `lines` (deduplicated, at most MAX_LINES and a count of the rest)."""
        unique = tuple(dict.fromkeys(lines))
        if unique == self.lines:
            return
        self.lines = unique
        shown = list(unique[: self.MAX_LINES])
        if len(unique) > self.MAX_LINES:
            shown.append(f"and {len(unique) - self.MAX_LINES} more warnings")
        self.label.setText("\n".join(f"\u26a0 {line}" for line in shown))
        self.label.setAccessibleName("Check before you approve")
        self.setVisible(bool(unique))

"""Removable chips for a list of strings, with a field to add more (Enter adds)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QFrame, QLineEdit, QWidget

from notch_app.card.display_text import mark_invisible
from notch_app.ui import theme
from notch_app.ui.theme import Look
from notch_app.ui.widgets.flow_layout import FlowLayout
from notch_app.ui.widgets.shapes import RoundedPanel, paint_round

_CHIP_TEXT_CHARS = 60
_MIDDLE_LEFT = int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
"""Read once: `A | B` on Qt's enums makes Python enum objects on every chip's paint."""


class Chip(RoundedPanel):
    """One value with its ×. A click on the × (or Delete / Backspace while the chip has
    the keyboard focus) calls `on_remove(value)`.

    The text and the × are painted, and the chip itself takes the focus: a label, a
    button and a layout per chip would cost four times as much."""

    _MARGINS = (9, 2, 4, 2)  # left, top, right, bottom
    _GAP = 4
    _X = 16  # the ×'s square: a 10 px glyph and its hover ring

    def __init__(
        self,
        value: str,
        look: Look,
        parent: QWidget | None = None,
        on_remove: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(look, "chip_fill", "chip_border", "chip", parent)
        self.value = value
        self._look = look
        self._on_remove = on_remove
        self._size: QSize | None = None
        self._hot = False
        self.bad = False
        """The tool refuses this value (see `set_bad`)."""
        # Hidden characters marked: an agent's value must not reverse or hide its text.
        marked = value if value.isascii() and value.isprintable() else mark_invisible(value)
        self.text = marked if len(marked) <= _CHIP_TEXT_CHARS else marked[:_CHIP_TEXT_CHARS] + "…"
        self.setToolTip(value[:500])
        self.setAccessibleName(self.text)
        self.setAccessibleDescription("Press Delete to remove it")
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.setMouseTracking(True)

    def set_bad(self, bad: bool) -> None:
        """Mark this chip as the value the tool refuses (its border in the error colour)."""
        if bad == self.bad:
            return
        self.bad = bad
        self._border = self._look.color("field_error" if bad else "chip_border")
        self.setAccessibleDescription(
            "Not accepted; press Delete to remove it" if bad else "Press Delete to remove it"
        )
        self.update()

    def remove_rect(self) -> QRect:
        """Where the × is: a click there removes the chip."""
        _, _, right, _ = self._MARGINS
        return QRect(self.width() - right - self._X, (self.height() - self._X) // 2,
                     self._X, self._X)  # fmt: skip

    def remove(self) -> None:
        """Ask the box to remove this chip's value (as the × does)."""
        if self._on_remove is not None:
            self._on_remove(self.value)

    def sizeHint(self) -> QSize:
        # A chip's text never changes, and the flow layout asks for its size dozens of
        # times while the card is laid out: measured once.
        if self._size is None:
            left, top, right, bottom = self._MARGINS
            fm = self._look.font_metrics("ChipText")
            height = max(fm.height(), self._X) + top + bottom
            width = left + fm.horizontalAdvance(self.text) + self._GAP + self._X + right
            self._size = QSize(width, height)
        return QSize(self._size)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        hot = self.remove_rect().contains(event.position().toPoint())
        if hot != self._hot:
            self._hot = hot
            self.setCursor(Qt.CursorShape.PointingHandCursor if hot else Qt.CursorShape.ArrowCursor)
            self.update()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        if self._hot:
            self._hot = False
            self.unsetCursor()
            self.update()
        super().leaveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        inside = self.remove_rect().contains(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and inside:
            event.accept()
            self.remove()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            event.accept()
            self.remove()
            return
        super().keyPressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        left, _, right, _ = self._MARGINS
        p = QPainter(self)
        look = self._look
        x = self.remove_rect()
        if self._hot or self.hasFocus():
            paint_round(p, QRectF(x), look.radius["chip_remove"], look.color("ghost_hover"))
        theme.icon("chip-remove").paint(p, x.adjusted(3, 3, -3, -3))
        p.setFont(look.font("ChipText"))
        p.setPen(look.text_color("ChipText"))
        room = self.width() - left - self._GAP - self._X - right
        p.drawText(QRect(left, 0, max(room, 0), self.height()), _MIDDLE_LEFT, self.text)


class _Entry(QLineEdit):
    """The chips field's text entry: Enter adds a chip, Backspace on an empty entry
    removes the last one, focus repaints the box. Handled here rather than by an event
    filter, which would be a Python call for every event the entry gets."""

    def __init__(self, box: ChipsBox) -> None:
        super().__init__()
        self._box = box

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self._box.key_pressed(event):
            super().keyPressEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self._box.update()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self._box.update()


class ChipsBox(QFrame):
    """`valuesEdited(list)` fires when the person adds or removes a chip. Drawn as a
    field box (focused while its entry field is); `look` defaults to the dark theme."""

    valuesEdited = Signal(list)

    def __init__(
        self, placeholder: str | None, parent: QWidget | None = None, *, look: Look | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ChipsBox")
        self._look = look if look is not None else theme.look("dark")
        self._flow = FlowLayout(self, spacing=5)
        self._flow.setContentsMargins(5, 5, 5, 5)
        self._values: list[str] = []
        self._chips: list[Chip] = []
        policy = self.sizePolicy()
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.entry: QLineEdit = _Entry(self)
        self.entry.setFrame(False)
        self.entry.setTextMargins(4, 2, 4, 2)  # the old sheet's 3 px / 4 px padding
        self.entry.setPlaceholderText(placeholder or "Add…")
        self.entry.setMinimumWidth(90)
        self.entry.setProperty("chipsEntry", True)
        self._flow.addWidget(self.entry)

    def values(self) -> list[str]:
        return list(self._values)

    def chips(self) -> list[Chip]:
        return list(self._chips)

    def set_values(self, values: list[str]) -> None:
        """Show `values` without reporting an edit."""
        if values == self._values:
            return
        old = self._chips
        self._values = list(values)
        self._chips = [Chip(v, self._look, self, self._remove) for v in self._values]
        # All at once, ahead of the entry field (which stays last).
        self._flow.set_leading(self._chips)
        for chip in old:
            chip.hide()
            chip.setParent(None)  # gone now, not at the next event loop turn
            chip.deleteLater()
        self.updateGeometry()

    def _remove(self, value: str) -> None:
        if value in self._values:
            values = list(self._values)
            values.remove(value)
            self.set_values(values)
            self.valuesEdited.emit(values)
            self.entry.setFocus()

    def add_entry(self) -> bool:
        """Turn the entry field's text into a chip; False when it is blank."""
        text = self.entry.text().strip()
        if not text:
            return False
        self.entry.clear()
        values = [*self._values, text]
        self.set_values(values)
        self.valuesEdited.emit(values)
        return True

    def key_pressed(self, event: QKeyEvent) -> bool:
        """Handle a key typed into the entry; True when it added or removed a chip."""
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.entry.text().strip():
            self.add_entry()
            return True
        if key == Qt.Key.Key_Backspace and not self.entry.text() and self._values:
            self._remove(self._values[-1])
            return True
        return False

    def paintEvent(self, event: QPaintEvent) -> None:
        look = self._look
        focus = self.entry.hasFocus()
        p = QPainter(self)
        paint_round(
            p,
            QRectF(self.rect()),
            look.radius["field"],
            look.color("field_fill_focus" if focus else "field_fill"),
            look.color("field_border_focus" if focus else "field_border"),
        )

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._flow.heightForWidth(width)

    def sizeHint(self) -> QSize:
        w = max(self.width(), 200)
        return QSize(w, self._flow.heightForWidth(w))

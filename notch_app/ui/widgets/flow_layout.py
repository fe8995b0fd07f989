"""A layout that places widgets left to right and wraps them onto new lines (chips)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget, QWidgetItem


class FlowLayout(QLayout):
    """Left to right, wrapping; the last item (the entry field) fills its line.

    Heights are remembered per width until the layout changes: Qt asks for the same
    width many times while a card is laid out, and each answer is a Python walk."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self._heights: dict[int, int] = {}

    def invalidate(self) -> None:
        self._heights.clear()
        super().invalidate()

    def addItem(self, item: QLayoutItem) -> None:
        self._heights.clear()
        self._items.append(item)

    def set_leading(self, widgets: Sequence[QWidget]) -> None:
        """Replace every item but the last with `widgets`, in order, in one change (the
        chips ahead of the entry field). Removed widgets are only taken out of the
        layout: their owner disposes of them."""
        last = self._items[-1:] if self._items else []
        for w in widgets:
            self.addChildWidget(w)  # shown with the box, as addWidget would
        self._items = [QWidgetItem(w) for w in widgets] + last
        self._heights.clear()
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        self._heights.clear()
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            height = self._heights[width] = self._arrange(QRect(0, 0, width, 0), apply=False)
        return height

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _arrange(self, rect: QRect, apply: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line_height = area.x(), area.y(), 0
        for item in self._items:
            widget = item.widget()
            if widget is not None and widget.isHidden():
                continue
            hint = item.sizeHint()
            # The last item (the entry field) stretches to fill what is left of its line.
            is_last = item is self._items[-1]
            width = min(hint.width(), area.width())
            if x + width > area.right() + 1 and x > area.x():
                x = area.x()
                y += line_height + self._spacing
                line_height = 0
            if is_last:
                width = max(width, area.right() + 1 - x)
            if apply:
                item.setGeometry(QRect(QPoint(x, y), QSize(width, hint.height())))
            x += width + self._spacing
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y() + m.bottom()

"""A layout that places widgets left to right and wraps them onto new lines (chips, and
the card's footer actions, whose labels are never cut)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget, QWidgetItem


class FlowLayout(QLayout):
    """Left to right, wrapping; the last item (the entry field) fills its line, or, with
    `align_right`, every line sits against the right edge (a footer of buttons). An item
    wider than the whole line gets the line's width and its height for that width.

    Heights are remembered per width until the layout changes: Qt asks for the same
    width many times while a card is laid out, and each answer is a Python walk."""

    def __init__(
        self, parent: QWidget | None = None, spacing: int = 6, *, align_right: bool = False
    ) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self._align_right = align_right
        self._heights: dict[int, int] = {}
        self._placed: QRect | None = None  # the rect the items were last placed in
        self._least: QSize | None = None
        """`minimumSize`, kept as the heights are (asked ~6 times a card's layout)."""

    def invalidate(self) -> None:
        self._heights.clear()
        self._placed = None
        self._least = None
        super().invalidate()

    def addItem(self, item: QLayoutItem) -> None:
        self._heights.clear()
        self._placed = None
        self._least = None
        self._items.append(item)

    def set_leading(self, widgets: Sequence[QWidget]) -> None:
        """Replace every item but the last with `widgets`, in order, in one change (the
        chips ahead of the entry field). Removed widgets are only taken out of the
        layout: their owner disposes of them."""
        last = self._items[-1:] if self._items else []
        for w in widgets:
            self.addChildWidget(w)  # shown with the box, as addWidget would
        self._items = [QWidgetItem(w) for w in widgets] + last
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        self._heights.clear()
        self._placed = None
        self._least = None
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
        # Qt sets the same geometry several times per layout pass; place the items once.
        if rect != self._placed:
            self._placed = QRect(rect)
            self._arrange(rect, apply=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        least = self._least
        if least is None:
            size = QSize()
            for item in self._items:
                size = size.expandedTo(item.minimumSize())
            m = self.contentsMargins()
            least = self._least = size + QSize(m.left() + m.right(), m.top() + m.bottom())
        return QSize(least)

    def _arrange(self, rect: QRect, apply: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        right = area.right() + 1
        lines: list[list[tuple[QLayoutItem, int, int]]] = [[]]
        x = area.x()
        last = self._items[-1] if self._items else None
        for item in self._items:
            widget = item.widget()
            if widget is not None and widget.isHidden():
                continue
            hint = item.sizeHint()
            width = min(hint.width(), area.width())
            if x + width > right and x > area.x():
                lines.append([])
                x = area.x()
            if item is last and not self._align_right:
                width = max(width, right - x)  # the entry field fills its line
            height = hint.height()
            if width < hint.width() and item.hasHeightForWidth():
                height = item.heightForWidth(width)  # a long label wraps inside it
            lines[-1].append((item, width, height))
            x += width + self._spacing
        y = area.y()
        for n, line in enumerate(lines):
            if not line:
                continue
            if n:
                y += self._spacing
            used = sum(w for _, w, _ in line) + self._spacing * (len(line) - 1)
            x = right - used if self._align_right else area.x()
            line_height = max(h for _, _, h in line)
            for item, width, height in line:
                if apply:
                    item.setGeometry(QRect(QPoint(x, y), QSize(width, height)))
                x += width + self._spacing
            y += line_height
        return y - rect.y() + m.bottom()

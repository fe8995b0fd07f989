"""A plain-text, word-wrapping label that remembers its height for the last few widths.

While a card is built and shown, its layouts ask each label its height for the same width
several times over (a key-value value 6 times for 4 widths, the payment card's help lines
17 times for 5), and QLabel lays the text out anew for every ask (~56k instructions:
itemize, shape, break). The memo answers the repeats. It is forgotten with anything
QLabel's answer reads (`QLabelPrivate::sizeForWidth`): the text and what it is (format,
interaction, buddy), alignment and wrap, indent and margin, the minimum size, and,
through `changeEvent`, the font, style, frame and contents margins, screen and
direction. A setter called from C++ (a Qt property, a style sheet's
`qproperty-`) passes the memo by: this label is for text the app sets from Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QEnterEvent
from PySide6.QtWidgets import QLabel, QWidget

_WIDTHS_KEPT = 4
"""A key-value value is asked for four widths while its card settles; a fifth width
drops the oldest."""

# Read once: each `Qt.…` or class attribute lookup is a Python call.
_qt_height_for_width = QLabel.heightForWidth
_PLAIN = Qt.TextFormat.PlainText


class WrappedLabel(QLabel):
    """A label of plain text (never read as rich text) that wraps at word boundaries and
    answers `heightForWidth` from a memo of the last few widths asked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._heights: dict[int, int] = {}
        # Qt's own setters: nothing is remembered yet (each wrapper is a Python call).
        QLabel.setTextFormat(self, _PLAIN)
        QLabel.setWordWrap(self, True)

    def heightForWidth(self, width: int) -> int:
        heights = self._heights
        height = heights.get(width)
        if height is None:
            height = _qt_height_for_width(self, width)
            # Negative asks for the natural size, which reads the maximum width too.
            if width >= 0:
                if len(heights) >= _WIDTHS_KEPT:
                    del heights[next(iter(heights))]
                heights[width] = height
        return height

    def changeEvent(self, event: QEvent) -> None:
        # Font, style, palette, contents margins, screen: any change may move the height
        # (clearing is cheaper than telling the kinds apart; they come a few per label).
        self._heights.clear()
        super().changeEvent(event)


def _forgetting(name: str) -> Callable[..., Any]:
    """QLabel's setter `name`, clearing the height memo first."""
    qt_setter = getattr(QLabel, name)

    def setter(self: WrappedLabel, *args: Any, **kwargs: Any) -> Any:
        self._heights.clear()
        return qt_setter(self, *args, **kwargs)

    setter.__name__ = setter.__qualname__ = name
    setter.__doc__ = f"QLabel.{name}, forgetting the heights measured before."
    return setter


# Each setter whose value QLabel's height for a width reads. `setNum` and `setFixed…`
# reach `setText` and `setMinimum…` inside Qt, past these Python ones, so each is here.
for _name in (
    "setText",
    "setNum",
    "clear",
    "setPixmap",
    "setPicture",
    "setMovie",
    "setTextFormat",
    "setTextInteractionFlags",
    "setBuddy",
    "setAlignment",
    "setWordWrap",
    "setIndent",
    "setMargin",
    "setMinimumWidth",
    "setMinimumHeight",
    "setMinimumSize",
    "setFixedWidth",
    "setFixedHeight",
    "setFixedSize",
):
    setattr(WrappedLabel, _name, _forgetting(_name))
del _name

_SELECTABLE = Qt.TextInteractionFlag.TextSelectableByMouse


class SelectableLabel(WrappedLabel):
    """A wrapped label whose text the mouse can select. It becomes selectable when the
    pointer first comes over it: a selectable label builds a text document up front,
    which would cost every card that much per label, though only a pointer can select."""

    def enterEvent(self, event: QEnterEvent) -> None:
        if not self.textInteractionFlags() & _SELECTABLE:
            self.setTextInteractionFlags(_SELECTABLE)
        super().enterEvent(event)


__all__ = ["SelectableLabel", "WrappedLabel"]

"""Fitting a card into the notch: whether it takes typing, and its final size at once."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QWidget,
)


@runtime_checkable
class FoldsFields(Protocol):
    """A card whose fields under a closed "Details" are built when first needed
    (`CardView`): they are its fields all the same."""

    @property
    def has_unbuilt_fields(self) -> bool: ...


def card_has_inputs(card: QWidget) -> bool:
    """True when the card holds a field the person can type into or choose from."""
    if isinstance(card, FoldsFields) and card.has_unbuilt_fields:
        return True
    # Asked by type (filtered in C++), not by walking every child in Python.
    for kind in (QLineEdit, QAbstractSpinBox, QComboBox):
        if any(w.isEnabled() for w in card.findChildren(kind)):
            return True
    if any(not w.isReadOnly() for w in card.findChildren(QTextEdit)):
        return True
    return any(not w.isReadOnly() for w in card.findChildren(QPlainTextEdit))


def settle_layout(widget: QWidget) -> None:
    """Lay `widget` out now, to its final size, instead of over the next loop turns.

    Some fields know their height only once they know their width (a text area grows
    to its text); they ask again with a posted LayoutRequest. Answering those here
    means the notch is sized once and the first frame paints the card at its final
    size, instead of painting it, growing it and painting it again.

    A push button answers the polish request posted at its birth by telling its layout
    that its size may have changed (QPushButton::event), even when it was polished long
    before: the card's footer was laid out again in its first frame (0.2–0.4 ms of it).
    A button already polished said so when it was (a font or style that changes its
    size tells its layout itself), so its request is dropped; one not yet polished
    keeps it.
    """
    for button in widget.findChildren(QPushButton):
        if button.testAttribute(Qt.WidgetAttribute.WA_WState_Polished):
            QCoreApplication.removePostedEvents(button, QEvent.Type.PolishRequest)
    widget.adjustSize()
    unchanged = 0
    for _ in range(6):
        # A request climbs one level per round (field → its box → the body → the card),
        # so a round that changes nothing does not yet mean the card is settled.
        size = widget.size()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        widget.adjustSize()
        unchanged = unchanged + 1 if widget.size() == size else 0
        if unchanged == 2:
            return

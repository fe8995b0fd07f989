"""Where Notch's own lines made after the card go: in their place, as if built with it.

Most cards never show a risk line, a "changed since" mark or "Always allow" (issue 19: each
was built, polished and laid out hidden with every card). Each is made when it first has
something to show (see `CardView._add_notch_lines`); these put it where it stood when it
was built with the card, and give a late scope button what the card's confirm has.
"""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractButton, QWidget

from notch_app.ui.blocks import CardContext
from notch_app.ui.card_view.arming import ConfirmHold
from notch_app.ui.card_view.frame import CardFrame

_UNDER_HEADLINE = ("CheckNotes", "RiskNotes")
"""Notch's lines under the headline, top to bottom, before the "changed since" marks."""


def place_under_checks(frame: CardFrame, line: QWidget) -> None:
    """Put the risk panel or the change marks in the column under the headline, where
    they stood when made with the card: the check notes, the risk lines, the marks."""
    column, at = frame.column, frame.notes_at
    for name in _UNDER_HEADLINE:
        item = column.itemAt(at)
        held = item.widget() if item is not None else None
        if line.objectName() != name and held is not None and held.objectName() == name:
            at += 1
    column.insertWidget(at, line)


def join_confirms(
    ctx: CardContext, hold: ConfirmHold, button: QAbstractButton, built: bool
) -> None:
    """A scope choice joins the card's confirm buttons as it is made. Made once the card
    is `built` ("Always allow" first offered by an edit), it takes what they have: the
    gate's state, the hold, and its Tab stop right after the choice before it."""
    buttons = ctx.confirm_buttons
    if built and buttons:
        first = buttons[0]  # the gate gives every confirm button the same state
        button.setEnabled(first.isEnabled())
        button.setToolTip(first.toolTip())
        button.setAccessibleDescription(first.accessibleDescription())
        hold.set_armed(hold.armed, [button])
        QWidget.setTabOrder(buttons[-1], button)
    buttons.append(button)

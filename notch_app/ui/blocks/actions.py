"""`button` and `actions` blocks. The first confirm on the card is the primary glass
pill; every other button is a quiet ghost. Only confirm is gated (by CardView)."""

from __future__ import annotations

from functools import cache
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QHBoxLayout, QWidget

from notch_app.manifest.model import ActionsBlock, ButtonBlock
from notch_app.ui.blocks._context import CardContext
from notch_app.ui.widgets.buttons import PillButton
from notch_app.ui.widgets.flow_layout import FlowLayout
from notch_app.ui.widgets.label_text import shown


@cache
def _hand() -> QCursor:
    """The pointing hand, made once (needs the application): a button given the shape
    makes a new QCursor from it each time."""
    return QCursor(Qt.CursorShape.PointingHandCursor)


def action_button(item: Any, ctx: CardContext) -> PillButton:
    """One button for an action item or a button block, wired to `ctx.press`."""
    primary = item.role == "confirm" and not ctx.has_primary
    if primary:
        ctx.has_primary = True
    button = PillButton(
        ctx.look, "primary" if primary else "ghost", item.color or "", parent=ctx.parent
    )
    button.setCursor(_hand())
    button.role = item.role  # the Qt property "role"
    button.setAutoDefault(False)

    def show_label(text: str) -> None:
        label = shown(text)  # whole: the label says what the press does
        button.setText(label)
        button.setAccessibleName(label)
        button.updateGeometry()

    ctx.bind_text(item.label, show_label)
    button.clicked.connect(lambda: ctx.press(item.role, item))
    if item.role == "confirm":
        ctx.confirm_buttons.append(button)
    ctx.focusable(button)
    return button


class ButtonBuilder:
    def build(self, block: ButtonBlock, ctx: CardContext) -> QWidget:
        box = QWidget(ctx.parent)
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        ctx.parent = box  # build_block puts the caller's parent back
        row.addWidget(action_button(block, ctx))
        row.addStretch(1)
        return box


class ActionsBuilder:
    def build(self, block: ActionsBlock, ctx: CardContext) -> QWidget:
        box = QWidget(ctx.parent)
        # Buttons wrap onto a second line rather than squeeze: an action's label is
        # never cut ("Open Q3 re…" could be anything).
        row = FlowLayout(box, spacing=8, align_right=True)
        row.setContentsMargins(0, 0, 0, 0)
        ctx.parent = box  # build_block puts the caller's parent back
        for item in block.items:
            button = action_button(item, ctx)
            if item.visible_if:
                ctx.conditional.append((item, button))
                button.setVisible(ctx.state.is_visible(item))
            row.addWidget(button)
        return box

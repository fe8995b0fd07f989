"""`card` (nested: a quiet section) and `stack` blocks. The root card is laid out by
CardView itself, which adds the glass, the scrolling body and the footer."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QVBoxLayout, QWidget

from notch_app.manifest.model import CardBlock, StackBlock
from notch_app.ui.blocks._context import CardContext
from notch_app.ui.blocks.text import wrapped_label
from notch_app.ui.theme import style_text
from notch_app.ui.widgets.shapes import GlassFrame


def add_card_header(
    block: CardBlock, layout: QBoxLayout, ctx: CardContext, *, nested: bool = False
) -> None:
    """Title and subtitle (both interpolated live), if the card has them. A nested card
    (a section) has a smaller title."""
    if block.title:
        title = wrapped_label("CardTitle", parent=ctx.parent)
        style_text(title, "SectionTitle" if nested else "CardTitle", ctx.look)
        ctx.bind_text(block.title, title.setText)
        layout.addWidget(title)
    if block.subtitle:
        subtitle = wrapped_label("CardSubtitle", ctx.look, parent=ctx.parent)
        ctx.bind_text(block.subtitle, subtitle.setText)
        layout.addWidget(subtitle)


class CardBuilder:
    def build(self, block: CardBlock, ctx: CardContext) -> QWidget:
        frame = GlassFrame(ctx.look, "section", parent=ctx.parent)
        frame.setObjectName("NotchSection")
        ctx.parent = frame  # build_block puts the caller's parent back
        layout = QVBoxLayout(frame)
        layout.setContentsMargins(12, 10, 12, 12)
        layout.setSpacing(8)
        add_card_header(block, layout, ctx, nested=True)
        for child in block.children:
            layout.addWidget(ctx.build(child, frame))
        for child in block.footer:
            layout.addWidget(ctx.build(child, frame))
        return frame


class StackBuilder:
    def build(self, block: StackBlock, ctx: CardContext) -> QWidget:
        box = QWidget(ctx.parent)
        layout: QBoxLayout = QVBoxLayout(box) if block.direction == "vertical" else QHBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(block.gap)
        if block.direction == "vertical":
            for child in block.children:
                layout.addWidget(ctx.build(child, box))
            return box
        # Side by side: text and inputs share the width; badges, images and buttons keep
        # their natural size. Everything hangs from the top edge.
        flowing = [c.type in _FLOWING for c in block.children]
        for child, flows in zip(block.children, flowing, strict=True):
            layout.addWidget(ctx.build(child, box), 1 if flows else 0, _TOP)
        if not any(flowing):
            layout.addStretch(1)
        return box


_TOP = Qt.AlignmentFlag.AlignTop  # read once: each `Qt.…` lookup is a Python call

_FLOWING = frozenset(
    {
        "text", "markdown", "keyValue", "metadata", "list", "stack", "card", "progress",
        "textField", "passwordField", "select", "chips",
    }
)  # fmt: skip

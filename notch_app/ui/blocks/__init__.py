"""One builder per block type, behind a registry (as magicgui maps types to widgets).

A new block type is one entry here and one small class with `build(block, ctx)`; nothing
else in the card changes. `build_block` also wires `visibleIf` for every block.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtWidgets import QWidget

from notch_app.ui.blocks._context import CardContext
from notch_app.ui.blocks.actions import ActionsBuilder, ButtonBuilder
from notch_app.ui.blocks.choices import ChipsBuilder, SelectBuilder, ToggleBuilder
from notch_app.ui.blocks.facts import (
    KeyValueBuilder,
    ListBuilder,
    ListItemBuilder,
    MetadataBuilder,
)
from notch_app.ui.blocks.inputs import PasswordFieldBuilder, TextFieldBuilder
from notch_app.ui.blocks.layout import CardBuilder, StackBuilder
from notch_app.ui.blocks.media import BadgeBuilder, DividerBuilder, ImageBuilder, ProgressBuilder
from notch_app.ui.blocks.text import MarkdownBuilder, TextBuilder
from notch_app.ui.blocks.widget import WidgetBuilder


class BlockBuilder(Protocol):
    def build(self, block: Any, ctx: CardContext) -> QWidget: ...


BUILDERS: dict[str, BlockBuilder] = {
    "card": CardBuilder(),
    "stack": StackBuilder(),
    "text": TextBuilder(),
    "markdown": MarkdownBuilder(),
    "keyValue": KeyValueBuilder(),
    "metadata": MetadataBuilder(),
    "list": ListBuilder(),
    "listItem": ListItemBuilder(),
    "image": ImageBuilder(),
    "badge": BadgeBuilder(),
    "progress": ProgressBuilder(),
    "divider": DividerBuilder(),
    "textField": TextFieldBuilder(),
    "passwordField": PasswordFieldBuilder(),
    "select": SelectBuilder(),
    "toggle": ToggleBuilder(),
    "chips": ChipsBuilder(),
    "button": ButtonBuilder(),
    "actions": ActionsBuilder(),
    "widget": WidgetBuilder(),
}


def build_block(block: Any, ctx: CardContext, parent: QWidget | None = None) -> QWidget:
    """The widget for one block (and its subtree), made inside `parent` (the caller
    still adds it to its layout). Raises KeyError for an unknown type, which the manifest
    models make impossible."""
    outer = ctx.parent
    if parent is not None:
        ctx.parent = parent
    try:
        widget = BUILDERS[block.type].build(block, ctx)
    finally:
        ctx.parent = outer
    if getattr(block, "visible_if", None):
        ctx.conditional.append((block, widget))
        widget.setVisible(ctx.state.is_visible(block))
    return widget


__all__ = ["BUILDERS", "BlockBuilder", "CardContext", "build_block"]

"""Glance blocks that arrange or stand in: `divider`, `row` (2–3 blocks side by side, each
an equal share of the width) and `widget` (a sandboxed HTML page, built by the web
engine's factory when there is one)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QWidget

from notch_app.manifest.glance import DividerBlock, RowBlock, WidgetBlock
from notch_app.ui.glance._context import GlanceContext
from notch_app.ui.glance._text import GlanceText
from notch_app.ui.web.frame import GLANCE_CAPTION, PageFrame
from notch_app.ui.widgets.shapes import Rule

ROW_GAP = 14


class DividerBuilder:
    def build(self, block: DividerBlock, ctx: GlanceContext) -> QWidget:
        line = Rule(ctx.look, ctx.parent)
        line.setObjectName("GlanceDivider")
        return line


class RowBuilder:
    def build(self, block: RowBlock, ctx: GlanceContext) -> QWidget:
        box = QWidget(ctx.parent)
        box.setObjectName("GlanceRow")
        line = QHBoxLayout(box)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(ROW_GAP)
        children = block.children[:3]
        share = (ctx.width - ROW_GAP * (len(children) - 1)) // max(len(children), 1)
        for child in children:
            widget = ctx.build(child, share, box)
            # A fixed share: a long title elides in its own column, never takes another's.
            widget.setFixedWidth(share)
            line.addWidget(widget, 0, Qt.AlignmentFlag.AlignTop)
        line.addStretch(1)
        return box


class WidgetBuilder:
    def build(self, block: WidgetBlock, ctx: GlanceContext) -> QWidget:
        if ctx.widget_factory is not None:
            return ctx.widget_factory(block, ctx.theme)
        # Without the web engine: one quiet line saying what would be here, in the frame
        # a live page would have (captioned as the integration's, display only).
        placeholder = GlanceText(f"{block.label} (HTML widget)", "muted", ctx.look)
        placeholder.setObjectName("GlanceWidgetPlaceholder")
        return PageFrame(placeholder, ctx.look, GLANCE_CAPTION, ctx.parent)


__all__ = ["DividerBuilder", "RowBuilder", "WidgetBuilder"]

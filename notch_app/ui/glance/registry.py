"""One builder per glance block type, behind a registry (as magicgui maps types to
widgets): a new block kind is one entry here and one small class with
`build(block, ctx) -> QWidget`; nothing else in the glance changes."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtWidgets import QWidget

from notch_app.ui.glance._context import GlanceContext
from notch_app.ui.glance.charts import BarsBuilder, LineBuilder, SplitBarBuilder
from notch_app.ui.glance.clocks import ClockBuilder, CountdownBuilder
from notch_app.ui.glance.facts import (
    BadgesBuilder,
    HeaderBuilder,
    KeyValueBuilder,
    ListBuilder,
    StatsBuilder,
)
from notch_app.ui.glance.layout import DividerBuilder, RowBuilder, WidgetBuilder
from notch_app.ui.glance.progress import ProgressBuilder


class GlanceBlockBuilder(Protocol):
    def build(self, block: Any, ctx: GlanceContext) -> QWidget: ...


GLANCE_BUILDERS: dict[str, GlanceBlockBuilder] = {
    "header": HeaderBuilder(),
    "list": ListBuilder(),
    "stats": StatsBuilder(),
    "keyValue": KeyValueBuilder(),
    "bars": BarsBuilder(),
    "line": LineBuilder(),
    "splitBar": SplitBarBuilder(),
    "progress": ProgressBuilder(),
    "badges": BadgesBuilder(),
    "clock": ClockBuilder(),
    "countdown": CountdownBuilder(),
    "divider": DividerBuilder(),
    "row": RowBuilder(),
    "widget": WidgetBuilder(),
}
"""Block `type` → its builder; one entry per kind of the glance set."""


def build_glance_block(block: Any, ctx: GlanceContext) -> QWidget:
    """The widget for one glance block (and its children) at `ctx.width`. Raises KeyError
    for a type outside the glance set, which `read_glance` makes impossible."""
    widget = GLANCE_BUILDERS[block.type].build(block, ctx)
    widget.setProperty("glanceBlock", block.type)
    return widget


__all__ = ["GLANCE_BUILDERS", "GlanceBlockBuilder", "build_glance_block"]

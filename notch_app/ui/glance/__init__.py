"""Glances: the display-only card a tool's result carries for the person
(`{"_voiceos_glance": {"blocks": [...]}}`), drawn in the notch's glass.

`GlanceView` shows the blocks `read_glance` kept; `GLANCE_BUILDERS` maps each block type
to its builder (one small class per kind); `icons` draws the 34 glance icons.
"""

from __future__ import annotations

from notch_app.ui.glance._context import Clock, GlanceContext, WidgetFactory
from notch_app.ui.glance.icons import GlanceIcon, glance_icon_pixmap, paint_glance_icon
from notch_app.ui.glance.registry import GLANCE_BUILDERS, build_glance_block
from notch_app.ui.glance.view import GlanceView

__all__ = [
    "GLANCE_BUILDERS",
    "Clock",
    "GlanceContext",
    "GlanceIcon",
    "GlanceView",
    "WidgetFactory",
    "build_glance_block",
    "glance_icon_pixmap",
    "paint_glance_icon",
]

"""Display blocks: `image`, `badge`, `progress` and `divider`."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from notch_app.manifest.model import BadgeBlock, DividerBlock, ImageBlock, ProgressBlock
from notch_app.manifest.paths import find_bindings
from notch_app.ui.blocks._context import CardContext
from notch_app.ui.theme import style_text
from notch_app.ui.widgets.image_view import ImageView
from notch_app.ui.widgets.label_text import shown
from notch_app.ui.widgets.shapes import Badge, ProgressLine, Rule

_IMAGE_MAX_WIDTH = 400
_STEPS = 1000  # QProgressBar is integer-valued: fractions become thousandths
_PLAIN = Qt.TextFormat.PlainText  # read once: each `Qt.…` lookup is a Python call
# One policy for every badge (setSizePolicy copies it).
_BADGE_POLICY = QSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
_bindings = lru_cache(maxsize=256)(find_bindings)  # one parse per progress value (read only)


class ImageBuilder:
    def build(self, block: ImageBlock, ctx: CardContext) -> QWidget:
        view = ImageView(
            alt=shown(block.alt, 200),
            height=block.height,
            max_width=_IMAGE_MAX_WIDTH,
            base_dir=ctx.base_dir,
            network_domains=ctx.network_domains,
            look=ctx.look,
        )
        ctx.bind_text(block.src, view.set_source)
        return view


class BadgeBuilder:
    def build(self, block: BadgeBlock, ctx: CardContext) -> QWidget:
        # The badge itself, made in place, with no box around it: its size policy keeps it
        # at its own width on the left in a column and beside its neighbours in a row,
        # where a box with a trailing stretch put it (a box and its layout cost a badge
        # a third of its build, and each was one more widget to lay out and paint).
        badge = Badge(ctx.look, block.tone, ctx.parent)
        badge.setObjectName("Badge")
        badge.setTextFormat(_PLAIN)
        badge.setProperty("tone", block.tone)
        badge.setSizePolicy(_BADGE_POLICY)
        ctx.bind_text(block.text, lambda t: badge.setText(shown(t, 80)))
        return badge


def _fraction(value: Any, maximum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        try:
            value = float(str(value))
        except ValueError:
            return 0.0
    v = float(value)
    if not math.isfinite(v):
        return 0.0
    return min(max(v / maximum, 0.0), 1.0)


class ProgressBuilder:
    def build(self, block: ProgressBlock, ctx: CardContext) -> QWidget:
        box = QWidget(ctx.parent)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        if block.label:
            label = QLabel(box)
            label.setObjectName("ProgressLabel")
            label.setTextFormat(_PLAIN)
            style_text(label, "ProgressLabel", ctx.look)
            ctx.bind_text(block.label, lambda t: label.setText(shown(t, 200)))
            layout.addWidget(label)
        bar = ProgressLine(ctx.look, box)
        bar.setRange(0, _STEPS)
        layout.addWidget(bar)

        def show(value: Any) -> None:
            fraction = _fraction(value, block.max)
            bar.setValue(round(fraction * _STEPS))
            bar.setAccessibleName(f"{round(fraction * 100)}%")

        if isinstance(block.value, str):
            found = _bindings(block.value)
            if found:
                ctx.watch(found[0].path, show)
            else:
                show(block.value)
        else:
            show(block.value)
        return box


class DividerBuilder:
    def build(self, block: DividerBlock, ctx: CardContext) -> QWidget:
        # Made inside the card: a parentless widget a visibleIf shows opens as a window.
        line = Rule(ctx.look, ctx.parent)
        line.setObjectName("Divider")
        return line

"""Glance blocks of words and figures: `header`, `list`, `stats`, `keyValue`, `badges`."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from notch_app.manifest.glance import (
    BadgesBlock,
    GlanceBadge,
    HeaderBlock,
    KeyValueBlock,
    ListBlock,
    ListRow,
    Stat,
    StatsBlock,
)
from notch_app.ui.glance._context import TONE_BADGE, GlanceContext
from notch_app.ui.glance._text import GlanceText, glance_line
from notch_app.ui.glance.icons import GlanceIcon
from notch_app.ui.theme import Look
from notch_app.ui.widgets.integration_icon import InstalledIcon
from notch_app.ui.widgets.shapes import Badge

MAX_LIST_ROWS = 6
"""Rows a list shows (the reading drops a longer list; a model built another way is cut)."""
_HEADER_ICON = 20
_APP_ICON = 22
_ROW_ICON = 18


class _AppIcon(QWidget):
    """The installed integration's icon, drawn sharp at the screen's pixel ratio."""

    def __init__(self, icon: InstalledIcon, size: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._icon = icon
        self.setFixedSize(size, size)
        self.setAccessibleName(icon.name)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self._icon.paint(painter, QRectF(self.rect()))
        painter.end()


def glance_badge(badge: GlanceBadge, look: Look, max_width: int) -> Badge:
    """A badge pill in its tone, its text cut to fit `max_width` pixels."""
    pill = Badge(look, TONE_BADGE.get(badge.tone, "neutral"))
    pill.setObjectName("GlanceBadge")
    pill.setTextFormat(Qt.TextFormat.PlainText)
    pill.setProperty("tone", badge.tone)
    text = glance_line(badge.text, 40)
    pad = look.metrics["badge"]["padding_x"] * 2 + 2
    fitted = QFontMetrics(look.font("Badge")).elidedText(
        text, Qt.TextElideMode.ElideRight, max(max_width - pad, 24)
    )
    pill.setText(fitted)
    pill.setAccessibleName(text)
    pill.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
    return pill


class HeaderBuilder:
    def build(self, block: HeaderBlock, ctx: GlanceContext) -> QWidget:
        box = QWidget(ctx.parent)
        box.setObjectName("GlanceHeader")
        line = QHBoxLayout(box)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(9)
        # The app's icon is the installed integration's own: the author's `appIcon` only
        # says "draw it here", never which logo to draw.
        if block.app_icon is not None and ctx.app_icon is not None:
            line.addWidget(_AppIcon(ctx.app_icon, _APP_ICON, box))
        elif block.icon is not None:
            line.addWidget(GlanceIcon(block.icon, _HEADER_ICON, ctx.look.color("text"), box))
        line.addWidget(GlanceText(block.title, "CardTitle", ctx.look, parent=box), 1)
        if block.trailing:
            trailing = GlanceText(
                block.trailing, "ListTrailing", ctx.look, align=Qt.AlignmentFlag.AlignRight
            )
            trailing.setMaximumWidth(ctx.width // 2)
            line.addWidget(trailing)
        return box


class ListBuilder:
    def build(self, block: ListBlock, ctx: GlanceContext) -> QWidget:
        box = QWidget(ctx.parent)
        box.setObjectName("GlanceList")
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        if block.header:
            header = GlanceText(block.header, "AlsoSendsTitle", ctx.look, parent=box)
            column.addWidget(header)
            column.addSpacing(4)
        rows = block.rows[:MAX_LIST_ROWS]
        # Rows line up: when any row has an icon, every row keeps its place.
        icon_column = any(row.icon for row in rows)
        for row in rows:
            column.addWidget(self._row(row, icon_column, ctx, box))
        return box

    def _row(self, row: ListRow, icon_column: bool, ctx: GlanceContext, parent: QWidget) -> QWidget:
        look = ctx.look
        frame = QWidget(parent)
        frame.setObjectName("GlanceListRow")
        line = QHBoxLayout(frame)
        line.setContentsMargins(0, 4, 0, 4)
        line.setSpacing(10)
        if icon_column:
            if row.icon:
                line.addWidget(GlanceIcon(row.icon, _ROW_ICON, look.color("text_quiet"), frame))
            else:
                line.addSpacing(_ROW_ICON)
        texts = QVBoxLayout()
        texts.setSpacing(1)
        texts.addWidget(GlanceText(row.title, "ListTitle", look, parent=frame))
        if row.subtitle:
            texts.addWidget(GlanceText(row.subtitle, "ListSubtitle", look, parent=frame))
        line.addLayout(texts, 1)
        if row.trailing:
            trailing = GlanceText(
                row.trailing, "ListTrailing", look, align=Qt.AlignmentFlag.AlignRight
            )
            trailing.setMaximumWidth(ctx.width // 3)
            line.addWidget(trailing)
        if row.badge is not None:
            line.addWidget(glance_badge(row.badge, look, ctx.width // 3))
        return frame


class _StatColumn(QWidget):
    """One figure: its label over the value, the change under it in its tone."""

    def __init__(self, stat: Stat, ctx: GlanceContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("GlanceStat")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(GlanceText(stat.label, "caption", ctx.look, parent=self))
        column.addWidget(GlanceText(stat.value, "GlanceStat", ctx.look, parent=self))
        if stat.delta:
            delta = GlanceText(
                stat.delta, "CardSubtitle", ctx.look, color=ctx.tone_text(stat.tone), parent=self
            )
            delta.setProperty("tone", stat.tone)
            column.addWidget(delta)
        column.addStretch(1)


class StatsBuilder:
    def build(self, block: StatsBlock, ctx: GlanceContext) -> QWidget:
        box = QWidget(ctx.parent)
        box.setObjectName("GlanceStats")
        line = QHBoxLayout(box)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(14)
        items = block.items[:3]
        share = (ctx.width - 14 * (len(items) - 1)) // max(len(items), 1)
        for stat in items:
            column = _StatColumn(stat, ctx, box)
            column.setFixedWidth(max(share, 24))
            line.addWidget(column, 0, Qt.AlignmentFlag.AlignTop)
        line.addStretch(1)
        return box


class KeyValueBuilder:
    def build(self, block: KeyValueBlock, ctx: GlanceContext) -> QWidget:
        look = ctx.look
        box = QWidget(ctx.parent)
        box.setObjectName("GlanceKeyValue")
        grid = QGridLayout(box)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(6)
        grid.setColumnStretch(1, 1)
        labels = [GlanceText(label, "KeyLabel", look, parent=box) for label, _ in block.pairs[:5]]
        # The labels' column is as wide as its longest label, up to 40 % of the width.
        widest = max((label.sizeHint().width() for label in labels), default=0)
        label_width = min(widest, int(ctx.width * 0.4))
        for row, (label, (_, value)) in enumerate(zip(labels, block.pairs[:5], strict=False)):
            label.setFixedWidth(label_width)
            grid.addWidget(label, row, 0)
            grid.addWidget(GlanceText(value, "KeyValue", look, parent=box), row, 1)
        return box


class BadgesBuilder:
    def build(self, block: BadgesBlock, ctx: GlanceContext) -> QWidget:
        box = QWidget(ctx.parent)
        box.setObjectName("GlanceBadges")
        line = QHBoxLayout(box)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(6)
        items = block.items[:3]
        each = (ctx.width - 6 * (len(items) - 1)) // max(len(items), 1)
        for badge in items:
            line.addWidget(glance_badge(badge, ctx.look, each))
        line.addStretch(1)
        return box

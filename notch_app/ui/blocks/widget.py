"""The `widget` block: a confirmation view that is one sandboxed HTML page.

The page (`notch_app.ui.web`, started on the first widget) gets the view's `data` with its
bindings filled, may resize itself and stage edits (`voiceos:args`), which go to the
card's `WidgetCardState` like the person's own edits. The page sits in Notch's frame,
captioned "Page drawn by the integration", with a "Notch" divider under it; below that
Notch draws "What will run" (every argument, each staged change), and Notch's own Cancel
and confirm go in the card's footer (`notch_footer`). The page can reach none of it, so a
page never approves itself, and any button it draws is visibly inside its own frame.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from notch_app.card.staged_args import WidgetCardState
from notch_app.manifest.model import ActionItem, ActionsBlock, Tool, WidgetBlock
from notch_app.ui.blocks._context import CardContext
from notch_app.ui.theme import Look, style_text
from notch_app.ui.web.frame import CARD_CAPTION, NotchDivider, PageFrame
from notch_app.ui.widgets.shapes import GlassFrame
from notch_app.ui.widgets.what_will_run import WhatWillRun

NO_ENGINE_TEXT = (
    "This page cannot be shown here (the web engine is not installed); "
    "what will run is listed below."
)
STILL_TEXT = "HTML page · runs live in the notch"
"""The second line of the still panel that holds a page's place in a drawn card."""


def notch_footer(block: WidgetBlock, tool: Tool) -> list[ActionsBlock]:
    """Notch's own Cancel and confirm for a widget view: the confirm named for the
    action (the block's `confirmLabel`, else the tool's title)."""
    label = block.confirm_label or tool.title or "Confirm"
    destructive = bool(tool.annotations and tool.annotations.destructive_hint)
    return [
        ActionsBlock(
            type="actions",
            items=[
                ActionItem(label="Cancel", role="cancel"),
                ActionItem(label=label, role="confirm", color="danger" if destructive else None),
            ],
        )
    ]


class WidgetBuilder:
    """The page and, under it, "What will run"; the state must be a WidgetCardState."""

    def build(self, block: WidgetBlock, ctx: CardContext) -> QWidget:
        state = ctx.state
        if not isinstance(state, WidgetCardState):
            raise TypeError("a widget block is drawn only as a widget view's root")
        box = QWidget(ctx.parent)
        box.setObjectName("WidgetView")
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        column.addWidget(PageFrame(_page(block, state, ctx, box), ctx.look, CARD_CAPTION, box))
        column.addWidget(NotchDivider(ctx.look, box))
        section = WhatWillRun(ctx.look, state.revert_all, box)
        column.addWidget(section)

        def follow() -> None:
            section.show_lines(state.what_will_run(), changed=bool(state.edited_paths()))

        follow()
        unsubscribe = state.subscribe(follow)
        box.destroyed.connect(lambda *_: unsubscribe())
        return box


def _page(block: WidgetBlock, state: WidgetCardState, ctx: CardContext, parent: QWidget) -> QWidget:
    from notch_app.ui.web import WidgetDataError, make_html_widget, web_engine_available

    label = block.label or state.tool.title or state.tool.name
    if not ctx.live_pages:
        return StillPage(label, block.height, ctx.look, parent)
    if web_engine_available():
        try:
            page = make_html_widget(
                block.html,
                data=state.page_data(),
                theme="light" if ctx.theme == "light" else "dark",
                height=block.height,
                label=label,
                accepts_arguments=True,
                parent=parent,
            )
        except WidgetDataError as exc:
            return _note(f"This page could not start: {exc}", label, ctx, parent)
        page.setObjectName("WidgetPage")
        page.argumentsStaged.connect(lambda arguments: _staged(state, arguments))
        page.stoppedResponding.connect(state.page_changed)
        return page
    return _note(NO_ENGINE_TEXT, label, ctx, parent)


class StillPage(GlassFrame):
    """The page's place in a card drawn to a file: a faint panel of the page's height
    naming it, since a PNG cannot show a live page (and a one-shot render must not start
    the web engine for it)."""

    def __init__(self, label: str, height: int, look: Look, parent: QWidget | None) -> None:
        from notch_app.ui.web.protocol import clamp_height

        super().__init__(look, "section", parent)
        self.setObjectName("WidgetStill")
        self.setAccessibleName(label)
        self.setFixedHeight(max(clamp_height(height), 56))
        column = QVBoxLayout(self)
        column.setContentsMargins(16, 8, 16, 8)
        column.setSpacing(2)
        column.addStretch(1)
        for text, variant in ((label, "body"), (STILL_TEXT, "caption")):
            shown_text = look.font_metrics(variant).elidedText(
                text, Qt.TextElideMode.ElideRight, 360
            )
            line = QLabel(shown_text, self)
            # The card's width decides; a long label never widens it.
            line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            line.setTextFormat(Qt.TextFormat.PlainText)
            line.setAlignment(Qt.AlignmentFlag.AlignCenter)
            style_text(line, variant, look)
            column.addWidget(line)
        column.addStretch(1)


def _staged(state: WidgetCardState, arguments: Any) -> None:
    # Refused or not, the state says why on the card and holds confirm (on_page_change).
    state.stage(arguments)


def _note(text: str, label: str, ctx: CardContext, parent: QWidget) -> QLabel:
    note = QLabel(text, parent)
    note.setObjectName("WidgetNote")
    note.setTextFormat(Qt.TextFormat.PlainText)
    note.setWordWrap(True)
    note.setAccessibleName(label)
    style_text(note, "caption", ctx.look)
    return note


__all__ = ["NO_ENGINE_TEXT", "STILL_TEXT", "StillPage", "WidgetBuilder", "notch_footer"]

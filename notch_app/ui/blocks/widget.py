"""The `widget` block: a confirmation view that is one sandboxed HTML page.

The page (`notch_app.ui.web`, started on the first widget) gets the view's `data` with its
bindings filled, may resize itself and stage edits (`voiceos:args`), which go to the
card's `WidgetCardState` like the person's own edits. Under the page Notch draws "What
will run" (every argument, each staged change); Notch's own Cancel and confirm go in the
card's footer (`notch_footer`), outside the page, so a page never approves itself.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from notch_app.card.staged_args import WidgetCardState
from notch_app.manifest.model import Tool
from notch_app.manifest.view import ActionItem, ActionsBlock, WidgetBlock
from notch_app.ui.blocks._context import CardContext
from notch_app.ui.theme import style_text
from notch_app.ui.widgets.what_will_run import WhatWillRun

NO_ENGINE_TEXT = (
    "This page cannot be shown here (the web engine is not installed); "
    "what will run is listed below."
)


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
        column.addWidget(_page(block, state, ctx, box))
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


__all__ = ["NO_ENGINE_TEXT", "WidgetBuilder", "notch_footer"]

"""`text` and `markdown` blocks."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTextBrowser, QWidget

from notch_app.manifest.facts import name_words
from notch_app.manifest.model import MarkdownBlock, TextBlock
from notch_app.manifest.paths import MalformedBinding, find_bindings
from notch_app.ui.blocks._context import CardContext, ReadHold
from notch_app.ui.theme import Look, style_text
from notch_app.ui.widgets.code_view import CodeView, SeenScroll
from notch_app.ui.widgets.label_text import shown
from notch_app.ui.widgets.markdown_view import MarkdownView
from notch_app.ui.widgets.wrapped_label import SelectableLabel, WrappedLabel

# Markdown is a document, not a label: a longer bound keeps the layout fast.
_MAX_MARKDOWN_CHARS = 20_000


def wrapped_label(
    object_name: str | None = None,
    look: Look | None = None,
    *,
    selectable: bool = True,
    parent: QWidget | None = None,
) -> WrappedLabel:
    """A plain-text, word-wrapping label (never interpreted as rich text, its height per
    width remembered: `WrappedLabel`), selectable unless told otherwise. With `look`, it
    takes the font and colour of the text role named `object_name` in
    `resources/theme/card.json`."""
    label = SelectableLabel(parent) if selectable else WrappedLabel(parent)
    if object_name:
        label.setObjectName(object_name)
        if look is not None:
            style_text(label, object_name, look)
    return label


class TextBuilder:
    def build(self, block: TextBlock, ctx: CardContext) -> QWidget:
        if block.variant == "code":
            # Never cut: the panel scrolls, counts its lines and holds confirm until seen.
            diff = any(w in ("diff", "patch") for w in _bound_words(block.text))
            view = CodeView(
                ctx.look, ctx.state, f"code:{id(block)}", ctx.parent, folds_context=diff
            )
            view.setProperty("variant", "code")
            ctx.focusable(view.panel)
            ctx.bind_text(block.text, view.set_text)
            return view
        # Plain text, word-wrapped (`wrapped_label`), in the variant's font and colour.
        label = wrapped_label(parent=ctx.parent)
        style_text(label, block.variant, ctx.look)
        ctx.bind_text(block.text, lambda t: label.setText(shown(t)))
        return label


class MarkdownBuilder:
    def build(self, block: MarkdownBlock, ctx: CardContext) -> QWidget:
        # Made parentless, unlike the other blocks: it fits its height to the width it
        # has when its text is set, and a child's smaller first width leaves the card
        # laid out a few pixels shorter than the same card built before.
        view = MarkdownView(open_link=ctx.open_link)  # called, not connected: cheaper
        view.set_link_color(ctx.look.tokens["link"])
        _hold_until_read(view, ctx)
        ctx.bind_text(block.text, lambda t: view.set_markdown(_bounded(t)))
        return view


def _hold_until_read(view: MarkdownView, ctx: CardContext) -> None:
    """Text too long for its box scrolls inside it: confirm waits until all of it has been
    in view, as for a long text area or code panel (nothing approved unseen). The hold is
    made only when the text first scrolls (most markdown is a line or two); while the
    block is folded under Details its reason says to open Details first."""
    state = ctx.state
    key = f"markdown:{id(view):x}"
    hold = ReadHold(view)
    ctx.read_holds.append(hold)

    def scrolls(browser: QTextBrowser) -> None:
        # Reached by Tab and scrolled by the keys, so a person without a pointer can
        # read it to its end too.
        browser.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        seen = hold.seen = SeenScroll(browser, state, key, hold.reason)
        seen.hold()  # before it is laid out: it surely scrolls
        view.reset_seen = seen.reset

    view.scrolls_first = scrolls


def _bounded(text: str) -> str:
    return text if len(text) <= _MAX_MARKDOWN_CHARS else text[:_MAX_MARKDOWN_CHARS] + "…"


__all__ = [
    "MarkdownBuilder",
    "SelectableLabel",
    "TextBuilder",
    "wrapped_label",
]


def _bound_words(template: str) -> set[str]:
    """The words of the argument paths `template` binds (`{{diff}}` → {"diff"})."""
    try:
        return {w for b in find_bindings(template) for w in name_words(b.path)}
    except MalformedBinding:
        return set()

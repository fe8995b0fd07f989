"""The card's frame: the glass and what is laid out in it, top to bottom.

Notch's own strip (who asks) and notice (why it asks), the headline, the scrolling body
with the view's blocks (those the compact view folds each in a holder of its own), the
footer with the view's buttons; and the places Notch's later lines go (its check and
risk lines under the headline, its blockers and hints under the footer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from PySide6.QtWidgets import QLabel, QLayout, QVBoxLayout, QWidget

from notch_app.card.code_text import has_hidden_characters
from notch_app.card.compact import in_compact_view
from notch_app.card.display_text import lookalike_warnings
from notch_app.card.paths import MISSING
from notch_app.card.state import CardState
from notch_app.card.view_shape import InputBinding
from notch_app.manifest.kept import KeptBy
from notch_app.manifest.model import (
    BadgeBlock,
    CardBlock,
    MetadataBlock,
    Tool,
    WidgetBlock,
    walk_blocks,
)
from notch_app.ui.blocks import CardContext, build_block
from notch_app.ui.blocks.inputs import LARGE_VALUE_CHARS, LONG_VALUE_CHARS
from notch_app.ui.blocks.text import wrapped_label
from notch_app.ui.blocks.widget import notch_footer
from notch_app.ui.card_view.body import CardBody
from notch_app.ui.theme import Look
from notch_app.ui.widgets.asker_strip import Asker, AskerStrip
from notch_app.ui.widgets.details_fold import HeadlineLine
from notch_app.ui.widgets.guard_notice import GuardNotice
from notch_app.ui.widgets.shapes import GlassFrame


@dataclass(eq=False)
class Unbuilt:
    """A folded block whose widgets are made when first needed (see `builds_later`)."""

    block: Any
    anchor: QWidget
    """Where its holder goes in the body's column when it is built: a hidden, empty
    widget standing for a run of folded blocks not built yet (twenty holders made for
    nothing were a tenth of a 20-input card's build)."""
    focus_at: int
    """Where its fields go in the card's Tab order (`CardContext.focus_chain`)."""
    editors_at: int
    """Where its editors go in the card's reading order (`CardContext.editors`)."""
    live_at: int = 0
    """Where its live texts go among the card's (`CardContext.live_texts`): the check
    lines they may say later keep the reading order."""


_BUILT_LATER: Final = frozenset(
    {"textField", "passwordField", "select", "toggle", "chips", "stack", "divider",
     "metadata", "badge"}
)  # fmt: skip
"""Block types whose widgets put no confirm button on the card, and whose holds and check
lines can be worked out from CardState while they are not built (see `builds_later`)."""


def _plain(value: Any) -> bool:
    """A value a one-line field shows as it is: no text area, no hidden or look-alike
    characters for the card's check lines."""
    if value is None or value is MISSING or isinstance(value, bool | int | float):
        return True
    if isinstance(value, str):
        return len(value) <= LONG_VALUE_CHARS and value.isascii() and value.isprintable()
    return False


def _plain_area_text(value: Any) -> bool:
    """A value a text area shows as it is, editable, with nothing for the card's check
    lines: no character drawn as a mark, no look-alike letters, not so long that it is
    shown read-only (`LARGE_VALUE_CHARS`)."""
    if not isinstance(value, str):
        return _plain(value)
    return (
        len(value) <= LARGE_VALUE_CHARS
        and not has_hidden_characters(value)
        and not lookalike_warnings(value)
    )


def shown_templates(block: Any) -> list[str]:
    """The texts a folded display block fills from the arguments (`metadata`, `badge`)."""
    if isinstance(block, MetadataBlock):
        return [t for item in block.items for t in (item.label or "", item.value) if t]
    if isinstance(block, BadgeBlock):
        return [block.text]
    return []


_MAX_VIEWS: Final = 256
_IN_COMPACT: KeptBy[tuple[bool, ...]] = KeptBy(_MAX_VIEWS)
"""Per loaded tool's view root: whether the compact view shows each child, worked out
once per tool, not on every card (a walk over every block)."""


def in_compact_view_of(root: CardBlock) -> tuple[bool, ...]:
    """For each child of `root`, whether the compact view shows it (`in_compact_view`)."""
    return _IN_COMPACT.get(root, lambda: tuple(in_compact_view(c) for c in root.children))


def folded_children(root: Any) -> list[Any]:
    """The children of a view's `root` the compact view folds under Details."""
    if not isinstance(root, CardBlock):
        return []
    shows = in_compact_view_of(root)
    return [child for child, shown in zip(root.children, shows, strict=True) if not shown]


_LATER: KeptBy[tuple[tuple[int, ...], frozenset[int], tuple[str, ...]] | None] = KeptBy(4096)
"""Per block of a loaded tool's view: `_later_plan` of it."""


def _later_plan(block: Any) -> tuple[tuple[int, ...], frozenset[int], tuple[str, ...]] | None:
    """What of `builds_later` does not depend on the values, worked out once per block:
    None when a block under it can never wait (a type that may hold a button, a check
    line or a monospace value), else the ids of the blocks under it, those of its text
    areas, and the texts its display blocks fill from the arguments."""
    return _LATER.get(block, lambda: _plan_later(block))


def _plan_later(block: Any) -> tuple[tuple[int, ...], frozenset[int], tuple[str, ...]] | None:
    under: list[int] = []
    areas: set[int] = set()
    templates: list[str] = []
    plan: tuple[tuple[int, ...], frozenset[int], tuple[str, ...]] | None = None
    for visit in walk_blocks(block):
        node = visit.block
        if getattr(node, "type", None) not in _BUILT_LATER or getattr(node, "monospace", False):
            break
        templates.extend(shown_templates(node))
        if getattr(node, "multiline", False):
            areas.add(id(node))
        under.append(id(node))
    else:
        plan = (tuple(under), frozenset(areas), tuple(templates))
    return plan


def builds_later(
    block: Any, state: CardState, bindings: dict[int, list[InputBinding]] | None = None
) -> bool:
    """Whether a folded block can wait for Details (or a field under it asked for)
    before its widgets are made (issue 19: most of a card's inputs are folded, and
    building them hidden was half the card's cost). Only when everything the card
    decides from those widgets can be worked out from CardState until they are made:
    one-line inputs, choices, text areas, metadata and badges in their containers,
    whose values hold no hidden or look-alike characters (check lines), no text too
    long to show whole, and no button. A text area that may scroll holds confirm while
    not built (`CardFold`) as it would built and folded. `bindings`: the card's
    `bindings_by_block`, when asked for several blocks."""
    plan = _later_plan(block)
    if plan is None:
        return False
    under, areas, templates = plan
    if any(state.text_warnings(t) for t in templates):
        return False
    if bindings is None:
        bindings = bindings_by_block(state)
    for node_id in under:
        for binding in bindings.get(node_id, ()):
            value = state.value(binding.path)
            items = value if isinstance(value, list) and binding.kind == "chips" else [value]
            plain = _plain_area_text if node_id in areas else _plain
            if not all(plain(item) for item in items):
                return False
    return True


def bindings_by_block(state: CardState) -> dict[int, list[InputBinding]]:
    """The card's inputs by id(block), for `builds_later` (asked once per folded block)."""
    bindings: dict[int, list[InputBinding]] = {}
    for binding in state.inputs:
        bindings.setdefault(id(binding.block), []).append(binding)
    return bindings


@dataclass(eq=False)
class CardFrame:
    """The laid-out card: its glass, the column in it and the parts later lines join."""

    glass: GlassFrame
    column: QVBoxLayout
    """The glass's own layout, top to bottom."""
    width: int
    headline_line: HeadlineLine
    notes_at: int
    """Where Notch's lines under the headline go (check notes, risk lines, changes)."""
    footer: QVBoxLayout = field(default_factory=QVBoxLayout)
    asker_strip: AskerStrip | None = None
    notice: GuardNotice | None = None
    body: CardBody | None = None
    """The scrolling body, made when it first has something to show (`content`)."""
    blocks: QWidget | None = None
    """The body's content (None for a card without a body): in the body, or standing in
    the column in the body's place while nothing in it shows (the speech card's text and
    voice wait for Details: its scroll area, bars and viewport were a tenth of its build)."""
    blocks_column: QVBoxLayout | None = None
    """The layout of `blocks`, read without making the body (an anchor, an index)."""
    screen_height: int | None = None
    look: Look | None = None
    body_made: Callable[[CardBody], None] | None = None
    """Called with the body when it is made after the card was built (its hold)."""
    unfolded: bool = False
    """The body grows whole (`CardBody.unfold`), made now or later."""
    folded: list[tuple[Any, QWidget]] = field(default_factory=list)
    """The blocks folded under Details, each with the widget the fold shows or hides: its
    holder, or for a block without visibleIf its own widget (or, while it is not built,
    the anchor its holder will stand at)."""
    unbuilt: list[Unbuilt] = field(default_factory=list)
    """Folded blocks not built yet, in reading order (`CardFold.build` makes them)."""

    @property
    def content(self) -> QVBoxLayout | None:
        """The body's column of blocks (None for a card without a body), for adding what
        shows in it: the body is made first if it was not yet."""
        if self.blocks is not None and self.body is None:
            self._make_body(self.blocks)
        return self.blocks_column

    def _make_body(self, blocks: QWidget) -> CardBody:
        """The scrolling body around `blocks`, in their place in the column. On a card on
        screen the column shows it on its next pass, laid out (shown now, at a size of
        its own, it would scroll for a moment and keep a "More below" band)."""
        at = self.column.indexOf(blocks)
        assert self.look is not None  # set with `blocks` (`_add_body`)
        body = CardBody(blocks, self.width - 40, self.look, self.glass)
        body.screen_height = self.screen_height
        body.chrome = self.chrome_height
        if self.unfolded:
            body.unfold()
        self.body = body
        self.column.insertWidget(at, body)
        if self.body_made is not None:
            self.body_made(body)
        return body

    def body_index(self) -> int | None:
        """Where the body stands in the column (made or not); None without one."""
        place = self.body if self.body is not None else self.blocks
        return self.column.indexOf(place) if place is not None else None

    def under_footer(self) -> int:
        """The column's index right under the footer."""
        column = self.column
        return next(
            i + 1
            for i in range(column.count())
            if (item := column.itemAt(i)) is not None and item.layout() is self.footer
        )

    def footer_at(self) -> int:
        """The footer's own index in the column."""
        return self.under_footer() - 1

    def chrome_height(self) -> int:
        """The card's height without its body: the strip, headline, footer and the lines
        around them, as laid out now."""
        column = self.column
        margins = column.contentsMargins()
        total = margins.top() + margins.bottom()
        width = self.width - margins.left() - margins.right()
        parts = 0
        for i in range(column.count()):
            item = column.itemAt(i)
            if item is None:
                continue
            widget = item.widget()
            if widget is self.body or widget is self.blocks:
                parts += 1
                continue
            if widget is not None and widget.isHidden():
                continue
            # A wrapped line's height at the card's own width (its size hint assumes
            # some narrower width and reads taller).
            height = (
                item.heightForWidth(width) if item.hasHeightForWidth() else item.sizeHint().height()
            )
            if height > 0:
                total += height
                parts += 1
        return total + column.spacing() * max(0, parts - 1)


def lay_out_card(
    card: QWidget,
    ctx: CardContext,
    tool: Tool,
    *,
    width: int,
    asker: Asker | None,
    notice: str | None,
    with_body: bool,
    compact: bool,
    screen_height: int | None,
    later: bool = True,
) -> CardFrame:
    """Lay `card` out: its glass, Notch's strip and notice, the headline, the body (when
    the view has blocks for it, or `with_body`) holding the view's blocks, and the footer.
    `later` False: a compact card that opens unfolded builds its folded blocks now (they
    are on screen at once), none of them waits for Details (`builds_later`)."""
    frame = _glass(card, ctx, width, asker, notice)
    root = ctx.state.view.root
    children = list(root.children) if isinstance(root, CardBlock) else [root]
    footer_blocks: list[Any] = list(root.footer) if isinstance(root, CardBlock) else []
    if isinstance(root, WidgetBlock):
        footer_blocks = notch_footer(root, tool)  # Notch's own, outside the page
    content: QWidget | None = None
    if children or with_body:
        content = _add_body(frame, ctx, screen_height)
    frame.footer.setSpacing(8)
    frame.column.addLayout(frame.footer)
    anchor: QWidget | None = None
    shows = in_compact_view_of(root) if isinstance(root, CardBlock) else (True,)
    later = compact and later
    bindings = bindings_by_block(ctx.state) if later else {}
    for child, shown in zip(children, shows, strict=True):
        assert content is not None and frame.blocks_column is not None
        folds = compact and not shown
        if folds and later and builds_later(child, ctx.state, bindings):
            # Built when Details first opens or one of its fields is asked for.
            if anchor is None:
                anchor = QWidget(content)
                anchor.setVisible(False)  # for good: only the holders made later show
                frame.blocks_column.addWidget(anchor)
            frame.folded.append((child, anchor))
            frame.unbuilt.append(
                Unbuilt(child, anchor, len(ctx.focus_chain), len(ctx.editors), len(ctx.live_texts))
            )
            continue
        anchor = None
        column = frame.content  # the body is made before its first block is built
        assert column is not None
        built = build_block(child, ctx, content)
        if folds and getattr(child, "visible_if", None):
            # Folded under Details and shown by its visibleIf: a holder of its own, so
            # the fold and the visibleIf never set the same widget's visibility. A block
            # without one is shown and hidden by the fold itself (only `build_block`'s
            # visibleIf sets a block's own widget's visibility; 8 holders were 0.3 ms of
            # the invoice card's build).
            holder = QWidget(content)
            held = QVBoxLayout(holder)
            held.setContentsMargins(0, 0, 0, 0)
            held.addWidget(built)
            built = holder
        if folds:
            frame.folded.append((child, built))
        column.addWidget(built)
    for block in footer_blocks:
        frame.footer.addWidget(build_block(block, ctx, frame.glass))
    return frame


def _glass(
    card: QWidget, ctx: CardContext, width: int, asker: Asker | None, notice: str | None
) -> CardFrame:
    """The glass with Notch's strip and notice, and the headline under them."""
    outer = QVBoxLayout(card)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)
    glass = GlassFrame(ctx.look, "card", card)
    glass.setObjectName("NotchCard")
    glass.setFixedWidth(width)
    outer.addWidget(glass)
    column = QVBoxLayout(glass)
    column.setContentsMargins(20, 18, 20, 16)
    column.setSpacing(12)
    # Who is asking, in Notch's own strip across the top of the glass: placed by the
    # card, not by a layout, above the margins every block is laid out in, so no
    # block can cover or copy it. The glass's width is fixed, so is the strip's.
    strip: AskerStrip | None = None
    if asker is not None:
        strip = AskerStrip(ctx.look, asker, ctx.look.radius["card"], glass)
        strip.setGeometry(0, 0, width, strip.height())
        column.setContentsMargins(20, strip.height() + 14, 20, 16)
    guard: GuardNotice | None = None
    if notice and notice.strip():
        guard = GuardNotice(ctx.look, notice)
        column.addWidget(guard)
        card.setAccessibleDescription(guard.text)
    header = QVBoxLayout()
    header.setSpacing(3)
    column.addLayout(header)
    ctx.parent = glass
    # The card's first line is its headline: the action and its key facts in plain
    # words (the author's title is one of the things it is made from).
    headline_line = HeadlineLine(ctx.look, ctx.state, glass)
    header.addWidget(headline_line)
    root = ctx.state.view.root
    if isinstance(root, CardBlock) and root.subtitle:
        # The author's subtitle, under the headline: made when the headline's first
        # refresh shows it (most headlines say it already: "in ~/Downloads").
        def make_subtitle(text: str) -> QLabel:
            label = wrapped_label("CardSubtitle", ctx.look, parent=glass)
            label.setText(text)
            header.addWidget(label)
            return label

        headline_line.make_subtitle = make_subtitle
        ctx.bind_text(root.subtitle, headline_line.say_subtitle)
    # Notch's own lines under the title go here: hidden characters and look-alike
    # letters, risk lines, changes (made now or when first needed).
    return CardFrame(
        glass, column, width, headline_line, column.count(), asker_strip=strip, notice=guard
    )


def _add_body(frame: CardFrame, ctx: CardContext, screen_height: int | None) -> QWidget:
    """The body's content, joined to the card before its blocks are built: each block
    takes the card's palette and font once, as it is added, instead of the whole body
    being re-themed when it joins at the end. It stands in the column in the body's
    place, and the scrolling body is made around it when it first has something to show
    (`CardFrame.content`): an empty content is as tall as an empty body (nothing), and
    its place in the column is the body's. Returns the body's content widget."""
    content = QWidget(frame.glass)
    content.setObjectName("CardBodyContent")
    column = QVBoxLayout(content)
    column.setContentsMargins(0, 0, 4, 0)
    column.setSpacing(12)
    frame.screen_height = screen_height
    frame.look = ctx.look
    frame.blocks = content
    frame.blocks_column = column
    frame.column.addWidget(content)
    return content

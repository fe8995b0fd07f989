"""CardView: one confirmation request as a live, editable card.

The widget tree comes from the block registry (`notch_app.ui.blocks`); everything the
card decides (values, gating, visibility, final arguments) comes from the Qt-free
CardState. After each edit CardView re-applies only what depends on bindings: live
texts, `visibleIf`, watched values, field errors and the confirm gate.

Kept in one file (~650 lines) on purpose: the re-apply after each edit is one pass over
every part of the card (texts, visibility, errors, gate, fold), and must stay one pass.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFontMetrics,
    QGuiApplication,
    QInputEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QFrame,
    QGraphicsOpacityEffect,
    QHBoxLayout,
    QLabel,
    QLayout,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from notch_app.card.also_sends import AlsoSent, also_sends
from notch_app.card.argument_changes import Changes
from notch_app.card.coerce import is_blank
from notch_app.card.compact import in_compact_view
from notch_app.card.display_text import lookalike_warnings, mark_invisible
from notch_app.card.interpolate import display_value
from notch_app.card.read_back import card_read_back
from notch_app.card.staged_args import WidgetCardState, card_state_for
from notch_app.card.state import REQUIRED_MESSAGE, CardState
from notch_app.manifest.facts import shown_paths
from notch_app.manifest.model import CardBlock, Tool, WidgetBlock, walk_blocks
from notch_app.manifest.paths import MalformedBinding, parse_single_binding
from notch_app.reply import classify_reply
from notch_app.runtime.approval_memory import Change
from notch_app.ui.blocks import CardContext, build_block
from notch_app.ui.blocks._context import Editor
from notch_app.ui.blocks.inputs import InputEditor
from notch_app.ui.blocks.layout import add_card_header
from notch_app.ui.blocks.text import wrapped_label
from notch_app.ui.blocks.widget import notch_footer
from notch_app.ui.input_time import made_at
from notch_app.ui.theme import Look
from notch_app.ui.widgets.also_sends import AlsoSendsSection, CheckNotes
from notch_app.ui.widgets.asker_strip import Asker, AskerStrip
from notch_app.ui.widgets.change_marks import ChangeMarks
from notch_app.ui.widgets.code_view import SeenScroll
from notch_app.ui.widgets.details_fold import (
    DETAILS_KEY,
    DETAILS_REASON,
    DetailsToggle,
    FoldedFacts,
    HeadlineLine,
)
from notch_app.ui.widgets.guard_notice import GuardNotice
from notch_app.ui.widgets.label_text import shown
from notch_app.ui.widgets.link_prompt import LinkPrompt
from notch_app.ui.widgets.markdown_view import link_allowed
from notch_app.ui.widgets.reply_field import ReplyField
from notch_app.ui.widgets.risk_notes import RiskSection
from notch_app.ui.widgets.save_failure_notice import SaveFailureNotice
from notch_app.ui.widgets.scope_choices import Scope, ScopeChoices
from notch_app.ui.widgets.shapes import GlassFrame, ThinScrollBar
from notch_app.ui.widgets.voice_words import VoiceWords

BODY_SCROLL_REASON = "Scroll the card to see all of it first"
"""Why confirm waits while part of a folded card's body has not been on screen."""

MAX_BODY_HEIGHT = 520
"""The card's content scrolls past this height on a small screen; header and footer stay put."""

HELD_CONFIRM_OPACITY = 0.4
"""A held (not yet armed) confirm button is drawn at this opacity: its own colour,
plainly not ready, unlike the grey of a confirm the card's required fields block."""

SCREEN_SHARE = 0.7
"""No card is taller than this share of the screen it is on: a notch, not a dialog."""
SCREEN_RESERVE = 250
"""Of that share, what is not the body: the notch's own header, the identity strip, the
headline, Details, the footer and the reply line. A taller screen shows more of the card
unscrolled: what a person is about to approve should be in view, not below a fold."""
MIN_BODY_HEIGHT = 160
NOTCH_CHROME = 52
"""The notch's own header and padding around a card, in pixels."""


def max_body_height(widget: QWidget) -> int:
    """How tall the card's body may grow before it scrolls, on the screen `widget` is on:
    the card as a whole stays within SCREEN_SHARE of the screen's height."""
    height: int | None = getattr(widget, "screen_height", None)
    if height is None:
        screen = widget.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return MAX_BODY_HEIGHT
        height = screen.availableGeometry().height()
    share = int(height * SCREEN_SHARE)
    chrome: Callable[[], int] | None = getattr(widget, "chrome", None)
    reserve = chrome() + NOTCH_CHROME if chrome is not None else SCREEN_RESERVE
    return max(MIN_BODY_HEIGHT, share - reserve)


class _MoreBelow(QWidget):
    """A small "More below" pill under the bottom of a scrolled body, so content past the
    fold is never silently out of sight. A click scrolls down one page. While the body
    scrolls it keeps a band of its own under the viewport (the body's bottom viewport
    margin): the pill never covers a field, a list row or a code panel's lines."""

    TEXT = "More below \u2193"

    def __init__(self, body: QScrollArea, look: Look) -> None:
        super().__init__(body)
        self._body = body
        self._look = look
        metrics = QFontMetrics(look.font("caption"))
        self.resize(metrics.horizontalAdvance(self.TEXT) + 22, metrics.height() + 8)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("The card continues below; scroll to see all of it")
        self.setAccessibleName("More below")
        bar = body.verticalScrollBar()
        bar.rangeChanged.connect(lambda _lo, _hi: self.follow())
        bar.valueChanged.connect(lambda _v: self.follow())
        self.hide()

    @property
    def band(self) -> int:
        """The height kept under the body's viewport for the pill while the body scrolls."""
        return self.height() + 4

    def follow(self) -> None:
        """Show while part of the body is below the visible area, centred in its band
        under the viewport."""
        body = self._body
        bar = body.verticalScrollBar()
        scrolls = bar.maximum() > 0
        # The band comes with a scroll range and goes only once the content fits with
        # room to spare (with the band it always scrolls a little: no flip-flop).
        banded = body.viewportMargins().bottom() > 0
        if scrolls != banded:
            body.setViewportMargins(0, 0, 0, self.band if scrolls else 0)
            return  # the range changes with the margin: follow() runs again
        more = scrolls and bar.value() < bar.maximum()
        if more:
            viewport = body.viewport().geometry()
            self.move(viewport.x() + (viewport.width() - self.width()) // 2, viewport.bottom() + 3)
            self.raise_()
        self.setVisible(more)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        bar = self._body.verticalScrollBar()
        bar.setValue(bar.value() + bar.pageStep())
        event.accept()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = QColor(self._look.color("glass_fill"))
        fill.setAlpha(255)  # opaque: the text must not mix with the field beneath
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(QPen(self._look.color("ghost_border"), 1))
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        painter.setPen(self._look.color("text_quiet"))
        painter.setFont(self._look.font("caption"))
        painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.TEXT)
        painter.end()


class _Body(QScrollArea):
    """The scrolling middle of the card, as tall as its content up to `max_body_height`."""

    def __init__(
        self, content: QWidget, content_width: int, look: Look, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setVerticalScrollBar(ThinScrollBar(look))
        self._content_width = content_width
        self._content = content
        # The content's height for the card's width: asked several times per layout pass
        # (size and minimum size, by each enclosing layout), each time a walk over every
        # block; kept until the content's layout changes.
        self._hint: QSize | None = None
        self._unfolded = False
        self.screen_height: int | None = None
        self.chrome: Callable[[], int] | None = None
        """The card's height without this body (set by the card): the body takes what
        is left of SCREEN_SHARE, no more."""
        """The height of the screen the card is drawn for, when not the one it is on
        (`notch render --screen-size`, golden pictures)."""
        self.reserve = 0
        """Height of Notch's own lines shown above the body after the card was built (the
        words for a spoken yes): taken off the body's maximum, so the card grows no taller
        on a short screen."""
        self.setObjectName("CardBody")
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.viewport().setAutoFillBackground(False)
        content.setAutoFillBackground(False)
        self.more_below = _MoreBelow(self, look)

    def follow_content(self) -> None:
        """From now on, pass the content's layout changes on to the card: a scroll area
        hides them, and the card must grow (up to `max_body_height`) when a field grows or
        a block appears. Called once the blocks are built: while they are added, the
        filter would be a Python call for every event."""
        self._content.installEventFilter(self)
        self.refresh()

    def unfold(self) -> None:
        """Grow to the content's whole height from now on: no fold, no "More below"."""
        self._unfolded = True
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.refresh()

    def refresh(self) -> None:
        """Forget the measured height and ask the card to lay out again."""
        self._hint = None
        self.updateGeometry()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.refresh()
        return False

    def sizeHint(self) -> QSize:
        if self._hint is not None:
            return self._hint
        content = self._content
        width = self._content_width
        layout = content.layout()
        if layout is not None and layout.hasHeightForWidth():
            h = layout.totalHeightForWidth(width)
        else:
            h = content.sizeHint().height()
        # With `chrome` the card's own lines are measured (the voice words among them).
        reserve = 0 if self.chrome is not None else self.reserve
        hint = QSize(width, h if self._unfolded else min(h, max_body_height(self) - reserve))
        if self._content.testAttribute(Qt.WidgetAttribute.WA_WState_Polished):
            self._hint = hint  # before polish the sizes are not final yet
        return hint

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def folded(self) -> bool:
        """Whether the content is taller than the body may grow: part of it is below the
        fold until scrolled to (never once unfolded)."""
        if self._unfolded:
            return False
        layout = self._content.layout()
        if layout is not None and layout.hasHeightForWidth():
            height = layout.totalHeightForWidth(self._content_width)
        else:
            height = self._content.sizeHint().height()
        return height > max_body_height(self)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.more_below.follow()


UNCLEAR_ONCE = "Not sure what you meant — yes, no, or what to change?"
"""What the card says to a reply it cannot read as yes, no or a change ("hmm maybe")."""
UNCLEAR_TWICE = "Still not sure — nothing was sent. Use the buttons to decide."
"""After a second unclear reply: the card stays as it is, for a click."""


class CardView(QWidget):
    """One confirmation request, rendered from the tool's confirmation view.

    `decided(approved, final_arguments, edited_paths)` fires once (again after
    `show_save_failure`): on confirm (only while CardState allows it) with the edited
    arguments, on cancel with `(False, {}, [])`.
    `asker` (from `asker_for`) is who asks: drawn by the card itself in a strip above
    the title that no block can reach. `notice` is why the card shows although the
    person turned Asks first off (the request's `reason`, e.g. "Asks anyway: amount is
    over 500"): shown as a quiet line at the top of the card and given as the card's
    accessible description. With `live_pages` False a widget view's HTML page is not
    started (no web engine): a still panel holds its place, as `notch render` draws it.
    With `compact` (the default) the card opens at a notch's size: its headline, the
    blocks of the compact view, one line per folded value and "Details", which unfolds
    the whole form in place (see `notch_app.card.compact`); False shows the whole form.
    `screen_height` draws it for a screen of that height instead of the one it is on.
    Raises ValueError (from CardState) when the tool has no usable confirmation view.
    """

    decided = Signal(bool, dict, list)
    revised = Signal(str)
    """The person declined with words for the agent ("make it shorter"): the overlay
    turns it into a decline with reason "revise" and the words as feedback."""
    changedByPage = Signal()
    """A widget view's page changed the card (staged edits): the overlay holds confirm."""

    def __init__(
        self,
        tool: Tool,
        arguments: Mapping[str, Any],
        *,
        base_dir: Path | None = None,
        network_domains: tuple[str, ...] = (),
        theme: str = "dark",
        width: int = 440,
        notice: str | None = None,
        asker: Asker | None = None,
        scopes: bool = False,
        live_pages: bool = True,
        compact: bool = True,
        screen_height: int | None = None,
        changes: Sequence[Change] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        from notch_app.ui import theme as theme_module

        theme_name = theme_module.theme_name(theme)
        self._state = card_state_for(tool, arguments)
        if isinstance(self._state, WidgetCardState):
            self._state.on_page_change(self.changedByPage.emit)
        self._decision: bool | None = None
        self.approval_scope: Scope = "once"
        """How far the person's yes reaches: this call, this agent's session, or always."""
        self.reply_words: str | None = None
        """The typed (or spoken) reply that decided the card, for the log; None for a
        click or a key."""
        self._armed = True  # see set_armed: the overlay holds confirm on a card just shown
        self._armed_since = 0.0  # time.monotonic() when confirm last armed
        self.setObjectName("NotchCardView")
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground, True)
        self._link_prompt: LinkPrompt | None = None
        self._ctx = CardContext(
            state=self._state,
            theme=theme_name,
            base_dir=base_dir,
            network_domains=network_domains,
            press=self._pressed,
            open_link=self.open_link,
            build_block=build_block,
            live_pages=live_pages,
        )
        # The theme reaches every widget through inheritance: a palette and a font set
        # here, before any child exists, cost nothing per widget (a style sheet would).
        self.setPalette(self._ctx.look.base_palette)
        self.setFont(theme_module.card_font())

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)
        glass = GlassFrame(self._ctx.look, "card", self)
        glass.setObjectName("NotchCard")
        glass.setFixedWidth(width)
        outer.addWidget(glass)
        frame = QVBoxLayout(glass)
        frame.setContentsMargins(20, 18, 20, 16)
        frame.setSpacing(12)
        # Who is asking, in Notch's own strip across the top of the glass: placed by the
        # card, not by a layout, above the margins every block is laid out in, so no
        # block can cover or copy it. The glass's width is fixed, so is the strip's.
        self.asker_strip: AskerStrip | None = None
        if asker is not None:
            strip = AskerStrip(self._ctx.look, asker, self._ctx.look.radius["card"], glass)
            strip.setGeometry(0, 0, width, strip.height())
            frame.setContentsMargins(20, strip.height() + 14, 20, 16)
            self.asker_strip = strip

        self._notice: GuardNotice | None = None
        if notice and notice.strip():
            self._notice = GuardNotice(self._ctx.look, notice)
            frame.addWidget(self._notice)
            self.setAccessibleDescription(self._notice.text)

        root = self._state.view.root
        header = QVBoxLayout()
        header.setSpacing(3)
        frame.addLayout(header)
        self._ctx.parent = glass
        # The card's first line is its headline: the action and its key facts in plain
        # words (the author's title is one of the things it is made from).
        self.headline_line = HeadlineLine(self._ctx.look, self._state, glass)
        header.addWidget(self.headline_line)
        if isinstance(root, CardBlock) and root.subtitle:
            add_card_header(root.model_copy(update={"title": None}), header, self._ctx)
            subtitle = header.itemAt(header.count() - 1)
            line = subtitle.widget() if subtitle is not None else None
            self.headline_line.subtitle = line if isinstance(line, QLabel) else None
        children = list(root.children) if isinstance(root, CardBlock) else [root]
        footer_blocks: list[Any] = list(root.footer) if isinstance(root, CardBlock) else []
        if isinstance(root, WidgetBlock):
            footer_blocks = notch_footer(root, tool)  # Notch's own, outside the page
        # Notch's own lines under the title: hidden characters and look-alike letters in
        # what the card shows (made now, shown only when there is something to say).
        self._check_notes: CheckNotes | None = None  # made when first needed
        self._check_notes_at = frame.count()
        self._check_kept: dict[str, tuple[Any, list[str]]] = {}
        """Per field: the value its check lines were made for, and those lines."""
        also = also_sends(self._state)
        self._also_sends: AlsoSendsSection | None = None
        self._body: _Body | None = None
        self._content_layout: QVBoxLayout | None = None
        if children or also:
            # The scrolling body joins the card before its blocks are built, so each
            # block takes the card's palette and font once, as it is added, instead of
            # the whole body being re-themed when it joins at the end.
            content = QWidget()
            content.setObjectName("CardBodyContent")
            body = QVBoxLayout(content)
            body.setContentsMargins(0, 0, 4, 0)
            body.setSpacing(12)
            self._body = _Body(content, width - 40, self._ctx.look, glass)
            self._body.screen_height = screen_height
            self._body.chrome = self._chrome_height
            self._ctx_width = width
            self._content_layout = body
            frame.addWidget(self._body)
        footer = QVBoxLayout()
        footer.setSpacing(8)
        frame.addLayout(footer)
        self._frame = frame
        self._footer = footer
        folded: list[tuple[Any, QWidget]] = []
        self._folded: list[QWidget] = []
        for child in children:
            built = build_block(child, self._ctx, content)
            if compact and isinstance(root, CardBlock) and not in_compact_view(child):
                # Folded under Details: a holder of its own, so the fold and the block's
                # visibleIf never set the same widget's visibility.
                holder = QWidget(content)
                held = QVBoxLayout(holder)
                held.setContentsMargins(0, 0, 0, 0)
                held.addWidget(built)
                folded.append((child, holder))
                self._folded.append(holder)
                built = holder
            body.addWidget(built)
        for block in footer_blocks:
            footer.addWidget(build_block(block, self._ctx, glass))
        self.scope_choices: ScopeChoices | None = None
        if scopes and self._ctx.confirm_buttons:
            # Under confirm, never in its place; gated and held with it.
            choices = ScopeChoices(self._ctx.look, self._allow_from_choices, glass)
            footer.addWidget(choices)
            self._ctx.confirm_buttons.extend(choices.buttons.values())
            self.scope_choices = choices
            choices.follow(self._state)  # what each choice covers, for the card's values
        # Notch's risk lines above the body (issue 20): what the call does that a person
        # should see first; a risky call's confirm takes the destructive style.
        self.risk = RiskSection(self._ctx.look, self._state, self._ctx.confirm_buttons, glass)
        frame.insertWidget(self._check_notes_at, self.risk.notes)
        # What differs from the person's last approvals of this action (issue 20): under
        # the risk lines; a card with marks opens expanded at the first marked field.
        self.changes = ChangeMarks(self._ctx.look, changes, glass)
        frame.insertWidget(self._check_notes_at + 1, self.changes)
        if self.changes.changes:
            QTimer.singleShot(0, self.show_first_change)
        # Decline with words: a quiet line under the footer, opened only when clicked.
        # The words for a spoken yes (made when the overlay gives them; see show_voice_words).
        self.voice_words_line: VoiceWords | None = None
        self.reply_field = ReplyField(self._ctx.look, glass)
        self.reply_field.submitted.connect(self.reply)
        self.reply_field.closed.connect(lambda: self.setFocus(Qt.FocusReason.OtherFocusReason))
        frame.addWidget(self.reply_field)
        self._ctx.focus_chain.append(self.reply_field.invitation)
        self._show_also_sends(also)
        self._show_check_notes()
        self.details: DetailsToggle | None = None
        self.folded_facts: FoldedFacts | None = None
        if folded and self._content_layout is not None:
            self._make_fold(folded, width - 40, notice)
        else:
            self._refresh_fold()
        # Polished now (as showing would), so the sizes asked from here on are final: the
        # body's height for its width changes with polish, and a card sized before it
        # would be laid out and painted too short, then grow a frame later.
        self.ensurePolished()
        if self._body is not None:
            self._body.follow_content()
            # What the card holds below its fold must have been on screen before confirm
            # opens, as for a scrolling code panel (nothing approved unseen).
            self._body_seen = SeenScroll(
                self._body,
                self._state,
                "card:body",
                lambda: BODY_SCROLL_REASON,
                overflows=self._body.folded,
            )
            if self._body.folded():  # closed from the start, shown or not (Approve all)
                self._body_seen.hold()
        # The line saying why confirm is unavailable is made the first time it is.
        self._blockers: QLabel | None = None
        self._save_failure: SaveFailureNotice | None = None  # see show_save_failure
        self._enter_hint: QLabel | None = None  # see keyPressEvent

        # Enter and Esc are not filtered on every widget (an event filter on each costs
        # a Python call per event while the card builds); the fields ignore them, so
        # they reach keyPressEvent below.
        chain = self._ctx.focus_chain
        for a, b in itertools.pairwise(chain):
            QWidget.setTabOrder(a, b)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._last_gate: tuple[bool, tuple[str, ...], tuple[str, ...]] | None = None
        self._apply_gate()
        # A proposal the schema refuses says why at its field from the start.
        for path, editor in self._ctx.editors.items():
            editor.set_error(self._state.field_error(path))
        # What the card's parts were last made from: an edit is followed by looking again
        # only at the parts that read what it changed (see `_changed`).
        self._read_from = self._state.arguments()
        self._errors_shown: dict[str, str | None] | None = None
        self._unsubscribe = self._state.subscribe(self._changed)
        # After the card's own pass: the headline and the confirm words follow the
        # values that pass has just applied.
        self._unsubscribe_fold = self._state.subscribe(self._refresh_fold)
        self.destroyed.connect(lambda *_: None)

    def _chrome_height(self) -> int:
        """The card's height without its body: the strip, headline, footer and the lines
        around them, as laid out now."""
        frame = self._frame
        margins = frame.contentsMargins()
        total = margins.top() + margins.bottom()
        width = self._ctx_width - margins.left() - margins.right()
        parts = 0
        for i in range(frame.count()):
            item = frame.itemAt(i)
            if item is None:
                continue
            widget = item.widget()
            if widget is self._body:
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
        return total + frame.spacing() * max(0, parts - 1)

    # --- the compact first view (issue 22) ---------------------------------------------

    def _make_fold(self, folded: list[tuple[Any, QWidget]], width: int, notice: str | None) -> None:
        """The compact view: what is folded says its values in one line each, "Details"
        unfolds the form in place. Opens unfolded where the person has to act or read:
        an empty required field, a refused value, a notice."""
        state = self._state
        under = {id(v.block) for block, _h in folded for v in walk_blocks(block)}
        inputs = [b for b in state.inputs if id(b.block) in under]
        # A value a block of the compact view already shows whole is not said twice
        # (the playlist's description under its cover; a switch its badge stands for).
        root = state.view.root
        kept = (
            [c for c in root.children if in_compact_view(c)] if isinstance(root, CardBlock) else []
        )
        shown = {s.path for child in kept for s in shown_paths(child)}
        for child in kept:
            for visit in walk_blocks(child):
                condition = getattr(visit.block, "visible_if", None)
                if isinstance(condition, str):
                    with contextlib.suppress(MalformedBinding):
                        shown.add(parse_single_binding(condition))
        inputs = [b for b in inputs if b.path not in shown]
        facts = FoldedFacts(self._ctx.look, state, inputs, width)
        content = self._content_layout
        assert content is not None
        # Where the first folded block stands: the facts keep the form's reading order.
        content.insertWidget(max(0, content.indexOf(folded[0][1])), facts)
        self.folded_facts = facts
        toggle = DetailsToggle(self._ctx.look, self._frame.parentWidget())
        toggle.set_count(len(inputs))
        choices = self.scope_choices.layout() if self.scope_choices is not None else None
        room = width - toggle.sizeHint().width() - 12
        if isinstance(choices, QHBoxLayout) and choices.sizeHint().width() <= room:
            # On the left of "or Allow for this session · Always allow": a line, not two
            # (a long scope, "Allow `npm test` for this session", keeps its line whole).
            choices.insertWidget(0, toggle)
        else:
            assert self._body is not None  # a fold needs a body to fold
            self._frame.insertWidget(self._frame.indexOf(self._body) + 1, toggle)
        self.details = toggle
        self._ctx.focus_chain.append(toggle)
        toggle.toggled_open.connect(self._show_fold)
        self._refresh_fold()
        must_act = any(
            b.required and state.is_visible(b.block) and is_blank(state.value(b.path))
            for b in inputs
        ) or any(state.field_error(b.path) for b in inputs)
        # A risky call is not unfolded for its risk: its risk lines stand above the body
        # and what runs as written (the command, the diff) is always in the first view.
        marks = getattr(self, "changes", None)
        risky = bool(marks is not None and marks.changes)  # changed since last time
        if must_act or risky or (notice and notice.strip()):
            toggle.set_open(True)
        else:
            self._show_fold(False)

    def _show_fold(self, opened: bool) -> None:
        for holder in self._folded:
            holder.setVisible(opened)
        for editor in self._ctx.editors.values():
            seen = getattr(editor, "seen", None)
            if seen is not None and any(h.isAncestorOf(editor.field) for h in self._folded):
                # A folded text area still to be read is reached through Details: its
                # reason says so ("Open Details to see all of Message"), not "Scroll".
                editor.folded = not opened  # type: ignore[attr-defined]
                seen.say_again()
        if self.folded_facts is not None:
            self._refresh_fold()
            if opened:
                self.folded_facts.hide()
        if opened:
            self._state.seen(DETAILS_KEY)  # every folded value is on the card now
        if self._body is not None:
            self._body.refresh()

    def _refresh_fold(self) -> None:
        facts = self.folded_facts
        self.headline_line.refresh()
        button = self.confirm_button()
        if button is not None:
            # The verb and its object ("Send to 3 people", "Pay €1,250.00"): the author's
            # own words when they say more than a bare verb (see card/headline.py).
            button.setText(self.headline_line.current.confirm)
            hint = getattr(self, "_enter_hint", None)  # made after the first refresh
            if hint is not None and not hint.isHidden():
                hint.setText(self.ENTER_HINT.format(label=button.text()))  # the label now
        if facts is None or self.details is None:
            return
        if self.details.opened:
            facts.hide()
            return
        cut = facts.refresh(lambda b: self._state.is_visible(b.block), self.headline_line.current)
        if cut and not self.details.ever_opened:
            self._state.hold_until_seen(DETAILS_KEY, DETAILS_REASON.format(label=cut[0]))
        else:
            self._state.seen(DETAILS_KEY)

    def focusNextPrevChild(self, next: bool) -> bool:
        # Tab into a folded card whose first view has no field unfolds it: the form is
        # one key away, as it is one click away, and Tab then walks its fields. A card
        # with a field in view (a command) keeps its size: Tab goes there.
        if self.details is not None and not self.details.opened:
            fields = [e.field for e in self._ctx.editors.values()]
            if not any(f.isVisibleTo(self) and f.isEnabled() for f in fields):
                self.details.set_open(True)
        return super().focusNextPrevChild(next)

    @property
    def details_open(self) -> bool:
        """True while the whole form shows (Details open, or a card with nothing folded)."""
        return self.details is None or self.details.opened

    def open_details(self) -> None:
        """Unfold the whole form in place (a risk or a change to look at, a test)."""
        if self.details is not None:
            self.details.set_open(True)

    # --- the public face ---------------------------------------------------------------

    @property
    def look(self) -> Look:
        """The card's theme, for Notch's own views shown in its place (the batch summary)."""
        return self._ctx.look

    def show_first_change(self) -> None:
        """Scroll the body to the field of the first "changed since" mark, if one shows it."""
        if self._body is None:
            return
        for change in self.changes.changes:
            parts = change.path.split(".")
            for end in range(len(parts), 0, -1):
                editor = self._ctx.editors.get(".".join(parts[:end]))
                if editor is not None:
                    self._body.ensureWidgetVisible(editor.container)
                    return

    def state(self) -> CardState:
        """The card's CardState (values, gating, final arguments)."""
        return self._state

    @property
    def decision(self) -> bool | None:
        """None until decided; then True (approved) or False (declined)."""
        return self._decision

    def press(self, role: str) -> bool:
        """Press the card's `confirm` or `cancel` as the person would (Enter / Esc).
        Confirm does nothing while it is gated. Returns True when it decided the card."""
        return self._pressed(role, None)

    def reply(self, text: str) -> bool:
        """Answer the card in words, as typed under the footer: "yes" / "ok" / "send it"
        approves (only while confirm is open and armed, else a short note says why not),
        "no" / "cancel" declines, anything else with a word in it declines with the words
        for the agent (`revised`). Returns True when it decided the card."""
        field = self.reply_field
        if self._decision is not None:
            return False
        said = classify_reply(text)
        if said.verdict == "yes" or self._carries_voice_words(text):
            if not self._state.confirm_enabled:
                why = _listed(tuple(self._state.blockers())) or "confirm is not available"
                field.show_note(f"Not yet: {why}.")
                return False
            if not self._armed:
                field.show_note("Not yet: look the card over for a moment, then say yes again.")
                return False
            self.reply_words = said.text
            if self._pressed("confirm", None):
                field.collapse()
                return True
            self.reply_words = None
            return False
        if said.verdict == "no":
            self.reply_words = said.text
            field.collapse()
            return self._pressed("cancel", None)
        if not said.words.strip():
            field.show_note("Say what it should do instead, or yes or no.")
            return False
        if said.verdict == "unclear":
            # The voice-confirm seed: an unclear reply keeps the question open and asks
            # once more; a second one leaves the card as it is, for a click.
            self.unclear_replies += 1
            field.line.clear()
            field.show_note(UNCLEAR_ONCE if self.unclear_replies == 1 else UNCLEAR_TWICE)
            return False
        self._decision = False
        self.reply_words = said.text
        field.collapse()
        self.revised.emit(said.text)
        return True

    unclear_replies = 0
    """Replies in a row the classifier found unclear (the card asks once more, then waits
    for a click)."""

    def _carries_voice_words(self, text: str) -> bool:
        # "yes, zebra garden" typed as the card says to speak it: a yes, not a change.
        line = self.voice_words_line
        if line is None or line.isHidden():
            return False
        from notch_app.ui.voice.approval_words import carries

        return carries(text, line.words)

    @property
    def voice_words(self) -> str | None:
        """The words a spoken yes must carry, as the card shows them ("zebra garden");
        None while it shows none (voice off)."""
        line = self.voice_words_line
        return line.words if line is not None and not line.isHidden() else None

    def show_voice_words(self, words: str | None) -> None:
        """Show the words a spoken yes must carry, under the card's title; None takes
        them away (voice turned off)."""
        line = self.voice_words_line
        if words is None:
            if line is not None:
                line.show_note(None)
                line.hide()
                self._reserve_for(None)
            return
        if line is None:
            line = VoiceWords(self._ctx.look, words, self.reply_field.parentWidget())
            # Above the body, never under the footer: on a short screen the bottom of a
            # tall card is cut by the notch (at 1280×720 the reply line is), the top never.
            frame = self._frame
            at = frame.indexOf(self._body) if self._body is not None else frame.count()
            if self._body is None:
                at = next(
                    i
                    for i in range(frame.count())
                    if (item := frame.itemAt(i)) is not None and item.layout() is self._footer
                )
            frame.insertWidget(at, line)
            self.voice_words_line = line
        else:
            line.set_words(words)
        line.show()
        self._reserve_for(line)

    def _reserve_for(self, line: QWidget | None) -> None:
        if self._body is not None:
            self._body.reserve = line.sizeHint().height() + self._frame.spacing() if line else 0
            self._body.refresh()

    def show_voice_note(self, text: str | None) -> None:
        """Why a spoken yes did not approve, under the words ("Say yes and the words on
        the card."); None hides it."""
        if self.voice_words_line is not None:
            self.voice_words_line.show_note(text)

    def show_heard(self, text: str | None) -> None:
        """Show what Notch heard the person say ("Heard: “yes, send it”") as a quiet line
        on the card, before anything is decided; None hides it."""
        self.reply_field.show_heard(text)

    def read_back(self) -> str:
        """The one-sentence question for this card, from its current final arguments
        (see `notch_app.card.read_back`)."""
        return card_read_back(self._state)

    def allow(self, scope: Scope) -> bool:
        """Approve as confirm does, for `scope` ("session": this agent's session;
        "always": Asks first off for the action). Does nothing while confirm is gated or
        held. Returns True when it decided the card."""
        if self._decision is not None or not self._state.confirm_enabled or not self._armed:
            return False
        choices = self.scope_choices
        if scope == "always" and (choices is None or not choices.offers_always):
            return False  # not offered for this call (a shell command, a risky one…)
        self.approval_scope = scope
        return self._pressed("confirm", None)

    def _allow_from_choices(self, scope: Scope) -> None:
        self.allow(scope)  # the buttons need no answer: a held or gated one does nothing

    @property
    def armed(self) -> bool:
        """False while the overlay holds confirm (see `set_armed`)."""
        return self._armed

    def set_armed(self, armed: bool) -> None:
        """Let confirm act (True), or hold it (False) whatever the card's own gate says;
        cancel is never held. The overlay holds confirm on a card that just appeared,
        changed or moved under the pointer until it has been in view for a moment. A
        held confirm button is dimmed and takes no clicks (a press begun before is
        dropped, so it cannot end in a click); Enter and `press` do nothing."""
        if armed and not self._armed:
            self._armed_since = time.monotonic()
        self._armed = armed
        for button in self._ctx.confirm_buttons:
            # A press made before arming but handled after it (a busy machine) is
            # dropped by eventFilter: what the person pressed on was not this card armed.
            button.installEventFilter(self)
            if not armed:
                button.setDown(False)
            button.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, not armed)
            dimming = button.graphicsEffect()
            if dimming is None:
                if armed:
                    continue
                dimming = QGraphicsOpacityEffect(button)
                dimming.setOpacity(HELD_CONFIRM_OPACITY)
                button.setGraphicsEffect(dimming)
            dimming.setEnabled(not armed)  # a disabled effect paints the button as it is

    def made_before_armed(self, event: QInputEvent) -> bool:
        """True for a click or key the person made while confirm was held, which the
        event loop reaches only now that it is armed: it was aimed at what was on screen
        then (the card before a swap, this one still changing), so it must not confirm."""
        made = made_at(event)
        return made is not None and made < self._armed_since

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Only the confirm buttons are watched (set_armed).
        if (
            event.type() in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick)
            and isinstance(event, QInputEvent)
            and self.made_before_armed(event)
        ):
            event.accept()
            return True
        return super().eventFilter(watched, event)

    def unfold(self) -> None:
        """Let the body grow to the card's whole height (no fold, no "More below"): for a
        picture of the whole card (`notch render`). A card on screen keeps its fold."""
        if self._body is not None:
            self._body.unfold()
            self._body_seen.check()  # nothing below a fold any more
            self.adjustSize()

    def input_widget(self, path: str) -> QWidget:
        """The widget a person edits for the input bound to `path`. KeyError if none."""
        return self._ctx.editors[path].field

    def editor(self, path: str) -> InputEditor:
        """The InputEditor of the input bound to `path`. KeyError if none."""
        editor = self._ctx.editors[path]
        assert isinstance(editor, InputEditor)  # the only kind the input builders make
        return editor

    def editors(self) -> list[InputEditor]:
        """Every input's editor, in reading order."""
        return [e for e in self._ctx.editors.values() if isinstance(e, InputEditor)]

    def confirm_button(self) -> QAbstractButton | None:
        """The primary confirm button (the first confirm on the card), if any."""
        buttons = self._ctx.confirm_buttons
        return buttons[0] if buttons else None

    def is_input_visible(self, path: str) -> bool:
        """True while the input bound to `path` is shown (its visibleIf chain is truthy)."""
        return self._input_shown(self._ctx.editors[path].container)

    def _input_shown(self, container: QWidget) -> bool:
        # Folded under Details is not hidden: its value is on the card as a fact, and
        # one click shows the field (only a false visibleIf hides an input).
        for holder in self._folded:
            if holder.isAncestorOf(container):
                return container.isVisibleTo(holder)
        return container.isVisibleTo(self)

    @property
    def notice(self) -> str:
        """The "why this card asks" line on the card ("" when there is none)."""
        return self._notice.text if self._notice is not None else ""

    @property
    def link_prompt(self) -> LinkPrompt:
        """The "Open <url>?" line under the footer (made when first needed)."""
        if self._link_prompt is None:
            prompt = LinkPrompt(self._ctx.look)
            self._frame.addWidget(prompt)
            chain = self._ctx.focus_chain
            for w in (prompt.open_button, prompt.dismiss_button):
                if chain:
                    QWidget.setTabOrder(chain[-1], w)
                chain.append(w)
            self._link_prompt = prompt
        return self._link_prompt

    def show_save_failure(self, text: str) -> None:
        """The decision this card gave could not be saved, so nothing was sent: say `text`
        ("Couldn't save your decision: the disk is full.") in Notch's own notice under the
        footer, and let the card decide again (confirm, still gated, or cancel)."""
        if self._save_failure is None:
            self._save_failure = SaveFailureNotice(self._ctx.look, text)
            under_footer = next(
                i + 1
                for i in range(self._frame.count())
                if (item := self._frame.itemAt(i)) is not None and item.layout() is self._footer
            )
            self._frame.insertWidget(under_footer, self._save_failure)
        else:
            self._save_failure.show_text(text)
        self._decision = None
        self.reply_words = None

    @property
    def save_failure(self) -> str:
        """The "Couldn't save your decision" line on the card ("" when there is none)."""
        return self._save_failure.text if self._save_failure is not None else ""

    def open_link(self, url: str) -> None:
        """Show `url` with Open / Not now; only https, http and mailto get that far."""
        if link_allowed(url):
            self.link_prompt.ask(url)

    # --- reacting ----------------------------------------------------------------------

    def _pressed(self, role: str, item: Any) -> bool:
        if self._decision is not None:
            return False
        if role == "confirm":
            if not self._state.confirm_enabled or not self._armed:
                return False
            self._decision = True
            self.decided.emit(True, self._state.final_arguments(), self._state.edited_paths())
            return True
        if role == "cancel":
            self._decision = False
            self.decided.emit(False, {}, [])
            return True
        if role == "copy":
            text = (
                self._state.raw_text(item.value)  # as sent: no ⟨U+…⟩ marks in the clipboard
                if item is not None and item.value
                else json.dumps(
                    self._state.final_arguments(), ensure_ascii=False, indent=2, default=str
                )
            )
            clipboard = QGuiApplication.clipboard()
            if clipboard is not None:
                clipboard.setText(text)
            return False
        if role == "openUrl" and item is not None and item.url:
            self.open_link(self._state.text(item.url))
        return False

    def _changed(self) -> None:
        ctx = self._ctx
        state = self._state
        # A keystroke changes one argument: only the editors, texts and notes that read it
        # are looked at again (issue 19: 0.1 ms of Python per keystroke, not 3).
        changes = state.changes_since(self._read_from)
        self._read_from = state.arguments()
        names = changes.names
        for live in ctx.live_texts:
            text = ctx.say(live.template)
            if text != live.last:
                live.last = text
                live.apply(text)
        relayout = shown_changed = False
        for block, widget in ctx.conditional:
            visible = state.is_visible(block)
            if visible != (not widget.isHidden()):
                widget.setVisible(visible)
                relayout = shown_changed = True
        for watched in ctx.watched:
            value = state.value(watched.path)
            if value is not watched.last and value != watched.last:
                watched.last = value
                watched.apply(value)
                relayout = True
        for path, editor in ctx.editors.items():
            if path.partition(".")[0] in names:
                editor.sync(state.value(path))
        errors = state.field_errors()
        if errors != self._errors_shown:
            for path, editor in ctx.editors.items():
                editor.set_error(errors[path] if path in errors else state.field_error(path))
            self._errors_shown = errors
        # What the card does not show changes only with what it shows: the person edits
        # shown values only, so a keystroke that hides nothing skips the walk.
        if shown_changed and self._show_also_sends(also_sends(state)):
            relayout = True
        self._show_check_notes(changes, shown_changed)
        if self.risk.refresh():
            relayout = True
        self._apply_gate()
        if relayout and self._body is not None:
            self._body.refresh()

    def _show_also_sends(self, entries: list[AlsoSent]) -> bool:
        """Show what the call also sends at the end of the content; True when the section
        appeared, changed or went."""
        section = self._also_sends
        if isinstance(self._state, WidgetCardState):
            return False  # its "What will run" lists every argument
        if section is None:
            if not entries or self._content_layout is None:
                return False
            section = self._also_sends = AlsoSendsSection(self._ctx.look)
            self._content_layout.addWidget(section)
        before = section.entries
        section.show_entries(entries)
        return section.entries != before

    def _show_check_notes(self, changes: Changes | None = None, shown_changed: bool = True) -> None:
        lines = self._check_lines(changes, shown_changed)
        if self._check_notes is None:
            if not lines:
                return
            self._check_notes = CheckNotes(self._ctx.look)
            self._frame.insertWidget(self._check_notes_at, self._check_notes)
        self._check_notes.show_lines(lines)

    def _check_lines(self, changes: Changes | None = None, shown_changed: bool = True) -> list[str]:
        """Warnings for what the card shows now: look-alike letters in any text filled
        from the arguments, and hidden characters or look-alikes in a visible field.
        With `changes` (and nothing shown or hidden since): a field whose value they
        leave alone keeps the lines it had."""
        state = self._state
        lines: list[str] = []
        for live in self._ctx.live_texts:
            if not live.last.isascii():  # look-alikes need letters outside ASCII
                lines.extend(state.text_warnings(live.template))
        kept = self._check_kept
        names = changes.names if changes is not None and not shown_changed else None
        for path, editor in self._ctx.editors.items():
            own = kept.get(path)
            if own is not None and names is not None and path.partition(".")[0] not in names:
                lines.extend(own[1])
                continue
            value = state.value(path)
            if own is None or own[0] is not value or shown_changed:
                own = (value, self._field_check_lines(editor, value))
                kept[path] = own
            lines.extend(own[1])
        for watched in self._ctx.watched:  # a list's rows from an array argument
            value = state.value(watched.path)
            for item in value if isinstance(value, list) else [value]:
                text = item if isinstance(item, str) else display_value(item)
                if not text.isascii():
                    lines.extend(lookalike_warnings(text))
        return lines

    def _field_check_lines(self, editor: Editor, value: Any) -> list[str]:
        """Hidden characters and look-alike letters in one field's value while shown."""
        lines: list[str] = []
        for text in value if isinstance(value, list) else [value]:
            if not isinstance(text, str) or (text.isascii() and text.isprintable()):
                continue  # plain ASCII holds no hidden or look-alike letters
            if not self._input_shown(editor.container):
                break
            marked = mark_invisible(text)
            if marked != text:
                lines.append(f"{editor.label} holds hidden characters: {shown(marked, 200)}")
            lines.extend(lookalike_warnings(text))
        return lines

    def _apply_gate(self) -> None:
        state = self._state
        enabled = state.confirm_enabled
        # Said once: a folded field and the fold can both wait on "Open Details …".
        reasons = tuple(dict.fromkeys(state.blockers())) if not enabled else ()
        # The line under the footer leaves out "is required" for fields the person has
        # not touched: an untouched form never looks like it failed validation (the
        # quiet `*` is the marker). The tooltip and accessible description say it all.
        loud = reasons
        if reasons:
            # Said from the moment the card shows, and gone with its reason; a required
            # field nobody has touched yet is asked for, not scolded ("Fill in Subject").
            quiet = {
                f"{b.label} {REQUIRED_MESSAGE}": f"Fill in {b.label}"
                for b in state.inputs
                if not state.is_touched(b.path)
            }
            loud = tuple(quiet.get(r, r) for r in reasons)
        gate = (enabled, reasons, loud)
        if gate == self._last_gate:
            return
        self._last_gate = gate
        why = _listed(reasons)
        for button in self._ctx.confirm_buttons:
            button.setEnabled(enabled)
            button.setToolTip("" if enabled else why)
            button.setAccessibleDescription("" if enabled else f"Unavailable: {why}")
        line = _listed(loud)
        if self._blockers is None:
            if not line:
                return
            self._blockers = wrapped_label("Blockers", self._ctx.look, selectable=False)
            self._blockers.setAlignment(Qt.AlignmentFlag.AlignRight)
            under_footer = next(
                i + 1
                for i in range(self._frame.count())
                if (item := self._frame.itemAt(i)) is not None and item.layout() is self._footer
            )
            self._frame.insertWidget(under_footer, self._blockers)
        self._blockers.setText(line)
        self._blockers.setVisible(bool(line))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc cancels. Enter never approves from a field, nor from the card around it
        (issue 20: " there" added to a Subject and Enter sent the email): a field keeps
        what Enter does in it (a text area a new line, a chips field a new chip, a list
        its choice) and otherwise ignores it, and then the card only says how to approve.
        Approving by keyboard is deliberate: Ctrl+Enter anywhere on the card (the
        card's own chord; Ctrl+Alt+Enter from any application is the notch's), or Enter
        with the keyboard focus on the confirm button, which presses it as it presses
        any focused button."""
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.press("cancel")
            event.accept()
            return
        if key not in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            super().keyPressEvent(event)
            return
        event.accept()
        if event.isAutoRepeat():
            return  # a held Enter is not a new yes: it must not run on into the next card
        if self.made_before_armed(event):
            return  # pressed while confirm was held, reached only now
        focused = QApplication.focusWidget()
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.press("confirm")
            return
        if isinstance(focused, QAbstractButton) and self.isAncestorOf(focused):
            if focused.isEnabled():
                focused.click()
            return
        if self._decision is None and self._ctx.confirm_buttons:
            self._show_enter_hint()

    ENTER_HINT = "Enter doesn't approve from here: press Ctrl+Enter, or Tab to “{label}” and Enter"
    """What the card says when plain Enter reached it from a field or the card itself."""

    def _show_enter_hint(self) -> None:
        """Say, once, how to approve by keyboard, in a quiet line under the footer."""
        button = self.confirm_button()
        label = button.text() if button is not None else "confirm"
        if self._enter_hint is None:
            self._enter_hint = wrapped_label("ListMore", self._ctx.look, selectable=False)
            self._enter_hint.setObjectName("EnterHint")
            self._enter_hint.setAlignment(Qt.AlignmentFlag.AlignRight)
            under_footer = next(
                i + 1
                for i in range(self._frame.count())
                if (item := self._frame.itemAt(i)) is not None and item.layout() is self._footer
            )
            self._frame.insertWidget(under_footer, self._enter_hint)
        self._enter_hint.setText(self.ENTER_HINT.format(label=label))
        self._enter_hint.show()

    @property
    def enter_hint(self) -> str:
        """The "Enter doesn't approve from here" line ("" while it is not shown)."""
        hint = self._enter_hint
        return hint.text() if hint is not None and not hint.isHidden() else ""

    def closeEvent(self, event: Any) -> None:
        self._unsubscribe()
        self._unsubscribe_fold()
        super().closeEvent(event)


def _listed(reasons: tuple[str, ...]) -> str:
    """Up to three reasons joined, then how many more."""
    more = f" (and {len(reasons) - 3} more)" if len(reasons) > 3 else ""
    return "; ".join(reasons[:3]) + more

"""The card's compact first view (issue 22): what is folded under "Details".

A folded block says its value in one line (`FoldedFacts`); "Details" unfolds the whole
form in place. The card opens unfolded where the person has to act or read: an empty
required field, a refused value, a notice, a change since last time.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable
from typing import Any, Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from notch_app.card.coerce import is_blank
from notch_app.card.interpolate import display_value, template_paths
from notch_app.card.paths import MISSING
from notch_app.card.state import CardState
from notch_app.card.view_shape import InputBinding
from notch_app.manifest.facts import shown_paths
from notch_app.manifest.kept import KeptBy
from notch_app.manifest.model import CardBlock, TextFieldBlock, walk_blocks
from notch_app.manifest.paths import MalformedBinding, parse_single_binding
from notch_app.runtime.pause import PAUSED_REASON
from notch_app.ui.blocks import CardContext
from notch_app.ui.blocks.inputs import may_scroll
from notch_app.ui.card_view.frame import (
    CardFrame,
    folded_children,
    in_compact_view_of,
    shown_templates,
)
from notch_app.ui.widgets.details_fold import (
    DETAILS_KEY,
    DETAILS_REASON,
    DetailsToggle,
    FoldedFacts,
    HeadlineLine,
    a_row_may_show,
)
from notch_app.ui.widgets.label_text import shown
from notch_app.ui.widgets.scope_choices import ScopeChoices

_TYPED_INTO = frozenset({"textField", "passwordField", "select", "chips"})
"""Blocks whose editor is a line edit or a combo box (`fitting.card_has_inputs`)."""


_MAX_VIEWS: Final = 256
_SHOWN_WHOLE: KeptBy[frozenset[str]] = KeptBy(_MAX_VIEWS)
"""Per loaded tool's view root: `shown_whole` of it."""


def shown_whole(root: Any) -> frozenset[str]:
    """The paths a block of the compact view already shows whole: not said twice (the
    playlist's description under its cover; a switch its badge stands for). Worked
    out once per loaded tool's view."""
    return _SHOWN_WHOLE.get(root, lambda: _shown_whole(root))


def _shown_whole(root: Any) -> frozenset[str]:
    kept = (
        [c for c, s in zip(root.children, in_compact_view_of(root), strict=True) if s]
        if isinstance(root, CardBlock)
        else []
    )
    shown = {s.path for child in kept for s in shown_paths(child)}
    for child in kept:
        for visit in walk_blocks(child):
            condition = getattr(visit.block, "visible_if", None)
            if isinstance(condition, str):
                with contextlib.suppress(MalformedBinding):
                    shown.add(parse_single_binding(condition))
    return frozenset(shown)


_FOLDED_INPUTS: KeptBy[tuple[tuple[InputBinding, ...], list[InputBinding]]] = KeptBy(_MAX_VIEWS)
"""Per view root: (the card's inputs, `folded_inputs` of its folded children), the same
for every card of a loaded tool (its inputs are its shape's)."""


def folded_inputs(state: CardState, folded: list[Any]) -> list[InputBinding]:
    """The inputs under the `folded` blocks that the folded facts say: all but those a
    block of the compact view already shows whole."""
    under = {id(v.block) for block in folded for v in walk_blocks(block)}
    shown = shown_whole(state.view.root)
    return [b for b in state.inputs if id(b.block) in under and b.path not in shown]


def _folded_inputs_of(state: CardState) -> list[InputBinding]:
    """`folded_inputs` of the view's folded children, worked out once per loaded tool."""
    root, inputs = state.view.root, state.inputs
    found, kept = _FOLDED_INPUTS.peek(root)
    if (
        found
        and kept is not None
        and len(kept[0]) == len(inputs)
        and all(a is b for a, b in zip(kept[0], inputs, strict=True))
    ):
        return list(kept[1])
    made = folded_inputs(state, folded_children(root))
    _FOLDED_INPUTS.put(root, (tuple(inputs), made))
    return list(made)


def must_act(state: CardState, inputs: list[InputBinding]) -> bool:
    """Whether the person has to act on one of the folded `inputs` (an empty required
    field, a refused value): the card then opens unfolded, at its fields."""
    errors = state.field_errors()  # worked out once per change, as the gate shows them
    return any(
        b.required and state.is_visible(b.block) and is_blank(state.value(b.path)) for b in inputs
    ) or any(errors.get(b.path) for b in inputs)


def fold_plan(
    state: CardState, notice: str | None, changed: bool
) -> tuple[bool, list[InputBinding]]:
    """Whether a compact card opens with Details open, and its folded inputs the facts
    say (`folded_inputs`), worked out once before the card is laid out. It opens so for
    a change since last time (`changed`), a notice, or a folded input the person has to
    act on (`must_act`). A risky call is not unfolded for its risk (its lines stand
    above the body). The pause's notice ("you paused your rules") names no field: the
    card the person knows opens as usual, compact."""
    inputs = _folded_inputs_of(state)
    noticed = bool(notice and notice.strip()) and notice != PAUSED_REASON
    return changed or noticed or must_act(state, inputs), inputs


_WALKED: KeptBy[tuple[frozenset[int], frozenset[str], bool]] = KeptBy(4 * _MAX_VIEWS)
"""Per folded block of a loaded tool's view: `_walked` of it."""


def _walked(block: Any) -> tuple[frozenset[int], frozenset[str], bool]:
    """What a folded block not built yet holds, worked out once per block of a loaded
    tool's view: the ids of the blocks in it, the top-level arguments its display
    blocks show, and whether a field typed into or chosen from is among them."""
    return _WALKED.get(block, lambda: _walk(block))


def _walk(block: Any) -> tuple[frozenset[int], frozenset[str], bool]:
    visits = [v.block for v in walk_blocks(block)]
    return (
        frozenset(id(b) for b in visits),
        frozenset(
            path.partition(".")[0]
            for b in visits
            for template in shown_templates(b)
            for path in template_paths(template)
        ),
        any(getattr(b, "type", None) in _TYPED_INTO for b in visits),
    )


class CardFold:
    """The fold of one card: its holders, the folded facts and the Details toggle (both
    None while nothing is folded)."""

    def __init__(self, ctx: CardContext, frame: CardFrame, refresh: Callable[[], None]) -> None:
        """`refresh` is the card's own pass after the fold changed (the headline, the
        confirm words, then `refresh_facts`)."""
        self._ctx = ctx
        self._frame = frame
        self._refresh = refresh
        self._unbuilt = list(frame.unbuilt)
        anchors = {id(u.anchor) for u in self._unbuilt}
        self.holders: list[QWidget] = [h for _block, h in frame.folded if id(h) not in anchors]
        """What the fold shows and hides of the folded blocks built: their holders, or a
        block's own widget when it has no visibleIf (a block built later adds its own)."""
        self.details: DetailsToggle | None = None
        self._facts: FoldedFacts | None = None
        self._inputs: list[InputBinding] = []
        """The folded inputs the facts say (`folded_inputs`), worked out by `make`."""
        walked = [_walked(u.block) for u in self._unbuilt]
        under = set().union(*(w[0] for w in walked))
        self.unbuilt_names: frozenset[str] = frozenset(
            b.path.partition(".")[0] for b in ctx.state.inputs if id(b.block) in under
        ).union(*(w[1] for w in walked))
        """The arguments the unbuilt folded blocks edit or show: a change to one builds
        them (their check lines and holds are the widgets' own from then on)."""
        self._hold_unbuilt_areas(under)
        self.has_unbuilt_fields = any(w[2] for w in walked)
        """An unbuilt folded block holds a field typed into or chosen from (the notch
        takes keyboard focus for it, as for a field built)."""

    def _hold_unbuilt_areas(self, under: set[int]) -> None:
        """A folded text area not built yet whose value may scroll holds confirm as it
        would built and folded: "Open Details to see all of Message", until Details
        opens and it is built, laid out and scrolled through (`TextEditor`'s own hold,
        under the same key, from then on)."""
        state = self._ctx.state
        for binding in state.inputs:
            block = binding.block
            if id(block) not in under or not isinstance(block, TextFieldBlock):
                continue
            value = state.value(binding.path)
            text = "" if value is MISSING or value is None else display_value(value)
            if block.multiline and may_scroll(text):
                label = shown(block.label, 60)
                state.hold_until_seen(f"field:{binding.path}", DETAILS_REASON.format(label=label))

    def build(self) -> bool:
        """Make the folded blocks not built yet, in place: their fields join the Tab order
        and the editors where they stand in reading order, each showing its value and
        error as if built with the card. Returns False when there was nothing to build."""
        if not self._unbuilt:
            return False
        ctx, state = self._ctx, self._ctx.state
        chain, editors, live = ctx.focus_chain, ctx.editors, ctx.live_texts
        added_focus = added_editors = added_live = 0
        new_paths: list[str] = []
        unbuilt, self._unbuilt = self._unbuilt, []
        self.has_unbuilt_fields = False
        # A widget made now joins the window's focus chain at its end: the card's own
        # Tab stops that stand after the fold are moved after the new fields.
        after = self._tab_stops_after(unbuilt[0].anchor)
        made: list[QWidget] = []
        self.unbuilt_names = frozenset()
        content = self._frame.content
        assert content is not None  # a folded block stands in the body
        for later in unbuilt:
            # Its own holder, as a block built with the card has (the fold and its
            # visibleIf never set the same widget's visibility), where its anchor stands.
            holder = QWidget(later.anchor.parentWidget())
            holder.setVisible(False)  # until the fold shows it
            held = QVBoxLayout(holder)
            held.setContentsMargins(0, 0, 0, 0)
            content.insertWidget(content.indexOf(later.anchor), holder)
            self.holders.append(holder)
            ctx.focus_chain, ctx.editors, ctx.live_texts = [], {}, []
            try:
                held.addWidget(ctx.build(later.block, holder))
            finally:
                made_focus, made_editors, made_live = ctx.focus_chain, ctx.editors, ctx.live_texts
                ctx.focus_chain, ctx.editors, ctx.live_texts = chain, editors, live
            at = later.live_at + added_live
            live[at:at] = made_live
            added_live += len(made_live)
            at = later.focus_at + added_focus
            chain[at:at] = made_focus
            made.extend(made_focus)
            added_focus += len(made_focus)
            items = list(editors.items())
            at = later.editors_at + added_editors
            items[at:at] = made_editors.items()
            added_editors += len(made_editors)
            editors.clear()
            editors.update(items)
            new_paths.extend(made_editors)
        for path in new_paths:
            editors[path].set_error(state.field_error(path))
        anchor = unbuilt[0].anchor
        if made:
            # Tab order is only set between widgets that take focus: the anchor takes it
            # for this one call, so the first new field stands where the fold stands.
            policy = anchor.focusPolicy()
            anchor.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            QWidget.setTabOrder(anchor, made[0])
            anchor.setFocusPolicy(policy)
        for a, b in itertools.pairwise([*made, *after]):
            QWidget.setTabOrder(a, b)
        for a, b in itertools.pairwise(chain):
            QWidget.setTabOrder(a, b)
        return True

    def _tab_stops_after(self, holder: QWidget) -> list[QWidget]:
        """The card's widgets Tab reaches that stand after `holder` in the window's focus
        chain, in that order."""
        glass = self._frame.glass
        window = holder.window()
        stops: list[QWidget] = []
        widget = holder.nextInFocusChain()
        while widget is not None and widget is not window and widget is not holder:
            tab = widget.focusPolicy().value & Qt.FocusPolicy.TabFocus.value
            if tab and glass.isAncestorOf(widget):
                stops.append(widget)
            widget = widget.nextInFocusChain()
        return stops

    def make(
        self, scope_choices: ScopeChoices | None, opens: bool, inputs: list[InputBinding]
    ) -> None:
        """The compact view: what is folded says its values in one line each (`inputs`,
        from `fold_plan`), "Details" unfolds the form in place. Opens unfolded when
        `opens` (`fold_plan`: a notice, a change since last time, a field the person has
        to act on). A card that opens unfolded makes its one-line facts only when
        Details is first closed (or they are asked for): nothing shows them before."""
        frame = self._frame
        width = frame.width - 40
        self._inputs = inputs
        # A card that opens unfolded was never folded (`fold_plan`): its blocks are all
        # built, so it is made open, not opened (its words said three times and a full
        # `show` pass sent through a signal, for what `_opened_at_start` does).
        made_open = opens and not self._unbuilt
        toggle = DetailsToggle(
            self._ctx.look, frame.column.parentWidget(), count=len(inputs), opened=made_open
        )
        choices = scope_choices.layout() if scope_choices is not None else None
        room = width - toggle.sizeHint().width() - 12
        if isinstance(choices, QHBoxLayout) and choices.sizeHint().width() <= room:
            # On the left of "or Allow for this session · Always allow": a line, not two
            # (a long scope, "Allow `npm test` for this session", keeps its line whole).
            choices.insertWidget(0, toggle)
        else:
            at = frame.body_index()
            assert at is not None  # a fold needs a body to fold
            frame.column.insertWidget(at + 1, toggle)
        self.details = toggle
        self._ctx.focus_chain.append(toggle)
        toggle.toggled_open.connect(self.show)
        # Each way below refreshes the headline, the confirm words and the facts once (a
        # refresh here as well was a fourth of the fold's work). A risky call is not
        # unfolded for its risk: its risk lines stand above the body and what runs as
        # written (the command, the diff) is always in the first view.
        if made_open:
            self._opened_at_start()
        elif opens:
            toggle.set_open(True)  # builds what waited (`show`)
        else:
            self.show(False)

    def _opened_at_start(self) -> None:
        """What `show(True)` leaves on a card that opens unfolded, without its work: no
        block to build, no folded field's reason to say again, no signal sent."""
        for holder in self.holders:
            # Shown as `show` shows them: a child shown before the card is on screen
            # shows with it through Qt's cheaper path (callgrind: skipping this cost more).
            holder.setVisible(True)
        self._refresh()
        self._ctx.state.seen(DETAILS_KEY)  # every folded value is on the card
        if self._frame.body is not None:
            self._frame.body.refresh()

    @property
    def facts(self) -> FoldedFacts | None:
        """The one-line facts of the folded inputs (None while nothing is folded); made
        when one would show or when asked for."""
        if self._facts is None and self.details is not None:
            self._make_facts()
            if not self.details.opened:
                self._refresh()  # said as the card would have said them
        return self._facts

    def _make_facts(self) -> FoldedFacts:
        frame = self._frame
        content = frame.content
        assert content is not None
        # Made inside the body's column, where it goes (not moved in by the layout).
        facts = FoldedFacts(
            self._ctx.look, self._ctx.state, self._inputs, frame.width - 40, content.parentWidget()
        )
        # Where the first folded block stands (its holder, or the anchor of a run not
        # built yet): the facts keep the form's reading order.
        places = [content.indexOf(h) for h in (*self.holders, *(h for _b, h in frame.folded))]
        content.insertWidget(min([i for i in places if i >= 0], default=0), facts)
        self._facts = facts
        if self.details is not None and self.details.opened:
            facts.hide()  # said when Details is closed (`show`, then `refresh_facts`)
        return facts

    def show(self, opened: bool) -> None:
        """Show the folded blocks (`opened`, built now if they were not yet) or their
        one-line facts."""
        if opened:
            self.build()
        for holder in self.holders:
            holder.setVisible(opened)
        for editor in self._ctx.editors.values():
            seen = getattr(editor, "seen", None)
            field = editor.field
            if seen is not None and any(h is field or h.isAncestorOf(field) for h in self.holders):
                # A folded text area still to be read is reached through Details: its
                # reason says so ("Open Details to see all of Message"), not "Scroll".
                editor.folded = not opened  # type: ignore[attr-defined]
                seen.say_again()
        for hold in self._ctx.read_holds:  # a markdown text that scrolls, the same way
            if any(h is hold.widget or h.isAncestorOf(hold.widget) for h in self.holders):
                hold.folded = not opened
                if hold.seen is not None:
                    hold.seen.say_again()
        if self.details is not None:
            # First closed: the facts are made there if one of them would show.
            self._refresh()
            if opened and self._facts is not None:
                self._facts.hide()
        if opened:
            self._ctx.state.seen(DETAILS_KEY)  # every folded value is on the card now
        if self._frame.body is not None:
            self._frame.body.refresh()

    def refresh_facts(self, headline_line: HeadlineLine) -> None:
        """The folded facts follow the values; confirm waits on Details while one of them
        is cut short and Details was never opened."""
        facts = self._facts
        if self.details is None:
            return  # nothing folded
        state = self._ctx.state

        def visible(binding: InputBinding) -> bool:
            return state.is_visible(binding.block)

        if facts is None:
            if self.details.opened:
                return  # open since it was built: nothing shows them
            # On the speech and delete cards no row ever shows, and the facts, made, laid
            # out and hidden, were a tenth of the build: made only once one may show.
            if not a_row_may_show(self._inputs, state, visible, headline_line.current):
                state.seen(DETAILS_KEY)  # as the facts, made and all hidden, would say
                return
            facts = self._make_facts()
        if self.details.opened:
            facts.hide()
            return
        cut = facts.refresh(visible, headline_line.current)
        if cut and not self.details.ever_opened:
            state.hold_until_seen(DETAILS_KEY, DETAILS_REASON.format(label=cut[0]))
        else:
            state.seen(DETAILS_KEY)

    def input_shown(self, container: QWidget, card: QWidget) -> bool:
        """Whether the input in `container` is on `card`: folded under Details is not
        hidden (its value is on the card as a fact, and one click shows the field); only
        a false visibleIf hides an input."""
        for holder in self.holders:
            if holder is container:
                return True  # a block without visibleIf, folded or not
            if holder.isAncestorOf(container):
                return container.isVisibleTo(holder)
        return container.isVisibleTo(card)

"""The card's compact first view (issue 22): what is folded under "Details".

A folded block says its value in one line (`FoldedFacts`); "Details" unfolds the whole
form in place. The card opens unfolded where the person has to act or read: an empty
required field, a refused value, a notice, a change since last time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QWidget

from notch_app.card.coerce import is_blank
from notch_app.card.compact import in_compact_view
from notch_app.manifest.facts import shown_paths
from notch_app.manifest.model import CardBlock, walk_blocks
from notch_app.manifest.paths import MalformedBinding, parse_single_binding
from notch_app.ui.blocks import CardContext
from notch_app.ui.card_view.frame import CardFrame
from notch_app.ui.widgets.details_fold import (
    DETAILS_KEY,
    DETAILS_REASON,
    DetailsToggle,
    FoldedFacts,
    HeadlineLine,
)
from notch_app.ui.widgets.scope_choices import ScopeChoices


class CardFold:
    """The fold of one card: its holders, the folded facts and the Details toggle (both
    None while nothing is folded)."""

    def __init__(self, ctx: CardContext, frame: CardFrame, refresh: Callable[[], None]) -> None:
        """`refresh` is the card's own pass after the fold changed (the headline, the
        confirm words, then `refresh_facts`)."""
        self._ctx = ctx
        self._frame = frame
        self._refresh = refresh
        self.holders: list[QWidget] = [holder for _block, holder in frame.folded]
        self.details: DetailsToggle | None = None
        self.facts: FoldedFacts | None = None

    def make(self, scope_choices: ScopeChoices | None, opens: bool) -> None:
        """The compact view: what is folded says its values in one line each, "Details"
        unfolds the form in place. Opens unfolded when `opens` (a notice, a change since
        last time) or where the person has to act: an empty required field, a refused
        value."""
        state = self._ctx.state
        frame = self._frame
        width = frame.width - 40
        folded = frame.folded
        under = {id(v.block) for block, _h in folded for v in walk_blocks(block)}
        inputs = [b for b in state.inputs if id(b.block) in under]
        shown = self._shown_whole()
        inputs = [b for b in inputs if b.path not in shown]
        facts = FoldedFacts(self._ctx.look, state, inputs, width)
        content = frame.content
        assert content is not None
        # Where the first folded block stands: the facts keep the form's reading order.
        content.insertWidget(max(0, content.indexOf(folded[0][1])), facts)
        self.facts = facts
        toggle = DetailsToggle(self._ctx.look, frame.column.parentWidget())
        toggle.set_count(len(inputs))
        choices = scope_choices.layout() if scope_choices is not None else None
        room = width - toggle.sizeHint().width() - 12
        if isinstance(choices, QHBoxLayout) and choices.sizeHint().width() <= room:
            # On the left of "or Allow for this session · Always allow": a line, not two
            # (a long scope, "Allow `npm test` for this session", keeps its line whole).
            choices.insertWidget(0, toggle)
        else:
            assert frame.body is not None  # a fold needs a body to fold
            frame.column.insertWidget(frame.column.indexOf(frame.body) + 1, toggle)
        self.details = toggle
        self._ctx.focus_chain.append(toggle)
        toggle.toggled_open.connect(self.show)
        self._refresh()
        errors = state.field_errors()  # worked out once per change, as the gate shows them
        must_act = any(
            b.required and state.is_visible(b.block) and is_blank(state.value(b.path))
            for b in inputs
        ) or any(errors.get(b.path) for b in inputs)
        # A risky call is not unfolded for its risk: its risk lines stand above the body
        # and what runs as written (the command, the diff) is always in the first view.
        if must_act or opens:
            toggle.set_open(True)
        else:
            self.show(False)

    def _shown_whole(self) -> set[str]:
        """The paths a block of the compact view already shows whole: not said twice (the
        playlist's description under its cover; a switch its badge stands for)."""
        root = self._ctx.state.view.root
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
        return shown

    def show(self, opened: bool) -> None:
        """Show the folded blocks (`opened`) or their one-line facts."""
        for holder in self.holders:
            holder.setVisible(opened)
        for editor in self._ctx.editors.values():
            seen = getattr(editor, "seen", None)
            if seen is not None and any(h.isAncestorOf(editor.field) for h in self.holders):
                # A folded text area still to be read is reached through Details: its
                # reason says so ("Open Details to see all of Message"), not "Scroll".
                editor.folded = not opened  # type: ignore[attr-defined]
                seen.say_again()
        if self.facts is not None:
            self._refresh()
            if opened:
                self.facts.hide()
        if opened:
            self._ctx.state.seen(DETAILS_KEY)  # every folded value is on the card now
        if self._frame.body is not None:
            self._frame.body.refresh()

    def refresh_facts(self, headline_line: HeadlineLine) -> None:
        """The folded facts follow the values; confirm waits on Details while one of them
        is cut short and Details was never opened."""
        facts = self.facts
        if facts is None or self.details is None:
            return
        state = self._ctx.state
        if self.details.opened:
            facts.hide()
            return
        cut = facts.refresh(lambda b: state.is_visible(b.block), headline_line.current)
        if cut and not self.details.ever_opened:
            state.hold_until_seen(DETAILS_KEY, DETAILS_REASON.format(label=cut[0]))
        else:
            state.seen(DETAILS_KEY)

    def input_shown(self, container: QWidget, card: QWidget) -> bool:
        """Whether the input in `container` is on `card`: folded under Details is not
        hidden (its value is on the card as a fact, and one click shows the field); only
        a false visibleIf hides an input."""
        for holder in self.holders:
            if holder.isAncestorOf(container):
                return container.isVisibleTo(holder)
        return container.isVisibleTo(card)

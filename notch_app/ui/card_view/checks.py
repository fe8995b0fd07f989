"""What Notch adds to a card about what it shows and what it does not.

Check notes under the headline: hidden characters and look-alike letters in any text the
card shows from the arguments. "Also sends" at the end of the body: the arguments the
call carries that no block shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QWidget

from notch_app.card.also_sends import AlsoSent
from notch_app.card.argument_changes import Changes
from notch_app.card.display_text import lookalike_warnings, mark_invisible
from notch_app.card.interpolate import display_value
from notch_app.card.staged_args import WidgetCardState
from notch_app.ui.blocks import CardContext
from notch_app.ui.blocks._context import Editor
from notch_app.ui.card_view.frame import CardFrame
from notch_app.ui.widgets.also_sends import AlsoSendsSection, CheckNotes
from notch_app.ui.widgets.label_text import shown


class CardChecks:
    """The card's check notes and its "also sends" section, each made when first needed."""

    def __init__(
        self, ctx: CardContext, frame: CardFrame, input_shown: Callable[[QWidget], bool]
    ) -> None:
        """`input_shown(container)`: whether an input is on the card now (folded counts)."""
        self._ctx = ctx
        self._frame = frame
        self._input_shown = input_shown
        self._notes: CheckNotes | None = None
        self._also_sends: AlsoSendsSection | None = None
        self._kept: dict[str, tuple[Any, list[str], Editor]] = {}
        """Per field: the value its check lines were made for, those lines, its editor."""
        self._noisy: set[str] = set()
        """The fields whose kept lines say something."""

    def show_also_sends(self, entries: list[AlsoSent]) -> bool:
        """Show what the call also sends at the end of the content; True when the section
        appeared, changed or went."""
        section = self._also_sends
        if isinstance(self._ctx.state, WidgetCardState):
            return False  # its "What will run" lists every argument
        if section is None:
            if not entries or self._frame.content is None:
                return False
            section = self._also_sends = AlsoSendsSection(self._ctx.look)
            self._frame.content.addWidget(section)
        before = section.entries
        section.show_entries(entries)
        return section.entries != before

    def show_notes(self, changes: Changes | None = None, shown_changed: bool = True) -> None:
        """Say the check lines for what the card shows now (see `lines`)."""
        lines = self.lines(changes, shown_changed)
        if self._notes is None:
            if not lines:
                return
            self._notes = CheckNotes(self._ctx.look)
            self._frame.column.insertWidget(self._frame.notes_at, self._notes)
        self._notes.show_lines(lines)

    def lines(self, changes: Changes | None = None, shown_changed: bool = True) -> list[str]:
        """Warnings for what the card shows now: look-alike letters in any text filled
        from the arguments, and hidden characters or look-alikes in a visible field.
        With `changes` (and nothing shown or hidden since): a field whose value they
        leave alone keeps the lines it had."""
        state = self._ctx.state
        lines: list[str] = []
        for live in self._ctx.live_texts:
            if not live.last.isascii():  # look-alikes need letters outside ASCII
                lines.extend(state.text_warnings(live.template))
        kept, editors = self._kept, self._ctx.editors
        if changes is not None and not shown_changed and len(kept) == len(editors):
            # Every field's lines are kept: only the fields under what changed are read.
            for path, editor in self._ctx.editors_under(changes.names):
                self._keep(path, editor, False)
        else:
            for path, editor in editors.items():
                self._keep(path, editor, shown_changed)
        if self._noisy:  # most cards, most keystrokes: no field has a line to say
            for path in editors:
                if path in self._noisy:
                    lines.extend(kept[path][1])
        for watched in self._ctx.watched:  # a list's rows from an array argument
            value = state.value(watched.path)
            for item in value if isinstance(value, list) else [value]:
                text = item if isinstance(item, str) else display_value(item)
                if not text.isascii():
                    lines.extend(lookalike_warnings(text))
        return lines

    def _keep(self, path: str, editor: Editor, again: bool) -> None:
        """Keep the lines of the field at `path` for its value now (made `again` even
        for the same value: what shows changed)."""
        value = self._ctx.state.value(path)
        own = self._kept.get(path)
        if own is None or own[0] is not value or own[2] is not editor or again:
            found = self._field_lines(editor, value)
            self._kept[path] = (value, found, editor)
            if found:
                self._noisy.add(path)
            else:
                self._noisy.discard(path)

    def _field_lines(self, editor: Editor, value: Any) -> list[str]:
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

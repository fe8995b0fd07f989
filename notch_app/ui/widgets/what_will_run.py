""" "What will run": Notch's own list, under a widget card's page, of every argument the
call sends, each change the page staged written `to: Marc → Sam`. The page cannot reach,
cover or restyle it (it is drawn by Notch outside the page), so a page never makes the
card show less than what runs.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QWidget

from notch_app.card.staged_args import RunLine
from notch_app.ui.theme import Look
from notch_app.ui.widgets.also_sends import ArgumentsSection, _label

ARROW = "\u2192"
NOTHING = "(removed)"
"""How a change that removes an argument reads after the arrow."""


def change_text(line: RunLine) -> str:
    """`Sam` for an unchanged value, `Marc → Sam` for one the page changed."""
    if line.before is None:
        return line.text
    return f"{line.before or '(empty)'} {ARROW} {line.text or NOTHING}"


class WhatWillRun(ArgumentsSection):
    """The list itself; `show_lines` redraws it when what runs changed. `undo` (when
    given) is offered while the page changed something: it puts the agent's proposal back."""

    def __init__(
        self, look: Look, undo: Callable[[], None] | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(look, "What will run", "Undo the widget's changes", parent)
        self.setObjectName("WhatWillRun")
        self.setAccessibleName("What will run")
        self.lines: tuple[RunLine, ...] = ()
        self.undo = self.link
        self.undo.hide()
        self._can_undo = undo is not None
        if undo is not None:
            self.undo.clicked.connect(undo)

    def show_lines(self, lines: list[RunLine], *, changed: bool) -> None:
        """Show `lines`; `changed`: the page changed something (offer the undo)."""
        self.undo.setVisible(self._can_undo and changed)
        wanted = tuple(lines)
        if wanted == self.lines:
            return
        self.lines = wanted
        self._redraw()

    def texts(self) -> list[str]:
        """Each row as `label: value` (with `before → after` for a change), in order."""
        return [f"{line.label}: {change_text(line)}" for line in self.lines]

    def _redraw(self) -> None:
        look = self._look
        self._clear_rows()
        if not self.lines:
            self._grid.addWidget(_label("No arguments", "KeyLabel", look, self._rows), 0, 0)
        for line in self.lines:
            key, value = self._add_row(line.label, change_text(line), line.warnings)
            if line.changed:
                value.setFont(look.font("PrimaryButton"))  # bold: the change is the news
                value.setAccessibleDescription("Changed by the widget")
                key.setToolTip(
                    "Changed by the widget; the agent proposed the value before the arrow"
                )
        self._show_rows_now()

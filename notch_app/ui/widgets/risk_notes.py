"""The risk section of a card: what the call does that a person should see first.

One plain line per finding of `notch_app.card.risk` ("Deletes build recursively, without
asking (rm)", "Runs a script downloaded from example.com", "Could not read this command
fully"), in a tinted panel above the card's body: red for a risky call, amber for a
caution. A risky call's confirm takes the destructive style (the danger pill), as the
Files delete card's own does. Notch's own part of the card: no manifest block can hide,
restyle or reorder it. It follows the card's values, so an edited command is read again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QAbstractButton, QLabel, QVBoxLayout, QWidget

from notch_app.card.argument_changes import Changes
from notch_app.card.paths import MISSING
from notch_app.card.risk import COMMAND_KEYS, FOLDER_KEYS, NO_RISK, CardRisk, card_risk
from notch_app.card.state import CardState
from notch_app.ui.theme import Look
from notch_app.ui.widgets.shapes import paint_round
from notch_app.ui.widgets.wrapped_label import WrappedLabel

_READ_KEYS = (*COMMAND_KEYS, *FOLDER_KEYS, "file_path", "notes")
"""The arguments a risk reading looks at: only these are read again after an edit."""
_READ_NAMES = frozenset(_READ_KEYS)


class RiskNotes(QWidget):
    """The tinted panel of risk lines; hidden while there is nothing to say."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RiskNotes")
        self._look = look
        self.risk: CardRisk = NO_RISK
        # Most calls have nothing to say: the lines' label is made with the first risk,
        # not built and polished hidden with every card.
        self._label: QLabel | None = None
        self.setAccessibleName("Risks of this call")
        self.hide()

    @property
    def label(self) -> QLabel:
        """The risk lines (made on first need)."""
        if self._label is None:
            column = QVBoxLayout(self)
            column.setContentsMargins(12, 8, 12, 8)
            column.setSpacing(3)
            # Plain text (command text is never markup), its height per width remembered.
            label = self._label = WrappedLabel(self)
            label.setObjectName("RiskLines")
            label.setFont(self._look.font("body"))
            column.addWidget(label)
        return self._label

    @property
    def lines(self) -> tuple[str, ...]:
        return self.risk.lines

    def show_risk(self, risk: CardRisk) -> bool:
        """Show `risk`'s lines; True when what the panel says changed."""
        if risk == self.risk:
            return False
        self.risk = risk
        if not risk.lines and self._label is None:
            self.setVisible(False)
            return True
        mark = "\u26a0" if risk.risky else "\u2139"
        self.label.setText("\n".join(f"{mark}  {line}" for line in risk.lines))
        token = "badge_danger_text" if risk.risky else "badge_warning_text"
        palette = self.label.palette()
        palette.setColor(self.label.foregroundRole(), self._look.color(token))
        self.label.setPalette(palette)
        self.label.setAccessibleDescription("\n".join(risk.lines))
        self.setVisible(bool(risk.lines))
        self.update()
        return True

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        token = "badge_danger" if self.risk.risky else "badge_warning"
        paint_round(painter, QRectF(self.rect()), self._look.radius["field"],
                    self._look.color(token), None)  # fmt: skip
        painter.end()


class RiskSection:
    """Keeps a card's risk panel and its confirm buttons' style in step with its values.

    `refresh()` reads the call again (only when an argument it looks at changed) and
    returns True when the panel changed, so the card lays itself out again. The panel is
    made with the call's first risk (most calls have none), and put in its place by
    `place(notes)`."""

    def __init__(
        self,
        look: Look,
        state: CardState,
        confirms: Sequence[QAbstractButton],
        parent: QWidget | None = None,
        place: Callable[[RiskNotes], None] | None = None,
    ) -> None:
        self._look = look
        self._parent = parent
        self._place = place
        self._notes: RiskNotes | None = None
        self._state = state
        self._confirms = list(confirms)
        self._tones = {id(b): getattr(b, "tone", "") for b in self._confirms}
        self._read: tuple[Any, ...] | None = None
        self._read_from: Mapping[str, Any] | None = None
        """The arguments `_read` was last found right for."""
        self.refresh()

    @property
    def notes(self) -> RiskNotes:
        """The risk panel: made with the first risk, or hidden and empty when asked for."""
        if self._notes is None:
            notes = self._notes = RiskNotes(self._look, self._parent)
            if self._place is not None:
                self._place(notes)
        return self._notes

    @property
    def risk(self) -> CardRisk:
        return self._notes.risk if self._notes is not None else NO_RISK

    def refresh(self, changes: Changes | None = None) -> bool:
        """`changes`: from the arguments of the last refresh, when the caller has them;
        an edit of an argument the reading does not look at then costs a set lookup."""
        state = self._state
        arguments = state.arguments()
        if (
            changes is not None
            and changes.before is self._read_from
            and changes.after is arguments
            and _READ_NAMES.isdisjoint(changes.names)
        ):
            self._read_from = arguments
            return False
        self._read_from = arguments
        values = tuple(state.value(key) for key in _READ_KEYS)
        if values == self._read:
            return False
        self._read = values
        given = {k: v for k, v in zip(_READ_KEYS, values, strict=True) if v is not MISSING}
        risk = card_risk(state.tool, given)
        if self._notes is None and risk == NO_RISK:
            return False  # nothing to say, as before: no panel to make
        changed = self.notes.show_risk(risk)
        if changed:
            self._style_confirms(risk.risky)
        return changed

    def _style_confirms(self, risky: bool) -> None:
        for button in self._confirms:
            if not hasattr(button, "tone"):
                continue
            button.tone = "danger" if risky else self._tones.get(id(button), "")
            button.update()

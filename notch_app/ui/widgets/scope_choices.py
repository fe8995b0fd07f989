""" "Allow for this session" and "Always allow": approvals with a scope, under the card's
confirm button and never in its place.

Both approve this call as confirm does (the same gate, the same hold while the card has
just appeared or changed under the pointer), and say how far the yes reaches: the rest
of this agent's session, or from now on (the action's Asks first turns off, exactly as in
Settings). Block rules and guards still win over either; that is the service's side.
They are the person's alone: nothing on the socket reaches them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from notch_app.ui.theme import Look, style_text

Scope = Literal["once", "session", "always"]

CHOICES: Final[tuple[tuple[Literal["session", "always"], str, str], ...]] = (
    (
        "session",
        "Allow for this session",
        "Approve this, and let this agent do this action again without asking until its "
        "session ends",
    ),
    (
        "always",
        "Always allow",
        "Approve this, and turn Asks first off for this action (as in Settings)",
    ),
)


class ScopeChoices(QWidget):
    """A quiet right-aligned line: "or  Allow for this session · Always allow".
    `choose(scope)` is called with the scope of a click; the buttons are the card's
    confirm buttons too (gated and held with it)."""

    def __init__(
        self, look: Look, choose: Callable[[Scope], None], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ScopeChoices")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        row.addStretch(1)
        lead = QLabel("or")
        style_text(lead, "ListMore", look)
        row.addWidget(lead)
        self.buttons: dict[Literal["session", "always"], QPushButton] = {}
        # The link colour while confirm is open; faint, like the held confirm, while not.
        palette = QPalette(look.tinted_palette("ShowMore", QPalette.ColorRole.ButtonText, "link"))
        palette.setColor(
            QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, look.color("text_faint")
        )
        for i, (scope, text, why) in enumerate(CHOICES):
            if i:
                dot = QLabel("·")
                style_text(dot, "ListMore", look)
                row.addWidget(dot)
            button = QPushButton(text, self)
            button.setObjectName(f"Scope-{scope}")
            button.setFlat(True)
            button.setAutoDefault(False)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setFont(look.font("ListMore"))
            button.setPalette(palette)
            button.setAccessibleName(text)
            button.setAccessibleDescription(why)
            button.setStatusTip(why)
            button.clicked.connect(lambda _c=False, s=scope: choose(s))
            row.addWidget(button)
            self.buttons[scope] = button

"""Esc and Enter on a card.

Esc cancels. Enter never approves from a field, nor from the card around it (issue 20:
" there" added to a Subject and Enter sent the email): a field keeps what Enter does in
it (a text area a new line, a chips field a new chip, a list its choice) and otherwise
ignores it, and then the card only says how to approve. Approving by keyboard is
deliberate: Ctrl+Enter anywhere on the card (the card's own chord; Ctrl+Alt+Enter from
any application is the notch's), or Enter with the keyboard focus on the confirm button,
which presses it as it presses any focused button.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QInputEvent, QKeyEvent
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget

from notch_app.ui.blocks.text import wrapped_label
from notch_app.ui.card_view.frame import CardFrame
from notch_app.ui.theme import Look

ENTER_HINT = "Enter doesn't approve from here: press Ctrl+Enter, or Tab to “{label}” and Enter"
"""What the card says when plain Enter reached it from a field or the card itself."""


class KeyedCard(Protocol):
    """What the keys ask of the card (CardView)."""

    @property
    def decision(self) -> bool | None: ...

    def press(self, role: str) -> bool: ...

    def made_before_armed(self, event: QInputEvent) -> bool: ...

    def confirm_button(self) -> QAbstractButton | None: ...

    def isAncestorOf(self, child: QWidget) -> bool: ...


class AnswerKeys:
    """What Esc and Enter do on `card`, and the "Enter doesn't approve" line under its
    footer (made the first time it is said)."""

    def __init__(self, card: KeyedCard, look: Look, frame: CardFrame) -> None:
        self._card = card
        self._look = look
        self._frame = frame
        self._hint: QLabel | None = None

    def key_pressed(self, event: QKeyEvent) -> bool:
        """Answer Esc or Enter (see the module); False for any other key."""
        card = self._card
        key = event.key()
        if key == Qt.Key.Key_Escape:
            card.press("cancel")
            event.accept()
            return True
        if key not in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            return False
        event.accept()
        if event.isAutoRepeat():
            return True  # a held Enter is not a new yes: it must not run on into the next card
        if card.made_before_armed(event):
            return True  # pressed while confirm was held, reached only now
        focused = QApplication.focusWidget()
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            card.press("confirm")
            return True
        if isinstance(focused, QAbstractButton) and card.isAncestorOf(focused):
            if focused.isEnabled():
                focused.click()
            return True
        if card.decision is None and card.confirm_button() is not None:
            self._show_hint()
        return True

    def _show_hint(self) -> None:
        """Say, once, how to approve by keyboard, in a quiet line under the footer."""
        button = self._card.confirm_button()
        label = button.text() if button is not None else "confirm"
        if self._hint is None:
            self._hint = wrapped_label("ListMore", self._look, selectable=False)
            self._hint.setObjectName("EnterHint")
            self._hint.setAlignment(Qt.AlignmentFlag.AlignRight)
            self._frame.column.insertWidget(self._frame.under_footer(), self._hint)
        self._hint.setText(ENTER_HINT.format(label=label))
        self._hint.show()

    def follow_label(self, label: str) -> None:
        """The confirm button now reads `label`: a hint on screen names it."""
        hint = self._hint
        if hint is not None and not hint.isHidden():
            hint.setText(ENTER_HINT.format(label=label))

    @property
    def hint(self) -> str:
        """The "Enter doesn't approve from here" line ("" while it is not shown)."""
        hint = self._hint
        return hint.text() if hint is not None and not hint.isHidden() else ""

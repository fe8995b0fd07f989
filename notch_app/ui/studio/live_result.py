"""What the card would return right now: the final arguments, the edited paths, their
digest (what an executor checks, `arguments_digest`), and the confirm gate with the
reason it is closed. Follows the card's CardState on every edit."""

from __future__ import annotations

import json
from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QFormLayout, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from notch_app.card.state import CardState
from notch_app.runtime.decision import NotDigestible, arguments_digest

MAX_SHOWN_CHARS: Final = 20_000
"""The final arguments are shown up to this long (a 1 MB argument is cut, said so)."""


class LiveResult(QWidget):
    """The live result of one card; `follow(state)` to track a card, `clear()` for none."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state: CardState | None = None
        self._unsubscribe: object = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.final = QPlainTextEdit(self)
        self.final.setObjectName("StudioFinalArguments")
        self.final.setAccessibleName("Final arguments")
        self.final.setReadOnly(True)
        self.final.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(QLabel("Final arguments (what would run)"))
        layout.addWidget(self.final, 1)
        form = QFormLayout()
        self.edited = _value_label("StudioEditedPaths")
        self.digest = _value_label("StudioDigest")
        self.gate = _value_label("StudioGate")
        self.decision = _value_label("StudioDecision")
        form.addRow("Edited", self.edited)
        form.addRow("Digest", self.digest)
        form.addRow("Confirm", self.gate)
        form.addRow("Pressed", self.decision)
        layout.addLayout(form)
        self.clear()

    def follow(self, state: CardState) -> None:
        """Show `state` now and after each of its changes (until the next follow/clear)."""
        self._stop()
        self._state = state
        self._unsubscribe = state.subscribe(self.refresh)
        self.decision.setText("not yet (confirm or cancel on the card to see its answer)")
        self.refresh()

    def clear(self, why: str = "No card") -> None:
        self._stop()
        self.final.setPlainText(why)
        for label in (self.edited, self.digest, self.gate, self.decision):
            label.setText("—")

    def show_decision(self, approved: bool, final: dict[str, object], edited: list[str]) -> None:
        """The card was pressed: say what the notch would hand back."""
        if approved:
            self.decision.setText(f"Approved, edited: {', '.join(edited) or 'nothing'}")
        else:
            self.decision.setText("Declined: nothing runs")

    def refresh(self) -> None:
        state = self._state
        if state is None:
            return
        final = state.final_arguments()
        text = json.dumps(final, indent=2, ensure_ascii=False, default=str)
        if len(text) > MAX_SHOWN_CHARS:
            text = text[:MAX_SHOWN_CHARS] + f"\n… ({len(text) - MAX_SHOWN_CHARS:,} more characters)"
        if text != self.final.toPlainText():
            self.final.setPlainText(text)
        self.edited.setText(", ".join(state.edited_paths()) or "nothing (as proposed)")
        try:
            self.digest.setText(arguments_digest(final))
        except NotDigestible as exc:
            self.digest.setText(f"none: {exc}")
        if state.confirm_enabled:
            self.gate.setText("open")
        else:
            self.gate.setText("closed: " + "; ".join(state.blockers()))

    def _stop(self) -> None:
        if callable(self._unsubscribe):
            self._unsubscribe()
        self._unsubscribe = None
        self._state = None


def _value_label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label

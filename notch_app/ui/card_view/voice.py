"""The words for a spoken yes on a card ("zebra garden"), above its body.

Given by the overlay while "Answer by voice" is on; a spoken or typed yes must carry them.
Placed above the body, never under the footer: on a short screen the bottom of a tall
card is cut by the notch (at 1280×720 the reply line is), the top never.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from notch_app.ui.card_view.frame import CardFrame
from notch_app.ui.theme import Look
from notch_app.ui.widgets.voice_words import VoiceWords


class VoiceWordsPlace:
    """The card's voice-words line (made when the overlay first gives words)."""

    def __init__(self, look: Look, frame: CardFrame, parent: QWidget) -> None:
        self._look = look
        self._frame = frame
        self._parent = parent
        self.line: VoiceWords | None = None

    @property
    def words(self) -> str | None:
        """The words the card shows now; None while it shows none (voice off)."""
        line = self.line
        return line.words if line is not None and not line.isHidden() else None

    def carries(self, text: str) -> bool:
        """Whether `text` ("yes, zebra garden", typed as the card says to speak it) holds
        the words the card shows: a yes, not a change."""
        line = self.line
        if line is None or line.isHidden():
            return False
        from notch_app.ui.voice.approval_words import carries

        return carries(text, line.words)

    def show(self, words: str | None) -> None:
        """Show `words` under the card's title; None takes them away."""
        line = self.line
        if words is None:
            if line is not None:
                line.show_note(None)
                line.hide()
                self._reserve_for(None)
            return
        if line is None:
            line = VoiceWords(self._look, words, self._parent)
            frame = self._frame
            column = frame.column
            at = frame.body_index()
            column.insertWidget(frame.footer_at() if at is None else at, line)
            self.line = line
        else:
            line.set_words(words)
        line.show()
        self._reserve_for(line)

    def _reserve_for(self, line: QWidget | None) -> None:
        body = self._frame.body
        if body is not None:
            body.reserve = line.sizeHint().height() + self._frame.column.spacing() if line else 0
            body.refresh()

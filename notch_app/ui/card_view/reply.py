"""Answering a card in words, typed under its footer (or spoken, through the overlay).

"yes" / "ok" / "send it" approves, only while confirm is open and armed (else a short
note says why not); "no" / "cancel" declines; anything else with a word in it declines
with the words for the agent. An unclear reply keeps the question open and asks once
more; a second one leaves the card as it is, for a click (the voice-confirm seed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from notch_app.reply import classify_reply
from notch_app.ui.card_view.gate import listed

if TYPE_CHECKING:
    from notch_app.card.state import CardState
    from notch_app.ui.widgets.reply_field import ReplyField

UNCLEAR_ONCE = "Not sure what you meant — yes, no, or what to change?"
"""What the card says to a reply it cannot read as yes, no or a change ("hmm maybe")."""
UNCLEAR_TWICE = "Still not sure — nothing was sent. Use the buttons to decide."
"""After a second unclear reply: the card stays as it is, for a click."""


class RepliedCard(Protocol):
    """What a reply in words asks of the card (CardView)."""

    reply_field: ReplyField
    reply_words: str | None
    unclear_replies: int

    @property
    def decision(self) -> bool | None: ...

    @property
    def armed(self) -> bool: ...

    def state(self) -> CardState: ...

    def press(self, role: str) -> bool: ...

    def send_back(self, words: str) -> None: ...

    def carries_voice_words(self, text: str) -> bool: ...


def answer_in_words(card: RepliedCard, text: str) -> bool:
    """Answer `card` with `text`; True when it decided the card."""
    field = card.reply_field
    if card.decision is not None:
        return False
    said = classify_reply(text)
    if said.verdict == "yes" or card.carries_voice_words(text):
        state = card.state()
        if not state.confirm_enabled:
            why = listed(tuple(state.blockers())) or "confirm is not available"
            field.show_note(f"Not yet: {why}.")
            return False
        if not card.armed:
            field.show_note("Not yet: look the card over for a moment, then say yes again.")
            return False
        card.reply_words = said.text
        if card.press("confirm"):
            field.collapse()
            return True
        card.reply_words = None
        return False
    if said.verdict == "no":
        card.reply_words = said.text
        field.collapse()
        return card.press("cancel")
    if not said.words.strip():
        field.show_note("Say what it should do instead, or yes or no.")
        return False
    if said.verdict == "unclear":
        card.unclear_replies += 1
        field.line.clear()
        field.show_note(UNCLEAR_ONCE if card.unclear_replies == 1 else UNCLEAR_TWICE)
        return False
    card.reply_words = said.text
    field.collapse()
    card.send_back(said.text)
    return True

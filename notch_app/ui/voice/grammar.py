"""The small grammar the reply is first heard with: yes / no / cancel / "change it", and
"yes" with two of the card words (`approval_words`: the only yes that approves by voice).

PocketSphinx's general English model, on synthetic speech, heard "no" as "um" and
"cancel" as "council"; a grammar of the few answers a card expects hears them right. A
grammar also forces any speech into one of its phrases ("send it to Sam instead" comes
out as "send it"), so `recognizer` checks the phrase against the sounds heard before it
trusts it.
"""

from __future__ import annotations

from notch_app.ui.voice.approval_words import WORDS, WORDS_PER_CARD, YES

YES_PHRASES = (
    "yes",
    "yeah",
    "yep",
    "okay",
    "ok",
    "sure",
    "yes please",
    "yes send it",
    "send it",
    "go ahead",
    "sure go ahead",
    "okay go ahead",
    "yes go ahead",
    "do it",
    "approve",
    "confirm",
)
NO_PHRASES = ("no", "nope", "no thanks", "cancel", "stop", "don't", "decline", "never mind")
CHANGE_PHRASES = ("change it", "wait")

PHRASES = (*YES_PHRASES, *NO_PHRASES, *CHANGE_PHRASES)

CODED_YES = YES + " <word>" * WORDS_PER_CARD
"""Any pair of the list, not only the card's: a wrong pair is heard as itself (and refused),
never forced onto the card's."""

REPLY_GRAMMAR = (
    "#JSGF V1.0;\ngrammar reply;\npublic <reply> = "
    + " | ".join((*PHRASES, CODED_YES))
    + ";\n<word> = "
    + " | ".join(WORDS)
    + ";\n"
)
"""JSGF: one phrase, nothing before or after it (silence aside)."""

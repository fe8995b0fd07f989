"""The small grammar the reply is first heard with: yes / no / cancel / "change it".

PocketSphinx's general English model, on synthetic speech, heard "no" as "um" and
"cancel" as "council"; a grammar of the few answers a card expects hears them right. A
grammar also forces any speech into one of its phrases ("send it to Sam instead" comes
out as "send it"), so `recognizer` checks the phrase against the sounds heard before it
trusts it.
"""

from __future__ import annotations

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

REPLY_GRAMMAR = "#JSGF V1.0;\ngrammar reply;\npublic <reply> = " + " | ".join(PHRASES) + ";\n"
"""JSGF: one phrase, nothing before or after it (silence aside)."""

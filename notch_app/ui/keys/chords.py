"""The two answer chords a card on screen takes from anywhere: which keys, and their hint.

Plain Enter and Esc are never taken from another application: someone pressing Enter
to send a chat message while a payment card drops must not pay. A chord of Ctrl and Alt
held together with Enter (approve) or Esc (decline) is not typed while writing text, is
not a common application shortcut (Ctrl+Enter sends in many chat and mail clients,
Alt+Enter opens properties; neither is taken), and Shift or Super with it is not the
chord. The chords are grabbed only while a card is on screen, and approve goes through
the card's arming hold like any yes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AnswerRole = Literal["approve", "decline"]


@dataclass(frozen=True, slots=True)
class AnswerChord:
    """One chord: Ctrl+Alt and any of `keysyms` (X keysym numbers), and its hint words."""

    role: AnswerRole
    keysyms: tuple[int, ...]
    keys: str
    """How the hint writes the keys ("Ctrl+Alt+↵")."""


XK_RETURN = 0xFF0D
XK_KP_ENTER = 0xFF8D
XK_ESCAPE = 0xFF1B

APPROVE_CHORD = AnswerChord("approve", (XK_RETURN, XK_KP_ENTER), "Ctrl+Alt+↵")
DECLINE_CHORD = AnswerChord("decline", (XK_ESCAPE,), "Ctrl+Alt+Esc")
ANSWER_CHORDS = (APPROVE_CHORD, DECLINE_CHORD)


def chords_hint(available: frozenset[AnswerRole] | set[AnswerRole], *, short: bool = False) -> str:
    """The quiet line a card shows for the chords that work now ("Ctrl+Alt+↵ approve ·
    Ctrl+Alt+Esc decline"; `short`, for a crowded header: "Ctrl+Alt+↵ / Esc"); "" when
    none does (no global keys on this platform)."""
    chords = [c for c in ANSWER_CHORDS if c.role in available]
    if short and len(chords) == len(ANSWER_CHORDS):
        return f"{APPROVE_CHORD.keys} / {DECLINE_CHORD.keys.removeprefix('Ctrl+Alt+')}"
    if short:
        return " · ".join(c.keys for c in chords)
    return " · ".join(f"{c.keys} {c.role}" for c in chords)

"""The shape of one language's reply words: plain data, no logic.

Each field is a whitespace-separated list of words (or, for phrases, a `|`-separated list
of phrases). `classify.py` normalises them the same way it normalises a reply, so a list
may be written with accents and capitals as a person would write the words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# What one word (or phrase) says about a reply, lowest precedence last in `classify`.
Cue = Literal["yes", "act", "neg", "but", "change", "hedge", "filler"]
CUES: tuple[Cue, ...] = ("neg", "but", "change", "hedge", "yes", "act", "filler")


@dataclass(frozen=True)
class Lexicon:
    """One language's reply words.

    - `yes`: affirmatives on their own ("yes", "sure", "vale").
    - `act`: verbs that approve the action when said alone ("send", "do", "go").
    - `neg`: negation, cancel and defer words ("no", "not", "cancel", "later").
    - `but`: contrast and alternatives that turn a yes into a revision ("but", "instead").
    - `change`: change requests ("change", "shorter", "add").
    - `hedge`: hesitation and questions that decide nothing ("maybe", "what", "pardon").
    - `filler`: words that change nothing (articles, pronouns, "please", "now", "the email").
    - `phrases`: cue -> `|`-separated phrases matched before single words, longest first.
    - `rewrites`: one written form -> its words ("don't" -> "do not", "dont" -> "do not").
    - `clitics`: endings glued to a verb ("envíalo" = "envía" + "lo"), longest tried first.
    - `elisions`: one-letter articles glued to the next word when typed without an
      apostrophe ("lenvoie" = "l" + "envoie").
    - `recipient_clitics`: glued pronouns that name a new recipient ("envíamelo": to me),
      a change request.
    """

    code: str
    yes: str
    act: str
    neg: str
    but: str
    change: str
    hedge: str
    filler: str
    phrases: dict[Cue, str] = field(default_factory=dict)
    rewrites: dict[str, str] = field(default_factory=dict)
    clitics: str = ""
    recipient_clitics: str = ""
    elisions: str = ""

"""The two words a spoken yes must carry: chosen at random for each card, shown only on it.

Audio the agent plays, a video or another person in the room can say "yes"; none of them
can see the card. So a yes by voice approves a card only with the two words it shows
("yes, zebra garden"). The words are picked in this process when the card is built and
shown on it; they are never sent anywhere before the decision: not in an event, not in
`confirm.get`, not in the log, not in the read-back Notch says aloud. A plain yes, or a yes
with other words, approves nothing.

Every card asks for them, whatever it does: a card is shown only for an action the person
wants to be asked about (an action they trust runs with "Asks first" off and shows no card
at all), so there is no low-risk card for which a bare yes would do. After the decision the
confirming words are kept with it (`words`, in the log and the agent's answer, as for any
answer in words): they were single-use, drawn for that card alone, and say nothing about
any other card's.

The list is for the recognizer (PocketSphinx with a small grammar, `grammar.py`): every
word is in its English dictionary, has two or more syllables, is no word the reply
classifier reads as yes, no or a change, and was kept from ~110 candidates by measurement
on espeak-ng speech (`benchmarks/bench_voice_words.py`): every ordered pair, with and
without a comma after "yes", heard as itself and never as another pair or a no.
Two words from 17 make 272 pairs, less the one below heard as something else: a guess
is right once in 271.
"""

from __future__ import annotations

import random
import re
import secrets

WORDS: tuple[str, ...] = (
    "accordion",
    "cathedral",
    "cucumber",
    "dinosaur",
    "dolphin",
    "flamingo",
    "garden",
    "gorilla",
    "lobster",
    "motorcycle",
    "robot",
    "spaghetti",
    "submarine",
    "waterfall",
    "window",
    "yellow",
    "zebra",
)
WORDS_PER_CARD = 2
MISHEARD_PAIRS: frozenset[tuple[str, ...]] = frozenset({("yellow", "submarine")})
"""Ordered pairs never drawn: said as a reply after a card's read-back, "yes yellow
submarine" was heard as "you see also read" every time (the gated-yes scenario of
tests/ui/test_voice_answers.py run for every ordered pair: this one alone failed), so
a person saying the words the card showed would be asked again and again."""
YES = "yes"
"""The one yes a coded answer starts with (the card says "yes, zebra garden")."""

_KNOWN = frozenset(WORDS)
_WORD = re.compile(r"[a-z]+")


class WordPicker:
    """Picks each card's words: two different words of `WORDS`, from the system's secure
    random source. `seed` (tests only, see `input_choice.WORDS_SEED_ENV`) makes the picks
    repeatable."""

    def __init__(self, seed: int | None = None) -> None:
        self._random: random.Random = (
            random.Random(seed) if seed is not None else secrets.SystemRandom()
        )

    def pick(self) -> str:
        """The next card's words, space-separated ("zebra garden")."""
        while True:
            pair = tuple(self._random.sample(WORDS, WORDS_PER_CARD))
            if pair not in MISHEARD_PAIRS:
                return " ".join(pair)


def words_after_yes(said: str) -> tuple[str, ...] | None:
    """The list words said after a leading "yes": ("zebra", "garden") for "Yes, zebra
    garden."; () for a bare "yes"; None when `said` is not "yes" followed only by words of
    the list (any other answer, or a yes with other words in it)."""
    words = _WORD.findall(said.casefold())
    if not words or words[0] != YES:
        return None
    rest = tuple(words[1:])
    return rest if all(w in _KNOWN for w in rest) else None


def carries(said: str, card_words: str) -> bool:
    """True when `said` is "yes" followed by exactly the card's words, in order."""
    return words_after_yes(said) == tuple(card_words.split())

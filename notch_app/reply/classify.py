"""How Notch takes a typed or spoken reply to a card: yes, no, revise or unclear.

One pass, the same for every language (the words are data in `languages/`):

1. fold the text (case, accents, apostrophes, width) and split it into words; a few
   symbols (thumbs up or down) are words too;
2. each word is put in the lexicon's own spelling: written forms rewritten ("don't" ->
   "do not"), stretched letters squeezed ("yesss"), glued pronouns split ("envíalo");
3. phrases are matched first, longest first ("never mind", "d'accord"), then single words;
   a word the lexicon does not know is content (a name, a time, a new detail);
4. the cues decide, safest first: a contrast or change request is a revision; a negation
   is a no (a revision when it brings content); a hesitation is unclear; a yes needs a yes
   word or an approving verb and nothing else: no content, no question.

A false yes is the one error that must never happen, so every doubt lands on unclear or
revise, never on yes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from notch_app.reply.languages import LEXICONS
from notch_app.reply.lexicon import CUES, Cue, Lexicon

Verdict = Literal["yes", "no", "revise", "unclear"]

SUPPORTED_LANGUAGES: tuple[str, ...] = ("en", "es", "de", "fr")

# A reply is a sentence or two; a longer one is read up to here and can never be a yes.
MAX_REPLY_CHARS = 2000
MAX_REPLY_WORDS = 200
DETECT_WORDS = 24

# Symbols people type as a whole answer; every language reads them the same way.
SYMBOL_CUES: dict[str, Cue] = {
    "👍": "yes",
    "👌": "yes",
    "✅": "yes",
    "✔": "yes",
    "☑": "yes",
    "👎": "neg",
    "❌": "neg",
    "✖": "neg",
    "🚫": "neg",
    "⛔": "neg",
    "🤔": "hedge",
    "🤷": "hedge",
}

_TOKEN = re.compile("[\\w']+|[,;:.!?¿¡()…—–]+|[" + "".join(SYMBOL_CUES) + "]")
# Marks a glued pronoun that names a recipient ("envía" + "+melo"); tokens never hold it.
_RECIPIENT = "+"
# Where a clause ends ("no, está mal" is not "no está mal"): phrases never span one.
_BREAK = ","
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "´": "'", "`": "'", "′": "'"})
_RUN_OF_THREE = re.compile(r"(.)\1{2,}")
_RUN_OF_TWO = re.compile(r"(.)\1+")
_SPELLED_CACHE = 4096
# Letters that only one of the supported languages writes: a hint when no language is given.
_LETTER_HINTS: dict[str, str] = {
    "es": "ñ¿¡áíóú",
    "de": "äöüß",
    "fr": "çœàèêâîôûùëïÿ",
}
# Answers typed in lower-case ASCII are the common case; this skips the Unicode folds.
_PLAIN = re.compile(r"[a-z0-9' ,.!?;:\-]*")


@dataclass(frozen=True)
class Reply:
    """How Notch took one reply.

    `verdict` is what it decides; `text` is the reply as received (control characters
    replaced, bounded); `language` is the one used to read it; `words` is the reply as the
    classifier read it (folded, contractions expanded), for logs and bug reports.
    """

    verdict: Verdict
    text: str
    language: str
    words: str


@dataclass(frozen=True)
class _Words:
    """One lexicon, compiled: every key already folded and rewritten."""

    code: str
    cues: dict[str, Cue]
    phrases: dict[tuple[str, ...], Cue]
    longest: int
    known: frozenset[str]
    rewrites: dict[str, tuple[str, ...]]
    clitics: tuple[str, ...]
    recipient_clitics: frozenset[str]
    spelled: dict[str, tuple[str, ...]]  # words seen before -> their spelling (a cache)
    elisions: frozenset[str]


def fold(text: str) -> str:
    """Lower-case `text` without accents, with one apostrophe and compatibility forms unified."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES)
    if text.isascii():
        return text
    # Accents go, and so do invisible format characters (a zero-width space in "do\u200bn't").
    return "".join(
        c
        for c in unicodedata.normalize("NFD", text)
        if not unicodedata.combining(c) and unicodedata.category(c) != "Cf"
    )


def _split(folded: str) -> list[str]:
    """Words, symbols and clause breaks (one `_BREAK` per run of punctuation)."""
    tokens: list[str] = []
    for token in _TOKEN.findall(folded):
        if not (token[0].isalnum() or token[0] in "'_" or token in SYMBOL_CUES):
            if tokens and tokens[-1] != _BREAK:
                tokens.append(_BREAK)
            continue
        token = token.strip("'_")
        if token:
            tokens.append(token)
    return tokens


def _compile(lex: Lexicon) -> _Words:
    rewrites: dict[str, tuple[str, ...]] = {}
    for written, meant in lex.rewrites.items():
        words = [part for token in _split(fold(meant)) for part in token.split("'") if part]
        rewrites[fold(written).strip("'")] = tuple(words)

    def expand(tokens: Iterable[str]) -> list[str]:
        out: list[str] = []
        for token in tokens:
            if token == _BREAK:
                continue
            if token in rewrites:
                out.extend(rewrites[token])
            elif "'" in token:
                out.extend(part for part in token.split("'") if part)
            else:
                out.append(token)
        return out

    cues: dict[str, Cue] = {}
    phrases: dict[tuple[str, ...], Cue] = {}
    # CUES runs safest first, so a word listed twice keeps its safest meaning.
    for cue in CUES:
        for entry in getattr(lex, cue).split():
            words = expand(_split(fold(entry)))
            if len(words) == 1:
                cues.setdefault(words[0], cue)
            elif words:
                phrases.setdefault(tuple(words), cue)
    for cue in CUES:
        for entry in lex.phrases.get(cue, "").split("|"):
            words = expand(_split(fold(entry)))
            if len(words) == 1:
                cues.setdefault(words[0], cue)
            elif words:
                phrases.setdefault(tuple(words), cue)
    # A phrase that approves may not hide a word that denies or contrasts ("no problem").
    risky = [
        f"{' '.join(words)!r} holds {word!r}"
        for words, cue in phrases.items()
        if cue in ("yes", "act")
        for word in words
        if cues.get(word) in ("neg", "but")
    ]
    if risky:
        raise ValueError(
            f"notch_app/reply/languages/{lex.code}.py: approving phrases hold a negation or "
            f"contrast (list them under hedge instead): {'; '.join(risky)}"
        )
    clitics = tuple(sorted((fold(c) for c in lex.clitics.split()), key=len, reverse=True))
    recipient_clitics = frozenset(fold(c) for c in lex.recipient_clitics.split())
    for clitic in clitics:
        cues.setdefault(clitic, "filler")  # a pronoun split off a verb changes nothing...
        # ...unless it names a new recipient: a word no one can type, "+me"
        cues[_RECIPIENT + clitic] = "change"
    known = frozenset(cues) | frozenset(w for p in phrases for w in p)
    return _Words(
        code=lex.code,
        cues=cues,
        phrases=phrases,
        longest=max((len(p) for p in phrases), default=1),
        known=known,
        rewrites=rewrites,
        clitics=clitics,
        recipient_clitics=recipient_clitics,
        spelled={},
        elisions=frozenset(fold(e) for e in lex.elisions.split()),
    )


_COMPILED: dict[str, _Words] = {code: _compile(LEXICONS[code]) for code in SUPPORTED_LANGUAGES}
# How many languages know each word: a word only one language knows says more about which.
_SPREAD: dict[str, int] = {}
for _words in _COMPILED.values():
    for _word in _words.known | frozenset(_words.rewrites):
        _SPREAD[_word] = _SPREAD.get(_word, 0) + 1


def _canonical(word: str, lex: _Words) -> tuple[str, ...]:
    """`word` in the lexicon's spelling (one or two words), or itself when unknown."""
    if word in lex.known or word.isdigit():
        return (word,)
    spelled = lex.spelled.get(word)
    if spelled is None:
        spelled = _respell(word, lex)
        if len(lex.spelled) >= _SPELLED_CACHE:
            lex.spelled.clear()  # bounded: a flood of new words costs time, not memory
        lex.spelled[word] = spelled
    return spelled


def _respell(word: str, lex: _Words) -> tuple[str, ...]:
    if word in lex.rewrites:
        return lex.rewrites[word]
    if _RUN_OF_TWO.search(word):
        for squeezed in (_RUN_OF_THREE.sub(r"\1", word), _RUN_OF_TWO.sub(r"\1", word)):
            if squeezed in lex.known:
                return (squeezed,)
            if squeezed in lex.rewrites:
                return lex.rewrites[squeezed]
    if lex.clitics and word.endswith(lex.clitics):
        for clitic in lex.clitics:
            stem = word[: -len(clitic)]
            if word.endswith(clitic) and len(stem) > 2 and lex.cues.get(stem, "filler") != "filler":
                return (stem, _RECIPIENT + clitic if clitic in lex.recipient_clitics else clitic)
    if len(word) > 3 and word[0] in lex.elisions and word[1:] in lex.known:
        return (word[0], word[1:])
    return (word,)


def _words_of(tokens: list[str], lex: _Words) -> tuple[list[str], float]:
    """The words in the lexicon's spelling, and how much they look like its language: a
    word it knows as written counts 1 (shared with other languages: split among them), a
    word it knows once squeezed or split counts half."""
    words: list[str] = []
    evidence = 0.0
    for token in tokens:
        if token in SYMBOL_CUES or token == _BREAK:
            words.append(token)
            continue
        if token in lex.rewrites:
            words.extend(lex.rewrites[token])
            evidence += 1.0 / _SPREAD[token]
            continue
        parts = token.split("'") if "'" in token and token not in lex.known else (token,)
        for part in parts:
            if not part:
                continue
            if part in lex.known:
                words.append(part)
                evidence += 1.0 / _SPREAD[part]
                continue
            spelled = _canonical(part, lex)
            words.extend(spelled)
            if spelled[0] in lex.known:
                evidence += 0.5 / _SPREAD[spelled[0]]
    return words, evidence


def _cues_of(words: list[str], lex: _Words) -> tuple[list[Cue | None], int]:
    """One cue per phrase or word (None for content), and how many phrases matched.

    Phrases are matched longest first, never across a clause break.
    """
    found: list[Cue | None] = []
    phrases = 0
    i, count = 0, len(words)
    while i < count:
        for size in range(min(lex.longest, count - i), 1, -1):
            cue = lex.phrases.get(tuple(words[i : i + size]))
            if cue is not None:
                found.append(cue)
                phrases += 1
                i += size
                break
        else:
            word = words[i]
            if word != _BREAK:
                found.append(SYMBOL_CUES.get(word) or lex.cues.get(word))
            i += 1
    return found, phrases


def _decide(cues: list[Cue | None], question: bool) -> Verdict:
    said = set(cues)
    content = cues.count(None)
    if "but" in said or "change" in said:
        return "revise"
    if "neg" in said:
        return "revise" if content else "no"
    if "hedge" in said:
        return "unclear"
    if "yes" in said or "act" in said:
        if content:
            return "revise"
        return "unclear" if question else "yes"
    # No cue at all: a lone unknown word is noise; a sentence of them is an instruction.
    return "revise" if content >= 2 else "unclear"


def _score(evidence: float, phrases: int, lex: _Words, hints: str) -> float:
    """How much a reply looks like `lex`'s language: its words, its phrases, and letters
    only it writes."""
    letters = _LETTER_HINTS.get(lex.code, "")
    return evidence + phrases + (1.0 if any(c in hints for c in letters) else 0.0)


def _denied_elsewhere(tokens: list[str], chosen: _Words) -> bool:
    """Whether another supported language reads a negation, a contrast or a change
    request in `tokens` (only asked of a detected yes, so it costs nothing otherwise)."""
    for code in SUPPORTED_LANGUAGES:
        other = _COMPILED[code]
        if other is chosen:
            continue
        cues, _ = _cues_of(_words_of(tokens, other)[0], other)
        if {"neg", "but", "change"} & set(cues):
            return True
    return False


def _shown(text: str) -> str:
    """The reply as received, safe to print on one line and bounded."""
    bounded = text[:MAX_REPLY_CHARS]
    if not bounded.isprintable():
        bounded = "".join(c if c.isprintable() else " " for c in bounded)
    return bounded.strip()


def classify_reply(text: str, language: str | None = None) -> Reply:
    """Classify one reply to a card; `language` is one of SUPPORTED_LANGUAGES, or None to
    detect it among them.

    Never decides yes when the reply holds a negation, a contrast ("but"), a change
    request, a question, hesitation or a word it does not know. Raises ValueError when
    `language` is not supported (the message names the supported ones).
    """
    if language is not None and language not in _COMPILED:
        raise ValueError(
            f"unsupported reply language {language!r}; use one of {', '.join(SUPPORTED_LANGUAGES)}"
        )
    cut = len(text) > MAX_REPLY_CHARS
    head = text[:MAX_REPLY_CHARS]
    if _PLAIN.fullmatch(head):
        folded, hints = head, ""
    else:
        folded = fold(head)
        hints = unicodedata.normalize("NFC", head.lower())
    question = "?" in folded or "¿" in folded
    tokens = _split(folded)
    if len(tokens) > MAX_REPLY_WORDS:
        cut = True
        tokens = tokens[:MAX_REPLY_WORDS]
    if language is not None:
        lex = _COMPILED[language]
        words, _ = _words_of(tokens, lex)
        cues, _ = _cues_of(words, lex)
    else:
        # The language is told from the first words; only the one chosen reads them all.
        opening = tokens[:DETECT_WORDS]
        best: tuple[float, _Words, list[str], list[Cue | None]] | None = None
        for code in SUPPORTED_LANGUAGES:
            candidate = _COMPILED[code]
            seen, evidence = _words_of(opening, candidate)
            seen_cues, phrases = _cues_of(seen, candidate)
            score = _score(evidence, phrases, candidate, hints)
            if best is None or score > best[0]:  # a tie keeps the earlier language
                best = (score, candidate, seen, seen_cues)
        assert best is not None
        _, lex, words, cues = best
        if len(tokens) > len(opening):
            words, _ = _words_of(tokens, lex)
            cues, _ = _cues_of(words, lex)
    verdict = _decide(cues, question)
    if verdict == "yes" and language is None and _denied_elsewhere(tokens, lex):
        # Told apart from the words alone, a yes must not deny in any language: "n' super"
        # reads "ein super" in German but "ne … super" in French.
        verdict = "unclear"
    if cut and verdict == "yes":
        verdict = "revise"  # there is more after what was read: it cannot be a plain yes
    said = " ".join(w for w in words if w != _BREAK)
    return Reply(verdict=verdict, text=_shown(text), language=lex.code, words=said)

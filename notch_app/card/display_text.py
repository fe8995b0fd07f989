"""Text as the card shows it: nothing invisible, nothing disguised.

A card shows values the agent wrote. Two tricks make a value read as something it is not:
- characters that draw nothing or reorder what follows (a right-to-left override U+202E
  turns "invoice‮fdp.exe" into "invoiceexe.pdf"; a zero-width space splits a word that
  looks whole). `mark_invisible` replaces each with a visible `⟨U+202E⟩`.
- letters from another script that look Latin (a Cyrillic "а" in `sam@exаmple.com`).
  `lookalike_warnings` names each word that mixes Latin with such a script, as a line the
  card shows under the value.

Pure functions over `str`, standard library only (`unicodedata`); never raise.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final

BIDI_CONTROLS: Final = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Marks and embeddings/overrides/isolates that reorder text (Unicode bidi controls)."""

_KEPT: Final = frozenset("\n\t")
"""Line breaks and tabs lay text out; they are what they look like."""

_ASCII_CONTROL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
"""The ASCII characters `is_invisible` marks: controls other than tab and line feed."""

_PRINTABLE_INVISIBLE: Final = re.compile(
    "[\u115f\u1160\u3164\uffa0\u2800\u034f\ufe00-\ufe0e\U000e0100-\U000e01ef]"
)
"""The characters `is_invisible` marks that Python counts as printable: the fillers and
blanks of _INVISIBLE_EXTRA that are letters, symbols or marks, and variation selectors."""

_ZWJ: Final = "\u200d"
_INVISIBLE_EXTRA: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u034f\u2028\u2029")
"""Fillers and blanks that are not format characters but draw nothing (Hangul fillers,
the braille blank, the Mongolian vowel separator, line/paragraph separators). No-break
spaces are left alone: they look like the spaces they are."""


def mark(ch: str) -> str:
    """`⟨U+202E⟩` for one character."""
    return f"⟨U+{ord(ch):04X}⟩"


def is_invisible(ch: str) -> bool:
    """Whether `ch` reorders text or draws nothing a person could see or count."""
    if ch in _KEPT:
        return False
    if ch in BIDI_CONTROLS or ch in _INVISIBLE_EXTRA:
        return True
    category = unicodedata.category(ch)
    # Cf: format characters (zero-width space/joiners, word joiner, BOM, soft hyphen,
    # tag characters); Cc: control characters; Co/Cn: private use and unassigned.
    return category in ("Cf", "Cc", "Co", "Cn") or (
        0xFE00 <= ord(ch) <= 0xFE0E or 0xE0100 <= ord(ch) <= 0xE01EF  # variation selectors
    )


def _emoji_joiner(text: str, i: int) -> bool:
    # A zero-width joiner between two pictographs builds one emoji (👩‍💻): not a trick.
    if i == 0 or i + 1 >= len(text):
        return False
    before, after = text[i - 1], text[i + 1]
    if before == "\ufe0f" and i >= 2:
        before = text[i - 2]
    return unicodedata.category(before) == "So" and unicodedata.category(after) == "So"


def mark_invisible(text: str) -> str:
    """`text` with every bidi control and invisible character replaced by its visible
    code (`⟨U+202E⟩`), so what the card draws is every character that will be sent.

    Kept as they are: line breaks, tabs, and joiners/variation selector-16 inside emoji.
    """
    if text.isascii() and (text.isprintable() or not _ASCII_CONTROL.search(text)):
        # The common case, a line or lines of plain ASCII: nothing to look at (in ASCII
        # only the control characters are invisible, and line breaks and tabs are kept).
        return text
    if text.isprintable() and not _PRINTABLE_INVISIBLE.search(text):
        # One line with curly quotes, accents, a € sign: no format, control, private-use
        # or unassigned character (Python calls those not printable), and none of the
        # printable ones that draw nothing: nothing to mark, no emoji joiner to keep.
        return text
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch == "\ufe0f" and i > 0 and unicodedata.category(text[i - 1]) == "So":
            out.append(ch)  # emoji presentation of the symbol before it
        elif ch == _ZWJ and _emoji_joiner(text, i):
            out.append(ch)
        elif is_invisible(ch):
            out.append(mark(ch))
        else:
            out.append(ch)
    return "".join(out)


# --- look-alike letters --------------------------------------------------------------

LOOKALIKE_SCRIPTS: Final = {
    "CYRILLIC": "Cyrillic",
    "GREEK": "Greek",
    "ARMENIAN": "Armenian",
    "CHEROKEE": "Cherokee",
    "COPTIC": "Coptic",
    "LISU": "Lisu",
    "FULLWIDTH": "full-width",
    "MATHEMATICAL": "mathematical",
}
"""Scripts (by the first word of a letter's Unicode name) with letters that pass for
Latin ones: mixed with Latin in one word, they disguise a name or an address."""

_WORD_RE: Final = re.compile(r"[^\s,;:<>()\[\]{}\"'`/|@]+")
"""A word as a person reads it: an email is read as its two halves, a URL by its parts."""


@dataclass(frozen=True, slots=True)
class ShownText:
    """A value ready for the card: the text with invisibles marked, and warning lines."""

    text: str
    warnings: tuple[str, ...] = ()


def _script(ch: str) -> str | None:
    if not ch.isalpha():
        return None
    if ch.isascii():
        return "LATIN"
    try:
        first = unicodedata.name(ch).split(" ", 1)[0]
    except ValueError:
        return None
    return first


def lookalike_warnings(text: str) -> list[str]:
    """One warning line per word of `text` that mixes Latin letters with letters of a
    look-alike script, e.g. "‘exаmple.com’ mixes Latin and Cyrillic letters that look
    alike". Emails, domains, IBANs and names are words here; a word wholly in one
    script (Иван, Αθήνα) is not flagged. At most 5 lines."""
    if text.isascii():
        return []
    out: list[str] = []
    seen: set[str] = set()
    for match in _WORD_RE.finditer(text):
        word = match.group(0).strip(".-_")
        if word.isascii() or word in seen:
            continue
        scripts = {s for s in (_script(ch) for ch in word) if s is not None}
        foreign = sorted(LOOKALIKE_SCRIPTS[s] for s in scripts if s in LOOKALIKE_SCRIPTS)
        disguised = {"full-width", "mathematical"} & set(foreign)
        if foreign and ("LATIN" in scripts or len(foreign) > 1 or disguised):
            seen.add(word)
            shown = mark_invisible(word)
            if "LATIN" in scripts:
                mixed = " and ".join(["Latin", *foreign])
                out.append(f"‘{shown}’ mixes {mixed} letters that look alike")
            else:
                kinds = " and ".join(foreign)
                out.append(f"‘{shown}’ is written in {kinds} letters that look like Latin ones")
            if len(out) == 5:
                break
    return out


def shown_text(text: str) -> ShownText:
    """`text` as the card shows it: invisibles marked, look-alike words warned about."""
    return ShownText(mark_invisible(text), tuple(lookalike_warnings(text)))


# --- an agent's own words, quoted ------------------------------------------------------

_QUOTES: Final = frozenset('"“”„‟«»‹›「」『』〝〞＂')
"""Marks that open or close a quotation: in an agent's words shown inside quotes, each
becomes ' so the words cannot end the quote and go on as if the notch said them."""


def agents_line(text: str, limit: int) -> str:
    """Words an agent sent (a reason it gives), made fit to show on one line inside
    quotes as its own: line breaks and runs of spaces become one space, what draws
    nothing or reorders is marked (`mark_invisible`), quotation marks become ', and past
    `limit` characters it ends in "…". Empty when nothing visible is left."""
    line = " ".join(mark_invisible(" ".join(text.split())).split())
    line = "".join("'" if ch in _QUOTES else ch for ch in line)
    return line if len(line) <= limit else line[: max(0, limit - 1)].rstrip() + "…"


__all__ = [
    "BIDI_CONTROLS",
    "LOOKALIKE_SCRIPTS",
    "ShownText",
    "agents_line",
    "is_invisible",
    "lookalike_warnings",
    "mark",
    "mark_invisible",
    "shown_text",
]

"""Fixed-width text as the card shows it: every line counted, every blank made visible.

A shell command or a diff can hide what runs in plain sight: `ls -la`, forty empty
lines, then `curl … | sh` shows as `ls -la` in a box that fits a few lines; tabs or
trailing spaces push text out of view. The card's code panels say how many lines a value
has, scroll through all of them (and hold confirm until they have been on screen, see
`CardState.hold_until_seen`), and draw what is blank as a faint mark instead of nothing:

- a tab as `→` (then the spaces up to the next tab stop, so columns still line up),
- spaces at the end of a line, or making up a whole line, as `·`,
- an empty line as `⏎`.

Other invisible characters (`\\r`, escape sequences, bidi controls) are already shown as
`⟨U+000D⟩` by `display_text.mark_invisible`; `shown_code` applies both. Pure functions over
`str`, standard library only; never raise.
"""

from __future__ import annotations

from typing import Final

from notch_app.card.display_text import mark_invisible

TAB_MARK: Final = "\u2192"  # →
SPACE_MARK: Final = "\u00b7"  # ·
EMPTY_LINE_MARK: Final = "\u23ce"  # ⏎
MARKS: Final = frozenset({TAB_MARK, SPACE_MARK, EMPTY_LINE_MARK})
TAB_WIDTH: Final = 4


def line_count(text: str) -> int:
    """How many lines `text` holds as the card shows it: one more than its line breaks
    (a last, empty line after a final break counts too: it is part of what is sent)."""
    return text.count("\n") + 1


def lines_said(count: int) -> str:
    """ "1 line", "42 lines", "1,204 lines"."""
    return f"{count:,} line{'' if count == 1 else 's'}"


BLANK_RUN: Final = 3
"""Empty lines in a row that read as padding, not as a paragraph break."""


def has_hidden_blanks(text: str) -> bool:
    """Whether `text` holds what an editor draws as nothing: a tab, blanks at the end of
    a line (or a line of only blanks), or a run of BLANK_RUN empty lines or more. A
    single empty line between paragraphs is what it looks like."""
    if "\t" in text or "\n" * (BLANK_RUN + 1) in text:
        return True
    return any(line != line.rstrip(" ") for line in text.split("\n"))


def has_hidden_characters(text: str) -> bool:
    """Whether `text` holds characters that draw nothing or move the text (`\\r`, an
    escape, a bidi control): `mark_invisible` changes it."""
    return mark_invisible(text) != text


def mark_blanks(text: str) -> str:
    """`text` with tabs, trailing or whole-line blanks and empty lines drawn as marks
    (see the module's doc); the line structure is kept, so line N is still line N."""
    return "\n".join(_marked_line(line) for line in text.split("\n"))


def _marked_line(line: str) -> str:
    if not line:
        return EMPTY_LINE_MARK
    if "\t" in line:
        out: list[str] = []
        column = 0
        for ch in line:
            if ch == "\t":
                pad = TAB_WIDTH - column % TAB_WIDTH
                out.append(TAB_MARK + " " * (pad - 1))
                column += pad
            else:
                out.append(ch)
                column += 1
        line = "".join(out)
    body = line.rstrip(" ")
    return body + SPACE_MARK * (len(line) - len(body))


def shown_code(text: str) -> str:
    """`text` as a code panel draws it: invisible characters as `⟨U+…⟩`, blanks as marks."""
    return mark_blanks(mark_invisible(text))


__all__ = [
    "EMPTY_LINE_MARK",
    "MARKS",
    "SPACE_MARK",
    "TAB_MARK",
    "has_hidden_blanks",
    "has_hidden_characters",
    "line_count",
    "lines_said",
    "mark_blanks",
    "shown_code",
]

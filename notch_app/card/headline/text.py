"""A headline's text: the Headline itself, each value on one line, cut to fit."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from notch_app.card.display_text import mark_invisible
from notch_app.manifest.model import Tool

MAX_HEADLINE_CHARS: Final = 160
"""A headline is one sentence; the card wraps it to at most two lines."""
MAX_CONFIRM_CHARS: Final = 36
"""The confirm button's words: a verb and a short object, never a sentence."""
VALUE_CHARS: Final = 60
WHOLE: Final = 1_000_000
NAME_CHARS: Final = 48
COMMAND_CHARS: Final = 64
SECRET_SHOWN: Final = "••••••"

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Headline:
    """What a card says first, and what its confirm button says."""

    text: str
    """One sentence, at most MAX_HEADLINE_CHARS: "Pay €1,250.00 to Studio Nord GmbH"."""
    confirm: str
    """Verb and object, at most MAX_CONFIRM_CHARS: "Pay €1,250.00", "Send to 3 people"."""
    authored: bool = False
    """The manifest wrote `text` (`confirmation.headline`); False when generated."""
    said: frozenset[str] = frozenset()
    """The argument paths whose whole value `text` states: a compact card need not
    repeat them as facts of their own."""


def one_line(text: str) -> str:
    marked = mark_invisible(text)
    if marked.isprintable():  # no line breaks or tabs: only runs of spaces to close up
        return (_SPACE.sub(" ", marked) if "  " in marked else marked).strip()
    cleaned = "".join(c if c.isprintable() else " " for c in marked)
    return _SPACE.sub(" ", cleaned).strip()


def cut_to(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def confirm_cut(text: str) -> str:
    return cut_to(text, MAX_CONFIRM_CHARS)


def some_of(items: Iterable[str], shown: int = 2) -> str:
    values = [v for v in items if v]
    if len(values) <= shown + 1:
        return ", ".join(values)
    return ", ".join(values[:shown]) + f" and {len(values) - shown} more"


HeadlineFor = Callable[[Tool, Mapping[str, Any]], Headline]
"""The shape of `headline` with its defaults, for code that is handed one."""

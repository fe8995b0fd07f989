"""Text bounded for a label: cut past a length a label can lay out quickly, with break
hints in long unbroken runs so a word-wrapped label never overflows the card. Used by
the blocks and by Notch's own notices alike (so it sits with the widgets, below both).
"""

from __future__ import annotations

import re

MAX_SHOWN_CHARS = 4000
"""Display text longer than this is cut with an ellipsis: a 1 MB argument in a label
would take seconds to lay out. Inputs still hold (and send back) the full value."""

_ZWSP = "\u200b"
_LONG_RUN = 28
_RUN = re.compile(rf"\S{{{_LONG_RUN}}}")
"""Each 28 characters of an unbroken run (`\\S` is `not str.isspace()`, as the old
per-character loop read it): a break hint follows each, at C speed on every keystroke."""


def shown(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """`text` bounded for a label, with break opportunities in long unbroken runs
    (URLs, ids) so word-wrapped labels never overflow the card's width."""
    if len(text) > limit:
        text = text[:limit] + "…"
    elif len(text) < _LONG_RUN:
        return text  # too short to hold a run that needs a break
    return _RUN.sub(_hinted, text)


def _hinted(run: re.Match[str]) -> str:
    return run.group() + _ZWSP


def unshown(text: str) -> str:
    """The text a person reads from a label made with `shown` (break hints removed)."""
    return text.replace(_ZWSP, "")

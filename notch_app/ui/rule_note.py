"""The one-line note of a call that ran unasked under the person's rule, made to fit.

The service says it whole ("Ran without asking: your 'this session' rule for Publish
playlist · Undo"); the notch's note is one line of the card's width, and a plain "…" at
its end would cut the action's name and the Undo the note is the button for. Here the
line keeps both: the whole sentence when it fits, else a shorter one ("Ran unasked
(session rule): Publish playlist · Undo") whose action name gives way, never the Undo.
The whole sentence stays in the note's tooltip and the recent decisions.
"""

from __future__ import annotations

import re
from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

UNDO: Final = " · Undo"
_SAID = re.compile(
    r"^Ran without asking: your '(?P<rule>[^']+)' rule(?: \((?P<reach>.*)\))? for (?P<title>.+) · Undo$"
)
_SHORT_RULE: Final = {"this session": "session rule", "Always allow": "Always allow"}


def fitted_rule_note(text: str, metrics: QFontMetrics, room: int) -> str:
    """`text` as the note shows it in `room` pixels: whole, shortened, or with the
    action's name cut, always ending in " · Undo" when `text` does."""
    if metrics.horizontalAdvance(text) <= room or not text.endswith(UNDO):
        return text
    said = _SAID.match(text)
    if said is None:
        head = text[: -len(UNDO)]
    else:
        rule = _SHORT_RULE.get(said["rule"], said["rule"])
        reach = said["reach"]
        head = f"Ran unasked ({rule}): {reach or said['title']}"
    left = room - metrics.horizontalAdvance(UNDO)
    return metrics.elidedText(head, Qt.TextElideMode.ElideRight, left) + UNDO


__all__ = ["UNDO", "fitted_rule_note"]

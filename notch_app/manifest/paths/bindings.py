"""Bindings: `{{path}}` and `<<path>>` connect a card to the tool call's arguments.

Only key lookups: a path is a dotted list of property names, nothing is ever evaluated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_SEGMENT = r"[A-Za-z0-9_$-]+"
_PATH = rf"{_SEGMENT}(?:\.{_SEGMENT})*"

# One pattern finds both spellings; the inner group is validated separately so that
# `{{ a..b }}` is reported as malformed rather than silently shown as text.
BINDING_RE: Final = re.compile(r"\{\{(?P<curly>.*?)\}\}|<<(?P<angle>.*?)>>", re.DOTALL)
PATH_RE: Final = re.compile(rf"^\s*(?P<path>{_PATH})\s*$")


@dataclass(frozen=True, slots=True)
class Binding:
    """One binding found in a string: its path and where it sits in that string."""

    path: str
    start: int
    end: int
    raw: str

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self.path.split("."))


class MalformedBinding(ValueError):
    """A `{{...}}` or `<<...>>` whose inside is not a dotted path."""

    def __init__(self, raw: str, start: int) -> None:
        super().__init__(
            f"{raw!r} is not a binding: write a dotted argument path such as "
            "'{{user.name}}' (letters, digits, _ and - between the dots)"
        )
        self.raw = raw
        self.start = start


def find_bindings(text: str) -> list[Binding]:
    """All bindings in `text`, in order. Raises MalformedBinding for a bad one."""
    found: list[Binding] = []
    if "{{" not in text and "<<" not in text:
        return found
    for match in BINDING_RE.finditer(text):
        inner = match.group("curly") if match.group("curly") is not None else match.group("angle")
        m = PATH_RE.match(inner or "")
        if m is None:
            raise MalformedBinding(match.group(0), match.start())
        found.append(Binding(m.group("path"), match.start(), match.end(), match.group(0)))
    return found


def parse_single_binding(text: str) -> str:
    """The path of a string that must be exactly one binding (`bind`, `visibleIf`).

    Raises MalformedBinding when the string is anything else.
    """
    stripped = text.strip()
    found = find_bindings(stripped)
    if len(found) != 1 or found[0].start != 0 or found[0].end != len(stripped):
        raise MalformedBinding(text, 0)
    return found[0].path

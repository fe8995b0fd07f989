"""What one edit of a card's arguments changed, and what a reader of them read.

A card's arguments are never changed in place (`CardState`: an edit makes new containers
along its path and shares the rest), so two states of them compare by identity first:
`Changes.between(before, after)` names the top-level arguments whose value differs. A
reader that notes what it read (`Reads`) can then tell whether what it made from the
arguments before still holds after (`Reads.unchanged`): the headline, a folded value's
words, a live text, a field's error follow a keystroke by answering from memory unless
the keystroke was in what they read (issue 19). Qt-free.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import compress
from operator import is_not
from typing import Any

from notch_app.card.paths import MISSING


@dataclass(frozen=True, slots=True)
class Changes:
    """What differs between two states of a card's arguments: the top-level names whose
    value changed, and whether the names themselves changed (which there are, their
    order, which of them hold objects: `shape`).

    Both must be arguments that are never changed in place (a `CardState`'s are
    copy-on-write: an edit makes new containers along its path and shares the rest), so
    a value that is the same object is the same value."""

    before: Mapping[str, Any]
    after: Mapping[str, Any]
    names: frozenset[str]
    shape: bool

    @classmethod
    def between(cls, before: Mapping[str, Any], after: Mapping[str, Any]) -> Changes:
        if before is after:
            return cls(before, after, frozenset(), False)
        names: set[str] = set()
        # The same name objects in the same order (a copy-on-write edit keeps them), else
        # the names are taken as changed (equal names as other objects too: only more
        # is looked at again). Neither walk is a Python loop.
        shape = len(before) != len(after) or any(map(is_not, before, after))
        if shape:
            looked_at: Iterable[str] = list(after)
        else:
            # A keystroke: only the values that are not the very same object are looked
            # at, found without a Python loop.
            looked_at = compress(after, map(is_not, before.values(), after.values()))
        for name in looked_at:
            value = after[name]
            old = before.get(name, MISSING)
            if old is value or (type(old) is type(value) and old == value):
                continue
            names.add(name)
            if type(old) is not type(value) and (
                isinstance(old, Mapping) != isinstance(value, Mapping)
            ):
                shape = True
        if shape:
            names.update(name for name in before if name not in after)
        return cls(before, after, frozenset(names), shape)


@dataclass(frozen=True, slots=True)
class Reads:
    """Which arguments a headline or a fact was made from: the top-level names it read
    (at any depth below them), and whether it also went by which names there are, in
    which order, and which of them hold objects (`listed`).

    `passed_over`: top-level arguments looked at only to find that they fail a test
    (`test(value)` False: "too long to quote"), each with its test. What was made holds
    while each still fails it, whatever else about its value changed."""

    names: frozenset[str]
    listed: bool
    passed_over: tuple[tuple[str, Callable[[Any], bool]], ...] = ()

    def unchanged(self, changes: Changes) -> bool:
        """True when what was made before `changes` would be made the same after them."""
        if changes.shape and self.listed:
            return False
        if not self.names.isdisjoint(changes.names):
            return False
        for name, test in self.passed_over:
            if name in changes.names and test(changes.after.get(name, MISSING)):
                return False
        return True


def top_name(path: str) -> str:
    """The top-level argument a dotted path lies under (`to.0.email` → `to`)."""
    return path.partition(".")[0]


__all__ = ["Changes", "Reads", "top_name"]

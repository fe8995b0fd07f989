"""What is worked out once per loaded object and kept: one table per kind of value.

A loaded tool, its view's blocks and a catalog entry are never changed in place, so
what is derived from one alone (the blocks its compact view folds, a block's plan, an
entry's icon) can be worked out once and kept. The table is keyed by the object's
identity, and each entry holds its object, so an id is never reused while it is kept;
it is bounded (the oldest entry goes first), so a long-running Notch that reloads its
catalog does not grow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

_V = TypeVar("_V")


class KeptBy(Generic[_V]):
    """Values kept per object (by identity), at most `most` of them."""

    __slots__ = ("_most", "_table")

    def __init__(self, most: int) -> None:
        self._most = most
        self._table: dict[int, tuple[object, _V]] = {}

    def get(self, owner: object, make: Callable[[], _V]) -> _V:
        """The value kept for `owner`, made with `make()` the first time."""
        kept = self._table.get(id(owner))
        if kept is not None and kept[0] is owner:
            return kept[1]
        value = make()
        self.put(owner, value)
        return value

    def peek(self, owner: object) -> tuple[bool, _V | None]:
        """(True, the value) when one is kept for `owner`, else (False, None)."""
        kept = self._table.get(id(owner))
        if kept is not None and kept[0] is owner:
            return True, kept[1]
        return False, None

    def put(self, owner: object, value: _V) -> None:
        """Keep `value` for `owner` (in place of what was kept for it)."""
        table = self._table
        if id(owner) not in table and len(table) >= self._most:
            table.pop(next(iter(table)))
        table[id(owner)] = (owner, value)


__all__ = ["KeptBy"]

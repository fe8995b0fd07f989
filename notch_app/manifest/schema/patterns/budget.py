"""The time budget of one argument check: every match and schema keyword spends from it."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Final

CHECK_BUDGET_S: Final = 1.0
"""Time budget for one check of a call's arguments (see `time_budget`)."""


class CheckTooSlow(Exception):
    """A check ran out of its time budget (`time_budget`): the whole check is abandoned."""


_deadline: ContextVar[float | None] = ContextVar("notch_check_deadline", default=None)


@contextlib.contextmanager
def time_budget(seconds: float = CHECK_BUDGET_S) -> Iterator[None]:
    """Bound the checks run inside: `spend()` (called before every match and every schema
    keyword) raises CheckTooSlow once `seconds` have passed. Per thread (a ContextVar);
    an inner budget never extends an outer one."""
    ends = time.monotonic() + seconds
    outer = _deadline.get()
    token = _deadline.set(ends if outer is None else min(outer, ends))
    try:
        yield
    finally:
        _deadline.reset(token)


def spend() -> None:
    """Raise CheckTooSlow when the current `time_budget` is spent; free outside one."""
    ends = _deadline.get()
    if ends is not None and time.monotonic() > ends:
        raise CheckTooSlow("could not be checked in time; send smaller arguments")

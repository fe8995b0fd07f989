"""`notch run --reset-store`: a store that cannot be opened is moved aside, never deleted."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from notch_app.runtime.store.decision_store import DecisionStore
from notch_app.runtime.store.errors import StoreDamaged, StoreError
from notch_app.runtime.store.schema import DB_NAME

ASIDE_SUFFIX: Final = ".broken-"
"""`--reset-store` moves a store that cannot be opened to `notch.sqlite3.broken-<time>`."""


def move_aside(data_dir: Path, clock: Callable[[], float] = time.time) -> Path | None:
    """Move the store in `data_dir` (and its -wal/-shm files) to
    `notch.sqlite3.broken-<YYYYmmdd-HHMMSS>` so the next start makes a new, empty one.
    Returns the new name, or None when there was no store. Raises StoreError if it
    cannot be moved. Only for `notch run --reset-store`: the person asked for it."""
    path = data_dir / DB_NAME
    if not path.exists():
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(clock()))
    aside = path.with_name(f"{DB_NAME}{ASIDE_SUFFIX}{stamp}")
    try:
        for suffix in ("-wal", "-shm"):
            extra = path.with_name(DB_NAME + suffix)
            if extra.exists():
                os.replace(extra, aside.with_name(aside.name + suffix))
        os.replace(path, aside)
    except OSError as exc:
        raise StoreError(
            f"{path}: cannot move the decision store aside ({exc.strerror}); move it yourself"
        ) from None
    return aside


def reset_if_broken(data_dir: Path) -> Path | None:
    """For `--reset-store`: if the store in `data_dir` cannot be opened, move it aside and
    return where it went; a store that opens is left alone (None). Raises StoreError when
    the fault is not a damaged file (the folder is unsafe, a newer Notch's store) or it
    cannot be moved."""
    try:
        store = DecisionStore(data_dir)
        try:
            store.pending()  # what a start reads first: rows must parse too
        finally:
            store.close()
    except StoreDamaged:
        aside = move_aside(data_dir)
        DecisionStore(data_dir).close()  # the new, empty one must open, or say why
        return aside
    return None

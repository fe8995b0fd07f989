"""What goes wrong with the store, in words a person can act on."""

from __future__ import annotations

import sqlite3
from typing import Final


class StoreError(Exception):
    """The store cannot be opened or written; the message names the file and the fix."""


class StoreDamaged(StoreError):
    """SQLite cannot read the file (corrupt, not a database): `--reset-store` moves it aside."""


DAMAGED_CODES: Final = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB


def is_damage(exc: BaseException | None) -> bool:
    """True when `exc` (an SQLite error) says the file itself is damaged: corrupt pages or
    not a database. Such a store will not heal by trying again, unlike a full disk."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return (code & 0xFF) in DAMAGED_CODES
    said = str(exc).lower()
    return "malformed" in said or "not a database" in said


class NoOpenRequest(Exception):
    """A decision for a callId whose request is not stored, or already decided."""

"""Dotted argument paths (`user.name`, `recipients.0`) as the card reads and writes them.

One implementation, in `manifest/paths/argument_path.py` (the contract's layer, so redaction,
guards, digests and the card cannot read a path differently); this is its face here.
"""

from __future__ import annotations

from notch_app.manifest.paths import (
    MISSING,
    Missing,
    PathError,
    delete_path,
    get_path,
    segments,
    set_path,
)

__all__ = ["MISSING", "Missing", "PathError", "delete_path", "get_path", "segments", "set_path"]

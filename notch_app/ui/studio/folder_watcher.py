"""Tells the studio when a file it shows was saved: the manifest, the preview fixture,
a scenario or an image in the integration folder.

The files and their folders are watched by `FileWatch` (renames followed, a burst of
events folded into one); a fingerprint of the files' bytes makes a save that changed
nothing the studio reads refresh nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from PySide6.QtCore import QObject, Signal

from notch_app.ui.file_watch import FileWatch
from notch_app.ui.studio.folder import fingerprint, watched_files, watched_folders

DEBOUNCE_MS: Final = 30
"""Quiet time after the last event before the folder is read: long enough to fold an
editor's write-twice or rename into one change, short against the 300 ms budget."""


class FolderWatcher(QObject):
    """Emits `changed()` once per burst of saves that changed what the studio reads."""

    changed = Signal()

    def __init__(
        self, folder: Path, *, delay_ms: int = DEBOUNCE_MS, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.folder = folder
        self._fingerprint = fingerprint(folder)
        self._watch = FileWatch(
            lambda: (*watched_folders(folder), *watched_files(folder)), delay_ms, self
        )
        self._watch.settled.connect(self._settled)

    def accept(self, stamp: str) -> None:
        """`stamp` (a reading's fingerprint) is what the studio now shows: an event that
        finds the folder still so changes nothing."""
        self._fingerprint = stamp

    def _settled(self) -> None:
        stamp = fingerprint(self.folder)
        if stamp == self._fingerprint:
            return
        self._fingerprint = stamp
        self.changed.emit()

"""Tells the studio when a file it shows was saved: the manifest, the preview fixture,
a scenario or an image in the integration folder.

QFileSystemWatcher on the files and on their folders (an editor that saves by writing a
new file and renaming it over the old one drops a file watch, so every watched path is
added again after each change), with a short debounce so a burst of events (an editor
that writes twice, a rename, a `git checkout`) becomes one `changed`; and a fingerprint
of the files' bytes, so a save that changed nothing the studio reads refreshes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

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
        self._watcher = QFileSystemWatcher(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._settled)
        self._watcher.fileChanged.connect(self._event)
        self._watcher.directoryChanged.connect(self._event)
        self._fingerprint = fingerprint(folder)
        self._watch()

    def accept(self, stamp: str) -> None:
        """`stamp` (a reading's fingerprint) is what the studio now shows: an event that
        finds the folder still so changes nothing."""
        self._fingerprint = stamp

    def _event(self, _path: str) -> None:
        self._timer.start()  # restarted by each event: one read per burst

    def _settled(self) -> None:
        self._watch()  # a file replaced by rename is a new file: watch it again
        stamp = fingerprint(self.folder)
        if stamp == self._fingerprint:
            return
        self._fingerprint = stamp
        self.changed.emit()

    def _watch(self) -> None:
        wanted = [str(p) for p in (*watched_folders(self.folder), *watched_files(self.folder))]
        have = set(self._watcher.files()) | set(self._watcher.directories())
        missing = [p for p in wanted if p not in have and Path(p).exists()]
        if missing:
            self._watcher.addPaths(missing)

"""Files another program saves: the one debounced watch (the settings file, a studio's
integration folder).

QFileSystemWatcher on the files and on their folders: an editor (or Notch's own writer)
that saves by writing a new file and renaming it over the old one drops a file watch, so
every wanted path is added again after each change. A short debounce folds a burst of
events (an editor that writes twice, a rename, a `git checkout`) into one `settled`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal


class FileWatch(QObject):
    """Emits `settled()` once per burst of changes to the paths `wanted()` names (files
    and folders; ones that do not exist yet are watched once they appear)."""

    settled = Signal()

    def __init__(
        self, wanted: Callable[[], Iterable[Path]], delay_ms: int, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._wanted = wanted
        self._watcher = QFileSystemWatcher(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._settled)
        # Restarted by each event: one `settled` per burst.
        self._watcher.fileChanged.connect(lambda _path: self._timer.start())
        self._watcher.directoryChanged.connect(lambda _path: self._timer.start())
        self.watch()

    def watch(self) -> None:
        """Watch every wanted path that exists and is not watched (a file replaced by
        rename is a new file)."""
        have = set(self._watcher.files()) | set(self._watcher.directories())
        missing = [str(p) for p in self._wanted() if str(p) not in have and p.exists()]
        if missing:
            self._watcher.addPaths(missing)

    def _settled(self) -> None:
        self.watch()
        self.settled.emit()

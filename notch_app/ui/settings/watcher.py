"""Re-read the settings file when another process (`notch policy`, an editor) changes it."""

from __future__ import annotations

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

from notch_app.runtime.folders import make_private_folder
from notch_app.runtime.policy_book import PolicyBook


class SettingsFileWatcher(QObject):
    """Watches `book.path` and calls `book.reload()` shortly after it changes.

    The file is replaced by rename on every write, which drops a plain file watch, so
    the folder is watched too and the file re-added whenever it reappears.
    """

    def __init__(self, book: PolicyBook, parent: QObject | None = None, delay_ms: int = 80) -> None:
        super().__init__(parent)
        self.book = book
        self._watcher = QFileSystemWatcher(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)  # one reload for a burst of events
        self._timer.timeout.connect(self._reload)
        self._watcher.fileChanged.connect(lambda _path: self._timer.start())
        self._watcher.directoryChanged.connect(lambda _path: self._timer.start())
        make_private_folder(book.path.parent)  # a new data dir is 0700, as every one
        self._watcher.addPath(str(book.path.parent))
        self._watch_file()

    def _watch_file(self) -> None:
        if self.book.path.exists() and str(self.book.path) not in self._watcher.files():
            self._watcher.addPath(str(self.book.path))

    def _reload(self) -> None:
        self._watch_file()
        self.book.reload()

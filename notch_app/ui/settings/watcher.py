"""Re-read the settings file when another process (`notch policy`, an editor) changes it."""

from __future__ import annotations

from PySide6.QtCore import QObject

from notch_app.runtime.folders import make_private_folder
from notch_app.runtime.policy_book import PolicyBook
from notch_app.ui.file_watch import FileWatch


class SettingsFileWatcher(QObject):
    """Watches `book.path` and calls `book.reload()` shortly after it changes.

    The file is replaced by rename on every write, which drops a plain file watch, so
    the folder is watched too and the file re-added whenever it reappears (`FileWatch`).
    """

    def __init__(self, book: PolicyBook, parent: QObject | None = None, delay_ms: int = 80) -> None:
        super().__init__(parent)
        self.book = book
        make_private_folder(book.path.parent)  # a new data dir is 0700, as every one
        self._watch = FileWatch(lambda: (book.path.parent, book.path), delay_ms, self)
        self._watch.settled.connect(book.reload)

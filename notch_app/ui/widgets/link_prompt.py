"""The line that shows a link's target before it opens: nothing opens on the first click."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from notch_app.ui.theme import Look, style_text
from notch_app.ui.widgets.buttons import PillButton
from notch_app.ui.widgets.shapes import GlassFrame


def open_in_system(url: str) -> None:
    QDesktopServices.openUrl(QUrl(url))


class LinkPrompt(GlassFrame):
    """`ask(url)` shows "Open <url>?" with Open / Not now; Open calls `opener(url)`."""

    def __init__(
        self,
        look: Look,
        opener: Callable[[str], None] = open_in_system,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(look, "link_prompt", parent)
        self.setObjectName("LinkPrompt")
        self.opener = opener
        self.pending: str | None = None
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 6, 6)
        row.setSpacing(6)
        self.target = QLabel()
        self.target.setObjectName("LinkTarget")
        self.target.setTextFormat(Qt.TextFormat.PlainText)
        self.target.setWordWrap(True)
        style_text(self.target, "LinkTarget", look)
        row.addWidget(self.target, 1)
        self.open_button = PillButton(look, small=True, text="Open")
        self.open_button.clicked.connect(self._open)
        self.dismiss_button = PillButton(look, small=True, text="Not now")
        self.dismiss_button.clicked.connect(self.dismiss)
        row.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.dismiss_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.hide()

    def ask(self, url: str) -> None:
        self.pending = url
        shown = url if len(url) <= 300 else url[:300] + "…"
        self.target.setText(f"Open {shown}?")
        self.open_button.setAccessibleDescription(f"Opens {shown}")
        self.show()
        self.open_button.setFocus()

    def dismiss(self) -> None:
        self.pending = None
        self.hide()

    def _open(self) -> None:
        url = self.pending
        self.dismiss()
        if url:
            self.opener(url)

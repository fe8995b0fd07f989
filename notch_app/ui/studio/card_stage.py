"""Where the studio shows the card: the notch's own CardView at the notch's width, on a
backdrop of the theme's colour, with the glance of the fixture's sample result under it.

While the folder has errors the last card that loaded stays, dimmed and labelled "last
valid version", so a half-typed edit never blanks the window. `painted` fires the first
time each new card is painted (the studio's benchmark waits for it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QGraphicsOpacityEffect,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from notch_app.ui.card_view import CardView

LAST_VALID: Final = "last valid version"
STALE_OPACITY: Final = 0.45
BACKDROPS: Final = {"dark": QColor("#2b2f36"), "light": QColor("#dfe3ea")}
"""Behind the glass, a desktop-like colour per theme: the card's translucency shows."""


class CardStage(QScrollArea):
    """Holds one card (and its glance); `show_card` swaps it, `set_stale` dims it."""

    painted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StudioCardStage")
        self.setWidgetResizable(True)
        self._page = QWidget()
        self._page.setObjectName("StudioCardPage")
        self._page.setAutoFillBackground(True)
        column = QVBoxLayout(self._page)
        column.setContentsMargins(24, 16, 24, 24)
        column.setSpacing(10)
        column.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.stale_label = QLabel(f"⚠ {LAST_VALID}: the folder has errors (listed below)")
        self.stale_label.setObjectName("StudioStaleLabel")
        self.stale_label.setStyleSheet(
            "background: #8a5a00; color: white; border-radius: 8px; padding: 3px 10px;"
        )
        self.stale_label.hide()
        column.addWidget(self.stale_label, 0, Qt.AlignmentFlag.AlignHCenter)
        self._holder = QWidget()
        self._holder_layout = QVBoxLayout(self._holder)
        self._holder_layout.setContentsMargins(0, 0, 0, 0)
        self._holder_layout.setSpacing(14)
        self.message = QLabel()
        self.message.setObjectName("StudioCardMessage")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.hide()
        column.addWidget(self.message)
        column.addWidget(self._holder, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(1)
        self.setWidget(self._page)
        self.card: CardView | None = None
        self.glance: QWidget | None = None
        self._dim = QGraphicsOpacityEffect(self._holder)
        self._dim.setOpacity(STALE_OPACITY)
        self._dim.setEnabled(False)
        self._holder.setGraphicsEffect(self._dim)
        self.set_theme("dark")

    def set_theme(self, theme: Literal["dark", "light"]) -> None:
        palette = self._page.palette()
        backdrop = BACKDROPS[theme]
        palette.setColor(QPalette.ColorRole.Window, backdrop)
        text = QColor("#e8eaee") if theme == "dark" else QColor("#1d2026")
        palette.setColor(QPalette.ColorRole.WindowText, text)
        self._page.setPalette(palette)

    def show_card(self, card: CardView | None, glance: QWidget | None = None) -> None:
        """Show `card` (and `glance` under it) in place of the last; None shows neither."""
        for old in (self.card, self.glance):
            if old is not None:
                old.hide()
                old.close()
                old.deleteLater()
        self.card, self.glance = card, glance
        if card is not None:
            self.message.hide()
            self._holder_layout.addWidget(card, 0, Qt.AlignmentFlag.AlignHCenter)
            _FirstPaint(card, self.painted.emit)
            card.show()
        if glance is not None:
            self._holder_layout.addWidget(glance, 0, Qt.AlignmentFlag.AlignHCenter)
            glance.show()

    def say(self, text: str, glance: QWidget | None = None) -> None:
        """A line in place of the card (a read tool, a manifest with errors), and the
        glance of a read tool's sample result under it."""
        self.show_card(None, glance)
        self.message.setText(text)
        self.message.show()

    def set_stale(self, stale: bool) -> None:
        """Dim the card and label it "last valid version" (True), or show it as current."""
        self._dim.setEnabled(stale)
        self.stale_label.setVisible(stale)

    @property
    def stale(self) -> bool:
        return not self.stale_label.isHidden()


class _FirstPaint(QObject):
    """Calls `then` once, one loop turn after the watched card's first paint (the frame
    is drawn by then: its children paint in the same pass)."""

    def __init__(self, card: QWidget, then: Callable[[], None]) -> None:
        super().__init__(card)
        self._then = then
        card.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self._then)
        return False

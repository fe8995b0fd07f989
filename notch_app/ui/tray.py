"""The tray icon: how a person reaches Settings and quits a Notch that has no main window.

Only created where the platform has a system tray (`QSystemTrayIcon.isSystemTrayAvailable`);
without one, Notch is quit from the terminal (Ctrl+C) or with SIGTERM.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QRectF, Qt
from PySide6.QtGui import QAction, QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from notch_app.ui.tray_pause import PauseMenu


def notch_icon(size: int = 64, dot: str = "#30a46c") -> QIcon:
    """The app's mark, drawn in code so no file can go missing: a dark pill with a green
    dot (amber while the person has paused Notch)."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    h = size * 0.42
    body = QRectF(size * 0.06, (size - h) / 2, size * 0.88, h)
    painter.setPen(QColor(255, 255, 255, 90))
    painter.setBrush(QColor(18, 19, 25))
    painter.drawRoundedRect(body, h / 2, h / 2)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(dot))
    r = h * 0.2
    painter.drawEllipse(QRectF(body.right() - h / 2 - r, body.center().y() - r, 2 * r, 2 * r))
    painter.end()
    return QIcon(pixmap)


class NotchTray(QObject):
    """A tray icon whose menu lists the recent decisions, the pause (`pause`: Ask for
    everything, Hold all cards, Resume), then Settings… and Quit:
    `open_settings(tray)` is called when the person chooses Settings…, `quit()` when they
    choose Quit. `recent()` gives the recent decisions' lines (newest first); a left click
    calls `show_recent()` (the list under the notch)."""

    def __init__(
        self,
        quit: Callable[[], None],
        open_settings: Callable[[NotchTray], None],
        recent: Callable[[], list[str]] | None = None,
        show_recent: Callable[[], None] | None = None,
        pause: PauseMenu | None = None,
    ) -> None:
        super().__init__()
        self.open_settings = open_settings
        self._quit = quit
        self._recent = recent
        self._show_recent = show_recent
        self._icon = QSystemTrayIcon(notch_icon(), self)
        self._icon.setToolTip("Notch — asks before your agent acts")
        self._menu = QMenu()
        self.recent_menu = QMenu("Recent decisions", self._menu)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.settings_action = QAction("Settings…", self._menu)
        self.settings_action.triggered.connect(lambda: self.open_settings(self))
        self.quit_action = QAction("Quit Notch", self._menu)
        self.quit_action.triggered.connect(self._quit)
        if recent is not None:
            self._menu.addMenu(self.recent_menu)
            self._menu.addSeparator()
        self.pause_menu = pause
        if pause is not None:
            # Pause / Resume, with the state on the icon and its hover line.
            pause.add_to(self._menu)
            self._menu.addSeparator()
            self._unsubscribe_pause = pause.control.pause.subscribe(self._follow_pause)
            self._follow_pause()
        self._menu.addAction(self.settings_action)
        self._menu.addSeparator()
        self._menu.addAction(self.quit_action)
        self._icon.setContextMenu(self._menu)
        self._icon.activated.connect(self._activated)

    def _follow_pause(self) -> None:
        pause = self.pause_menu.control.pause if self.pause_menu is not None else None
        said = pause.describe() if pause is not None else None
        self._icon.setIcon(notch_icon(dot="#f5a524" if said else "#30a46c"))
        self._icon.setToolTip(f"Notch — {said}" if said else "Notch — asks before your agent acts")

    @property
    def tooltip(self) -> str:
        """The tray icon's hover line."""
        return self._icon.toolTip()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        lines = self._recent() if self._recent is not None else []
        for line in lines or ["Nothing decided yet"]:
            self.recent_menu.addAction(line).setEnabled(False)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        # A left click shows what Notch did lately; the menu stays on the right click.
        if reason == QSystemTrayIcon.ActivationReason.Trigger and self._show_recent is not None:
            self._show_recent()

    @staticmethod
    def available() -> bool:
        return QSystemTrayIcon.isSystemTrayAvailable()

    def show(self) -> None:
        self._icon.show()

    def hide(self) -> None:
        self._icon.hide()

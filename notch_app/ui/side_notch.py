"""The side notch: a small pill beside the notch holding the cards the person walked away from.

It shows how many cards are parked and whose they are (the installed integrations' icons,
newest first, one per integration, at most three). Clicking it restores the only parked
card, or opens a menu of them (each with its icon) when there are several. It is hidden
while nothing is parked.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter
from PySide6.QtWidgets import QMenu, QWidget

from notch_app.ui import theme
from notch_app.ui.notch_window import (
    ICON_SIZE,
    NOTCH_FILL,
    float_above_windows,
    paint_integration_icon,
    paint_notch_glass,
)
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.widgets.integration_icon import InstalledIcon

SIZE = QSize(92, 26)
"""The pill with no icons; each icon widens it by ICON_STEP."""
GAP = 8  # between the notch and the side notch
MAX_ICONS = 3
ICON_STEP = ICON_SIZE + 4
_BARS_END = 26  # the pause bars end here; icons, then the count, follow


@dataclass(frozen=True, slots=True)
class ParkedCard:
    """What the side notch lists for one parked card."""

    call_id: str
    title: str
    icon: InstalledIcon | None = None
    """The installed integration's icon (None: the card was not built yet)."""


class SideNotch(QWidget):
    """The parked-cards pill. Emits `restoreRequested(call_id)` when the person picks one."""

    restoreRequested = Signal(str)

    def __init__(self, settings: OverlaySettings | None = None) -> None:
        super().__init__(None)
        self._settings = settings or OverlaySettings()
        self._palette = theme.palette(self._settings.theme)  # the menu, a window of its own
        self._chrome = theme.palette("dark")  # the pill is dark glass like the notch
        self._parked: list[ParkedCard] = []
        self._menu: QMenu | None = None
        self._icons: tuple[InstalledIcon, ...] = ()
        self.setObjectName("sideNotch")
        self.setWindowTitle("Notch – parked cards")
        float_above_windows(self)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFont(theme.card_font())
        self.resize(SIZE)

    def apply_settings(self, settings: OverlaySettings) -> None:
        """Keep `settings` as the overlay's current ones (the side notch follows the
        notch's place; its menu keeps the theme it started with)."""
        self._settings = settings

    @property
    def parked(self) -> tuple[ParkedCard, ...]:
        return tuple(self._parked)

    def set_parked(self, parked: list[ParkedCard]) -> None:
        """Show these parked cards (oldest first); hides the pill when the list is empty."""
        self._parked = list(parked)
        n = len(self._parked)
        self.setToolTip(
            f"{n} parked card{'s' if n != 1 else ''} — click to bring "
            + ("it back" if n == 1 else "one back")
        )
        self.setAccessibleName(f"{n} parked")
        self._icons = self._distinct_icons()
        width = SIZE.width() + len(self._icons) * ICON_STEP
        self.resize(QSize(width, SIZE.height()))
        self.setVisible(n > 0)
        self.update()

    @property
    def icons(self) -> tuple[InstalledIcon, ...]:
        """The icons the pill shows, newest parked first."""
        return self._icons

    def _distinct_icons(self) -> tuple[InstalledIcon, ...]:
        icons: list[InstalledIcon] = []
        for card in reversed(self._parked):
            if card.icon is None or any(
                i.integration_id == card.icon.integration_id for i in icons
            ):
                continue
            icons.append(card.icon)
            if len(icons) == MAX_ICONS:
                break
        return tuple(icons)

    def follow(self, notch: QRect) -> None:
        """Sit just right of the notch's current geometry, vertically centred on its top row."""
        y = notch.y() + max(0, (min(notch.height(), 36) - SIZE.height()) // 2)
        self.move(QPoint(notch.right() + GAP, y))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self._parked:
            return
        if len(self._parked) == 1:
            self.restoreRequested.emit(self._parked[0].call_id)
            return
        self._menu = self._build_menu()
        self._menu.popup(self.mapToGlobal(QPoint(0, self.height() + 4)))

    def _build_menu(self) -> QMenu:
        menu = QMenu(self)
        menu.setObjectName("sideNotchMenu")
        menu.setStyleSheet(
            f"QMenu {{ background: {self._palette['glass_fill']}; color: {self._palette['text']};"
            f" border: 1px solid {self._palette['glass_border']}; border-radius: 8px; padding: 4px; }}"
            " QMenu::item { padding: 5px 14px; border-radius: 5px; }"
            f" QMenu::item:selected {{ background: {self._palette['ghost_hover']}; }}"
        )
        for card in self._parked:
            action = menu.addAction(card.title)
            if card.icon is not None:
                action.setIcon(card.icon.qicon(ICON_SIZE))
            action.setData(card.call_id)
            action.triggered.connect(
                lambda _checked=False, cid=card.call_id: self.restoreRequested.emit(cid)
            )
        return menu

    def paintEvent(self, event: object) -> None:
        painter = QPainter(self)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        paint_notch_glass(painter, rect, rect.height() / 2, NOTCH_FILL)
        # Two short bars read as "paused / set aside", then the count.
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(self._chrome.get("warning_fill", "#f5a524")))
        cy = rect.center().y()
        for dx in (12.0, 17.5):
            painter.drawRoundedRect(QRectF(dx, cy - 5, 3, 10), 1.5, 1.5)
        x = float(_BARS_END)
        top = round(cy - ICON_SIZE / 2)
        for icon in self._icons:
            paint_integration_icon(painter, icon, x + 2, top)
            x += ICON_STEP
        font = QFont(self.font())
        font.setPixelSize(11)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor(self._chrome["text"]))
        painter.drawText(
            rect.adjusted(x, 0, -8, 0),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignHCenter,
            f"{len(self._parked)} parked",
        )
        painter.end()

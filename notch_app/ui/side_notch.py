"""The side notch: a small pill beside the notch holding the cards the person walked away
from, and the tools running in the background.

It shows how many cards are parked and whose they are (the installed integrations' icons,
newest first, one per integration, at most three). Clicking it restores the only parked
card, or opens a menu of them (each with its icon) when there are several. Background
work shows as a ring filling with the time elapsed against the tool's estimate, with
"0:12 / ~0:30" (one tool) or "2 running"; its menu entries list each. A one-second timer
redraws it only while something runs. It is hidden while nothing is parked or running.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import QMenu, QWidget

from notch_app.runtime.presenter import RunningWork
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
RING = 12.0
"""The background-work ring's diameter (px)."""


def elapsed_text(elapsed_s: float, estimated_ms: int | None) -> str:
    """ "0:12 / ~0:30" (against the estimate), "0:12" without one, "0:42 / ~0:30 · over"
    once it has run past its estimate."""
    done = _clock_text(elapsed_s)
    if not estimated_ms:
        return done
    over = " · over" if elapsed_s * 1000 > estimated_ms else ""
    return f"{done} / ~{_clock_text(estimated_ms / 1000)}{over}"


_WORK_NAME_CHARS = 22
"""The running work's name on the pill is cut past this (whole in the tooltip)."""


def _clock_text(seconds: float) -> str:
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


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

    def __init__(
        self,
        settings: OverlaySettings | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(None)
        self._clock = clock
        self._running: tuple[RunningWork, ...] = ()
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._on_tick)
        self._settings = settings or OverlaySettings()
        # The menu, a window of its own; "system" read as the desktop is now.
        self._palette = theme.palette(theme.resolved_theme(self._settings.theme))
        self._chrome = theme.palette("dark")  # the pill is dark glass like the notch
        self._parked: list[ParkedCard] = []
        self._menu: QMenu | None = None
        self._icons: tuple[InstalledIcon, ...] = ()
        self.setObjectName("sideNotch")
        self.setWindowTitle("Notch – parked cards and running work")
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
        """Show these parked cards (oldest first); hides the pill when nothing is parked
        or running."""
        self._parked = list(parked)
        self._icons = self._distinct_icons()
        self._refresh()

    @property
    def running(self) -> tuple[RunningWork, ...]:
        """The background work listed now, oldest first."""
        return self._running

    def set_running(self, running: tuple[RunningWork, ...]) -> None:
        """List these tools as running in the background (empty: none)."""
        self._running = tuple(running)
        self._refresh()

    def running_text(self) -> str:
        """What the pill says of the background work: "Render video 0:12 / ~0:30" (the
        name, so the time says what it is about), "2 running"."""
        if not self._running:
            return ""
        if len(self._running) > 1:
            return f"{len(self._running)} running"
        work = self._running[0]
        name = " ".join(work.title.split())
        if len(name) > _WORK_NAME_CHARS:
            name = name[: _WORK_NAME_CHARS - 1] + "…"
        return f"{name}  {elapsed_text(self._clock() - work.started_at, work.estimated_ms)}"

    def _refresh(self) -> None:
        n = len(self._parked)
        tips = []
        if n:
            tips.append(
                f"{n} parked card{'s' if n != 1 else ''} — click to bring "
                + ("it back" if n == 1 else "one back")
            )
        for work in self._running:
            elapsed = elapsed_text(self._clock() - work.started_at, work.estimated_ms)
            tips.append(f"Running in the background: {work.title} ({elapsed})")
        self.setToolTip("\n".join(tips))
        names = [f"{n} parked"] if n else []
        if self._running:
            names.append(f"{len(self._running)} running")
        self.setAccessibleName(", ".join(names))
        self.resize(QSize(self._width(), SIZE.height()))
        if self._running and not self._tick.isActive():
            self._tick.start()
        elif not self._running:
            self._tick.stop()
        self.setVisible(bool(n or self._running))
        self.update()

    def _width(self) -> int:
        width = 0
        if self._parked:
            width += SIZE.width() + len(self._icons) * ICON_STEP
        if self._running:
            metrics = QFontMetrics(self._small_font())
            # Sized for the longest the text gets ("9:59 / ~9:59"), so it never jitters.
            sample = self.running_text().replace("0", "9").replace("1", "9")
            width += 14 + int(RING) + 6 + metrics.horizontalAdvance(sample) + 12
        return max(width, SIZE.height())

    def _on_tick(self) -> None:
        if not self._running or not self.isVisible():
            self._tick.stop()
            return
        self.resize(QSize(self._width(), SIZE.height()))
        self.update()

    def _small_font(self) -> QFont:
        font = QFont(self.font())
        font.setPixelSize(11)
        font.setBold(True)
        return font

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
        if event.button() != Qt.MouseButton.LeftButton or not (self._parked or self._running):
            return
        if len(self._parked) == 1 and not self._running:
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
        for work in self._running:
            elapsed = elapsed_text(self._clock() - work.started_at, work.estimated_ms)
            item = menu.addAction(f"Running: {work.title}  ·  {elapsed}")
            item.setEnabled(False)  # information only: nothing here stops or changes it
        if self._running and self._parked:
            menu.addSeparator()
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
        if self._parked:
            self._paint_parked(painter, rect)
        if self._running:
            left = SIZE.width() + len(self._icons) * ICON_STEP if self._parked else 0
            self._paint_running(painter, rect.adjusted(left, 0, 0, 0))
        painter.end()

    def _paint_running(self, painter: QPainter, rect: QRectF) -> None:
        cy = rect.center().y()
        ring = QRectF(rect.left() + 12, cy - RING / 2, RING, RING)
        track = QColor(self._chrome["text"])
        track.setAlpha(60)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(track, 2.0))
        painter.drawEllipse(ring)
        share = self._share_done()
        arc = QPen(QColor(self._chrome.get("progress_fill", "#8ab4ff")), 2.0)
        arc.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(arc)
        painter.drawArc(ring, 90 * 16, -int(360 * 16 * share))
        painter.setFont(self._small_font())
        painter.setPen(QColor(self._chrome["text"]))
        painter.drawText(
            rect.adjusted(12 + RING + 6, 0, -8, 0),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
            self.running_text(),
        )

    def _share_done(self) -> float:
        """How far the oldest running work is against its estimate (0..0.95; a quarter
        turn without an estimate), so the ring never reads as finished while it runs."""
        work = self._running[0]
        if not work.estimated_ms:
            return 0.25
        elapsed_ms = (self._clock() - work.started_at) * 1000
        return max(0.02, min(0.95, elapsed_ms / work.estimated_ms))

    def _paint_parked(self, painter: QPainter, rect: QRectF) -> None:
        # Two stacked cards (set aside, waiting), not two bars: bars read as "pause".
        cy = rect.center().y()
        fill = QColor(self._chrome.get("warning_fill", "#f5a524"))
        painter.setPen(Qt.PenStyle.NoPen)
        back = QColor(fill)
        back.setAlpha(120)
        painter.setBrush(back)
        painter.drawRoundedRect(QRectF(13.5, cy - 6, 8, 9), 2, 2)
        painter.setBrush(fill)
        painter.drawRoundedRect(QRectF(11, cy - 3, 8, 9), 2, 2)
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
        parked_end = SIZE.width() + len(self._icons) * ICON_STEP
        painter.drawText(
            QRectF(rect.left() + x, rect.top(), parked_end - x - 8, rect.height()),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignHCenter,
            f"{len(self._parked)} parked",
        )

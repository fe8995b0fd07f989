"""The glance `clock` (the time in a zone, with the zone's city) and `countdown` (the time
left, then "Now").

Both read the time from the glance's clock (time.time, or a fixed one in tests) and are
redrawn by the view's one timer, which runs only while the glance is on screen: an idle
notch has no timer waking it. Weekday names are Notch's own, not the locale's, so a
golden image is the same on every machine.
"""

from __future__ import annotations

import math
import zoneinfo
from datetime import UTC, datetime, timedelta, tzinfo

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from notch_app.manifest.glance import ClockBlock, CountdownBlock
from notch_app.ui.glance._context import GlanceContext
from notch_app.ui.glance._text import GlanceText

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
NOW = "Now"
"""What a countdown shows once it reaches zero."""


def countdown_text(left: float) -> str:
    """Time left as a person reads it at a glance: "4:59" under an hour, "1 h 05 m" under
    a day, "2 d 03 h" beyond; "Now" once it is up."""
    if not math.isfinite(left):
        return NOW
    seconds = math.ceil(left)
    if seconds <= 0:
        return NOW
    if seconds < 3600:
        return f"{seconds // 60}:{seconds % 60:02d}"
    if seconds < 86400:
        return f"{seconds // 3600} h {seconds % 3600 // 60:02d} m"
    return f"{seconds // 86400} d {seconds % 86400 // 3600:02d} h"


def zone_city(tz: str) -> str:
    """The place a zone is named after: "America/New_York" → "New York", "UTC" → "UTC"."""
    last = tz.rsplit("/", 1)[-1]
    return last.replace("_", " ") or tz


def offset_text(offset: timedelta | None) -> str:
    """A UTC offset: "UTC", "UTC+9", "UTC-3", "UTC+5:30"."""
    minutes = round((offset or timedelta()).total_seconds() / 60)
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def _zone(tz: str) -> tzinfo:
    try:
        return zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return UTC  # the reading checked the name; a zone removed since reads as UTC


def clock_texts(tz: str, now: float) -> tuple[str, str]:
    """The time in zone `tz` at unix time `now` ("14:05") and the line under the city
    ("Tue · UTC+9")."""
    moment = datetime.fromtimestamp(now, _zone(tz))
    return moment.strftime(
        "%H:%M"
    ), f"{_WEEKDAYS[moment.weekday()]} · {offset_text(moment.utcoffset())}"


class ClockFace(QWidget):
    """The time in a zone in large figures, the zone's city and day beside it."""

    def __init__(self, block: ClockBlock, ctx: GlanceContext) -> None:
        super().__init__(ctx.parent)
        self.setObjectName("GlanceClock")
        self.tz = block.tz
        line = QHBoxLayout(self)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(12)
        time_text, detail = clock_texts(self.tz, ctx.clock())
        self.time = GlanceText(time_text, "GlanceClock", ctx.look, parent=self)
        line.addWidget(self.time, 0, Qt.AlignmentFlag.AlignVCenter)
        side = QVBoxLayout()
        side.setSpacing(1)
        side.addStretch(1)
        side.addWidget(GlanceText(zone_city(self.tz), "ListTitle", ctx.look, parent=self))
        self.detail = GlanceText(detail, "caption", ctx.look, parent=self)
        side.addWidget(self.detail)
        side.addStretch(1)
        line.addLayout(side, 1)
        self._look = ctx.look
        self._shown = time_text

    def tick(self, now: float) -> bool:
        time_text, detail = clock_texts(self.tz, now)
        if time_text != self._shown:
            self._shown = time_text
            self.time.set_text(time_text)
            self.detail.set_text(detail)
        return True  # a clock never stops while it is shown

    def time_shown(self) -> str:
        """The time as on screen ("14:05")."""
        return self.time.text()


class CountdownFace(QWidget):
    """The time left in large figures with a caption; "Now" once it reaches zero."""

    def __init__(self, block: CountdownBlock, ctx: GlanceContext) -> None:
        super().__init__(ctx.parent)
        self.setObjectName("GlanceCountdown")
        now = ctx.clock()
        self.ends_at = block.ends_at(now)
        line = QHBoxLayout(self)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(12)
        self.left = GlanceText(
            countdown_text(self.ends_at - now), "GlanceClock", ctx.look, parent=self
        )
        line.addWidget(self.left, 0, Qt.AlignmentFlag.AlignVCenter)
        self.caption = GlanceText(self._caption(now), "caption", ctx.look, parent=self)
        line.addWidget(self.caption, 1, Qt.AlignmentFlag.AlignVCenter)

    def _caption(self, now: float) -> str:
        return "time is up" if self.ends_at - now <= 0 else "left"

    def tick(self, now: float) -> bool:
        text = countdown_text(self.ends_at - now)
        if text != self.left.text():
            self.left.set_text(text)
            self.caption.set_text(self._caption(now))
        return text != NOW

    def time_shown(self) -> str:
        """The time left as on screen ("4:59", "Now")."""
        return self.left.text()


class ClockBuilder:
    def build(self, block: ClockBlock, ctx: GlanceContext) -> QWidget:
        face = ClockFace(block, ctx)
        ctx.tickers.append(face)
        return face


class CountdownBuilder:
    def build(self, block: CountdownBlock, ctx: GlanceContext) -> QWidget:
        face = CountdownFace(block, ctx)
        ctx.tickers.append(face)
        return face


__all__ = [
    "NOW",
    "ClockBuilder",
    "ClockFace",
    "CountdownBuilder",
    "CountdownFace",
    "clock_texts",
    "countdown_text",
    "offset_text",
    "zone_city",
]

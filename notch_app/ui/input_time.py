"""When the person's input was made, on Notch's own clock (`time.monotonic`).

A click or a key press reaches a widget when the event loop gets to it, which on a busy
machine can be tens of milliseconds after the person made it. What the person aimed at is
what was on screen when they pressed, so a check like "confirm was armed" must ask about
that moment, not about the moment the event is handled.

Linux input carries the moment it was made: X11 server time and Wayland event times are
milliseconds of the kernel's monotonic clock (Xorg and Xvfb read CLOCK_MONOTONIC, libinput
stamps its events with it), in 32 bits that wrap every ~49 days. `time.monotonic` reads
the same clock, so the two compare once the wrap is taken into account. A stamp from
another clock (a synthetic event stamped 0, a platform counting from its own start) does
not fall within `PLAUSIBLE_AGE_MS` of now, and then the handling moment is all there is.
"""

from __future__ import annotations

import time

from PySide6.QtGui import QInputEvent

STAMP_WRAP = 1 << 32
"""Event times are unsigned 32-bit milliseconds."""

PLAUSIBLE_AGE_MS = 60_000
"""An input this much older than its handling is taken to be on another clock."""

AHEAD_MS = 50
"""A stamp up to this far ahead of our clock is the same clock read a little later (the
X server's coarse clock ticks at its own moments): made now."""


def made_at(event: QInputEvent) -> float | None:
    """The `time.monotonic()` moment `event` was made, or None where its stamp is on
    another clock (then only the moment it is handled is known)."""
    stamp = int(event.timestamp())
    if stamp <= 0:
        return None
    now = time.monotonic()
    age_ms = (int(now * 1000) - stamp) % STAMP_WRAP
    if age_ms > STAMP_WRAP - AHEAD_MS:
        return now
    if age_ms > PLAUSIBLE_AGE_MS:
        return None
    return now - age_ms / 1000

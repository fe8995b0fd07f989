"""Python's cyclic garbage collector held off while a card is built and first painted.

A card's build allocates thousands of objects, so a collection (a young one ~0.3 ms, a
middle one ~6 ms with a loaded overlay) lands in about one card in three, always between
the request and its first frame. Held, it runs just after that frame instead, while the
notch's expand animation waits for its next one: the same work, off the moment the person
waits for. Never held for long: released at the first frame, at `BOUND_MS` at the latest
(a card that is never painted), and when the presenter closes.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

BOUND_MS = 250
"""The longest the collector stays held: a card's build and first frame take 10–30 ms."""


class CollectorHeld(QObject):
    """Holds the collector off between `hold()` and `release()` (or the bound)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._held = False
        self._bound = QTimer(self)
        self._bound.setSingleShot(True)
        self._bound.setInterval(BOUND_MS)
        self._bound.timeout.connect(self.release)

    @property
    def held(self) -> bool:
        """True while this hold has the collector off."""
        return self._held

    def hold(self) -> None:
        """Turn the collector off until `release()` or the bound. A collector someone else
        turned off is left to them: this hold then neither turns it off nor on."""
        if self._held or not gc.isenabled():
            return
        gc.disable()
        self._held = True
        self._bound.start()

    def release(self) -> None:
        """Turn the collector back on if this hold turned it off; safe to call again."""
        self._bound.stop()
        if self._held:
            self._held = False
            gc.enable()

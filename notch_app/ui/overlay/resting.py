"""The resting notch: what its pill says on hover (what Notch is doing, what waits, the
last decision) and the list of recent decisions a click on it (or the tray) opens.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from PySide6.QtCore import Qt

from notch_app.ui.overlay.state import OverlayState

RECENT_KEPT = 8
"""Recent decisions the resting notch and the tray list."""


class OverlayResting(OverlayState):
    """The presenter's resting words and recent decisions."""

    pause_line: str | None
    """The person's pause as the hover says it (ui/tray_pause.py), else None."""

    def _init_resting(self) -> None:
        self.recent: deque[tuple[float, str]] = deque(maxlen=RECENT_KEPT)
        """The last decisions and results the notch said ("Approved ✓  Send email"), with
        when: the resting pill's hover, its click and the tray menu list them."""
        self.window.lookChanged.connect(self._say_resting)
        self._say_resting(self.window.look)

    def resting_words(self) -> str:
        """What the resting pill says on hover: what Notch is doing, what waits, the last
        decision ("Notch is waiting: it asks before your agents act. 2 parked cards —
        click to bring one back. Last: Approved ✓  Send email, 14:02")."""
        lines = ["Notch is waiting: it asks before your agents act."]
        if self.pause_line:  # paused, not waiting: said first, with the way back
            lines[0] = f"{self.pause_line} Resume from the tray menu."
        parked = len(self._parked)
        if parked:
            lines.append(
                f"{parked} parked card{'s' if parked != 1 else ''} — click to bring "
                + ("it back." if parked == 1 else "the last one back.")
            )
        if self.recent:
            at, said = self.recent[-1]
            lines.append(f"Last: {said}, {time.strftime('%H:%M', time.localtime(at))}")
            if not parked:
                lines.append("Click for recent decisions.")
        return "\n".join(lines)

    def recent_lines(self) -> list[str]:
        """The recent decisions, newest first ("14:02  Approved ✓  Send email")."""
        return [
            f"{time.strftime('%H:%M', time.localtime(at))}  {said}"
            for at, said in reversed(self.recent)
        ]

    def _say_resting(self, look: str) -> None:
        # The hover line is the resting pill's: a card or a note has its own words.
        self.window.setToolTip(self.resting_words() if look == "idle" else "")

    def show_recent(self) -> None:
        """Open the list of recent decisions under the notch (a click on the resting pill
        with nothing parked, the tray's left click)."""
        from PySide6.QtWidgets import QMenu

        menu = QMenu(self.window)
        menu.setObjectName("recentDecisions")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        lines = self.recent_lines()
        if not lines:
            lines = ["Nothing decided yet"]
        for line in lines:
            menu.addAction(line).setEnabled(False)  # what happened; nothing to redo here
        self.recent_menu = menu
        where = self.window.mapToGlobal(self.window.rect().bottomLeft())
        menu.popup(where)

    recent_menu: Any = None
    """The last recent-decisions menu opened (tests read it)."""

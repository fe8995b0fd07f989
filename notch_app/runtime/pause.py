"""The person's pause: "Ask for everything" or "Hold all cards", until they resume.

- **Ask for everything**: every acting call gets a card. The person's "Asks first" off
  ("Always allow") and their "Allow for this session" rules are suspended, not removed:
  they apply again on resume. Blocks, guards and "refuses when" rules still win, and
  read-only tools still never ask.
- **Hold all cards**: cards still come, but wait parked in the side notch; nothing drops
  from the top of the screen, and the notes of actions that ran without a card wait too,
  until the person resumes (then the held cards come back in the order they arrived).

Only the person sets or lifts a pause, from the tray menu (`ui/tray_pause.py`). No socket
method reaches this object and nothing in a request's arguments or context is read here,
so an agent cannot pause Notch, nor lift a pause to let its calls run unasked. A pause
lasts while Notch runs; a restart starts unpaused (held cards come back parked anyway).
Qt-free.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final, Literal

PauseMode = Literal["askForEverything", "holdAllCards"]

PAUSE_WORDS: Final[dict[PauseMode, str]] = {
    "askForEverything": "Pause: ask for everything",
    "holdAllCards": "Pause: hold all cards",
}
"""How each pause is named in the tray menu."""

PAUSED_REASON: Final = (
    "You paused your rules (Ask for everything), so this asks although you allowed it"
)
"""Why a card shows that the person's rules would have let run: said on the card."""


class Pause:
    """Whether the person paused Notch, and how. Listeners hear every change."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self.mode: PauseMode | None = None
        self.since: float | None = None
        """Unix time the pause began (None while not paused)."""
        self.held: list[str] = []
        """callIds whose cards the hold parked, in arrival order (given back on resume)."""
        self._listeners: list[Callable[[], None]] = []

    @property
    def asks_for_everything(self) -> bool:
        """True while the person's scope and Always-allow rules are suspended."""
        return self.mode == "askForEverything"

    @property
    def holds_cards(self) -> bool:
        """True while new cards wait parked instead of showing."""
        return self.mode == "holdAllCards"

    def set(self, mode: PauseMode) -> None:
        """Pause this way (one pause at a time: choosing the other switches to it).
        Raises ValueError for a mode that is not one of PauseMode."""
        if mode not in PAUSE_WORDS:
            raise ValueError(f"a pause is one of {', '.join(PAUSE_WORDS)}, not {mode!r}")
        if mode == self.mode:
            return
        self.mode = mode
        self.since = self._clock()
        self._tell()

    def resume(self) -> list[str]:
        """End the pause; returns the callIds the hold parked (oldest first), which the
        caller brings back. Nothing happens when Notch was not paused."""
        held, self.held = self.held, []
        if self.mode is None:
            return held
        self.mode = None
        self.since = None
        self._tell()
        return held

    def hold(self, call_id: str) -> None:
        """The hold parked `call_id`'s card (it comes back on resume)."""
        if call_id not in self.held:
            self.held.append(call_id)
            self._tell()  # the hover's count of held cards

    def describe(self) -> str | None:
        """One line for the resting notch's hover and the tray, or None while not paused."""
        if self.mode == "askForEverything":
            return "Paused: every action asks; your allow rules wait."
        if self.mode == "holdAllCards":
            waiting = len(self.held)
            return f"Paused: holding all cards ({waiting or 'none yet'} held)."
        return None

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` after every change; returns the unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _tell(self) -> None:
        for listener in list(self._listeners):
            listener()


__all__ = ["PAUSED_REASON", "PAUSE_WORDS", "Pause", "PauseMode"]

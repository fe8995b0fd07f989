"""The face of the answer chords: grabbed while a card is on screen, released otherwise.

`NotchWindow` calls `grab()` when it shows a card and `release()` for every other look
(idle, glance, done note); a parked card leaves the notch idle or on the next card, so
it is released too. The signals fire once per chord pressed (a held chord's key repeat
is not a second press).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from notch_app.ui.keys.chords import AnswerRole, chords_hint


class AnswerKeys(QObject):
    """Answer chords where no global grab is possible (Wayland, macOS, Windows,
    offscreen): nothing is grabbed, no hint is shown, the signals never fire."""

    approvePressed = Signal()
    """The approve chord was pressed while grabbed."""
    declinePressed = Signal()
    """The decline chord was pressed while grabbed."""

    def grab(self) -> None:
        """Start taking the chords from every application (a card is on screen). Never
        raises: what cannot be grabbed is left out of `hint`."""

    def release(self) -> None:
        """Stop taking the chords: they reach the focused application again."""

    @property
    def grabbed(self) -> frozenset[AnswerRole]:
        """The chords taken now (empty while released or where none can be)."""
        return frozenset()

    @property
    def hint(self) -> str:
        """The hint line for the chords taken now ("" when none)."""
        return chords_hint(self.grabbed)

    @property
    def short_hint(self) -> str:
        """The hint for a crowded header ("Ctrl+Alt+↵ / Esc"; "" when none)."""
        return chords_hint(self.grabbed, short=True)

    def close(self) -> None:
        """Release and let go of any connection (the window is going away)."""
        self.release()


class FocusedAnswerKeys(AnswerKeys):
    """No chords from other applications (a native Wayland window without the portal's
    GlobalShortcuts), but the card answers ↵ and Esc once it has focus, and says so."""

    @property
    def hint(self) -> str:
        return "↵ approve · Esc decline once focused"

    @property
    def short_hint(self) -> str:
        return "↵ / Esc once focused"

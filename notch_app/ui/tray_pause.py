"""Pausing Notch from the tray: "Ask for everything", "Hold all cards", and Resume.

The pause itself is the service's (`runtime/pause.py`: which calls ask, which cards come
parked); this module is the person's hand on it and what they see of it:
- the tray menu's three items (the chosen pause ticked, Resume only while paused), and
  the tray's hover line;
- the resting notch's hover, which says the pause first;
- choosing "Hold all cards" parks the card on screen and every card waiting behind it
  (each comes back on Resume); Resume brings the held cards back in arrival order and
  shows the notes and results that waited.
Only the tray menu calls `ask_for_everything`, `hold_all_cards` and `resume`: nothing on
the socket reaches this object or the service's pause.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from notch_app.runtime.pause import PAUSE_WORDS, Pause, PauseMode

if TYPE_CHECKING:
    from notch_app.ui.overlay_presenter import OverlayPresenter

RESUME_WORDS = "Resume: ask as usual"


class PauseControl(QObject):
    """The person's pause on `pause`, shown on `presenter`'s notch."""

    def __init__(self, pause: Pause, presenter: OverlayPresenter) -> None:
        super().__init__()
        self.pause = pause
        self._presenter = presenter
        self._unsubscribe = pause.subscribe(self._follow)
        presenter.held_aside = pause.hold  # cards that waited behind a note, parked
        self._follow()

    def ask_for_everything(self) -> None:
        """Every acting call gets a card; the person's rules wait until Resume."""
        self.choose("askForEverything")

    def hold_all_cards(self) -> None:
        """Cards wait parked, nothing drops from the top, until Resume."""
        self.choose("holdAllCards")

    def resume(self) -> None:
        """End the pause: the held cards come back, oldest in front."""
        held = self.pause.resume()
        parked = {r.call_id for r in self._presenter.parked_requests}
        # Restored newest first: each goes in front, so the oldest ends on screen.
        for call_id in reversed([c for c in held if c in parked]):
            self._presenter.restore(call_id)

    def close(self) -> None:
        self._unsubscribe()

    def choose(self, mode: PauseMode) -> None:
        """Pause this way (from the other pause, switch to this one)."""
        self.pause.set(mode)
        if mode == "holdAllCards":
            presenter = self._presenter
            # The card on screen and those waiting behind it step aside too.
            while presenter.on_screen is not None:
                call_id = presenter.on_screen.call_id
                presenter.park()
                self.pause.hold(call_id)

    def _follow(self) -> None:
        self._presenter.set_pause(self.pause.describe(), self.pause.holds_cards)


class PauseMenu:
    """The tray menu's pause items, kept in step with the pause: `add_to(menu)` once."""

    def __init__(self, control: PauseControl) -> None:
        self.control = control
        self.ask_action = QAction(PAUSE_WORDS["askForEverything"])
        self.ask_action.setCheckable(True)
        self.ask_action.setToolTip("Every action asks; your Always-allow and session rules wait")
        self.ask_action.triggered.connect(lambda: self._chosen("askForEverything"))
        self.hold_action = QAction(PAUSE_WORDS["holdAllCards"])
        self.hold_action.setCheckable(True)
        self.hold_action.setToolTip("Cards wait parked; nothing shows until you resume")
        self.hold_action.triggered.connect(lambda: self._chosen("holdAllCards"))
        self.resume_action = QAction(RESUME_WORDS)
        self.resume_action.triggered.connect(control.resume)
        self._unsubscribe = control.pause.subscribe(self.refresh)
        self.refresh()

    @property
    def actions(self) -> tuple[QAction, QAction, QAction]:
        return (self.ask_action, self.hold_action, self.resume_action)

    def add_to(self, menu: QMenu) -> None:
        for action in self.actions:
            action.setParent(menu)
            menu.addAction(action)

    def refresh(self) -> None:
        mode = self.control.pause.mode
        self.ask_action.setChecked(mode == "askForEverything")
        self.hold_action.setChecked(mode == "holdAllCards")
        self.resume_action.setVisible(mode is not None)

    def close(self) -> None:
        self._unsubscribe()

    def _chosen(self, mode: PauseMode) -> None:
        if self.control.pause.mode == mode:
            self.control.resume()  # unticking the chosen pause resumes
        else:
            self.control.choose(mode)
        self.refresh()

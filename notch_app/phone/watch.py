"""The presenter between the service and the overlay that also tells the phone page.

Every call passes on to the overlay unchanged; the page hears that the open cards
changed (a new card, a replacement, one taken away, one decided). A decision made on a
phone reaches the overlay as "Answered on Pixel 8" instead of as its own click (the
overlay's `answered_elsewhere`, when it has one)."""

from __future__ import annotations

import asyncio
from typing import Any

from notch_app.runtime.presenter import (
    ConfirmationRequest,
    Outcome,
    Presenter,
    ResultGlance,
    RunningWork,
)


class PhoneWatch:
    """Implements `Presenter` over `shown` (the overlay, or None). `changed` is set at
    every change of the open cards; `version` counts them."""

    def __init__(self, shown: Presenter | None) -> None:
        self.shown = shown
        self.version = 0
        self.changed = asyncio.Event()
        self.answered: dict[str, str] = {}
        """callId → the phone's name, while a decision made there is being stored."""
        self.not_saved: dict[str, str] = {}
        """callId → why a phone's decision could not be stored (the page says so)."""

    def bump(self) -> None:
        self.version += 1
        self.changed.set()
        self.changed = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        # The overlay's own extras (store_failed, warm_up, …) stay reachable.
        shown = self.__dict__.get("shown")
        if shown is None:
            raise AttributeError(name)
        return getattr(shown, name)

    # --- Presenter -----------------------------------------------------------------

    def present(self, request: ConfirmationRequest) -> None:
        if self.shown is not None:
            self.shown.present(request)
        self.bump()

    def replace(self, old_call_id: str, request: ConfirmationRequest) -> None:
        if self.shown is not None:
            self.shown.replace(old_call_id, request)
        self.bump()

    def dismiss(self, call_id: str, outcome: Outcome, why: str | None = None) -> None:
        if self.shown is not None:
            if why is None:
                self.shown.dismiss(call_id, outcome)
            else:
                self.shown.dismiss(call_id, outcome, why)
        self.bump()

    def glance(self, request: ConfirmationRequest, text: str) -> None:
        if self.shown is not None:
            self.shown.glance(request, text)

    def show_result(self, glance: ResultGlance) -> None:
        if self.shown is not None:
            self.shown.show_result(glance)

    def work_changed(self, running: tuple[RunningWork, ...]) -> None:
        if self.shown is not None:
            self.shown.work_changed(running)

    def results_may_follow(self) -> None:
        if self.shown is not None:
            self.shown.results_may_follow()

    def decision_saved(self, call_id: str, outcome: Outcome) -> None:
        device = self.answered.pop(call_id, None)
        if device is None:
            if self.shown is not None:
                self.shown.decision_saved(call_id, outcome)
        elif self.shown is not None:
            elsewhere = getattr(self.shown, "answered_elsewhere", None)
            if callable(elsewhere):
                elsewhere(call_id, outcome, device)
            else:
                self.shown.dismiss(call_id, outcome)
        self.bump()

    def decision_not_saved(self, call_id: str, reason: str) -> None:
        if self.answered.pop(call_id, None) is not None:
            self.not_saved[call_id] = reason  # the desktop card was never touched
        elif self.shown is not None:
            self.shown.decision_not_saved(call_id, reason)
        self.bump()

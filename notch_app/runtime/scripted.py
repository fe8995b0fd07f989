"""A presenter without a screen: it keeps the cards it is given and decides them when
told to (or by a rule). Used by tests, benchmarks and headless runs; the notch overlay
is the real presenter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from notch_app.runtime.presenter import (
    ConfirmationRequest,
    DecisionSink,
    Outcome,
    ResultGlance,
    RunningWork,
    Scope,
)

Rule = Callable[[ConfirmationRequest], "tuple[bool, dict[str, Any] | None] | None"]
"""Given a new card: (approve?, final arguments or None) to decide it at once, or None
to leave it for the caller."""


class ScriptedPresenter:
    """Implements `Presenter`. `cards` are the open cards in order; history lists record
    every call the service made."""

    def __init__(self, sink: DecisionSink | None = None, rule: Rule | None = None) -> None:
        self.sink = sink
        self.rule = rule
        self.cards: dict[str, ConfirmationRequest] = {}
        self.presented: list[ConfirmationRequest] = []
        self.replaced: list[tuple[str, ConfirmationRequest]] = []
        self.dismissed: list[tuple[str, Outcome]] = []
        self.dismissed_why: dict[str, str] = {}
        """The reason a withdraw gave, by callId (what the notch would show quoted)."""
        self.glances: list[tuple[ConfirmationRequest, str]] = []
        self.results: list[ResultGlance] = []
        self.running: tuple[RunningWork, ...] = ()
        self.results_announced = 0
        """How many times a gateway said result glances may follow."""
        self.saved: list[tuple[str, Outcome]] = []
        self.not_saved: list[tuple[str, str]] = []
        self.stopped: list[str] = []
        """What the service said when it stopped taking requests (a damaged store)."""
        self._deciding: dict[str, ConfirmationRequest] = {}  # decided here, not yet stored
        self._changed: asyncio.Event | None = None

    # --- Presenter -------------------------------------------------------------------

    def present(self, request: ConfirmationRequest) -> None:
        self.presented.append(request)
        self.cards[request.call_id] = request
        self._arrived(request)

    def replace(self, old_call_id: str, request: ConfirmationRequest) -> None:
        self.replaced.append((old_call_id, request))
        # In place: the new card takes the old one's position in the queue.
        self.cards = {
            (request.call_id if k == old_call_id else k): (request if k == old_call_id else v)
            for k, v in self.cards.items()
        }
        self.cards.setdefault(request.call_id, request)
        self._arrived(request)

    def dismiss(self, call_id: str, outcome: Outcome, why: str | None = None) -> None:
        self.dismissed.append((call_id, outcome))
        if why is not None:
            self.dismissed_why[call_id] = why
        self.cards.pop(call_id, None)
        self._poke()

    def glance(self, request: ConfirmationRequest, text: str) -> None:
        self.glances.append((request, text))
        self._poke()

    def show_result(self, glance: ResultGlance) -> None:
        self.results.append(glance)
        self._poke()

    def work_changed(self, running: tuple[RunningWork, ...]) -> None:
        self.running = running
        self._poke()

    def results_may_follow(self) -> None:
        self.results_announced += 1

    def decision_saved(self, call_id: str, outcome: Outcome) -> None:
        self.saved.append((call_id, outcome))
        self._deciding.pop(call_id, None)
        self._poke()

    def decision_not_saved(self, call_id: str, reason: str) -> None:
        """Like the notch: the card comes back (still open), to be decided again."""
        self.not_saved.append((call_id, reason))
        request = self._deciding.pop(call_id, None)
        if request is not None:
            self.cards[call_id] = request
        self._poke()

    def store_failed(self, text: str) -> None:
        self.stopped.append(text)
        self._poke()

    # --- what a person would do ------------------------------------------------------

    def approve(
        self,
        call_id: str,
        arguments: dict[str, Any] | None = None,
        edited: list[str] | None = None,
        scope: Scope = "once",
    ) -> None:
        """Click the confirm action of `call_id` (with edited `arguments`, if given);
        `scope` "session" or "always" is "Allow for this session" / "Always allow"."""
        sink = self._sink()
        saving = sink.decide(call_id, True, arguments, edited or [], "click", scope=scope)
        self._decided(call_id, saving)

    def decline(self, call_id: str) -> None:
        """Press Esc on `call_id`."""
        self._decided(call_id, self._sink().decide(call_id, False, None, [], "key"))

    def park(self, call_id: str) -> None:
        self.cards[call_id] = _with_parked(self.cards[call_id], True)
        self._sink().parked(call_id)

    def restore(self, call_id: str) -> None:
        self.cards[call_id] = _with_parked(self.cards[call_id], False)
        self._sink().restored(call_id)

    async def wait_for_cards(self, count: int, timeout: float = 5.0) -> list[ConfirmationRequest]:
        """Wait until at least `count` cards are open; returns them in order.
        Raises TimeoutError."""
        async with asyncio.timeout(timeout):
            while len(self.cards) < count:
                if self._changed is None:
                    self._changed = asyncio.Event()
                await self._changed.wait()
                self._changed.clear()
        return list(self.cards.values())

    async def wait_for(self, condition: Callable[[], bool], timeout: float = 5.0) -> None:
        """Wait until `condition()` holds, checked after each call the service makes
        here. Raises TimeoutError."""
        async with asyncio.timeout(timeout):
            while not condition():
                if self._changed is None:
                    self._changed = asyncio.Event()
                await self._changed.wait()
                self._changed.clear()

    # --- internals -------------------------------------------------------------------

    def _decided(self, call_id: str, saving: bool | None) -> None:
        request = self.cards.pop(call_id, None)
        if saving and request is not None:
            self._deciding[call_id] = request

    def _sink(self) -> DecisionSink:
        if self.sink is None:
            raise RuntimeError("ScriptedPresenter has no DecisionSink; pass the service")
        return self.sink

    def _arrived(self, request: ConfirmationRequest) -> None:
        loop = asyncio.get_running_loop()
        if self.sink is not None:
            # Like a real window: "shown" after the card's first frame, not inside present().
            loop.call_soon(self.sink.shown, request.call_id)
        if self.rule is not None and self.sink is not None:
            verdict = self.rule(request)
            if verdict is not None:
                approve, arguments = verdict
                loop.call_soon(self._decide_later, request.call_id, approve, arguments)
        self._poke()

    def _decide_later(self, call_id: str, approve: bool, arguments: dict[str, Any] | None) -> None:
        if call_id in self.cards:
            if approve:
                self.approve(call_id, arguments)
            else:
                self.decline(call_id)

    def _poke(self) -> None:
        if self._changed is not None:
            self._changed.set()


def _with_parked(request: ConfirmationRequest, parked: bool) -> ConfirmationRequest:
    return replace(request, parked=parked)

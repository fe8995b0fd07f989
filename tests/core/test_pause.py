"""The person's pause (runtime/pause.py): one pause at a time, Resume gives back the held
cards in order, and nothing but the tray (the person) reaches it — no socket method
names it (tests/ui/test_pause_and_rules.py drives it through a running Notch)."""

from __future__ import annotations

import pytest

from notch_app.ipc.methods import NAMES
from notch_app.runtime.pause import Pause


def test_one_pause_at_a_time_and_resume_gives_back_the_held_cards_in_order() -> None:
    told: list[str | None] = []
    pause = Pause(clock=lambda: 100.0)
    pause.subscribe(lambda: told.append(pause.mode))
    assert pause.describe() is None and not pause.asks_for_everything
    pause.set("askForEverything")
    assert pause.asks_for_everything and pause.since == 100.0
    pause.set("holdAllCards")  # switches, never both
    assert pause.holds_cards and not pause.asks_for_everything
    for call_id in ("c1", "c2", "c1"):
        pause.hold(call_id)
    assert pause.describe() == "Paused: holding all cards (2 held)."
    assert pause.resume() == ["c1", "c2"]
    assert pause.mode is None and pause.held == [] and pause.resume() == []
    assert told == ["askForEverything", "holdAllCards", "holdAllCards", "holdAllCards", None]


def test_a_mode_that_is_not_a_pause_is_refused() -> None:
    with pytest.raises(ValueError, match="a pause is one of askForEverything, holdAllCards"):
        Pause().set("resume")  # type: ignore[arg-type]


def test_no_socket_method_reaches_the_pause() -> None:
    assert not [name for name in NAMES if "pause" in name or "resume" in name]

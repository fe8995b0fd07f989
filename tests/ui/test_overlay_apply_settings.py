"""`OverlayPresenter.apply_settings`: a running notch follows new settings at once."""

from __future__ import annotations

import dataclasses
from typing import Any

from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

SNAP = OverlaySettings(expand_ms=0, done_ms=60, park_after_s=60)


def _overlay(
    qtbot: Any, sink: Any, simple_factory: Any, settings: OverlaySettings = SNAP
) -> tuple[OverlayPresenter, Any]:
    presenter = OverlayPresenter(sink, simple_factory, settings)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    return presenter, sink


def test_an_idle_pill_hides_and_comes_back_at_once(
    qtbot: Any, sink: Any, simple_factory: Any
) -> None:
    presenter, _sink = _overlay(qtbot, sink, simple_factory)
    assert presenter.window.isVisible() and presenter.window.look == "idle"
    hidden = dataclasses.replace(SNAP, idle_mode="hidden")
    presenter.apply_settings(hidden)
    assert not presenter.window.isVisible()  # now, not after the next card
    assert presenter.settings is hidden and presenter.window.settings is hidden
    presenter.apply_settings(SNAP)
    assert presenter.window.isVisible() and presenter.window.look == "idle"


def test_a_card_on_screen_stays_when_the_idle_look_changes(
    qtbot: Any, card_request: Any, sink: Any, simple_factory: Any
) -> None:
    presenter, _sink = _overlay(qtbot, sink, simple_factory)
    presenter.present(card_request("a", text="hi"))
    presenter.apply_settings(dataclasses.replace(SNAP, idle_mode="hidden"))
    window = presenter.window
    assert window.isVisible() and presenter.on_screen is not None  # the card stays
    presenter.dismiss("a", "withdrawn")
    qtbot.waitUntil(lambda: window.look == "idle", timeout=2000)
    assert not window.isVisible()  # the new idle look, once the card is gone


def test_the_card_on_screen_gets_the_new_park_time_from_now(
    qtbot: Any, card_request: Any, simple_factory: Any, sink: Any
) -> None:
    presenter, _ = _overlay(qtbot, sink, simple_factory)
    assert presenter.park_timer_ms is None  # idle: no countdown
    presenter.present(card_request("a"))
    assert presenter.park_timer_ms == 60_000
    presenter.apply_settings(dataclasses.replace(SNAP, park_after_s=0.05))
    assert presenter.park_timer_ms == 50
    qtbot.waitUntil(lambda: ("parked", "a") in sink.calls, timeout=2000)
    assert [r.call_id for r in presenter.parked_requests] == ["a"]


def test_park_time_zero_stops_parking_and_a_later_time_starts_it_again(
    qtbot: Any, card_request: Any, simple_factory: Any, sink: Any
) -> None:
    presenter, _ = _overlay(qtbot, sink, simple_factory)
    presenter.present(card_request("a"))
    presenter.apply_settings(dataclasses.replace(SNAP, park_after_s=0))
    assert presenter.park_timer_ms is None
    assert presenter.window.look == "card" and not sink.of("parked")
    presenter.apply_settings(dataclasses.replace(SNAP, park_after_s=15))
    assert presenter.park_timer_ms == 15_000


def test_unchanged_park_time_does_not_restart_the_countdown(
    qtbot: Any, card_request: Any, sink: Any, simple_factory: Any
) -> None:
    presenter, _sink = _overlay(
        qtbot, sink, simple_factory, dataclasses.replace(SNAP, park_after_s=0.3)
    )
    presenter.present(card_request("a"))
    # Half of the countdown has run when another setting changes.
    qtbot.waitUntil(lambda: 0 <= presenter._park_timer.remainingTime() <= 150, timeout=2000)
    # Another setting changed (the idle look): the card's countdown keeps its progress.
    presenter.apply_settings(dataclasses.replace(SNAP, park_after_s=0.3, idle_mode="hidden"))
    # Read from the timer itself: the difference is 150 ms, too little to time from outside.
    remaining = presenter._park_timer.remainingTime()
    assert 0 <= remaining < 250

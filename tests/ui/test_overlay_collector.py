"""The cyclic garbage collector is held off while a card is built and first painted, and
never for longer: released at the card's first frame, at its bound when no frame comes,
and when the notch closes (a collector left off would let a long-running Notch grow)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.overlay.collector import BOUND_MS, CollectorHeld
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

SETTINGS = OverlaySettings(expand_ms=30, done_ms=60, park_after_s=0)


@pytest.fixture(autouse=True)
def _collector_on_after() -> Iterator[None]:
    assert gc.isenabled()
    yield
    gc.enable()  # whatever a failed test left, the next test has its collector


@pytest.fixture
def presenting(qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any) -> OverlayPresenter:
    """A notch that has just been handed the mail card: built, not yet painted."""
    presenter = OverlayPresenter(sink, bundled_factory(), SETTINGS)
    qtbot.addWidget(presenter.window)
    args = preview_args("mail", "send_email")
    presenter.present(ConfirmationRequest("c1", "dev.notch.examples.mail", "send_email", args))
    assert not gc.isenabled()
    return presenter


def test_the_collector_waits_for_the_cards_first_frame_then_runs_again(
    qtbot: Any, sink: Any, presenting: OverlayPresenter
) -> None:
    seen: list[bool] = []
    told = sink.shown

    def shown(call_id: str) -> None:
        seen.append(gc.isenabled())
        told(call_id)

    sink.shown = shown
    qtbot.waitUntil(lambda: sink.of("shown") != [], timeout=5000)
    assert seen == [False]  # the first frame was reached with it held
    assert gc.isenabled()  # and it runs again right after


def test_a_card_that_never_paints_holds_the_collector_no_longer_than_its_bound(
    qtbot: Any,
) -> None:
    held = CollectorHeld()
    held.hold()
    assert not gc.isenabled() and held.held
    qtbot.waitUntil(gc.isenabled, timeout=BOUND_MS + 2000)
    assert not held.held


def test_a_collector_someone_else_turned_off_is_left_to_them() -> None:
    held = CollectorHeld()
    gc.disable()
    held.hold()
    held.release()
    assert not gc.isenabled()  # not this hold's to turn on
    gc.enable()
    held.hold()
    gc.disable()  # someone else, meanwhile
    held.release()
    assert gc.isenabled()  # this hold turned it off, so it turns it back on


def test_a_notch_closed_while_a_card_is_built_leaves_the_collector_on(
    presenting: OverlayPresenter,
) -> None:
    presenting.close()
    assert gc.isenabled()

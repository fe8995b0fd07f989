"""One asker with many cards is named, and cleared in one press (issue 18, finding 9).

A process with many cards waiting had the notch read "1 of 512" and nothing else. Now
the card of a process with three or more cards waiting says so on its strip, naming the
process as the kernel reported it, with "Decline all from this asker": that declines
exactly that process's cards, waiting or parked, and never another agent's, even one
whose process took the same name. Real cards of the bundled integrations in the real
notch window, offscreen; clicks through Qt's input events.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from notch_app.runtime.askers import AskingProcess
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.widgets.asker_strip import DECLINE_ALL_FROM_ASKER, AskerStrip

FILES = "dev.notch.examples.files"
SETTINGS = OverlaySettings(expand_ms=40, done_ms=300, park_after_s=0)
FLOOD = AskingProcess(4242, 1001, "python3")
AGENT = AskingProcess(5151, 2002, "claude")
IMPOSTOR = AskingProcess(6161, 3003, "claude")  # took the agent's name: another process


@pytest.fixture
def overlay(qtbot: Any, sink: Any, bundled_factory: Any) -> OverlayPresenter:
    presenter = OverlayPresenter(sink, bundled_factory(), SETTINGS)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    return presenter


@pytest.fixture
def ask(preview_args: Any) -> Any:
    """`ask(call_id, process)`: the files integration's delete card, asked by `process`."""

    def request(call_id: str, process: AskingProcess | None, **more: Any) -> ConfirmationRequest:
        args = preview_args("files", "delete_files")
        return ConfirmationRequest(call_id, FILES, "delete_files", args, process=process, **more)

    return request


def strip_on_screen(qtbot: Any, presenter: OverlayPresenter, call_id: str) -> AskerStrip:
    qtbot.waitUntil(
        lambda: presenter.on_screen is not None and presenter.on_screen.call_id == call_id,
        timeout=3000,
    )
    card = presenter.window.card
    assert isinstance(card, CardView) and card.asker_strip is not None
    return card.asker_strip


def declined(sink: Any) -> list[str]:
    return sorted(call_id for _, call_id, approved, *_ in sink.of("decide") if not approved)


def test_decline_all_from_this_asker_declines_exactly_its_cards(
    qtbot: Any, overlay: OverlayPresenter, sink: Any, ask: Any
) -> None:
    overlay.present(ask("f0", FLOOD))
    overlay.present(ask("a0", AGENT))
    for n in range(1, 5):
        overlay.present(ask(f"f{n}", FLOOD))
    overlay.present(ask("i0", IMPOSTOR))
    overlay.present(ask("f5", FLOOD, parked=True))  # walked away from: in the side notch
    overlay.present(ask("a1", AGENT))

    strip = strip_on_screen(qtbot, overlay, "f0")
    assert strip.crowd_text == "6 cards from python3 (pid 4242)"
    button = strip.decline_all
    assert button.isVisible() and button.text() == DECLINE_ALL_FROM_ASKER
    assert button.accessibleName() == "Decline all 6 cards from python3 (pid 4242)"
    # The strip grew by that line and the card's own content moved down with it.
    glass = strip.parentWidget()
    assert glass is not None
    below = [
        w
        for w in glass.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
        if w is not strip and w.isVisible()
    ]
    assert below
    qtbot.waitUntil(lambda: all(w.geometry().top() > strip.geometry().bottom() for w in below))
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # decline is never held

    assert declined(sink) == ["f0", "f1", "f2", "f3", "f4", "f5"]
    assert [r.call_id for r in overlay.waiting] == ["a0", "i0", "a1"]
    assert overlay.parked_requests == ()


def test_a_few_cards_are_not_a_crowd_and_a_name_is_not_a_process(
    qtbot: Any, overlay: OverlayPresenter, sink: Any, ask: Any
) -> None:
    overlay.present(ask("a0", AGENT))
    overlay.present(ask("a1", AGENT))
    strip = strip_on_screen(qtbot, overlay, "a0")
    assert strip.crowd is None and not strip.decline_all.isVisible()  # two: an agent's turn
    for n in range(3):
        overlay.present(ask(f"i{n}", IMPOSTOR))
    assert strip.crowd is None, "another process's cards are not this asker's"
    overlay.present(ask("a2", AGENT))
    assert strip.crowd_text == "3 cards from claude (pid 5151)"
    qtbot.mouseClick(strip.decline_all, Qt.MouseButton.LeftButton)
    assert declined(sink) == ["a0", "a1", "a2"], "the impostor named claude is left alone"
    impostor = strip_on_screen(qtbot, overlay, "i0")
    assert impostor.crowd_text == "3 cards from claude (pid 6161)"


def test_cards_without_a_known_process_are_never_grouped(
    qtbot: Any, overlay: OverlayPresenter, ask: Any
) -> None:
    """The app's own requests and cards brought back after a restart name no process."""
    for n in range(4):
        overlay.present(ask(f"u{n}", None))
    strip = strip_on_screen(qtbot, overlay, "u0")
    assert strip.crowd is None and not strip.decline_all.isVisible()

"""The notch overlay's behaviour: queue, counter, decisions, parking, focus, idle timers."""

from __future__ import annotations

from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QAbstractAnimation, QEvent, QObject, QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication

from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

FAST = OverlaySettings(expand_ms=40, done_ms=60, park_after_s=0)


@pytest.fixture
def overlay(qtbot: Any, sink: Any, simple_factory: Any) -> tuple[OverlayPresenter, Any]:
    presenter = OverlayPresenter(sink, simple_factory, FAST)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    return presenter, sink


def _card(presenter: OverlayPresenter, simple_card: Any) -> Any:
    card = presenter.window.card
    assert isinstance(card, simple_card)
    return card


def _settle(qtbot: Any, presenter: OverlayPresenter, look: str) -> None:
    qtbot.waitUntil(
        lambda: presenter.window.look == look and not presenter.window.is_animating(), timeout=3000
    )


def _armed(qtbot: Any, presenter: OverlayPresenter) -> None:
    """Wait until the card on screen accepts confirm (ARMING_DELAY_MS after it settled)."""
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)


def test_idle_pill_sits_at_top_centre_and_expands_into_the_card(
    qtbot: Any, overlay: Any, card_request: Any
) -> None:
    presenter, sink = overlay
    screen = QApplication.primaryScreen().availableGeometry()
    pill = presenter.window.geometry()
    assert presenter.window.isVisible()
    assert pill.width() < 200 and pill.height() < 40
    assert abs(pill.center().x() - screen.center().x()) <= 1
    assert pill.top() == screen.top() + FAST.top_margin

    presenter.present(card_request("a", text="hello"))
    assert presenter.window.is_animating()  # eased, not a jump
    _settle(qtbot, presenter, "card")
    grown = presenter.window.geometry()
    assert grown.width() >= 440 and grown.height() > 100
    assert abs(grown.center().x() - screen.center().x()) <= 1
    assert grown.top() == pill.top()
    qtbot.waitUntil(lambda: ("shown", "a") in sink.calls, timeout=2000)


def test_three_pending_show_one_of_three_and_the_next_follows_each_decision(
    qtbot: Any, overlay: Any, card_request: Any, simple_card: Any
) -> None:
    presenter, sink = overlay
    for cid in ("a", "b", "c"):
        presenter.present(card_request(cid))
    _settle(qtbot, presenter, "card")
    counter = presenter.window._counter
    assert counter.isVisible() and counter.text() == "1 of 3"
    assert presenter.on_screen is not None and presenter.on_screen.call_id == "a"

    _armed(qtbot, presenter)
    qtbot.mouseClick(_card(presenter, simple_card).approve, Qt.MouseButton.LeftButton)
    assert presenter.window.look == "done"
    assert "Approved" in presenter.window._note.text()
    _settle(qtbot, presenter, "card")
    assert presenter.on_screen is not None and presenter.on_screen.call_id == "b"
    assert counter.text() == "2 of 3"

    qtbot.mouseClick(_card(presenter, simple_card).cancel, Qt.MouseButton.LeftButton)
    assert "Declined" in presenter.window._note.text()
    _settle(qtbot, presenter, "card")
    assert counter.text() == "3 of 3"
    _armed(qtbot, presenter)
    qtbot.mouseClick(_card(presenter, simple_card).approve, Qt.MouseButton.LeftButton)
    _settle(qtbot, presenter, "idle")

    decisions = [(c[1], c[2], c[5]) for c in sink.of("decide")]
    assert decisions == [("a", True, "click"), ("b", False, "click"), ("c", True, "click")]


def test_a_single_card_shows_no_counter(qtbot: Any, overlay: Any, card_request: Any) -> None:
    presenter, _ = overlay
    presenter.present(card_request("solo"))
    _settle(qtbot, presenter, "card")
    assert not presenter.window._counter.isVisible()


def test_escape_and_close_button_decline(
    qtbot: Any, overlay: Any, card_request: Any, simple_card: Any
) -> None:
    presenter, sink = overlay
    presenter.present(card_request("esc"))
    presenter.present(card_request("x"))
    _settle(qtbot, presenter, "card")
    qtbot.keyClick(_card(presenter, simple_card), Qt.Key.Key_Escape)
    _settle(qtbot, presenter, "card")
    qtbot.mouseClick(presenter.window._close, Qt.MouseButton.LeftButton)
    _settle(qtbot, presenter, "idle")
    assert [(c[1], c[2], c[3], c[5]) for c in sink.of("decide")] == [
        ("esc", False, None, "key"),
        ("x", False, None, "click"),
    ]


def test_edited_field_comes_back_in_the_decision(
    qtbot: Any, overlay: Any, card_request: Any, simple_card: Any
) -> None:
    presenter, sink = overlay
    presenter.present(card_request("e", text="Helo"))
    _settle(qtbot, presenter, "card")
    card = _card(presenter, simple_card)
    assert card.field is not None
    card.field.setText("Hello")
    _armed(qtbot, presenter)
    qtbot.mouseClick(card.approve, Qt.MouseButton.LeftButton)
    assert sink.of("decide") == [("decide", "e", True, {"text": "Hello"}, ["text"], "click")]


def test_untouched_card_parks_and_the_side_notch_restores_it_with_edits(
    qtbot: Any, sink: Any, simple_factory: Any, card_request: Any, simple_card: Any
) -> None:
    presenter = OverlayPresenter(
        sink, simple_factory, OverlaySettings(expand_ms=0, done_ms=0, park_after_s=0.2)
    )
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.present(card_request("p", text="draft"))
    card = _card(presenter, simple_card)
    assert card.field is not None
    card.field.setText("draft, edited")
    qtbot.waitUntil(lambda: ("parked", "p") in sink.calls, timeout=2000)
    assert presenter.window.look == "idle"
    assert presenter.side_notch.isVisible()
    assert [p.call_id for p in presenter.side_notch.parked] == ["p"]
    # The side notch sits beside the notch, not on top of it.
    assert presenter.side_notch.geometry().left() > presenter.window.geometry().right()

    qtbot.mouseClick(presenter.side_notch, Qt.MouseButton.LeftButton)
    assert ("restored", "p") in sink.calls
    assert card.field.text() == "draft, edited" and presenter.window.card is card
    assert not presenter.side_notch.isVisible()


def test_activity_on_the_card_postpones_parking(
    qtbot: Any, sink: Any, simple_factory: Any, card_request: Any, simple_card: Any
) -> None:
    presenter = OverlayPresenter(
        sink, simple_factory, OverlaySettings(expand_ms=0, done_ms=0, park_after_s=0.3)
    )
    qtbot.addWidget(presenter.window)
    presenter.present(card_request("busy", text="x"))
    presenter.window.show()
    card = _card(presenter, simple_card)
    assert card.field is not None
    countdown = presenter._park_timer
    for _ in range(4):
        # Half of the 300 ms countdown has run: four presses span twice the park time.
        qtbot.waitUntil(lambda: 0 <= countdown.remainingTime() <= 150, timeout=2000)
        # Through the window, as real key presses travel.
        qtbot.keyClick(presenter.window.windowHandle(), Qt.Key.Key_A)
    assert ("parked", "busy") not in sink.calls
    qtbot.waitUntil(lambda: ("parked", "busy") in sink.calls, timeout=2000)


def test_several_parked_open_a_menu_and_recovered_cards_arrive_parked(
    qtbot: Any, overlay: Any, card_request: Any
) -> None:
    presenter, sink = overlay
    presenter.present(
        card_request("r1").__class__("r1", "com.example.test", "send_a", {}, parked=True)
    )
    presenter.present(
        card_request("r2").__class__("r2", "com.example.test", "send_b", {}, parked=True)
    )
    assert presenter.window.look == "idle" and not sink.of("shown")
    assert presenter.side_notch.isVisible() and len(presenter.side_notch.parked) == 2
    qtbot.mouseClick(presenter.side_notch, Qt.MouseButton.LeftButton)
    menu = presenter.side_notch._menu
    assert menu is not None and [a.text() for a in menu.actions()] == [
        "com.example.test · send_a",
        "com.example.test · send_b",
    ]
    menu.actions()[1].trigger()
    assert ("restored", "r2") in sink.calls
    assert presenter.on_screen is not None and presenter.on_screen.call_id == "r2"
    assert len(presenter.side_notch.parked) == 1


def test_supersede_replaces_the_card_in_place_and_dismiss_removes_it(
    qtbot: Any, overlay: Any, card_request: Any, simple_card: Any
) -> None:
    presenter, sink = overlay
    presenter.present(card_request("old", text="v1"))
    presenter.present(card_request("other"))
    _settle(qtbot, presenter, "card")
    presenter.replace("old", card_request("new", text="v2"))
    assert presenter.on_screen is not None and presenter.on_screen.call_id == "new"
    assert presenter.window._counter.text() == "1 of 2"
    field = _card(presenter, simple_card).field
    assert field is not None and field.text() == "v2"
    presenter.dismiss("new", "withdrawn")
    assert presenter.window._note.text() == "Withdrawn by the agent · send_thing"
    _settle(qtbot, presenter, "card")
    assert presenter.on_screen is not None and presenter.on_screen.call_id == "other"
    presenter.dismiss("unknown", "expired")  # harmless
    assert not sink.of("decide")


def test_same_call_id_twice_shows_one_card(qtbot: Any, overlay: Any, card_request: Any) -> None:
    presenter, _ = overlay
    presenter.present(card_request("dup"))
    presenter.present(card_request("dup"))
    assert len(presenter.waiting) == 1


def test_card_without_inputs_never_takes_focus_but_an_editable_one_does_on_click(
    qtbot: Any, overlay: Any, card_request: Any, simple_card: Any
) -> None:
    presenter, _ = overlay
    presenter.present(card_request("plain"))
    _settle(qtbot, presenter, "card")
    handle = presenter.window.windowHandle()
    assert handle.flags() & Qt.WindowType.WindowDoesNotAcceptFocus
    _armed(qtbot, presenter)
    qtbot.mouseClick(_card(presenter, simple_card).approve, Qt.MouseButton.LeftButton)
    presenter.present(card_request("edit", text="x"))
    _settle(qtbot, presenter, "card")
    assert not handle.flags() & Qt.WindowType.WindowDoesNotAcceptFocus


class _TimerCounter(QObject):
    """Counts timer events delivered to `roots` or anything they own. Objects left by
    earlier tests in the same process (and pytest-qt's own wait timer) tick on their
    own schedule; only the overlay's ticks are this test's business."""

    def __init__(self, *roots: QObject) -> None:
        super().__init__()
        self.roots = roots
        self.ticked: list[str] = []

    def _ours(self, obj: QObject | None) -> bool:
        while obj is not None:
            if any(obj is root for root in self.roots):
                return True
            obj = obj.parent()
        return False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Timer and self._ours(watched):
            self.ticked.append(f"{type(watched).__name__} {watched.objectName()!r}")
        return False


def test_idle_overlay_runs_no_timers(
    qtbot: Any, sink: Any, simple_factory: Any, card_request: Any, simple_card: Any
) -> None:
    presenter = OverlayPresenter(
        sink, simple_factory, OverlaySettings(expand_ms=30, done_ms=30, park_after_s=60)
    )
    qtbot.addWidget(presenter.window)
    presenter.present(card_request("t"))
    qtbot.waitUntil(lambda: presenter.window.look == "card" and not presenter.window.is_animating())
    assert presenter._park_timer.isActive()  # a pending card counts down to parking
    _armed(qtbot, presenter)
    qtbot.mouseClick(_card(presenter, simple_card).approve, Qt.MouseButton.LeftButton)
    _settle(qtbot, presenter, "idle")
    timers = presenter.findChildren(QTimer) + presenter.window.findChildren(QTimer)
    qtbot.waitUntil(lambda: not any(t.isActive() for t in timers))  # the done note ended
    counter = _TimerCounter(presenter, presenter.window)
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(counter)
    try:
        qtbot.wait(600)  # an observation window: no tick of the idle overlay in it
    finally:
        app.removeEventFilter(counter)
    assert counter.ticked == []  # nothing of the overlay ticked
    assert presenter.window._animation.state() == QAbstractAnimation.State.Stopped


def test_hidden_idle_mode_shows_no_window_until_a_card(
    qtbot: Any, sink: Any, simple_factory: Any, card_request: Any, simple_card: Any
) -> None:
    presenter = OverlayPresenter(
        sink, simple_factory, OverlaySettings(idle_mode="hidden", expand_ms=0, done_ms=0)
    )
    qtbot.addWidget(presenter.window)
    assert not presenter.window.isVisible()
    presenter.present(card_request("h"))
    assert presenter.window.isVisible() and presenter.window.look == "card"
    _armed(qtbot, presenter)
    qtbot.mouseClick(_card(presenter, simple_card).approve, Qt.MouseButton.LeftButton)
    QTimer.singleShot(0, lambda: None)
    qtbot.waitUntil(lambda: not presenter.window.isVisible(), timeout=2000)
    assert presenter.window.pos() != QPoint(-1, -1)


def test_the_notch_follows_a_card_that_grows(
    qtbot: Any, overlay: Any, card_request: Any, simple_card: Any
) -> None:
    presenter, _ = overlay
    presenter.present(card_request("grow"))
    _settle(qtbot, presenter, "card")
    before = presenter.window.geometry()
    _card(presenter, simple_card).setFixedSize(440, 300)  # e.g. a field appeared
    qtbot.waitUntil(
        lambda: (
            presenter.window.geometry().height() > before.height() + 150
            and not presenter.window.is_animating()
        ),
        timeout=2000,
    )
    assert presenter.window.geometry().top() == before.top()


def test_a_window_gone_under_its_done_note_takes_the_notes_timer_with_it(
    qtbot: Any, sink: Any, simple_factory: Any, card_request: Any, simple_card: Any
) -> None:
    """The window deleted while its "Approved" note is up (a display lost, a teardown): the
    note's timer used to fire into the deleted window anyway ("Internal C++ object
    (NotchWindow) already deleted", caught in a later test's Qt loop)."""
    presenter = OverlayPresenter(
        sink, simple_factory, OverlaySettings(expand_ms=0, done_ms=150, park_after_s=0)
    )
    qtbot.addWidget(presenter.side_notch)
    presenter.present(card_request("a"))
    _settle(qtbot, presenter, "card")
    _armed(qtbot, presenter)
    qtbot.mouseClick(_card(presenter, simple_card).approve, Qt.MouseButton.LeftButton)
    assert presenter.window.look == "done"
    timers = presenter.findChildren(QTimer)
    assert any(t.isActive() for t in timers), "the note's timer runs"
    window = presenter.window
    window.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(window), timeout=3000)
    assert not any(t.isActive() for t in timers)
    # Past the note's 150 ms: nothing fires into the deleted window (pytest-qt fails the
    # test on an exception raised in the Qt loop).
    ticks = QTimer()
    ticks.setSingleShot(True)
    with qtbot.waitSignal(ticks.timeout, timeout=3000):
        ticks.start(400)

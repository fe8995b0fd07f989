"""Result glances in the notch and background work in the side notch (issue 11 §1, §3), as
a person sees them: a glance shows while nothing asks, stays `glance_ms`, waits while the
pointer is on it, stays when pinned, goes with ×, steps aside for a card and comes back
after it; it never takes focus and holds nothing to click but pin and ×. The side notch
lists running work with its time against the estimate and ticks only while work runs."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QCursor, QEnterEvent, QMouseEvent
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from notch_app.manifest.glance import read_glance
from notch_app.runtime.presenter import ResultGlance, RunningWork
from notch_app.ui.overlay_presenter import BuiltCard, OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

FAST = OverlaySettings(expand_ms=30, done_ms=60, park_after_s=0, glance_ms=700)
BLOCKS = read_glance(
    {"blocks": [{"type": "header", "icon": "calendar", "title": "Today", "trailing": "3"}]}
).blocks


def _glance_view(result: ResultGlance, parent: QWidget) -> BuiltCard:
    view = QWidget(parent)
    view.setObjectName("glanceDouble")
    column = QVBoxLayout(view)
    column.addWidget(QLabel(" · ".join(b.type for b in result.blocks), view))
    return BuiltCard(view, title=f"Calendar · {result.title}", action=result.title)


@pytest.fixture
def overlay(qtbot: Any, sink: Any, simple_factory: Any) -> OverlayPresenter:
    presenter = OverlayPresenter(sink, simple_factory, FAST, glance_factory=_glance_view)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    return presenter


def _result(title: str = "List events", **kw: Any) -> ResultGlance:
    return ResultGlance("com.example.calendar", "list_events", title, BLOCKS, **kw)


def _settled(qtbot: Any, presenter: OverlayPresenter, look: str) -> None:
    qtbot.waitUntil(
        lambda: presenter.window.look == look and not presenter.window.is_animating(), timeout=3000
    )


def test_a_result_glance_shows_in_the_notch_then_goes_by_itself(
    qtbot: Any, overlay: OverlayPresenter
) -> None:
    overlay.show_result(_result())
    _settled(qtbot, overlay, "glance")
    window = overlay.window
    assert window.glance is not None and window.glance.objectName() == "glanceDouble"
    assert window._title.text() == "Calendar · List events"
    assert window._pin.isVisible() and window._close.isVisible()
    assert not window._counter.isVisible()
    assert window.geometry().height() > 60, "the notch grew to hold the glance"
    assert overlay.result_on_screen is not None
    _settled(qtbot, overlay, "idle")  # after glance_ms, with nobody touching it
    assert overlay.result_on_screen is None


def test_a_glance_never_takes_focus_and_offers_no_input(
    qtbot: Any, overlay: OverlayPresenter
) -> None:
    overlay.show_result(_result())
    _settled(qtbot, overlay, "glance")
    handle = overlay.window.windowHandle()
    assert handle is not None
    assert handle.flags() & Qt.WindowType.WindowDoesNotAcceptFocus
    glance = overlay.window.glance
    assert glance is not None
    assert all(
        w.focusPolicy() == Qt.FocusPolicy.NoFocus
        for w in overlay.window.findChildren(QWidget)
        if w.isVisible() and glance.isAncestorOf(w)
    ), "nothing in a glance can take focus"


def test_hovering_pauses_a_glance_and_leaving_gives_it_time_to_finish(
    qtbot: Any, overlay: OverlayPresenter
) -> None:
    QCursor.setPos(0, 500)  # the pointer elsewhere when the glance comes
    overlay.show_result(_result())
    _settled(qtbot, overlay, "glance")
    window = overlay.window
    QCursor.setPos(window.geometry().center())  # the person reaches for it
    QApplication.sendEvent(window, QEnterEvent(QPointF(10, 10), QPointF(10, 10), QPointF(10, 10)))
    assert not overlay._glance_timer.isActive(), "paused while the pointer is on it"
    qtbot.wait(FAST.glance_ms + 200)  # longer than a glance stays: it must still be there
    assert window.look == "glance"
    QApplication.sendEvent(window, QEvent(QEvent.Type.Leave))
    assert overlay._glance_timer.isActive()
    assert overlay._glance_timer.remainingTime() >= 900, "at least a second to finish reading"
    _settled(qtbot, overlay, "idle")


def test_a_glance_under_a_resting_pointer_goes_by_itself_until_the_pointer_moves(
    qtbot: Any, overlay: OverlayPresenter
) -> None:
    """The person left the pointer at the top of the screen: the glance grows under it.
    That is not reaching for it — it goes after its time, unless the pointer moves on it."""
    QCursor.setPos(overlay.window.geometry().center())
    overlay.show_result(_result())
    _settled(qtbot, overlay, "glance")
    window = overlay.window
    handle = window.windowHandle()
    assert handle is not None
    at = QPointF(window.geometry().center() - window.geometry().topLeft())
    QApplication.sendEvent(window, QEnterEvent(at, at, QPointF(QCursor.pos())))
    assert overlay._glance_timer.isActive(), "not paused: the pointer was already there"

    QCursor.setPos(QCursor.pos() + QPoint(4, 2))  # now it moves, on the glance
    moved = QPointF(at.x() + 4, at.y() + 2)
    QApplication.sendEvent(
        handle,
        QMouseEvent(
            QEvent.Type.MouseMove,
            moved,
            QPointF(QCursor.pos()),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
        ),
    )
    assert not overlay._glance_timer.isActive(), "paused once the person moves onto it"
    QCursor.setPos(0, 500)  # and away
    QApplication.sendEvent(window, QEvent(QEvent.Type.Leave))
    _settled(qtbot, overlay, "idle")


def test_a_glance_left_under_a_resting_pointer_ends_on_time(
    qtbot: Any, overlay: OverlayPresenter
) -> None:
    QCursor.setPos(overlay.window.geometry().center())
    overlay.show_result(_result())
    _settled(qtbot, overlay, "glance")
    window = overlay.window
    at = QPointF(window.geometry().center() - window.geometry().topLeft())
    QApplication.sendEvent(window, QEnterEvent(at, at, QPointF(QCursor.pos())))
    _settled(qtbot, overlay, "idle")  # glance_ms, with the pointer resting on it
    assert overlay.result_on_screen is None


def test_a_pinned_glance_stays_until_dismissed(qtbot: Any, overlay: OverlayPresenter) -> None:
    overlay.show_result(_result())
    _settled(qtbot, overlay, "glance")
    window = overlay.window
    qtbot.mouseClick(window._pin, Qt.MouseButton.LeftButton)
    assert window.pinned and window._pin.text() == "Pinned"
    qtbot.wait(FAST.glance_ms + 200)  # longer than a glance stays
    assert window.look == "glance"
    qtbot.mouseClick(window._close, Qt.MouseButton.LeftButton)
    _settled(qtbot, overlay, "idle")
    assert overlay.result_on_screen is None


def test_a_card_takes_the_glances_place_and_the_glance_comes_back_after(
    qtbot: Any, overlay: OverlayPresenter, sink: Any, card_request: Any, simple_card: Any
) -> None:
    overlay.show_result(_result())
    _settled(qtbot, overlay, "glance")
    overlay.present(card_request("c1"))
    _settled(qtbot, overlay, "card")
    assert overlay.on_screen is not None and overlay.on_screen.call_id == "c1"
    assert [r.title for r in overlay.waiting_results] == ["List events"]
    qtbot.waitUntil(lambda: overlay.armed, timeout=3000)
    card = overlay.window.card
    assert isinstance(card, simple_card)
    qtbot.mouseClick(card.approve, Qt.MouseButton.LeftButton)
    _settled(qtbot, overlay, "glance")  # after the done note
    assert overlay.result_on_screen is not None
    assert ("decide", "c1", True) in [c[:3] for c in sink.calls]


def test_glances_wait_for_cards_and_are_bounded(
    qtbot: Any, overlay: OverlayPresenter, card_request: Any
) -> None:
    overlay.present(card_request("c1"))
    _settled(qtbot, overlay, "card")
    for i in range(20):
        overlay.show_result(_result(f"Result {i}"))
    assert overlay.window.look == "card", "a glance never pushes a card aside"
    waiting = [r.title for r in overlay.waiting_results]
    assert len(waiting) == 8 and waiting[-1] == "Result 19", "the newest are kept"


def test_failure_and_plain_finish_show_as_one_line(qtbot: Any, overlay: OverlayPresenter) -> None:
    # Each note as it settles on screen: read when it settles, not polled, since the
    # note lasts 60 ms here and a loaded machine's poll could miss it.
    said: list[str] = []
    window = overlay.window
    window.lookChanged.connect(
        lambda look: said.append(window._note.text()) if look == "done" else None
    )
    overlay.show_result(
        ResultGlance("com.example.video", "render", "Render video", failure="Quota exceeded.")
    )
    qtbot.waitUntil(lambda: len(said) == 1, timeout=3000)
    assert said == ["Render video failed: Quota exceeded."]
    _settled(qtbot, overlay, "idle")
    overlay.show_result(ResultGlance("com.example.video", "render", "Render video"))
    qtbot.waitUntil(lambda: len(said) == 2, timeout=3000)
    assert said[1] == "Finished ✓  Render video"


def test_a_glance_that_cannot_be_drawn_is_skipped(
    qtbot: Any, sink: Any, simple_factory: Any, capsys: Any
) -> None:
    def broken(result: ResultGlance, parent: QWidget) -> BuiltCard:
        raise LookupError("com.example.calendar is not a loaded integration")

    presenter = OverlayPresenter(sink, simple_factory, FAST, glance_factory=broken)
    qtbot.addWidget(presenter.window)
    presenter.show_result(_result())
    _settled(qtbot, presenter, "idle")
    assert "cannot show the glance" in capsys.readouterr().err


def test_the_side_notch_lists_running_work_against_its_estimate(
    qtbot: Any, overlay: OverlayPresenter
) -> None:
    now = [100.0]
    side = overlay.side_notch
    side._clock = lambda: now[0]
    overlay.work_changed(
        (RunningWork("w1", "com.example.video", "render", "Render video", 100.0, 30_000),)
    )
    assert side.isVisible()
    # Its name with the time (issue 22: "0:12 / ~0:08" alone said nothing of what runs).
    assert side.running_text() == "Render video  0:00 / ~0:30"
    now[0] = 112.4
    assert side.running_text() == "Render video  0:12 / ~0:30"
    assert "Render video" in side.toolTip()
    now[0] = 131.0
    assert side.running_text() == "Render video  0:31 / ~0:30 · over"
    now[0] = 112.4
    tick = side.findChild(QTimer)
    assert tick is not None and tick.isActive(), "it redraws while work runs"
    overlay.work_changed(
        (
            RunningWork("w1", "com.example.video", "render", "Render video", 100.0, 30_000),
            RunningWork("w2", "com.example.video", "upload", "Upload", 110.0, None),
        )
    )
    assert side.running_text() == "2 running"
    menu = side._build_menu()
    entries = [a.text() for a in menu.actions() if a.text()]
    assert entries[0].startswith("Running: Render video") and "0:12 / ~0:30" in entries[0]
    assert not any(a.isEnabled() for a in menu.actions() if a.text().startswith("Running"))
    overlay.work_changed(())
    assert not side.isVisible()
    assert not tick.isActive(), "no timer once nothing runs"

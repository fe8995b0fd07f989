"""A card taller than the room it has scrolls, and says so: nothing a person is about to
approve may sit silently below the fold."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot


def _long_card(card: Any, rows: int):  # type: ignore[no-untyped-def]
    children = [{"type": "text", "text": f"Line {i} of what will happen"} for i in range(rows)]
    return card(children, {}, {})


def test_a_card_past_the_fold_shows_more_below_until_scrolled_to_the_end(
    qtbot: QtBot, card: Any
) -> None:
    view = _long_card(card, 60)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    body = view._body
    assert body is not None
    bar = body.verticalScrollBar()
    assert bar.maximum() > 0, "60 lines must not fit the body"
    more = body.more_below
    qtbot.waitUntil(more.isVisible, timeout=2000)
    # It sits in a band of its own under the body's viewport, inside the card: it covers
    # nothing of what scrolls (issue 22: it sat over a code panel's lines).
    assert body.rect().contains(more.geometry())
    assert not body.viewport().geometry().intersects(more.geometry())

    start = bar.value()
    qtbot.mouseClick(more, Qt.MouseButton.LeftButton)
    assert bar.value() > start, "a click on 'More below' scrolls down"

    bar.setValue(bar.maximum())
    assert not more.isVisible(), "at the end nothing is below any more"
    bar.setValue(0)
    assert more.isVisible()


def test_a_card_that_fits_has_no_more_below(qtbot: QtBot, card: Any) -> None:
    view = _long_card(card, 3)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    body = view._body
    assert body is not None
    assert body.verticalScrollBar().maximum() == 0
    assert not body.more_below.isVisible()


def test_the_more_below_pill_is_made_by_the_scroll_not_with_every_card(
    qtbot: QtBot, card: Any
) -> None:
    # Issue 19: most cards fit; the pill is made when the body first scrolls, and a card
    # past the fold has it (shown) without anyone asking for it.
    fits = _long_card(card, 3)
    long = _long_card(card, 60)
    for view in (fits, long):
        qtbot.addWidget(view)
        view.show()
        qtbot.waitExposed(view)
    assert fits._body is not None and long._body is not None
    assert fits._body._more_below is None
    qtbot.waitUntil(lambda: long._body._more_below is not None, timeout=2000)
    qtbot.waitUntil(long._body._more_below.isVisible, timeout=2000)

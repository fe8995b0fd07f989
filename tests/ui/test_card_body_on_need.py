"""The card's scrolling body is made when it first has something to show (issue 19).

A compact card whose blocks are all folded and built later (the speech card's text and
voice) shows nothing in its body until Details opens: its scroll area, viewport and bars
were a tenth of its build. Until then the body's content stands in the body's place in
the card's column, as tall as the empty body was (nothing); once Details opens the body
is made around it, and the card scrolls, says "More below", holds confirm and walks Tab
exactly as a card whose body was made with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

from notch_app.manifest.integration import load_integration
from notch_app.manifest.model import Tool
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import BODY_SCROLL_REASON, CardView, frame
from notch_app.ui.card_view.body import CardBody
from notch_app.ui.widgets.asker_strip import asker_for

MANIFESTS = Path(__file__).resolve().parents[2] / "notch_app" / "_data" / "manifests"

FIELDS = 18
LONG_TEXT = "\n".join(f"Line {i}: the words to say, all of them." for i in range(40))


def _long_form() -> Tool:
    """A form whose every field is folded under Details and built when it opens, and
    whose folded facts say nothing (its switches are off), as on the speech card: taller
    than a 720-line screen lets the body grow once Details opens."""
    names = [f"switch_{i}" for i in range(FIELDS)]
    return Tool.model_validate(
        {
            "name": "set_switches",
            "inputSchema": {
                "type": "object",
                "properties": {n: {"type": "boolean"} for n in names},
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Set the switches",
                    "children": [
                        {"type": "toggle", "bind": f"{{{{{n}}}}}", "label": n} for n in names
                    ],
                    "footer": [
                        {
                            "type": "actions",
                            "items": [
                                {"label": "Cancel", "role": "cancel"},
                                {"label": "Set", "role": "confirm"},
                            ],
                        }
                    ],
                },
            },
        }
    )


def _card(qtbot: Any, monkeypatch: pytest.MonkeyPatch, later: bool, height: int) -> CardView:
    if not later:  # every block built with the card: its body is made with it
        monkeypatch.setattr(frame, "builds_later", lambda *_: False)
    view = CardView(
        _long_form(),
        {f"switch_{i}": False for i in range(FIELDS)},
        live_pages=False,
        screen_height=height,
    )
    monkeypatch.undo()
    qtbot.addWidget(view)
    view.show()
    QApplication.processEvents()
    return view


def _speech(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch, text: str, later: bool, height: int
) -> CardView:
    """The bundled speech card as the overlay makes it (the asker's strip, the scopes)."""
    integration, _ = load_integration(MANIFESTS / "elevenlabs")
    assert integration is not None
    tool = integration.manifest.tool("generate_speech")
    assert tool is not None
    if not later:
        monkeypatch.setattr(frame, "builds_later", lambda *_: False)
    view = CardView(
        tool,
        {"text": text, "voice": "rachel"},
        base_dir=integration.folder,
        asker=asker_for(integration.manifest, integration.folder),
        scopes=True,
        live_pages=False,
        screen_height=height,
    )
    monkeypatch.undo()
    qtbot.addWidget(view)
    return view


def _tab_stops(view: CardView) -> list[str]:
    """What Tab reaches on the card, in order, by name."""
    stops: list[str] = []
    widget = view.nextInFocusChain()
    while widget is not view and len(stops) < 200:
        assert widget is not None
        tab = widget.focusPolicy().value & Qt.FocusPolicy.TabFocus.value
        if tab and widget.isVisibleTo(view):
            stops.append(widget.accessibleName() or type(widget).__name__)
        widget = widget.nextInFocusChain()
    return stops


def _bodies(view: CardView) -> list[QScrollArea]:
    return [a for a in view.findChildren(QScrollArea) if isinstance(a, CardBody)]


def test_an_empty_body_waits_and_a_long_one_scrolls_says_more_below_and_holds(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = _card(qtbot, monkeypatch, later=True, height=720)
    state = view.state()
    assert view._body is None and _bodies(view) == []  # nothing in it shows yet
    content = view.findChild(QWidget, "CardBodyContent")
    assert content is not None and content.isVisible() and content.height() == 0
    view.open_details()
    body = view._body
    assert body is not None and _bodies(view) == [body]
    QApplication.processEvents()  # the column shows it on its next pass, laid out
    assert body.widget() is content and body.isVisible()
    qtbot.waitUntil(lambda: body.verticalScrollBar().maximum() > 0, timeout=3000)
    qtbot.waitUntil(lambda: body.more_below.isVisible(), timeout=3000)
    assert BODY_SCROLL_REASON in state.blockers()
    with qtbot.assertNotEmitted(view.decided):
        assert view.press("confirm") is False
    CardDriver(view).read_through()  # the person scrolls the body and the text through
    assert not body.more_below.isVisible()
    assert state.confirm_enabled
    assert view.press("confirm") is True


def _seen(view: CardView) -> list[Any]:
    """What the person meets on `view`, shown, then with Details open, then read through:
    the holds, the sizes, "More below", the Tab order and the pixels."""
    view.show()
    QApplication.processEvents()
    state = view.state()
    seen: list[Any] = [tuple(state.blockers()), view.size(), view.grab().toImage()]
    view.open_details()
    for _ in range(4):  # laid out, the scroll range and the "More below" band placed
        QApplication.processEvents()
    body = view._body
    assert body is not None and body.isVisible()
    seen += [tuple(state.blockers()), view.size(), body.size(), body.more_below.isVisible()]
    seen.append([w.accessibleName() for w in view._ctx.focus_chain])
    seen.append(_tab_stops(view))
    seen.append(view.grab().toImage())
    CardDriver(view).read_through()
    seen += [tuple(state.blockers()), state.confirm_enabled, body.more_below.isVisible()]
    return seen


@pytest.mark.parametrize("height", [720, 1080])
def test_a_body_made_on_need_shows_holds_and_tabs_as_one_made_with_the_card(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch, height: int
) -> None:
    later = _card(qtbot, monkeypatch, True, height)
    assert later._body is None
    assert _seen(later) == _seen(_card(qtbot, monkeypatch, False, height))


@pytest.mark.parametrize("height", [720, 1080])
def test_the_speech_card_makes_its_body_when_details_opens_as_with_the_card(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch, height: int
) -> None:
    text = "VoiceOS turns your voice into action."  # its fixture's
    later = _speech(qtbot, monkeypatch, text, True, height)
    assert later._body is None and _bodies(later) == []  # before: made with every card
    built = _speech(qtbot, monkeypatch, text, False, height)
    assert built._body is not None
    assert _seen(later) == _seen(built)
    assert later.input_widget("text").isVisibleTo(later)


@pytest.mark.parametrize("height", [720, 1080])
def test_a_long_speech_text_scrolls_in_its_own_area_with_no_more_below(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch, height: int
) -> None:
    # One scroll: the text area scrolls inside itself and the body fits it. Before, the
    # body, made with the card and empty, met the text for a moment at a height the card
    # had not grown to yet: it scrolled then, and its "More below" pill stayed, over a
    # band of its own, under a body that had room for it all.
    view = _speech(qtbot, monkeypatch, LONG_TEXT, True, height)
    view.show()
    QApplication.processEvents()
    state = view.state()
    assert state.blockers() == ["Open Details to see all of Text"]
    view.open_details()
    for _ in range(4):
        QApplication.processEvents()
    body = view._body
    assert body is not None and body.isVisible()
    assert body.verticalScrollBar().maximum() == 0 and body.viewportMargins().bottom() == 0
    assert body._more_below is None or not body._more_below.isVisible()
    assert state.blockers() == ["Scroll to see all of Text first"]  # the area's own hold
    CardDriver(view).read_through()
    assert state.confirm_enabled


def test_a_whole_card_picture_grows_a_body_made_later_whole(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def whole(later: bool) -> tuple[Any, ...]:
        view = _card(qtbot, monkeypatch, later, 720)
        view.unfold()  # `notch render` without --screen: the whole card
        view.open_details()
        for _ in range(4):
            QApplication.processEvents()
        body = view._body
        assert body is not None
        assert body.verticalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        return view.size(), body.size(), tuple(view.state().blockers())

    assert whole(True) == whole(False)
    assert BODY_SCROLL_REASON not in whole(True)[2]


def test_the_voice_words_stand_above_a_body_made_later(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = _speech(qtbot, monkeypatch, LONG_TEXT, True, 1080)
    view.show_voice_words("zebra garden")  # Notch's line above the body, made first
    view.show()
    QApplication.processEvents()
    column = view._parts.column
    words = view.voice_words_line
    content = view.findChild(QWidget, "CardBodyContent")
    assert words is not None and content is not None and view._body is None
    assert column.indexOf(words) == column.indexOf(content) - 1
    view.open_details()
    QApplication.processEvents()
    body = view._body
    assert body is not None and body.widget() is content
    assert column.indexOf(words) == column.indexOf(body) - 1  # where the body always stood
    text = view.input_widget("text")
    assert text.isVisibleTo(view) and body.isAncestorOf(text)


def test_tab_into_the_folded_speech_card_reaches_its_text_not_cancel(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tab into a compact card with no field in view unfolds it and lands on its first
    field. With the body made by that Tab and shown only by its column's next pass, the
    Tab skipped the still-hidden fields and landed on Cancel: on the real notch a person
    who then typed "Hello world" pressed Cancel with the space and declined the card
    (tests/e2e/test_overlay_real_window.py caught it)."""
    view = _speech(qtbot, monkeypatch, "Hello wrld", later=True, height=1080)
    window = QWidget()
    qtbot.addWidget(window)
    view.setParent(window)
    window.resize(480, 700)
    window.show()
    qtbot.waitExposed(window)
    view.setFocus(Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    assert not _bodies(view)  # folded: no body yet
    assert view.focusNextPrevChild(True)
    first = view.editor("text").field
    assert QApplication.focusWidget() is first
    assert view.details is not None and view.details.opened
    # And on from there as on a card whose body was made with it.
    assert view.focusNextPrevChild(True)
    assert QApplication.focusWidget() is view.editor("voice").field

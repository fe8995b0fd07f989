"""The calls of one agent turn (issue 14 §2, the notch's side): "1 of N" with "Approve all
N" / "Decline all N" in the header. Approve all needs every card's confirm gate open and is
held with the card on screen's confirm; each card runs with its own (edited) arguments;
Decline all is never held; a lone call or calls of different turns offer neither."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_presenter import BuiltCard, OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

ROOT = {
    "type": "card",
    "title": "Send message",
    "children": [{"type": "textField", "bind": "{{to}}", "label": "To", "required": True}],
    "footer": [
        {
            "type": "actions",
            "items": [
                {"label": "Cancel", "role": "cancel"},
                {"label": "Send", "role": "confirm"},
            ],
        }
    ],
}


def _request(call_id: str, to: str, batch: str | None, index: int = 0, size: int = 3) -> Any:
    return ConfirmationRequest(
        call_id,
        "com.example.chat",
        "send",
        {"to": to},
        batch_id=batch,
        batch_index=index if batch else None,
        batch_size=size if batch else None,
    )


def _overlay(qtbot: Any, sink: Any, make_tool: Any) -> OverlayPresenter:
    def factory(request: ConfirmationRequest, parent: QWidget) -> BuiltCard:
        view = CardView(
            make_tool(ROOT, {"to": {"type": "string"}}, ["to"]), request.arguments, parent=parent
        )
        return BuiltCard(view, title="Chat · Send message", action="Send message")

    presenter = OverlayPresenter(
        sink, factory, OverlaySettings(expand_ms=0, done_ms=30, park_after_s=0)
    )
    qtbot.addWidget(presenter.window)
    return presenter


def _batch_of_three(presenter: OverlayPresenter, second_to: str = "kim") -> None:
    for i, (cid, to) in enumerate((("a", "sam"), ("b", second_to), ("c", "ana"))):
        presenter.present(_request(cid, to, "turn-1", i))


def test_a_turn_of_three_offers_approve_all_and_each_runs_as_its_card_shows(
    qtbot: Any, sink: Any, make_tool: Any
) -> None:
    presenter = _overlay(qtbot, sink, make_tool)
    _batch_of_three(presenter)
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    approve_all, decline_all = presenter.window.batch_actions
    assert approve_all.isVisible() and approve_all.accessibleName() == "Approve all 3"
    assert decline_all.isVisible() and decline_all.accessibleName() == "Decline all 3"
    assert approve_all.isEnabled()
    card = presenter.window.card
    assert isinstance(card, CardView)
    field = card.input_widget("to")
    field.selectAll()
    qtbot.keyClicks(field, "max")  # the person edits the card on screen first
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    qtbot.mouseClick(approve_all, Qt.MouseButton.LeftButton)
    decided = {c[1]: (c[2], c[3], c[4]) for c in sink.of("decide")}
    assert decided == {
        "a": (True, {"to": "max"}, ["to"]),
        "b": (True, {"to": "kim"}, []),
        "c": (True, {"to": "ana"}, []),
    }
    assert "Approved all 3" in presenter.window._note.text()


def test_approve_all_waits_for_every_gate_and_says_which_card(
    qtbot: Any, sink: Any, make_tool: Any
) -> None:
    presenter = _overlay(qtbot, sink, make_tool)
    _batch_of_three(presenter, second_to="")  # card 2's required To is empty
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    approve_all, _ = presenter.window.batch_actions
    assert approve_all.isVisible() and not approve_all.isEnabled()
    assert "2 of 3" in approve_all.toolTip() and "To" in approve_all.toolTip()
    presenter._decide_batch(True)  # what a click would do, were it enabled
    assert sink.of("decide") == []


def test_approve_all_is_held_with_the_card_on_screen(qtbot: Any, sink: Any, make_tool: Any) -> None:
    presenter = _overlay(qtbot, sink, make_tool)
    _batch_of_three(presenter)
    approve_all, _ = presenter.window.batch_actions
    qtbot.waitUntil(lambda: approve_all.isVisible(), timeout=3000)
    assert not presenter.armed
    assert approve_all.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    presenter._decide_batch(True)
    assert sink.of("decide") == [], "a click aimed before the card settled does nothing"
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    assert not approve_all.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)


def test_decline_all_is_never_held(qtbot: Any, sink: Any, make_tool: Any) -> None:
    presenter = _overlay(qtbot, sink, make_tool)
    _batch_of_three(presenter)
    _, decline_all = presenter.window.batch_actions
    qtbot.waitUntil(lambda: decline_all.isVisible(), timeout=3000)
    qtbot.mouseClick(decline_all, Qt.MouseButton.LeftButton)
    assert sorted((c[1], c[2], c[3]) for c in sink.of("decide")) == [
        ("a", False, None),
        ("b", False, None),
        ("c", False, None),
    ]


def test_one_call_or_calls_of_different_turns_offer_no_batch_actions(
    qtbot: Any, sink: Any, make_tool: Any
) -> None:
    presenter = _overlay(qtbot, sink, make_tool)
    presenter.present(_request("x", "sam", None))
    presenter.present(_request("y", "kim", "turn-2", 0, 2))
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    approve_all, decline_all = presenter.window.batch_actions
    assert not approve_all.isVisible() and not decline_all.isVisible()
    assert presenter.window._counter.text() == "1 of 2"

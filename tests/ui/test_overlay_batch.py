"""The calls of one agent turn (issue 14 §2, the notch's side): "1 of N" with "Approve all
N" / "Decline all N" in the header. Approve all needs every card's confirm gate open and is
held with the card on screen's confirm; each card runs with its own (edited) arguments;
Decline all is never held; a lone call or calls of different turns offer neither."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QWidget

from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_presenter import BuiltCard, OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.widgets.batch_summary import BatchSummary

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


def _summary(qtbot: Any, presenter: OverlayPresenter) -> BatchSummary:
    qtbot.waitUntil(lambda: isinstance(presenter.window.card, BatchSummary), timeout=3000)
    summary = presenter.window.card
    assert isinstance(summary, BatchSummary)
    return summary


def test_approve_all_opens_a_summary_of_every_call_and_approves_what_it_showed(
    qtbot: Any, sink: Any, make_tool: Any
) -> None:
    # Issue 20, finding 1: one click in the header approved calls nobody had seen.
    presenter = _overlay(qtbot, sink, make_tool)
    _batch_of_three(presenter)
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    approve_all, decline_all = presenter.window.batch_actions
    assert approve_all.isVisible() and approve_all.accessibleName() == "Approve all 3"
    assert decline_all.isVisible() and decline_all.accessibleName() == "Decline all 3"
    assert approve_all.isEnabled() and "summary" in approve_all.toolTip()
    card = presenter.window.card
    assert isinstance(card, CardView)
    field = card.input_widget("to")
    assert isinstance(field, QLineEdit)  # a one-line address field
    field.selectAll()
    qtbot.keyClicks(field, "max")  # the person edits the card on screen first
    qtbot.mouseClick(approve_all, Qt.MouseButton.LeftButton)
    assert sink.of("decide") == [], "the header only opens the summary"
    summary = _summary(qtbot, presenter)
    # One row per call, each with its headline as its card would say it (the edit too).
    heads = [r.headline for r in summary.rows]
    assert len(heads) == 3 and heads[0].endswith("to max") and heads[1].endswith("to kim")
    assert all(r.waits is None for r in summary.rows)
    assert not summary.armed, "held for the arming delay, as a card is"
    qtbot.mouseClick(summary.approve_button, Qt.MouseButton.LeftButton)
    assert sink.of("decide") == []
    qtbot.waitUntil(lambda: summary.armed, timeout=3000)
    qtbot.mouseClick(summary.approve_button, Qt.MouseButton.LeftButton)
    decided = {c[1]: (c[2], c[3], c[4]) for c in sink.of("decide")}
    assert decided == {
        "a": (True, {"to": "max"}, ["to"]),
        "b": (True, {"to": "kim"}, []),
        "c": (True, {"to": "ana"}, []),
    }
    note = presenter.window._note.toolTip()
    assert note.startswith("Approved 3: ") and note.count(";") == 2


def test_a_call_that_cannot_be_approved_is_named_and_left_waiting(
    qtbot: Any, sink: Any, make_tool: Any
) -> None:
    presenter = _overlay(qtbot, sink, make_tool)
    _batch_of_three(presenter, second_to="")  # card 2's required To is empty
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    approve_all, _ = presenter.window.batch_actions
    assert approve_all.isVisible() and approve_all.isEnabled()
    qtbot.mouseClick(approve_all, Qt.MouseButton.LeftButton)
    summary = _summary(qtbot, presenter)
    waits = [r.waits for r in summary.rows]
    assert waits[0] is None and waits[2] is None and waits[1] and "To" in waits[1]
    assert summary.approve_button.text() == "Approve the 2 ready"
    qtbot.waitUntil(lambda: summary.armed, timeout=3000)
    qtbot.mouseClick(summary.approve_button, Qt.MouseButton.LeftButton)
    assert sorted((c[1], c[2]) for c in sink.of("decide")) == [("a", True), ("c", True)]
    assert "1 left waiting" in presenter.window._note.toolTip()


def test_a_call_that_joins_after_the_summary_was_shown_is_not_covered(
    qtbot: Any, sink: Any, make_tool: Any
) -> None:
    presenter = _overlay(qtbot, sink, make_tool)
    for i, (cid, to) in enumerate((("a", "sam"), ("b", "kim"))):
        presenter.present(_request(cid, to, "turn-1", i, size=2))
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    approve_all, _ = presenter.window.batch_actions
    qtbot.mouseClick(approve_all, Qt.MouseButton.LeftButton)
    summary = _summary(qtbot, presenter)
    presenter.present(_request("late", "eve", "turn-1", 2, size=3))  # the agent adds one
    qtbot.waitUntil(lambda: summary.armed, timeout=3000)
    qtbot.mouseClick(summary.approve_button, Qt.MouseButton.LeftButton)
    assert sorted(c[1] for c in sink.of("decide")) == ["a", "b"]


def test_the_approve_chord_never_approves_the_card_hidden_behind_the_summary(
    qtbot: Any, sink: Any, make_tool: Any
) -> None:
    presenter = _overlay(qtbot, sink, make_tool)
    _batch_of_three(presenter)
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    qtbot.mouseClick(presenter.window.batch_actions[0], Qt.MouseButton.LeftButton)
    summary = _summary(qtbot, presenter)
    presenter._on_approve_requested()  # Ctrl+Alt+Enter from another application
    presenter._decide_batch(True)  # the old path: opens (here: keeps) the summary
    assert sink.of("decide") == []
    qtbot.mouseClick(summary.back_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: isinstance(presenter.window.card, CardView), timeout=3000)


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

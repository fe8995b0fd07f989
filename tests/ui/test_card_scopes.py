"""Approvals with a scope, from the card (issue 14 §4): "Allow for this session" and
"Always allow" sit under the confirm button, never in its place; they approve exactly as
confirm does — closed by the same gate, held with it while the card has just appeared or
changed under the pointer — and the overlay tells the service how far the yes reaches."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from notch_app.runtime.presenter import ConfirmationRequest, Scope
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
PROPERTIES = {"to": {"type": "string"}}


def _card(make_tool: Any, arguments: dict[str, Any], scopes: bool = True) -> CardView:
    return CardView(make_tool(ROOT, PROPERTIES, ["to"]), arguments, scopes=scopes)


def _scope(view: CardView) -> Scope:
    """The card's approval scope now: read through a call, as a click changes it (mypy
    would keep an earlier comparison's narrowing of the attribute across the click)."""
    return view.approval_scope


def test_the_scopes_sit_under_confirm_and_never_replace_it(qtbot: Any, make_tool: Any) -> None:
    view = _card(make_tool, {"to": "sam"})
    qtbot.addWidget(view)
    view.show()
    choices = view.scope_choices
    assert choices is not None
    confirm = view.confirm_button()
    # The author's "Send" with its object (issue 22's headline): "Send to sam".
    assert confirm is not None and confirm.text() == "Send to sam"
    session, always = choices.buttons["session"], choices.buttons["always"]
    # "Always allow" says what it covers (issue 20): the action, by its name.
    assert (session.text(), always.text()) == ("Allow for this session", "Always allow do_thing")
    below = confirm.mapTo(view, confirm.rect().bottomLeft()).y()
    assert session.mapTo(view, session.rect().topLeft()).y() >= below
    # Without scopes (a preview of the card elsewhere) there is no such line.
    plain = _card(make_tool, {"to": "sam"}, scopes=False)
    qtbot.addWidget(plain)
    assert plain.scope_choices is None


def test_a_scope_is_closed_by_the_same_gate_as_confirm(qtbot: Any, make_tool: Any) -> None:
    view = _card(make_tool, {"to": ""})
    qtbot.addWidget(view)
    view.show()
    assert view.scope_choices is not None
    session = view.scope_choices.buttons["session"]
    assert not session.isEnabled(), "To is required and empty"
    decided: list[tuple[bool, dict[str, Any], list[str]]] = []
    view.decided.connect(lambda a, f, e: decided.append((a, f, e)))
    assert view.allow("session") is False
    assert decided == []
    qtbot.keyClicks(view.input_widget("to"), "kim")
    assert session.isEnabled()
    qtbot.mouseClick(session, Qt.MouseButton.LeftButton)
    assert decided == [(True, {"to": "kim"}, ["to"])]
    assert view.approval_scope == "session"


def test_a_held_card_takes_no_scoped_approval(qtbot: Any, make_tool: Any) -> None:
    view = _card(make_tool, {"to": "sam"})
    qtbot.addWidget(view)
    view.show()
    view.set_armed(False)  # the overlay holds confirm on a card that just appeared
    assert view.scope_choices is not None
    always = view.scope_choices.buttons["always"]
    decided: list[bool] = []
    view.decided.connect(lambda a, f, e: decided.append(a))
    qtbot.mouseClick(always, Qt.MouseButton.LeftButton)
    assert view.allow("always") is False
    assert decided == [] and _scope(view) == "once"
    assert always.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    view.set_armed(True)
    qtbot.mouseClick(always, Qt.MouseButton.LeftButton)
    assert decided == [True] and _scope(view) == "always"


def test_the_overlay_tells_the_service_the_scope(qtbot: Any, sink: Any, make_tool: Any) -> None:
    def factory(request: ConfirmationRequest, parent: QWidget) -> BuiltCard:
        view = CardView(
            make_tool(ROOT, PROPERTIES, ["to"]), request.arguments, scopes=True, parent=parent
        )
        return BuiltCard(view, title="Chat · Send message", action="Send message")

    presenter = OverlayPresenter(sink, factory, OverlaySettings(expand_ms=0, park_after_s=0))
    qtbot.addWidget(presenter.window)
    presenter.present(ConfirmationRequest("m1", "com.example.chat", "send", {"to": "sam"}))
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    card = presenter.window.card
    assert isinstance(card, CardView) and card.scope_choices is not None
    qtbot.mouseClick(card.scope_choices.buttons["session"], Qt.MouseButton.LeftButton)
    assert ("scope", "m1", "session") in sink.calls
    assert [c[:3] for c in sink.of("decide")] == [("decide", "m1", True)]


def test_the_scopes_read_the_values_again_only_when_they_changed(
    qtbot: Any, make_tool: Any, monkeypatch: Any
) -> None:
    """What each choice covers is read from the values: a hold or a gate that changes
    the card's state and not them leaves the labels as they were, unread."""
    from notch_app.card.scope_reach import session_reach
    from notch_app.ui.widgets import scope_choices

    reads: list[Any] = []

    def reach(tool: Any, args: Any) -> Any:
        reads.append(args)
        return session_reach(tool, args)

    monkeypatch.setattr(scope_choices, "session_reach", reach)
    view = _card(make_tool, {"to": "sam"})
    qtbot.addWidget(view)
    assert len(reads) == 1
    view.state().hold_until_seen("test:hold", "Read it first")
    view.state().seen("test:hold")
    assert len(reads) == 1
    view.state().set("to", "lee")
    assert len(reads) == 2 and reads[-1]["to"] == "lee"
    choices = view.scope_choices
    assert choices is not None
    assert choices.buttons["always"].text() == "Always allow do_thing"

"""What the notch asks of a card (`CardWidget`): every card it shows has all of it, and a
card type that lacks a member is refused where the card is made, by name, with the
request declined, never failing later on a person's click or a spoken yes."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from notch_app.manifest.model import Tool
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_view import CardView
from notch_app.ui.card_widget import CARD_MEMBERS, CardWidget, checked_card
from notch_app.ui.overlay.state import WarmingCardFactory
from notch_app.ui.overlay_presenter import BuiltCard, OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

FAST = OverlaySettings(expand_ms=0, done_ms=30, park_after_s=0)


class HalfCard(QWidget):
    """A card as an older test double was: it decides, and nothing else the notch asks."""

    decided = Signal(bool, dict, list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        QVBoxLayout(self).addWidget(QLabel("Send thing"))


def _widget_view_tool() -> Tool:
    return Tool.model_validate(
        {
            "name": "send_message",
            "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}},
            "confirmation": {
                "schemaVersion": 1,
                "root": {"type": "widget", "html": "<p>To {{to}}</p>", "height": 80},
            },
        }
    )


def test_every_kind_of_card_the_notch_shows_is_a_card_widget(
    qtbot: Any, card: Any, bundled_factory: Any, preview_args: Any, simple_factory: Any
) -> None:
    blocks = card(
        [{"type": "text", "text": "To {{to}}"}], {"to": {"type": "string"}}, {"to": "Sam"}
    )
    # A widget view (its page sandboxed; drawn still here, so no web engine starts).
    page = CardView(_widget_view_tool(), {"to": "Sam"}, live_pages=False)
    qtbot.addWidget(page)
    request = ConfirmationRequest(
        "m", "dev.notch.examples.mail", "send_email", preview_args("mail", "send_email")
    )
    made = bundled_factory()(request, None)
    qtbot.addWidget(made.widget)
    double = simple_factory(ConfirmationRequest("s", "com.example.test", "send_thing", {}), None)
    qtbot.addWidget(double.widget)
    for widget in (blocks, page, made.widget, double.widget):
        assert checked_card(widget) is widget  # before isinstance narrows it off QWidget
        assert isinstance(widget, CardWidget), type(widget).__name__


def test_a_card_type_missing_members_is_refused_by_name(qtbot: Any) -> None:
    half = HalfCard()
    qtbot.addWidget(half)
    assert not isinstance(half, CardWidget)

    def half_cards(request: ConfirmationRequest, parent: QWidget) -> BuiltCard:
        return BuiltCard(HalfCard(parent), title="Test", action="Send thing")

    try:
        checked_card(half, made_by=half_cards)
    except TypeError as refused:
        said = str(refused)
    else:
        raise AssertionError("a card without read_back, set_armed… was accepted")
    assert said.startswith("HalfCard (made by ")
    assert "half_cards" in said
    lacks = [m for m in CARD_MEMBERS if m != "decided"]
    assert f"it lacks {', '.join(lacks)}." in said
    assert "notch_app/ui/card_widget.py" in said


def test_the_notch_declines_a_request_whose_card_lacks_a_member(
    qtbot: Any, sink: Any, card_request: Any, capsys: Any
) -> None:
    def half_cards(request: ConfirmationRequest, parent: QWidget) -> BuiltCard:
        return BuiltCard(HalfCard(parent), title="Test", action="Send thing")

    presenter = OverlayPresenter(sink, half_cards, FAST)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.present(card_request("h"))
    # Refused where it was made: declined for the agent, never on screen to be clicked.
    assert [c[1:3] for c in sink.of("decide")] == [("h", False)]
    assert sink.of("decide")[0][5] == "service"
    assert presenter.window.card is None and presenter.on_screen is None
    err = capsys.readouterr().err
    assert "cannot show the card for com.example.test send_thing (callId h)" in err
    assert "HalfCard (made by " in err and "it lacks approval_scope, asker_strip" in err


def test_the_manifest_factory_warms_up_and_a_plain_function_is_left_alone(
    qtbot: Any, sink: Any, bundled_factory: Any, simple_factory: Any
) -> None:
    factory = bundled_factory()
    assert isinstance(factory, WarmingCardFactory)
    assert not isinstance(simple_factory, WarmingCardFactory)
    presenter = OverlayPresenter(sink, simple_factory, FAST)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.warm_up()  # a factory that cannot warm up is not asked to
    assert presenter.window.card_parent.findChildren(QWidget) == []

"""Decline with words (issue 13 §1): every card has a quiet "Tell it what to change…" line.

Typed there, "yes" approves only while confirm is open and the card is armed, "no"
declines, anything else declines with the words for the agent (`revised`) — which the
overlay hands the service as reason "revise" with the words as feedback. Hostile cases:
an over-long or control-character reply, Esc that must not decline, Enter that must not
also confirm, and a card without inputs that must not take the keyboard because of it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QWidget

from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_view import CardView
from notch_app.ui.notch_window import card_has_inputs
from notch_app.ui.overlay_presenter import BuiltCard, OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.theme import look
from notch_app.ui.widgets.reply_field import INVITATION, MAX_REPLY_CHARS, ReplyField

ROOT = {
    "type": "card",
    "title": "Send WhatsApp message",
    "children": [
        {"type": "textField", "bind": "{{to}}", "label": "To", "required": True},
        {"type": "textField", "bind": "{{text}}", "label": "Message"},
    ],
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
PROPERTIES = {"to": {"type": "string"}, "phone": {"type": "string"}, "text": {"type": "string"}}
ARGS = {"to": "Marc", "phone": "+34 612 345 678", "text": "Running late"}

NO_INPUTS = {
    "type": "card",
    "title": "Delete 3 files",
    "children": [{"type": "text", "text": "{{folder}}"}],
    "footer": ROOT["footer"],
}


def _shown(qtbot: Any, view: CardView) -> CardView:
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def _type_reply(qtbot: Any, view: CardView, text: str) -> None:
    """Open the reply line as a person would (a click) and type `text`, then Enter."""
    qtbot.mouseClick(view.reply_field.invitation, Qt.MouseButton.LeftButton)
    assert view.reply_field.is_open
    qtbot.keyClicks(view.reply_field.line, text)
    qtbot.keyClick(view.reply_field.line, Qt.Key.Key_Return)


def test_every_card_has_the_quiet_line_collapsed_until_clicked(qtbot: Any, make_tool: Any) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    field = view.reply_field
    assert field.invitation.isVisible() and field.invitation.text() == INVITATION
    assert not field.line.isVisible() and not field.is_open
    closed_height = field.height()
    assert closed_height <= 24, "the collapsed line never makes the card much taller"
    qtbot.mouseClick(field.invitation, Qt.MouseButton.LeftButton)
    assert field.line.isVisible() and not field.invitation.isVisible()
    # Under the footer: below the confirm button.
    confirm = view.confirm_button()
    assert confirm is not None
    assert (
        field.mapTo(view, field.rect().topLeft()).y()
        > confirm.mapTo(view, confirm.rect().bottomLeft()).y()
    )


def test_a_typed_yes_approves_when_open_and_armed(qtbot: Any, make_tool: Any, watch: Any) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    decided = watch(view)
    _type_reply(qtbot, view, "yes, send it")
    assert decided == [(True, ARGS, [])]
    assert view.reply_words == "yes, send it"


def test_a_held_card_ignores_a_typed_yes_and_says_why(
    qtbot: Any, make_tool: Any, watch: Any
) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    decided = watch(view)
    view.set_armed(False)  # the overlay holds confirm on a card that just appeared
    _type_reply(qtbot, view, "ok")
    assert decided == []
    assert view.reply_field.note.isVisible() and "Not yet" in view.reply_field.note.text()
    assert view.reply_field.is_open  # the person can say it again
    view.set_armed(True)
    qtbot.keyClick(view.reply_field.line, Qt.Key.Key_Return)
    assert decided == [(True, ARGS, [])]


def test_a_typed_yes_on_a_gated_card_does_nothing_and_names_the_blocker(
    qtbot: Any, make_tool: Any, watch: Any
) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES, ["to"]), {**ARGS, "to": ""}))
    decided = watch(view)
    _type_reply(qtbot, view, "send it")
    assert decided == []
    assert "To" in view.reply_field.note.text()


def test_a_typed_no_declines(qtbot: Any, make_tool: Any, watch: Any) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    decided = watch(view)
    revised: list[str] = []
    view.revised.connect(revised.append)
    _type_reply(qtbot, view, "no, cancel")
    assert decided == [(False, {}, [])] and revised == []


def test_other_words_decline_with_the_words_for_the_agent(
    qtbot: Any, make_tool: Any, watch: Any
) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    decided = watch(view)
    with qtbot.waitSignal(view.revised, timeout=1000) as signal:
        _type_reply(qtbot, view, "make it shorter and send it to Sam instead")
    assert signal.args == ["make it shorter and send it to Sam instead"]
    assert decided == [] and view.decision is False
    # Decided once: a second reply or Enter does nothing.
    assert view.reply("yes") is False and view.press("confirm") is False


def test_a_yes_with_a_change_is_a_revision_never_an_approval(
    qtbot: Any, make_tool: Any, watch: Any
) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    decided = watch(view)
    revised: list[str] = []
    view.revised.connect(revised.append)
    _type_reply(qtbot, view, "yes but change the subject")
    assert decided == [] and revised == ["yes but change the subject"]


def test_enter_in_the_field_never_also_confirms_the_card(
    qtbot: Any, make_tool: Any, watch: Any
) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    decided = watch(view)
    revised: list[str] = []
    view.revised.connect(revised.append)
    qtbot.mouseClick(view.reply_field.invitation, Qt.MouseButton.LeftButton)
    qtbot.keyClick(view.reply_field.line, Qt.Key.Key_Return)  # empty: nothing at all
    assert decided == [] and revised == []
    view.reply_field.line.setText("...?")  # no word in it
    qtbot.keyClick(view.reply_field.line, Qt.Key.Key_Enter)
    assert decided == [] and revised == []
    assert "instead" in view.reply_field.note.text()


def test_esc_in_the_field_clears_and_closes_it_and_never_declines(
    qtbot: Any, make_tool: Any, watch: Any
) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    decided = watch(view)
    qtbot.mouseClick(view.reply_field.invitation, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(view.reply_field.line, "half a thought")
    qtbot.keyClick(view.reply_field.line, Qt.Key.Key_Escape)
    assert decided == []
    assert not view.reply_field.is_open and view.reply_field.line.text() == ""
    assert view.reply_field.invitation.isVisible()


def test_hostile_replies_are_bounded_and_control_characters_refused(
    qtbot: Any, make_tool: Any, watch: Any
) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    decided = watch(view)
    revised: list[str] = []
    view.revised.connect(revised.append)
    field = view.reply_field
    qtbot.mouseClick(field.invitation, Qt.MouseButton.LeftButton)
    field.line.setText("x " * 2000)  # a paste
    assert len(field.line.text()) <= MAX_REPLY_CHARS
    field.line.setText("send it to\u202e moc.live@ instead\x07")
    qtbot.keyClick(field.line, Qt.Key.Key_Return)
    assert revised == [] and decided == []
    assert "control characters" in field.note.text()
    field.line.setText("yes\nplease")  # a pasted line break is not a second line
    qtbot.keyClick(field.line, Qt.Key.Key_Return)
    assert "\n" not in "".join(revised)


def test_the_field_never_makes_a_card_without_inputs_take_the_keyboard(
    qtbot: Any, make_tool: Any
) -> None:
    view = _shown(
        qtbot, CardView(make_tool(NO_INPUTS, {"folder": {"type": "string"}}), {"folder": "/tmp"})
    )
    assert not card_has_inputs(view), "a closed reply line is not an input"
    assert all(not w.isEnabled() for w in view.findChildren(QLineEdit))
    assert view.reply_field.invitation.focusPolicy() == Qt.FocusPolicy.TabFocus
    # Clicking it is the person asking to type: then it is an input.
    qtbot.mouseClick(view.reply_field.invitation, Qt.MouseButton.LeftButton)
    assert card_has_inputs(view)
    qtbot.keyClick(view.reply_field.line, Qt.Key.Key_Escape)
    assert not card_has_inputs(view)


def test_what_notch_heard_shows_as_a_quiet_line(qtbot: Any, make_tool: Any) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    view.show_heard("yes, send it")
    assert view.reply_field.heard_text == "Heard: \u201cyes, send it\u201d"
    view.show_heard("line one\nline two\x1b[2J " + "z" * 400)
    heard = view.reply_field.heard_text
    assert "\n" not in heard and "\x1b" not in heard and len(heard) < 200
    view.show_heard(None)
    assert view.reply_field.heard_text == "" and not view.reply_field.heard.isVisible()


def test_the_card_reads_back_its_final_arguments(qtbot: Any, make_tool: Any) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    field = view.input_widget("text")
    qtbot.keyClick(field, Qt.Key.Key_End)
    qtbot.keyClicks(field, " again")
    said = view.read_back()
    assert "Running late again" in said and "+34 612 345 678" in said and "Marc" in said


def test_a_revision_reaches_the_service_with_reason_revise_and_the_words(
    qtbot: Any, sink: Any, make_tool: Any
) -> None:
    def factory(request: ConfirmationRequest, parent: QWidget) -> BuiltCard:
        view = CardView(make_tool(ROOT, PROPERTIES), request.arguments, parent=parent)
        return BuiltCard(view, title="Chat · Send message", action="Send message")

    presenter = OverlayPresenter(sink, factory, OverlaySettings(expand_ms=0, park_after_s=0))
    qtbot.addWidget(presenter.window)
    presenter.present(ConfirmationRequest("r1", "com.example.chat", "send", dict(ARGS)))
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    card = presenter.window.card
    assert isinstance(card, CardView)
    card.reply("shorter, and to Sam")
    assert [c[:4] for c in sink.of("decide")] == [("decide", "r1", False, None)]
    assert sink.of("revise") == [("revise", "r1", "revise", "shorter, and to Sam")]


def test_a_typed_yes_through_the_overlay_carries_the_words(
    qtbot: Any, sink: Any, make_tool: Any
) -> None:
    def factory(request: ConfirmationRequest, parent: QWidget) -> BuiltCard:
        view = CardView(make_tool(ROOT, PROPERTIES), request.arguments, parent=parent)
        return BuiltCard(view, title="Chat · Send message", action="Send message")

    presenter = OverlayPresenter(sink, factory, OverlaySettings(expand_ms=0, park_after_s=0))
    qtbot.addWidget(presenter.window)
    presenter.present(ConfirmationRequest("y1", "com.example.chat", "send", dict(ARGS)))
    card = presenter.window.card
    assert isinstance(card, CardView)
    assert card.reply("yes") is False, "held while the card has just appeared"
    assert sink.of("decide") == []
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    assert card.reply("sure, go ahead") is True
    assert [c[:3] for c in sink.of("decide")] == [("decide", "y1", True)]
    assert sink.of("words") == [("words", "y1", "sure, go ahead")]
    assert sink.of("revise") == []


def test_the_reply_lines_underline_stays_on_the_reply_line(qtbot: Any) -> None:
    """Hovered or focused, the quiet line draws its words underlined. It set that
    underline on the theme's own cached caption font: every caption drawn after it (a
    glance's labels, in another test's golden image) came out underlined."""
    shared = look("dark")
    field = ReplyField(shared)
    qtbot.addWidget(field)
    field.invitation.setAttribute(Qt.WidgetAttribute.WA_UnderMouse, True)  # hovered
    assert field.invitation.underMouse()
    field.invitation.grab()  # painted, underlined
    assert not shared.font("caption").underline()
    assert not look("dark").font("caption").underline()


def test_the_cards_reply_handlers_are_connected_when_the_field_is_first_made(
    qtbot: Any, make_tool: Any, watch: Any
) -> None:
    """Most cards never open the field: its `submitted` and `closed` reach the card
    through connections made with the field, not with every card; once made, Esc
    gives the card the keyboard back and words reach it as a revision."""
    from PySide6.QtCore import QMetaMethod

    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), ARGS))
    field = view.reply_field

    def connected(signal: Any) -> bool:
        return field.isSignalConnected(QMetaMethod.fromSignal(signal))

    assert not connected(field.submitted) and not connected(field.closed)
    decided = watch(view)
    revised: list[str] = []
    view.revised.connect(revised.append)
    qtbot.mouseClick(field.invitation, Qt.MouseButton.LeftButton)
    assert connected(field.submitted) and connected(field.closed)
    focused: list[Any] = []
    view.setFocus = lambda *reason: focused.append(reason)  # type: ignore[method-assign]
    field.closed.emit()  # as Esc in the focused field sends it
    assert focused == [(Qt.FocusReason.OtherFocusReason,)]
    _type_reply(qtbot, view, "make it shorter")
    assert decided == [] and revised == ["make it shorter"] and view.decision is False

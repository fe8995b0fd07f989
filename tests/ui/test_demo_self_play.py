"""`notch demo` answers a card itself only when nobody does: by a click through the notch's
window (decided "click", held and gated like a person's), saying so on the card first; a
card the person touched, or one replaced while the demo was about to click, is never
clicked by it. Real cards from the bundled integrations, in the real notch, offscreen."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_presenter import ARMING_DELAY_MS, OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.self_play import SelfPlay

SETTINGS = OverlaySettings(expand_ms=0, done_ms=60_000, park_after_s=0)
MAIL = "dev.notch.examples.mail"
PAYMENTS = "dev.notch.examples.payments"
WAIT_S, NOTICE_S = 0.3, 0.2


def _overlay(qtbot: Any, sink: Any, bundled_factory: Any) -> OverlayPresenter:
    presenter = OverlayPresenter(sink, bundled_factory(), SETTINGS)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    return presenter


def _card(qtbot: Any, presenter: OverlayPresenter, call_id: str) -> CardView:
    def shown() -> bool:
        on = presenter.on_screen
        return (
            on is not None and on.call_id == call_id and isinstance(presenter.window.card, CardView)
        )

    qtbot.waitUntil(shown, timeout=3000)
    card = presenter.window.card
    assert isinstance(card, CardView)
    return card


def test_a_card_nobody_touches_is_clicked_by_the_demo_which_says_so_first(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any
) -> None:
    presenter = _overlay(qtbot, sink, bundled_factory)
    said: list[str] = []
    SelfPlay(presenter, said.append, wait_s=WAIT_S, notice_s=NOTICE_S)
    presenter.present(
        ConfirmationRequest("m1", MAIL, "send_email", preview_args("mail", "send_email"))
    )
    card = _card(qtbot, presenter, "m1")
    confirm = card.confirm_button()
    assert confirm is not None
    line = f"Nobody answered for 0.3 s: the demo clicks {confirm.text()} itself."
    # On the card before the click, and in the terminal.
    qtbot.waitUntil(lambda: card.reply_field.note.text() == line, timeout=3000)
    assert said == [line]
    assert sink.of("decide") == [], "the person still has a moment after the notice"
    qtbot.waitUntil(lambda: bool(sink.of("decide")), timeout=ARMING_DELAY_MS + 3000)
    [(_, call_id, approved, final, _edited, by)] = sink.of("decide")
    assert (call_id, approved, by) == ("m1", True, "click")
    assert final == card.state().final_arguments()


def test_a_card_whose_confirm_is_held_by_the_card_is_declined_by_its_close_button(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any
) -> None:
    presenter = _overlay(qtbot, sink, bundled_factory)
    said: list[str] = []
    SelfPlay(presenter, said.append, wait_s=WAIT_S, notice_s=NOTICE_S)
    args = preview_args("payments", "pay_invoice")
    presenter.present(ConfirmationRequest("p1", PAYMENTS, "pay_invoice", args))
    card = _card(qtbot, presenter, "p1")
    blockers = list(card.state().blockers())
    assert blockers and not card.state().confirm_enabled, "the payment waits for the person"
    qtbot.waitUntil(lambda: bool(sink.of("decide")), timeout=ARMING_DELAY_MS + 3000)
    assert sink.of("decide") == [("decide", "p1", False, None, [], "click")]
    assert said == [
        f"Nobody answered for 0.3 s: the demo declines it with × (its confirm waits for: "
        f"{blockers[0]})."
    ]


def test_a_card_the_person_touched_is_left_to_them(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any
) -> None:
    presenter = _overlay(qtbot, sink, bundled_factory)
    said: list[str] = []
    demo = SelfPlay(presenter, said.append, wait_s=WAIT_S, notice_s=NOTICE_S)
    presenter.present(
        ConfirmationRequest("m2", MAIL, "send_email", preview_args("mail", "send_email"))
    )
    card = _card(qtbot, presenter, "m2")
    qtbot.waitUntil(lambda: presenter.armed, timeout=ARMING_DELAY_MS + 3000)
    handle = presenter.window.windowHandle()
    assert handle is not None
    # The person presses a key on the card (Shift: it changes nothing), through the window.
    QTest.keyClick(handle, Qt.Key.Key_Shift)
    # The demo stands down for this card: nothing of it left pending, so it can never say
    # it will answer or click; and it has not.
    qtbot.waitUntil(lambda: demo.left_to_person("m2"), timeout=3000)
    presenter.window.activity.emit()  # more touches change nothing
    assert demo.left_to_person("m2")
    assert said == [] and sink.of("decide") == []
    assert card.decision is None and presenter.on_screen is not None


def test_a_card_replaced_while_the_demo_is_about_to_click_is_not_clicked(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any
) -> None:
    presenter = _overlay(qtbot, sink, bundled_factory)
    said: list[str] = []
    SelfPlay(presenter, said.append, wait_s=WAIT_S, notice_s=1.0)
    args = preview_args("mail", "send_email")
    presenter.present(ConfirmationRequest("r1", MAIL, "send_email", args))
    first = _card(qtbot, presenter, "r1")
    qtbot.waitUntil(lambda: bool(first.reply_field.note.text()), timeout=3000)
    # The agent replaces the card in the moment between the notice and the click.
    presenter.replace("r1", ConfirmationRequest("r2", MAIL, "send_email", args | {"subject": "v2"}))
    presenter.dismiss("r1", "superseded")
    second = _card(qtbot, presenter, "r2")
    assert second.reply_field.note.text() == "", "the new card carries no old notice"
    qtbot.waitUntil(lambda: bool(sink.of("decide")), timeout=ARMING_DELAY_MS + 5000)
    # Only the new card, after a countdown and a notice of its own.
    assert [c[1] for c in sink.of("decide")] == ["r2"]
    assert len(said) == 2

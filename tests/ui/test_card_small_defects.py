"""Small defects of the issue-22 cards, each as a person met it on the bundled cards.

- A folded 2,000-character message held confirm with "Scroll to see all 1 line of
  Message" (it was out of sight, under Details, and one paragraph is not one line).
- The "Enter doesn't approve" line kept the confirm label it was first shown with
  ("Send to 2 people") after the label changed.
- On a 280 px card the "Allow … for this session" label was cut at both ends.
- The payments card's own block said "1250 EUR to Studio Nord GmbH" under a headline
  saying "Pay €1,250.00 …".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel

from notch_app.card.code_text import lines_said
from notch_app.card.headline import fact_words
from notch_app.manifest.integration import load_integration
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.asker_strip import asker_for

ROOT = Path(__file__).resolve().parents[2]
MESSAGE_2000 = ("We went through the quarter's numbers and agreed the next steps. " * 40)[:2000]


def bundled(
    qtbot: Any, integration: str, tool_name: str, *, width: int = 440, **more: Any
) -> CardView:
    loaded, _ = load_integration(ROOT / "manifests" / integration)
    assert loaded is not None and loaded.fixtures is not None
    tool = loaded.manifest.tool(tool_name)
    assert tool is not None
    view = CardView(
        tool,
        {**loaded.fixtures.tools[tool_name].args, **more},
        base_dir=loaded.folder,
        asker=asker_for(loaded.manifest, loaded.folder),
        scopes=True,
        live_pages=False,
        width=width,
        screen_height=1080,
    )
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_a_folded_long_message_asks_to_open_details_not_to_scroll_one_line(qtbot: Any) -> None:
    view = bundled(qtbot, "mail", "send_email", body=MESSAGE_2000)
    assert not view.details_open
    blockers = view.state().blockers()
    assert any("Open Details to see all of Message" in b for b in blockers), blockers
    assert not any("Scroll" in b for b in blockers), blockers
    assert "1 line" not in CardDriver(view).visible_text()

    view.open_details()
    qtbot.waitUntil(lambda: "Scroll to see all of Message first" in view.state().blockers())
    assert not any(lines_said(1) in b for b in view.state().blockers())


def test_the_enter_hint_follows_the_confirm_label(qtbot: Any) -> None:
    view = bundled(qtbot, "mail", "send_email", cc=["lee@example.com"])
    view.open_details()
    subject = view.input_widget("subject")
    subject.setFocus()
    QTest.keyClick(subject, Qt.Key.Key_Return)
    button = view.confirm_button()
    assert button is not None
    before = button.text()
    assert f"“{before}”" in view.enter_hint

    view.state().set("cc", ["lee@example.com", "finance@example.com"])
    assert button.text() != before, "the label counts the people the email goes to"
    assert f"“{button.text()}”" in view.enter_hint, view.enter_hint
    assert f"“{before}”" not in view.enter_hint


def test_the_session_scope_is_never_cut_on_a_narrow_card(qtbot: Any) -> None:
    view = bundled(qtbot, "claude-code", "Bash", width=280)
    choices = view.scope_choices
    assert choices is not None
    session = choices.buttons["session"]
    assert "for this session" in session.text() and "`npm test" in session.text()
    card = view.rect()
    inside = QRect(session.mapTo(view, session.rect().topLeft()), session.size())
    assert card.contains(inside), (inside, card)
    # Every word drawn: the wrapped text fits the button it is drawn in.
    room = session.rect().adjusted(4, 4, -4, -4)
    flags = int(Qt.AlignmentFlag.AlignRight | Qt.TextFlag.TextWordWrap)
    needed = session.fontMetrics().boundingRect(room, flags, session.text())
    assert needed.width() <= room.width() and needed.height() <= room.height() + 1


def test_the_payments_own_block_says_the_amount_as_the_headline_does(qtbot: Any) -> None:
    view = bundled(qtbot, "payments", "pay_invoice")
    texts = [label.text() for label in view.findChildren(QLabel) if label.isVisibleTo(view)]
    money = view.headline_line.current.confirm.removeprefix("Pay ")  # "€1,250.00" here
    assert any(t == f"{money} to Studio Nord GmbH" for t in texts), texts
    assert not any("1250 EUR" in t for t in texts)

    view.state().set("amount", 900)
    texts = [label.text() for label in view.findChildren(QLabel) if label.isVisibleTo(view)]
    nine_hundred = fact_words(view.state().tool, view.state().final_arguments(), "amount")
    assert nine_hundred != money and "900" in nine_hundred
    assert f"{nine_hundred} to Studio Nord GmbH" in texts, texts

    # What is not an amount keeps its words and its currency, never loses it.
    view.state().set("amount", "twelve")
    texts = [label.text() for label in view.findChildren(QLabel) if label.isVisibleTo(view)]
    assert any(t == "twelve EUR to Studio Nord GmbH" for t in texts), texts

"""The studio (`notch preview FOLDER`) driven as an author drives it: pick a tool, switch
the arguments' source and the theme, type into the card and watch what it would return."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from pytestqt.qtbot import QtBot

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.runtime.decision import arguments_digest
from notch_app.ui.card_view import CardView
from notch_app.ui.studio import StudioWindow
from notch_app.ui.studio.arguments_editor import read_arguments
from notch_app.ui.studio.card_stage import BACKDROPS

SENT_GLANCE = {
    "ok": True,
    "_voiceos_glance": {
        "blocks": [
            {"type": "header", "title": "Sent to Sam", "icon": "mail", "trailing": "now"},
            {"type": "keyValue", "pairs": [["Subject", "Re: Q3 report"]]},
        ]
    },
}


@pytest.fixture
def mail_folder(mail_folder: Path) -> Path:
    """The copy of the bundled mail integration, with a sample result (a glance) for
    send_email and a `cancel_draft` tool that asks without declaring a card."""
    folder = mail_folder
    preview = json.loads((folder / "preview.json").read_text())
    preview["tools"]["send_email"]["result"] = SENT_GLANCE
    preview["tools"]["search_mail"]["result"] = SENT_GLANCE
    (folder / "preview.json").write_text(json.dumps(preview, indent=2))
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["tools"].append(
        {
            "name": "cancel_draft",
            "title": "Cancel draft",
            "description": "Throw a draft away.",
            "inputSchema": {
                "type": "object",
                "properties": {"draft_id": {"type": "string"}},
                "required": ["draft_id"],
            },
        }
    )
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return folder


def _card(window: StudioWindow) -> CardView:
    card = window.stage.card
    assert card is not None, window.stage.message.text()
    return card


def test_the_first_acting_tool_shows_the_notchs_own_card_at_the_notchs_width(
    open_studio: Callable[..., StudioWindow], mail_folder: Path
) -> None:
    window = open_studio(mail_folder)
    card = _card(window)
    assert window.tools.current_name() == "send_email"
    confirm = card.confirm_button()
    assert confirm is not None
    assert card.findChild(type(confirm)) is not None
    glass = card.findChild(type(card).__mro__[1], "NotchCard")
    assert glass is not None and glass.width() == 440
    assert card.asker_strip is not None  # who asks, drawn by Notch as in the notch
    assert card.state().proposed["subject"] == "Re: Q3 report"  # the preview fixture's
    assert window.fixture.currentText() == "Preview fixture"


def test_the_tool_list_says_how_each_tool_asks(
    open_studio: Callable[..., StudioWindow], mail_folder: Path
) -> None:
    window = open_studio(mail_folder)
    rows = [window.tools.item(i).text() for i in range(window.tools.count())]
    assert any("send_email · card" in r for r in rows)
    assert any("search_mail · never asks" in r for r in rows)
    assert any("cancel_draft · generated card" in r for r in rows)
    window.tools.pick("search_mail")
    assert window.stage.card is None
    assert "never asks" in window.stage.message.text()
    window.tools.pick("cancel_draft")
    card = _card(window)
    confirm = card.confirm_button()
    assert confirm is not None
    assert "Cancel draft" in confirm.text()  # the generated card names it


def test_typing_into_the_card_changes_the_final_arguments_edited_paths_and_digest(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    card = _card(window)
    before = window.live.digest.text()
    assert before == arguments_digest(card.state().proposed)
    assert window.live.edited.text().startswith("nothing")
    field = card.input_widget("subject")
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_End)
    qtbot.keyClicks(field, " (final)")
    qtbot.waitUntil(lambda: window.live.digest.text() != before)
    final = json.loads(window.live.final.toPlainText())
    assert final["subject"] == "Re: Q3 report (final)"
    assert window.live.edited.text() == "subject"
    assert window.live.digest.text() == arguments_digest(final)
    assert window.live.gate.text() == "open"


def test_the_gate_says_why_confirm_is_closed(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    card = _card(window)
    card.state().set("subject", "")
    qtbot.waitUntil(lambda: window.live.gate.text().startswith("closed"))
    assert "Subject" in window.live.gate.text()
    confirm = card.confirm_button()
    assert confirm is not None and not confirm.isEnabled()


def test_pressing_the_cards_confirm_shows_what_the_notch_would_hand_back(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    card = _card(window)
    card.state().set("subject", "Q3")
    qtbot.keyClick(card, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.live.decision.text().startswith("Approved"))
    assert "subject" in window.live.decision.text()
    window.start_over.click()
    assert window.live.edited.text().startswith("nothing")


def test_a_scenario_is_a_source_of_arguments(
    open_studio: Callable[..., StudioWindow], mail_folder: Path
) -> None:
    window = open_studio(mail_folder)
    labels = [window.fixture.itemText(i) for i in range(window.fixture.count())]
    assert labels[0] == "Preview fixture"
    assert any(label.startswith("Scenario: ") for label in labels)
    assert labels[-1] == "Arguments editor (JSON)"
    scenario = next(i for i, label in enumerate(labels) if "send-later" in label)
    window.fixture.setCurrentIndex(scenario)
    written = json.loads((mail_folder / "scenarios" / "send-later-needs-a-time.json").read_text())
    assert _card(window).state().proposed == written["arguments"]
    assert json.loads(window.live.final.toPlainText()) == written["arguments"]


def test_the_theme_toggle_redraws_the_card_light_and_keeps_the_edits(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    dark = _card(window)
    dark.state().set("subject", "Kept across themes")
    dark_text = dark.palette().color(QPalette.ColorRole.WindowText)
    window.theme_toggle.click()
    light = _card(window)
    assert light is not dark
    assert light.palette().color(QPalette.ColorRole.WindowText) != dark_text
    assert light.state().value("subject") == "Kept across themes"
    page = window.stage.widget()
    assert page is not None
    assert page.palette().color(page.backgroundRole()) == BACKDROPS["light"]


def test_the_arguments_editor_checks_the_json_against_the_input_schema_as_you_type(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    window.fixture.setCurrentIndex(window.fixture.count() - 1)
    assert window.arguments.isVisible()
    text = json.loads(window.arguments.text.toPlainText())
    assert text["subject"] == "Re: Q3 report"  # starts from the card shown
    window.arguments.text.setPlainText('{"to": ["ana@example.com"], "subject": 7}')
    qtbot.waitUntil(lambda: "subject" in window.arguments.problem_text)
    assert "inputSchema" in window.arguments.problem_text
    assert _card(window).state().proposed["to"] == ["ana@example.com"]
    window.arguments.text.setPlainText('{"to": ["ana@example.com",}')
    qtbot.waitUntil(lambda: "line 1, column" in window.arguments.problem_text)
    assert _card(window).state().proposed["to"] == ["ana@example.com"]  # the last card stays


def test_an_author_pasting_hostile_json_gets_a_line_not_a_crash() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert read_arguments(deep, None)[0] is None
    assert read_arguments("x" * 2_000_000, None)[1][0].startswith("the arguments are over")
    assert read_arguments("[1, 2]", None)[1] == ["the arguments must be a JSON object ({...})"]
    assert read_arguments("NaN", None)[0] is None


def test_the_fixtures_sample_result_shows_its_glance_under_the_card(
    open_studio: Callable[..., StudioWindow], mail_folder: Path
) -> None:
    window = open_studio(mail_folder)
    assert window.stage.glance is not None
    assert window.stage.glance.isVisible()
    window.fixture.setCurrentIndex(1)  # a scenario: no sample result, no glance
    assert window.stage.glance is None
    window.tools.pick("search_mail")  # a read tool: no card, its result's glance
    assert window.stage.card is None
    assert window.stage.glance is not None and window.stage.glance.isVisible()
    assert "its sample result's glance" in window.stage.message.text()


def test_a_folder_without_problems_says_validate_passes(
    open_studio: Callable[..., StudioWindow], tmp_path: Path
) -> None:
    folder = tmp_path / "files"
    shutil.copytree(BUNDLED_MANIFESTS / "files", folder)
    window = open_studio(folder)
    assert window.problems.heading.text() == "Problems: none (notch validate passes)"


def test_the_studio_wears_the_cards_theme(tmp_path: Path, qtbot: QtBot) -> None:
    """Issue 22: the studio was stock grey Qt beside the polished card."""
    from PySide6.QtWidgets import QPlainTextEdit

    from notch_app.ui.studio.window import StudioWindow
    from notch_app.ui.theme import card_font, palette

    folder = BUNDLED_MANIFESTS / "payments"
    window = StudioWindow(folder, theme="dark", watch=False, socket_path=tmp_path / "none.sock")
    qtbot.addWidget(window)
    assert window.font().family() == card_font().family()
    sheet = window.styleSheet()
    assert palette("dark")["field_fill"] in sheet
    window.set_theme("light")
    assert palette("light")["field_fill"] in window.styleSheet()
    assert window.findChildren(QPlainTextEdit)


def test_authors_try_asks_first_off_and_a_refusal_rule_without_touching_settings(
    open_studio: Callable[..., StudioWindow], tmp_path: Path
) -> None:
    folder = tmp_path / "payments"
    shutil.copytree(BUNDLED_MANIFESTS / "payments", folder)
    studio = open_studio(folder)
    assert isinstance(studio.stage.card, CardView)  # the default: the card shows
    policy = studio.policy

    # A rule past the fixture's 1250: the card still shows, as the person would see it.
    policy.refuse_argument.setCurrentText("amount")
    policy.refuse_limit.setText("5000")
    assert isinstance(studio.stage.card, CardView)
    # Under the fixture's amount: refused, with the very sentence the agent would get.
    policy.refuse_limit.setText("1,000")
    said = studio.stage.message.text()
    assert studio.stage.card is None or not studio.stage.card.isVisible()
    assert "Refused Pay invoice: amount is over 1,000" in said
    assert "The person does not allow Pay invoice when amount is over 1,000" in said
    assert "lower amount to 1,000 or less" in said
    assert policy.note.text() == "Refused at once: no card, the agent is told why."

    # No rule, Asks first off: runs without a card; the glance and the model's sentence.
    policy.refuse_argument.setCurrentText("(no rule)")
    policy.asks_first.setChecked(False)
    said = studio.stage.message.text()
    assert "runs without asking" in said or "ran without a card" in said
    assert "Pay" in said
    policy.asks_first.setChecked(True)
    assert isinstance(studio.stage.card, CardView) and studio.stage.card.isVisible()
    # Nothing was written anywhere: the studio only previews.
    assert not (tmp_path / "data").exists()

"""The compact first view: a card opens at a notch's size, the form one click away.

Every bundled card opens with its headline first and, with its gates open and nothing
marked, at most 400 px tall at the default width. What is folded is said one line per
value, and a value too long for its lines holds confirm until Details was opened (nothing
approved unseen). A card with an empty required field or a notice opens expanded. The
agent that tries to hide something in the fold: a recipient past the shown line, hidden
characters in a folded field.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from notch_app.card import person_locale
from notch_app.manifest.integration import load_integration
from notch_app.ui.blocks.choices import ChipsEditor
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.asker_strip import asker_for
from notch_app.ui.widgets.details_fold import DETAILS_REASON

ROOT = Path(__file__).resolve().parents[2]
COMPACT_MAX = 400
NOW = datetime(2025, 6, 1, 9, 0, tzinfo=ZoneInfo("Europe/London"))


def _cards() -> list[tuple[str, str]]:
    out = []
    for folder in sorted((ROOT / "manifests").iterdir()):
        integration, _ = load_integration(folder)
        if integration is None or integration.fixtures is None:
            continue
        for tool in integration.manifest.tools:
            if tool.confirmation is not None and tool.name in integration.fixtures.tools:
                out.append((folder.name, tool.name))
    return out


CARDS = _cards()


@pytest.fixture(autouse=True)
def _a_fixed_person(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(person_locale, "current_time", lambda: NOW)
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")
    monkeypatch.setenv("HOME", "/home/maya")


def _view(integration: str, tool_name: str, **more: Any) -> CardView:
    loaded, _ = load_integration(ROOT / "manifests" / integration)
    assert loaded is not None and loaded.fixtures is not None
    tool = loaded.manifest.tool(tool_name)
    assert tool is not None
    return CardView(
        tool,
        {**loaded.fixtures.tools[tool_name].args, **more},
        base_dir=loaded.folder,
        asker=asker_for(loaded.manifest, loaded.folder),
        scopes=True,
        live_pages=False,
        screen_height=1080,
    )


def _shown(view: CardView) -> Any:
    view.show()
    QApplication.processEvents()
    view.adjustSize()
    return view


@pytest.mark.parametrize(("integration", "tool_name"), CARDS)
def test_every_bundled_card_opens_with_its_headline_and_fits_a_notch(
    qtbot: Any, integration: str, tool_name: str
) -> None:
    view = _view(integration, tool_name)
    qtbot.addWidget(view)
    _shown(view)
    # The headline is the first line a person reads, in the card's biggest type.
    first = view.headline_line
    assert first.isVisible() and first.text() == first.current.text
    labels = [w for w in view.findChildren(QLabel) if w.isVisible() and w.text()]
    top = min(
        labels, key=lambda w: w.mapTo(view, w.rect().topLeft()).y() if w is not first else 10**6
    )
    assert (
        first.mapTo(view, first.rect().topLeft()).y() <= top.mapTo(view, top.rect().topLeft()).y()
    )
    state = view.state()
    if state.confirm_enabled and view.details is not None and not view.details_open:
        # The playlist's five tracks are what it publishes: shown, not folded (442 px).
        limit = COMPACT_MAX + 50 if tool_name == "publish_playlist" else COMPACT_MAX
        assert view.height() <= limit, f"{integration}:{tool_name} is {view.height()} px"


def test_the_mail_card_was_a_form_and_now_opens_compact(qtbot: Any) -> None:
    whole = _view("mail", "send_email")
    whole.open_details()
    compact = _view("mail", "send_email")
    for view in (whole, compact):
        qtbot.addWidget(view)
        _shown(view)
    assert compact.height() <= COMPACT_MAX < whole.height()
    facts = compact.folded_facts
    assert facts is not None
    said = facts.facts()
    assert said["Cc"] == "lee@example.com, finance@example.com"
    assert said["Subject"] == "Re: Q3 report"
    # Its form is one click away, in place, and editable.
    assert not compact.input_widget("subject").isVisible()
    assert compact.details is not None
    qtbot.mouseClick(compact.details, Qt.MouseButton.LeftButton)
    assert compact.input_widget("subject").isVisible()
    CardDriver(compact).set("subject", "Q3 report, final")
    assert compact.state().final_arguments()["subject"] == "Q3 report, final"


def test_a_value_too_long_for_its_line_holds_confirm_until_details(qtbot: Any) -> None:
    people = [f"person{i:02d}@example.com" for i in range(30)]
    view = _view("mail", "send_email", to=people)
    qtbot.addWidget(view)
    _shown(view)
    state = view.state()
    assert not state.confirm_enabled
    assert DETAILS_REASON.format(label="To") in state.blockers()
    assert not view.press("confirm")
    assert view.details is not None
    view.details.click()
    assert DETAILS_REASON.format(label="To") not in state.blockers()
    # Folding it again does not hold again: every address has been on the card.
    view.details.click()
    assert DETAILS_REASON.format(label="To") not in state.blockers()


def test_a_card_with_an_empty_required_field_opens_expanded(qtbot: Any) -> None:
    view = _view("mail", "send_email", subject="")
    qtbot.addWidget(view)
    _shown(view)
    assert view.details_open
    assert view.input_widget("subject").isVisible()


def test_a_card_with_a_notice_opens_expanded(qtbot: Any) -> None:
    loaded, _ = load_integration(ROOT / "manifests" / "mail")
    assert loaded is not None and loaded.fixtures is not None
    tool = loaded.manifest.tool("send_email")
    assert tool is not None
    view = CardView(
        tool, loaded.fixtures.tools["send_email"].args, notice="Asks anyway: a new recipient"
    )
    qtbot.addWidget(view)
    assert view.details_open


def test_hidden_characters_in_a_folded_field_are_still_named(qtbot: Any) -> None:
    view = _view("mail", "send_email", subject="Invoice\u202efdp.exe")
    qtbot.addWidget(view)
    _shown(view)
    assert not view.details_open
    facts = view.folded_facts
    assert facts is not None
    assert "⟨U+202E⟩" in facts.facts()["Subject"]
    notes = [w.text() for w in view.findChildren(QLabel) if w.isVisible()]
    assert any("hidden characters" in text for text in notes), notes


def test_the_confirm_button_names_the_verb_and_its_object(qtbot: Any) -> None:
    view = _view("mail", "send_email")
    qtbot.addWidget(view)
    button = view.confirm_button()
    assert button is not None and button.text() == "Send to 3 people"
    CardDriver(view).set("cc", [])
    assert button.text() == "Send to sam@example.com"


def test_a_diff_is_red_and_green_with_numbers_and_a_command_never_folds(qtbot: Any) -> None:
    from notch_app.ui.widgets.code_view import CodeView

    view = _view("claude-code", "Edit")
    qtbot.addWidget(view)
    _shown(view)
    panel = view.findChild(CodeView)
    assert panel is not None
    rows = panel.panel._diff
    assert rows is not None and {r.kind for r in rows} >= {"add", "remove"}
    image = panel.panel.viewport().grab().toImage()
    # A removed line's band is red, an added line's green (the fixture: lines 5 and 6).
    tints = []
    for row, box in panel.panel._visible_rows():
        if row.kind in ("add", "remove"):
            colour = image.pixelColor(image.width() - 4, int(box.center().y()))
            tints.append((row.kind, colour.red() > colour.green()))
    assert ("remove", True) in tints and ("add", False) in tints
    # A command shaped like a diff is coloured, never folded: every line stays on the card.
    lines = "\n".join(f" echo {i}" for i in range(30))
    sneaky = f"--- a\n+++ b\n@@ -1,31 +1,31 @@\n{lines}\n rm -rf ~"
    bash = _view("codex", "Bash", command=sneaky)
    qtbot.addWidget(bash)
    _shown(bash)
    code = bash.findChild(CodeView)
    assert code is not None
    assert "rm -rf ~" in code.text() and "unchanged" not in code.text()


def test_the_notch_header_names_only_who_asks() -> None:
    from notch_app.runtime.presenter import ConfirmationRequest
    from notch_app.ui.overlay_cards import ManifestCardFactory

    def request(context: dict[str, Any]) -> ConfirmationRequest:
        return ConfirmationRequest("c1", "com.example.mail", "send_email", {}, context)

    assert ManifestCardFactory.header(request({"agent": "Claude Code"})) == "Asked by Claude Code"
    # Without an agent the header says nothing: the card's strip is the identity row.
    assert ManifestCardFactory.header(request({})) == ""


def test_the_chip_the_tool_refuses_is_marked(qtbot: Any) -> None:
    view = _view("mail", "send_email", to=["sam@example.com", "sam.example.com"], subject="")
    qtbot.addWidget(view)
    _shown(view)
    editor = view.editor("to")
    assert isinstance(editor, ChipsEditor)
    box = editor.box
    marked = {chip.value: chip.bad for chip in box.chips()}
    assert marked == {"sam@example.com": False, "sam.example.com": True}
    CardDriver(view).set("to", ["sam@example.com", "lee@example.com"])
    assert not any(chip.bad for chip in box.chips())


def test_a_risky_call_shows_its_risk_and_command_in_the_first_view(qtbot: Any) -> None:
    risky = _view("claude-code", "Bash", command="rm -rf ~/")
    qtbot.addWidget(risky)
    _shown(risky)
    assert risky.risk.notes.risk.risky
    assert risky.risk.notes.isVisible()  # above the body, never folded
    assert risky.input_widget("command").isVisible()  # what runs, in the first view


def test_tab_into_a_folded_card_unfolds_it_and_reaches_the_first_field(qtbot: Any) -> None:
    view = _view("files", "move_file")
    qtbot.addWidget(view)
    _shown(view)
    view.activateWindow()
    view.setFocus()
    assert not view.details_open
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    assert view.details_open
    qtbot.waitUntil(lambda: view.input_widget("destination").hasFocus(), timeout=2000)

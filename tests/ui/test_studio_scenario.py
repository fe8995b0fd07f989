"""Save as scenario writes a file `notch test` passes as written; Try in the notch sends
the card to a real running Notch over its socket and shows the decision."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from notch_app.commands import test as notch_test
from notch_app.headless import start
from notch_app.manifest.integration import load_integration
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.scripted import ScriptedPresenter
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.studio import StudioWindow


@pytest.fixture
def opened(open_studio: Callable[..., StudioWindow]) -> Callable[..., StudioWindow]:
    """The studio without its folder watcher: these tests write the files themselves."""
    return functools.partial(open_studio, watch=False)


def _driver(window: StudioWindow) -> CardDriver:
    assert window.stage.card is not None
    return CardDriver(window.stage.card)


def _notch_test(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = notch_test.run(argparse.Namespace(scenarios=[path]))
    return code, capsys.readouterr().out


def test_an_approval_with_edits_saved_as_a_scenario_passes_notch_test(
    opened: Callable[..., StudioWindow], mail_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    window = opened(mail_folder)
    driver = _driver(window)
    driver.set("subject", "Q3 report (final)")
    driver.set("cc", ["lee@example.com"])
    driver.set("track_opens", True)
    window.scenario_name.setText("Approve with my edits")
    window.outcome.setCurrentText("approved")
    window.save_button.click()
    path = mail_folder / "scenarios" / "approve-with-my-edits.json"
    assert "Saved scenarios/approve-with-my-edits.json" in window.save_note.text()
    written = json.loads(path.read_text())
    assert written["steps"][0] == {
        "set": {"subject": "Q3 report (final)", "cc": ["lee@example.com"], "track_opens": True}
    }
    assert written["finalArguments"]["subject"] == "Q3 report (final)"
    code, out = _notch_test(path, capsys)
    assert code == 0, out
    assert "PASS Approve with my edits" in out


def test_a_declined_card_with_confirm_closed_passes_notch_test(
    opened: Callable[..., StudioWindow], mail_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    window = opened(mail_folder)
    _driver(window).set("to", [])
    window.scenario_name.setText("no recipients")
    window.outcome.setCurrentText("declined")
    window.save_button.click()
    path = mail_folder / "scenarios" / "no-recipients.json"
    written = json.loads(path.read_text())
    assert {"expect": {"confirmEnabled": False}} in written["steps"]
    assert written["steps"][-1] == {"press": "cancel"}
    code, out = _notch_test(path, capsys)
    assert code == 0, out


def test_an_approval_the_card_cannot_give_is_refused_with_the_reason(
    opened: Callable[..., StudioWindow], mail_folder: Path
) -> None:
    window = opened(mail_folder)
    _driver(window).set("subject", "")
    window.scenario_name.setText("impossible")
    window.outcome.setCurrentText("approved")
    window.save_button.click()
    assert window.save_note.text().startswith("Not saved: confirm is closed")
    assert "Subject" in window.save_note.text()
    assert not (mail_folder / "scenarios" / "impossible.json").exists()


def test_a_scenario_name_never_leaves_the_scenarios_folder_nor_overwrites_a_file(
    opened: Callable[..., StudioWindow], mail_folder: Path, tmp_path: Path
) -> None:
    window = opened(mail_folder)
    window.outcome.setCurrentText("declined")
    window.scenario_name.setText("../../../outside/../etc/passwd")
    window.save_button.click()
    assert (mail_folder / "scenarios" / "outside-etc-passwd.json").exists()
    assert not (tmp_path / "outside").exists()
    before = (mail_folder / "scenarios" / "approve-with-edits.json").read_bytes()
    window.scenario_name.setText("Approve with edits")
    window.save_button.click()
    assert "already exists; choose another name" in window.save_note.text()
    assert (mail_folder / "scenarios" / "approve-with-edits.json").read_bytes() == before
    window.scenario_name.setText("/// ...")
    window.save_button.click()
    assert "give the scenario a name with letters or digits" in window.save_note.text()


def test_a_scenarios_folder_that_is_a_link_is_not_written_through(
    opened: Callable[..., StudioWindow], mail_folder: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(mail_folder / "scenarios")
    (mail_folder / "scenarios").symlink_to(elsewhere)
    window = opened(mail_folder)
    window.outcome.setCurrentText("declined")
    window.scenario_name.setText("through the link")
    window.save_button.click()
    assert "is a link" in window.save_note.text()
    assert list(elsewhere.iterdir()) == []


def test_try_in_the_notch_without_a_running_notch_says_how_to_start_one(
    opened: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot, tmp_path: Path
) -> None:
    window = opened(mail_folder, socket_path=tmp_path / "nobody.sock")
    with qtbot.waitSignal(window.trial.answered, timeout=5000):
        window.try_button.click()
    assert window.try_note.text().startswith("Notch is not running: start it with `notch run")
    assert window.try_button.isEnabled()


@pytest.mark.asyncio
async def test_try_in_the_notch_sends_the_card_with_its_edits_and_shows_the_decision(
    opened: Callable[..., StudioWindow], mail_folder: Path
) -> None:
    integration, _ = load_integration(mail_folder)
    assert integration is not None
    seen: list[ConfirmationRequest] = []

    def person(request: ConfirmationRequest) -> tuple[bool, dict[str, Any] | None]:
        seen.append(request)
        return True, None  # approves what the card shows

    with tempfile.TemporaryDirectory(prefix="notch-t") as base:
        notch = await start(
            Path(base) / "s" / "notch.sock",
            Path(base) / "data",
            presenter=lambda sink: ScriptedPresenter(sink, person),
            catalog=Catalog([integration.manifest]),
        )
        try:
            window = opened(mail_folder, socket_path=notch.server.path)
            _driver(window).set("subject", "Sent from the studio")
            answered = asyncio.Event()
            window.trial.answered.connect(lambda _line: answered.set())
            window.try_button.click()
            assert not window.try_button.isEnabled()  # one card at a time
            await asyncio.wait_for(answered.wait(), 10)
        finally:
            await notch.close()
    assert seen and seen[0].arguments["subject"] == "Sent from the studio"
    assert seen[0].context.get("agent") == "notch preview"
    assert window.try_note.text().startswith("approved: it would run")
    assert "digest sha256:" in window.try_note.text()


@pytest.mark.asyncio
async def test_try_in_the_notch_says_when_the_running_notch_has_not_loaded_the_folder(
    opened: Callable[..., StudioWindow], mail_folder: Path
) -> None:
    with tempfile.TemporaryDirectory(prefix="notch-t") as base:
        notch = await start(
            Path(base) / "s" / "notch.sock",
            Path(base) / "data",
            presenter=lambda sink: ScriptedPresenter(sink, None),
            catalog=Catalog([]),
        )
        try:
            window = opened(mail_folder, socket_path=notch.server.path)
            answered = asyncio.Event()
            window.trial.answered.connect(lambda _line: answered.set())
            window.try_button.click()
            await asyncio.wait_for(answered.wait(), 10)
        finally:
            await notch.close()
    assert "has not loaded dev.notch.examples.mail" in window.try_note.text()
    assert f"--manifests {mail_folder.parent}" in window.try_note.text()

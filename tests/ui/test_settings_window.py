"""The Settings window, driven as a person would: toggles, Block, guards, install."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from notch_app.app import NotchApp, NotchConfig
from notch_app.manifest.model import Manifest, Tool
from notch_app.runtime.catalog import Catalog, bundled_manifests_dir
from notch_app.runtime.policy_book import PolicyBook
from notch_app.runtime.service import ToolCall
from notch_app.runtime.settings import settings_path
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.settings import SettingsFileWatcher, SettingsWindow
from notch_app.ui.theme import ThemeName

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
PAY = "dev.notch.examples.payments"
MAIL = "dev.notch.examples.mail"


class Integrations:
    """What the app does: a catalog loaded from the bundled and installed folders."""

    def __init__(self, install_dir: Path) -> None:
        self.install_dir = install_dir
        self.catalog = Catalog()
        self.reload()

    def reload(self) -> None:
        folders = [bundled_manifests_dir()]
        if self.install_dir.is_dir():
            folders.append(self.install_dir)
        self.catalog, problems = Catalog.load(folders)
        assert problems == []


@pytest.fixture
def setup(tmp_path: Path, qtbot: QtBot) -> tuple[SettingsWindow, PolicyBook, Integrations]:
    book = PolicyBook.in_data_dir(tmp_path / "data")
    integrations = Integrations(tmp_path / "integrations")
    window = SettingsWindow(
        book,
        lambda: integrations.catalog,
        integrations.install_dir,
        reload_integrations=integrations.reload,
        theme="light",
    )
    qtbot.addWidget(window)
    window.show()
    return window, book, integrations


def stored_file(book: PolicyBook) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(book.path.read_text())
    return data


def _tool(integration: Manifest, name: str) -> Tool:
    tool = integration.tool(name)
    assert tool is not None, f"{integration.id} has no tool {name}"
    return tool


def test_the_list_shows_every_integration_with_name_publisher_and_summary(
    setup: tuple[SettingsWindow, PolicyBook, Integrations],
) -> None:
    window, _, _ = setup
    assert set(window.rows) >= {PAY, MAIL, "io.elevenlabs"}
    texts = [label.text() for label in window.rows[PAY].findChildren(type(window.status_label))]
    assert "Payments" in texts and "by Notch examples" in texts
    assert any("SEPA" in t for t in texts)


def test_toggling_asks_first_writes_the_file_at_once(
    setup: tuple[SettingsWindow, PolicyBook, Integrations], qtbot: QtBot
) -> None:
    window, book, integrations = setup
    qtbot.mouseClick(window.rows[PAY], Qt.MouseButton.LeftButton)
    panel = window.action_panels["pay_invoice"]
    assert panel.asks_first.isChecked()
    assert "Default: asks first" in panel.hint.text()

    panel.asks_first.click()
    entry = stored_file(book)["policies"][PAY]["pay_invoice"]
    assert entry["asksFirst"] is False
    manifest = integrations.catalog.integration(PAY)
    assert manifest is not None
    assert book.verdict(manifest, _tool(manifest, "pay_invoice"), {}).action == "auto"

    qtbot.waitUntil(lambda: "Runs the moment" in window.action_panels["pay_invoice"].hint.text())
    # The list says so too.
    window.show_list()
    assert "runs without asking" in " ".join(
        w.text() for w in window.rows[PAY].findChildren(type(window.status_label))
    )


def test_block_and_unblock(
    setup: tuple[SettingsWindow, PolicyBook, Integrations], qtbot: QtBot
) -> None:
    window, book, _ = setup
    window.open_integration(MAIL)
    window.action_panels["send_email"].blocked.click()
    assert stored_file(book)["policies"][MAIL]["send_email"]["blocked"] is True
    qtbot.waitUntil(lambda: not window.action_panels["send_email"].asks_first.isEnabled())
    window.action_panels["send_email"].blocked.click()
    assert not settings_path(book.path.parent).read_text().count("send_email")


def test_adding_and_removing_guards(
    setup: tuple[SettingsWindow, PolicyBook, Integrations], qtbot: QtBot
) -> None:
    window, book, _ = setup
    window.open_integration(PAY)
    panel = window.action_panels["pay_invoice"]
    panel.guard_argument.setCurrentText("Amount")  # the card's label, not the key
    assert panel.guard_kind.currentText() == "is over"  # suggested for a number
    panel.guard_value.setText("500")
    panel.add_guard_button.click()
    qtbot.waitUntil(lambda: len(window.action_panels["pay_invoice"].chips) == 1)
    guards = stored_file(book)["policies"][PAY]["pay_invoice"]["guards"]
    assert guards == [{"kind": "over", "argument": "amount", "limit": 500}]

    panel = window.action_panels["pay_invoice"]
    panel.guard_argument.setCurrentText("Currency")
    panel.guard_kind.setCurrentText("is not one of")
    panel.guard_value.setText("EUR, CHF")
    panel.add_guard_button.click()
    qtbot.waitUntil(lambda: len(window.action_panels["pay_invoice"].chips) == 2)
    assert "currency is not one of EUR, CHF" in [
        c.guard.describe() for c in window.action_panels["pay_invoice"].chips
    ]

    window.action_panels["pay_invoice"].chips[0].remove_button.click()
    qtbot.waitUntil(lambda: len(window.action_panels["pay_invoice"].chips) == 1)
    assert len(stored_file(book)["policies"][PAY]["pay_invoice"]["guards"]) == 1


def test_a_refusal_rule_from_settings_refuses_past_its_limit_and_says_what_it_tells(
    setup: tuple[SettingsWindow, PolicyBook, Integrations], qtbot: QtBot
) -> None:
    window, book, integrations = setup
    window.open_integration(PAY)
    panel = window.action_panels["pay_invoice"]
    panel.guard_effect.setCurrentText("Refuse when")
    assert panel.add_guard_button.text() == "Add refusal"
    panel.guard_argument.setCurrentText("Amount")  # the card's label, not the key
    panel.guard_value.setText("5,000")
    panel.add_guard_button.click()
    qtbot.waitUntil(lambda: len(window.action_panels["pay_invoice"].refusal_chips) == 1)
    entry = stored_file(book)["policies"][PAY]["pay_invoice"]
    assert entry["refusals"] == [{"kind": "over", "argument": "amount", "limit": 5000}]
    assert entry["guards"] == []  # a refusal, not an "ask anyway"
    panel = window.action_panels["pay_invoice"]
    # The person reads, word for word, what the agent will be told.
    assert panel.refusal_preview.isVisibleTo(window)
    assert "does not allow Pay invoice when amount is over 5,000" in panel.refusal_preview.text()
    manifest = integrations.catalog.integration(PAY)
    assert manifest is not None
    tool = manifest.tool("pay_invoice")
    assert tool is not None
    assert book.verdict(manifest, tool, {"amount": 6000}).action == "block"
    assert book.verdict(manifest, tool, {"amount": 10}).action == "ask"

    panel.refusal_chips[0].remove_button.click()
    qtbot.waitUntil(lambda: window.action_panels["pay_invoice"].refusal_chips == [])
    assert book.verdict(manifest, tool, {"amount": 6000}).action == "ask"


def test_a_bad_guard_value_is_explained_and_nothing_stored(
    setup: tuple[SettingsWindow, PolicyBook, Integrations],
) -> None:
    window, book, _ = setup
    window.open_integration(PAY)
    panel = window.action_panels["pay_invoice"]
    panel.guard_argument.setCurrentText("Amount")  # the card's label, not the key
    panel.guard_kind.setCurrentText("is over")
    panel.guard_value.setText("a lot")
    panel.add_guard_button.click()
    assert panel.error.isVisibleTo(window) and "Type a number" in panel.error.text()
    assert not book.path.exists()


def test_read_only_tools_are_listed_quietly_without_switches(
    setup: tuple[SettingsWindow, PolicyBook, Integrations],
) -> None:
    window, _, _ = setup
    window.open_integration(MAIL)
    assert set(window.action_panels) == {"send_email"}
    labels = [w.text() for w in window.detail_page.findChildren(type(window.status_label))]
    assert "Search mail" in labels and "Never asks (read-only)" in labels
    assert window.remove_button is None  # bundled: cannot be removed


def test_install_from_a_broken_folder_shows_the_validate_messages(
    setup: tuple[SettingsWindow, PolicyBook, Integrations], tmp_path: Path
) -> None:
    window, _, integrations = setup
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text('{"schemaVersion": 1, "id": "Not DNS", "tools": []}')
    window.choose_folder = lambda: broken
    window.install_from_folder()
    dialog = window.problems_dialog
    assert dialog is not None and dialog.isVisible()
    text = dialog.problems.toPlainText()
    assert f"{broken / 'manifest.json'}:1:" in text and "error[" in text
    assert not integrations.install_dir.exists() or not any(integrations.install_dir.iterdir())


def test_install_reload_and_remove_a_folder(
    setup: tuple[SettingsWindow, PolicyBook, Integrations], tmp_path: Path, qtbot: QtBot
) -> None:
    window, book, integrations = setup
    source = tmp_path / "notes"
    shutil.copytree(REPO / "manifests" / "mail", source)
    manifest = json.loads((source / "manifest.json").read_text())
    manifest["id"] = "com.example.notes"
    manifest["name"] = "Notes"
    (source / "manifest.json").write_text(json.dumps(manifest))

    window.choose_folder = lambda: source
    window.install_from_folder()
    assert (integrations.install_dir / "com.example.notes" / "manifest.json").is_file()
    assert window.current_id == "com.example.notes"
    assert window.remove_button is not None

    window.action_panels["send_email"].asks_first.click()
    assert book.stored("com.example.notes", "send_email") is not None

    window.confirm = lambda title, text: True
    window.remove_button.click()
    assert not (integrations.install_dir / "com.example.notes").exists()
    assert book.stored("com.example.notes", "send_email") is None  # forgotten with it
    assert "com.example.notes" not in window.rows
    assert "Removed Notes." in window.status_label.text()


def test_installing_over_a_bundled_id_is_refused(
    setup: tuple[SettingsWindow, PolicyBook, Integrations],
) -> None:
    window, _, _ = setup
    window.choose_folder = lambda: REPO / "manifests" / "mail"
    window.install_from_folder()
    assert window.problems_dialog is not None
    assert "already loaded from" in window.problems_dialog.problems.toPlainText()


def test_a_corrupt_settings_file_shows_a_note(tmp_path: Path, qtbot: QtBot) -> None:
    path = settings_path(tmp_path)
    path.write_text("{broken")
    book = PolicyBook(path)
    integrations = Integrations(tmp_path / "integrations")
    window = SettingsWindow(book, lambda: integrations.catalog, integrations.install_dir)
    qtbot.addWidget(window)
    assert "every action asks first" in window.problem_label.text()


def test_a_change_from_notch_policy_shows_up_in_the_open_window(
    setup: tuple[SettingsWindow, PolicyBook, Integrations], qtbot: QtBot
) -> None:
    window, book, integrations = setup
    watcher = SettingsFileWatcher(book, delay_ms=10)
    window.open_integration(PAY)
    other = PolicyBook(book.path)  # `notch policy` in another process
    manifest = integrations.catalog.integration(PAY)
    assert manifest is not None
    tool = manifest.tool("pay_invoice")
    assert tool is not None
    other.block(manifest, tool)
    qtbot.waitUntil(lambda: window.action_panels["pay_invoice"].blocked.isChecked(), timeout=3000)
    other.block(manifest, tool, False)  # the watch survives the atomic rename
    qtbot.waitUntil(
        lambda: not window.action_panels["pay_invoice"].blocked.isChecked(), timeout=3000
    )
    del watcher


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_screenshots(tmp_path: Path, qtbot: QtBot, theme: ThemeName) -> None:
    """Renders the list and a detail page to artifacts/ to look at."""
    from notch_app.runtime.policy_book import NotOneOfGuard, OverGuard

    book = PolicyBook.in_data_dir(tmp_path)
    integrations = Integrations(tmp_path / "integrations")
    cat = integrations.catalog
    pay = cat.integration(PAY)
    mail = cat.integration(MAIL)
    files = cat.integration("dev.notch.examples.files")
    assert pay and mail and files
    book.set_asks_first(pay, _tool(pay, "pay_invoice"), False)
    book.add_guard(pay, _tool(pay, "pay_invoice"), OverGuard(argument="amount", limit=500))
    book.add_guard(
        pay,
        _tool(pay, "pay_invoice"),
        NotOneOfGuard(argument="currency", allowed=["EUR", "CHF"]),
    )
    book.add_guard(
        mail,
        _tool(mail, "send_email"),
        NotOneOfGuard(argument="to", allowed=["sam@example.com", "kim@example.com"]),
    )
    book.block(files, _tool(files, "delete_files"))
    window = SettingsWindow(book, lambda: cat, integrations.install_dir, theme=theme)
    qtbot.addWidget(window)
    window.resize(720, 640)
    window.show()
    ARTIFACTS.mkdir(exist_ok=True)
    shots = {
        "list": None,
        "detail": PAY,
        "detail-files": "dev.notch.examples.files",
    }
    for name, iid in shots.items():
        if iid is None:
            window.show_list()
        else:
            window.open_integration(iid)
        QApplication.processEvents()  # the new page's posted layout requests, no waiting
        image = window.grab().toImage()
        assert not image.isNull() and image.width() == 720
        image.save(str(ARTIFACTS / f"settings-{name}-{theme}.png"))


# --- In the notch: the glance, the idle look, parking ----------------------------------------


def overlay_file(book: PolicyBook) -> dict[str, object]:
    overlay: dict[str, object] = stored_file(book)["overlay"]
    return overlay


def park_choices(window: SettingsWindow) -> list[str]:
    return [window.park_after.itemText(i) for i in range(window.park_after.count())]


def test_the_notch_controls_write_the_file_at_once(
    setup: tuple[SettingsWindow, PolicyBook, Integrations], qtbot: QtBot
) -> None:
    window, book, _ = setup
    assert window.idle_buttons["pill"].isChecked()
    assert not window.idle_buttons["hidden"].isChecked()
    assert window.park_after.currentText() == "1 min"
    assert park_choices(window) == ["Never", "15 s", "30 s", "1 min", "2 min", "5 min"]

    qtbot.mouseClick(window.idle_buttons["hidden"], Qt.MouseButton.LeftButton)
    assert overlay_file(book)["idle"] == "hidden"
    # The page is rebuilt from the file: the choice stays, only one segment is on.
    qtbot.waitUntil(lambda: window.idle_buttons["hidden"].isChecked(), timeout=2000)
    assert not window.idle_buttons["pill"].isChecked()

    window.park_after.setFocus()
    qtbot.keyClick(window.park_after, Qt.Key.Key_Down)  # 1 min → 2 min, as with the keyboard
    assert overlay_file(book)["parkAfterSeconds"] == 120
    qtbot.waitUntil(lambda: window.park_after.currentText() == "2 min", timeout=2000)
    window.park_after.setCurrentIndex(window.park_after.findText("Never"))
    assert overlay_file(book)["parkAfterSeconds"] == 0

    qtbot.mouseClick(window.glance_switch, Qt.MouseButton.LeftButton)
    assert window.glance_seconds.currentText() == "4 s"
    window.glance_seconds.setCurrentIndex(window.glance_seconds.findText("10 s"))
    assert not window.in_the_notch.voice_switch.isChecked()  # off by default
    qtbot.mouseClick(window.in_the_notch.voice_switch, Qt.MouseButton.LeftButton)
    assert overlay_file(book) == {
        "answerByVoice": True,
        "glance": False,
        "glanceSeconds": 10,
        "idle": "hidden",
        "parkAfterSeconds": 0,
        "theme": "system",
    }

    # Opened again (a restart), the window shows what the file says.
    again = SettingsWindow(PolicyBook(book.path), Catalog, window.install_dir, theme="dark")
    qtbot.addWidget(again)
    assert again.idle_buttons["hidden"].isChecked()
    assert again.park_after.currentText() == "Never"
    assert again.glance_seconds.currentText() == "10 s"
    assert not again.glance_switch.isChecked()


@pytest.mark.parametrize(
    ("seconds", "label", "position"),
    [(45, "45 s", 3), (90, "1 min 30 s", 4), (600, "10 min", 6), (7.5, "7.5 s", 1)],
)
def test_a_park_time_set_by_hand_shows_as_itself(
    tmp_path: Path, qtbot: QtBot, seconds: float, label: str, position: int
) -> None:
    path = settings_path(tmp_path)
    path.write_text(json.dumps({"version": 1, "overlay": {"parkAfterSeconds": seconds}}))
    book = PolicyBook(path)
    assert book.problem is None
    window = SettingsWindow(book, Catalog, tmp_path / "integrations", theme="light")
    qtbot.addWidget(window)
    assert window.park_after.currentText() == label
    assert park_choices(window).index(label) == position  # in order among the usual times
    assert json.loads(path.read_text())["overlay"]["parkAfterSeconds"] == seconds  # untouched

    window.park_after.setCurrentIndex(window.park_after.findText("30 s"))
    assert json.loads(path.read_text())["overlay"]["parkAfterSeconds"] == 30
    qtbot.waitUntil(lambda: label not in park_choices(window), timeout=2000)


def test_a_notch_change_from_another_process_shows_after_reload(
    setup: tuple[SettingsWindow, PolicyBook, Integrations], qtbot: QtBot
) -> None:
    window, book, _ = setup
    other = PolicyBook(book.path)  # `notch settings` in another process
    other.set_idle("hidden")
    other.set_park_after(15)
    qtbot.mouseClick(window.reload_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.idle_buttons["hidden"].isChecked(), timeout=2000)
    assert window.park_after.currentText() == "15 s"


# --- a running Notch follows these settings at once --------------------------------------------


@contextlib.asynccontextmanager
async def notch_in_process(config: NotchConfig, err: io.StringIO) -> AsyncIterator[NotchApp]:
    """A real NotchApp (service, socket, overlay; no tray) on the test's qasync loop."""
    notch = NotchApp(config, err=err)
    await notch.start()
    try:
        yield notch
    finally:
        await notch.stop()


def notch_config(tmp_path: Path, **overrides: Any) -> NotchConfig:
    # A short socket path: Unix sockets allow about 100 bytes.
    socket_dir = Path(tempfile.mkdtemp(prefix="notch-l-", dir="/tmp"))
    return NotchConfig(
        socket_dir / "s.sock",
        tmp_path / "data",
        settings=OverlaySettings(expand_ms=0, done_ms=0),
        tray=False,
        **overrides,
    )


def send_email_args() -> dict[str, Any]:
    preview = json.loads((bundled_manifests_dir() / "mail" / "preview.json").read_text())
    args: dict[str, Any] = preview["tools"]["send_email"]["args"]
    return args


@pytest.mark.asyncio
async def test_a_running_notch_follows_the_settings_window_at_once(
    tmp_path: Path, qtbot: QtBot, until: Any
) -> None:
    async with notch_in_process(notch_config(tmp_path), io.StringIO()) as notch:
        presenter = notch.presenter
        assert isinstance(presenter, OverlayPresenter) and notch.service is not None
        notch_window = presenter.window
        assert (notch_window.isVisible(), notch_window.look) == (True, "idle")  # the pill

        notch.open_settings()
        settings = notch.settings_window
        assert isinstance(settings, SettingsWindow)
        qtbot.mouseClick(settings.idle_buttons["hidden"], Qt.MouseButton.LeftButton)
        assert not notch_window.isVisible()  # hidden now, not after the next card
        await until(lambda: settings.idle_buttons["hidden"].isChecked(), "the page redraw")
        qtbot.mouseClick(settings.idle_buttons["pill"], Qt.MouseButton.LeftButton)
        assert (notch_window.isVisible(), notch_window.look) == (True, "idle")

        # A card on screen: its park timer follows the new time at once.
        pending = notch.service.submit(ToolCall("c1", MAIL, "send_email", send_email_args()))
        await until(lambda: notch_window.look == "card", "the card")
        # The park countdown is read from the overlay: "parks after" is only observable
        # after whole seconds otherwise.
        assert presenter.park_timer_ms == 60_000
        await until(lambda: settings.park_after.currentText() == "1 min", "the page redraw")
        settings.park_after.setCurrentIndex(settings.park_after.findText("15 s"))
        assert presenter.park_timer_ms == 15_000 and presenter.settings.park_after_s == 15
        await until(lambda: settings.park_after.currentText() == "15 s", "the page redraw")
        settings.park_after.setCurrentIndex(settings.park_after.findText("Never"))
        assert presenter.park_timer_ms is None

        # Hidden while a card shows: the notch goes away once the card is decided.
        await until(lambda: settings.park_after.currentText() == "Never", "the page redraw")
        qtbot.mouseClick(settings.idle_buttons["hidden"], Qt.MouseButton.LeftButton)
        assert notch_window.isVisible() and notch_window.look == "card"
        notch.service.withdraw("c1")
        decision = await asyncio.wait_for(pending, 5)
        assert decision.outcome == "withdrawn"
        await until(lambda: not notch_window.isVisible(), "the hidden idle notch")


@pytest.mark.asyncio
async def test_a_flag_given_to_notch_run_wins_for_that_run(tmp_path: Path, qtbot: QtBot) -> None:
    err = io.StringIO()
    PolicyBook.in_data_dir(tmp_path / "data").set_idle("hidden")
    async with notch_in_process(notch_config(tmp_path, idle_override="pill"), err) as notch:
        presenter = notch.presenter
        book = notch.policy_book
        assert isinstance(presenter, OverlayPresenter) and book is not None
        assert book.overlay.idle == "hidden" and presenter.window.isVisible()  # --idle pill
        book.set_park_after(15)  # not pinned: followed at once
        assert notch.overlay_settings.park_after_s == 15.0
        assert err.getvalue() == ""  # nothing to say: the pinned setting did not change
        book.set_idle("pill")
        book.set_idle("hidden")  # pinned: the pill stays for this run
        book.set_park_after(30)
        assert presenter.window.isVisible() and presenter.window.look == "idle"
        assert notch.overlay_settings.idle_mode == "pill"
        assert notch.overlay_settings.park_after_s == 30.0

    said = err.getvalue()
    assert said == (
        "notch: this run was started with --idle pill, so your new setting (hidden) "
        "applies from the next start\n"
    )


def test_the_guard_builder_names_fields_in_words_and_settings_shows_no_markup(
    setup: tuple[SettingsWindow, PolicyBook, Integrations], qtbot: QtBot
) -> None:
    """Issue 22: the guard builder listed raw keys (invoice_id, approval_pin, payee.iban)
    and Settings showed literal backticks."""
    from notch_app.ui.settings.action_panel import manifest_words, one_line_summary

    window, _book, _ = setup
    window.open_integration(PAY)
    panel = window.action_panels["pay_invoice"]
    names = [panel.guard_argument.itemText(i) for i in range(panel.guard_argument.count())]
    assert "Approval PIN" in names and "Payee IBAN" in names and "Invoice ID" in names
    assert not any("_" in n or "." in n for n in names), names
    assert manifest_words("through `notch hook codex` (its **hook**)") == (
        "through notch hook codex (its hook)"
    )
    assert "`" not in one_line_summary("Runs `npm test`. Then more.")

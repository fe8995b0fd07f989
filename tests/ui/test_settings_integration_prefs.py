"""An integration's page in Settings: Preferences edited by type, API keys set, replaced
and cleared without the value ever showing, driven as a person would.

The keyring is chosen through keyring's own seam (`keyring.set_keyring`): a small
in-memory backend here, and keyring's real `fail` backend for a machine without one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import keyring
import keyring.backend
import keyring.errors
import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QLabel, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from notch_app.runtime.catalog import Catalog
from notch_app.runtime.policy_book import PolicyBook
from notch_app.runtime.secrets import integration_environment
from notch_app.ui.settings import SettingsWindow
from notch_app.ui.theme import ThemeName

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
NEWS = "com.example.newsdesk"
SECRET = "nd-live-0c7e5a19f2-NEVER-SHOWN"

MANIFEST: dict[str, Any] = {
    "schemaVersion": 1,
    "id": NEWS,
    "version": "2.1.0",
    "name": "Newsdesk",
    "summary": "Drafts and publishes posts to your newsroom.",
    "publisher": {"id": "example", "name": "Example Media"},
    "runtime": {"kind": "local-mcp", "command": "newsdesk-mcp", "args": ["--stdio"]},
    "auth": {
        "kind": "apiKey",
        "fields": [
            {
                "key": "NEWSDESK_API_KEY",
                "label": "API key",
                "secret": True,
                "required": True,
                "placeholder": "nd-live-…",
                "description": "Create one under Account › Developer.",
            },
            {"key": "NEWSDESK_WEBHOOK_SECRET", "label": "Webhook secret", "secret": True},
            {
                "key": "NEWSDESK_WORKSPACE",
                "label": "Workspace",
                "required": True,
                "placeholder": "acme-news",
            },
        ],
    },
    "preferences": [
        {
            "name": "signature",
            "title": "Signature",
            "type": "text",
            "default": "The desk",
            "description": "Added under every post.",
        },
        {
            "name": "section",
            "title": "Default section",
            "type": "select",
            "default": "world",
            "options": [
                {"label": "World", "value": "world"},
                {"label": "Business", "value": "business"},
                {"label": "Culture", "value": "culture"},
            ],
        },
        {
            "name": "notifyEditors",
            "title": "Notify editors",
            "type": "toggle",
            "default": False,
            "description": "Send the editors a note when a post goes live.",
        },
        {"name": "maxDrafts", "title": "Drafts kept", "type": "number", "default": 20},
    ],
    "tools": [
        {
            "name": "list_drafts",
            "title": "List drafts",
            "description": "The newest drafts.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": True},
        }
    ],
}


class MemoryKeyring(keyring.backend.KeyringBackend):
    """Keyring entries in a dict: the suite's stand-in for the OS keyring."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring leaves it unannotated
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.entries.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not set")


@pytest.fixture
def ring() -> Iterator[MemoryKeyring]:
    before = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(before)


def _catalog(tmp_path: Path) -> Catalog:
    folder = tmp_path / "integrations" / "newsdesk"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps(MANIFEST))
    catalog, problems = Catalog.load([tmp_path / "integrations"])
    assert catalog.integration(NEWS) is not None, problems
    return catalog


def _window(tmp_path: Path, qtbot: QtBot, theme: ThemeName = "light") -> SettingsWindow:
    book = PolicyBook.in_data_dir(tmp_path / "data")
    catalog = _catalog(tmp_path)
    window = SettingsWindow(book, lambda: catalog, tmp_path / "installed", theme=theme)
    window.confirm = lambda title, text: True
    qtbot.addWidget(window)
    window.resize(720, 900)
    window.show()
    window.open_integration(NEWS)
    return window


def _file(window: SettingsWindow) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(window.book.path.read_text())
    return data


Control = TypeVar("Control", bound=QWidget)


def _control(window: SettingsWindow, name: str, kind: type[Control]) -> Control:
    """The control the page shows for preference `name`, which is a `kind`."""
    control = window.preference_rows[name].control
    assert isinstance(control, kind), type(control).__name__
    return control


def _shown_text(window: QWidget) -> str:
    parts = [w.text() for w in window.findChildren(QLabel)]
    parts += [w.text() + w.placeholderText() for w in window.findChildren(QLineEdit)]
    parts += [w.currentText() for w in window.findChildren(QComboBox)]
    return "\n".join(parts)


def _finish(field: QWidget, qtbot: QtBot, text: str) -> None:
    assert isinstance(field, QLineEdit), type(field).__name__
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, text) if text else field.clear()
    qtbot.keyClick(field, Qt.Key.Key_Return)  # editingFinished, as the person presses Enter


# --- preferences ---------------------------------------------------------------------------


def test_each_preference_is_edited_by_its_type_and_written_at_once(
    tmp_path: Path, qtbot: QtBot, ring: MemoryKeyring
) -> None:
    window = _window(tmp_path, qtbot)
    rows = window.preference_rows
    assert isinstance(rows["signature"].control, QLineEdit)
    assert isinstance(rows["section"].control, QComboBox)
    assert isinstance(rows["notifyEditors"].control, QCheckBox)
    assert isinstance(rows["maxDrafts"].control, QLineEdit)
    assert rows["signature"].control.text() == "The desk"  # the default shows
    assert rows["section"].control.currentText() == "World"

    _finish(rows["signature"].control, qtbot, "Ada, night desk")
    qtbot.waitUntil(lambda: "signature" in window.preference_rows)
    rows = window.preference_rows
    section = rows["section"].control
    assert isinstance(section, QComboBox)
    section.setCurrentIndex(section.findData("culture"))
    _control(window, "notifyEditors", QCheckBox).click()
    _finish(window.preference_rows["maxDrafts"].control, qtbot, "50")

    assert _file(window)["integrations"][NEWS]["preferences"] == {
        "signature": "Ada, night desk",
        "section": "culture",
        "notifyEditors": True,
        "maxDrafts": 50,
    }
    ring.entries[(f"notch:{NEWS}", "NEWSDESK_API_KEY")] = SECRET
    window.book.set_value(NEWS, "auth", "NEWSDESK_WORKSPACE", "acme-news")
    manifest = window.catalog_provider().integration(NEWS)
    assert manifest is not None
    env = integration_environment(
        NEWS, manifest.auth, manifest.preferences, settings_path=window.book.path
    )
    assert env["notifyEditors"] == "true" and env["maxDrafts"] == "50"
    assert env["section"] == "culture" and env["NEWSDESK_API_KEY"] == SECRET


def test_a_number_that_is_not_one_is_explained_and_nothing_is_written(
    tmp_path: Path, qtbot: QtBot, ring: MemoryKeyring
) -> None:
    window = _window(tmp_path, qtbot)
    row = window.preference_rows["maxDrafts"]
    _finish(row.control, qtbot, "twenty")
    assert row.error.isVisible()
    assert "maxDrafts is a number" in row.error.text()
    assert not window.book.path.exists()  # nothing written


def test_emptying_a_text_preference_goes_back_to_the_default(
    tmp_path: Path, qtbot: QtBot, ring: MemoryKeyring
) -> None:
    window = _window(tmp_path, qtbot)
    _finish(window.preference_rows["signature"].control, qtbot, "Night desk")
    assert _file(window)["integrations"][NEWS]["preferences"]["signature"] == "Night desk"
    window.redraw()
    _finish(window.preference_rows["signature"].control, qtbot, "")
    assert "integrations" not in _file(window)  # the default is not stored
    window.redraw()
    assert _control(window, "signature", QLineEdit).text() == "The desk"


def test_a_value_edited_by_hand_that_no_longer_fits_is_shown_as_it_is(
    tmp_path: Path, qtbot: QtBot, ring: MemoryKeyring
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "notch-settings.json").write_text(
        json.dumps(
            {
                "version": 1,
                "integrations": {NEWS: {"preferences": {"section": "sport", "maxDrafts": "x"}}},
            }
        )
    )
    window = _window(tmp_path, qtbot)
    section = window.preference_rows["section"]
    assert _control(window, "section", QComboBox).currentText() == "sport (not an option)"
    assert "one of 'world', 'business', 'culture'" in section.error.text()
    assert _control(window, "maxDrafts", QLineEdit).text() == "x"
    assert "Choose or type a new one" in window.preference_rows["maxDrafts"].error.text()
    assert _file(window)["integrations"][NEWS]["preferences"]["section"] == "sport"  # kept


# --- API keys ------------------------------------------------------------------------------


def test_an_api_key_is_set_replaced_and_cleared_and_its_value_never_shows(
    tmp_path: Path, qtbot: QtBot, ring: MemoryKeyring
) -> None:
    window = _window(tmp_path, qtbot)
    row = window.api_keys.secret_rows["NEWSDESK_API_KEY"]
    assert row.state.text() == "Not set · required"
    assert row.set_button.text() == "Set…" and row.clear_button.isHidden()

    qtbot.mouseClick(row.set_button, Qt.MouseButton.LeftButton)
    assert row.value_field.echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClicks(row.value_field, SECRET)
    qtbot.mouseClick(row.save_button, Qt.MouseButton.LeftButton)
    assert ring.entries == {(f"notch:{NEWS}", "NEWSDESK_API_KEY"): SECRET}
    qtbot.waitUntil(lambda: window.api_keys.secret_rows["NEWSDESK_API_KEY"] is not row)

    row = window.api_keys.secret_rows["NEWSDESK_API_KEY"]
    assert row.state.text() == "Set"
    assert row.set_button.text() == "Replace…" and not row.clear_button.isHidden()
    assert SECRET not in _shown_text(window)
    assert not window.book.path.exists() or SECRET not in window.book.path.read_text()

    qtbot.mouseClick(row.set_button, Qt.MouseButton.LeftButton)
    assert row.value_field.text() == ""  # Replace… never shows the old value
    qtbot.keyClicks(row.value_field, "nd-live-replacement")
    qtbot.keyClick(row.value_field, Qt.Key.Key_Return)
    assert ring.entries[(f"notch:{NEWS}", "NEWSDESK_API_KEY")] == "nd-live-replacement"
    qtbot.waitUntil(lambda: window.api_keys.secret_rows["NEWSDESK_API_KEY"] is not row)

    asked: list[str] = []

    def confirm(title: str, text: str) -> bool:
        asked.append(title)
        return True

    window.confirm = confirm
    row = window.api_keys.secret_rows["NEWSDESK_API_KEY"]
    qtbot.mouseClick(row.clear_button, Qt.MouseButton.LeftButton)
    assert asked == ["Clear API key?"]
    assert ring.entries == {}
    qtbot.waitUntil(
        lambda: window.api_keys.secret_rows["NEWSDESK_API_KEY"].state.text() == "Not set · required"
    )


def test_cancel_keeps_nothing_and_an_empty_key_is_refused(
    tmp_path: Path, qtbot: QtBot, ring: MemoryKeyring
) -> None:
    window = _window(tmp_path, qtbot)
    row = window.api_keys.secret_rows["NEWSDESK_WEBHOOK_SECRET"]
    assert row.state.text() == "Not set"
    qtbot.mouseClick(row.set_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(row.value_field, SECRET)
    qtbot.mouseClick(row.cancel_button, Qt.MouseButton.LeftButton)
    assert row.editor.isHidden() and row.value_field.text() == ""
    qtbot.mouseClick(row.set_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(row.save_button, Qt.MouseButton.LeftButton)
    assert "empty" in row.error.text() and row.error.isVisible()
    assert ring.entries == {}


def test_a_field_that_is_not_secret_is_kept_in_the_settings_file(
    tmp_path: Path, qtbot: QtBot, ring: MemoryKeyring
) -> None:
    window = _window(tmp_path, qtbot)
    field = window.api_keys.plain_rows["NEWSDESK_WORKSPACE"].value_field
    assert field.echoMode() == QLineEdit.EchoMode.Normal
    _finish(field, qtbot, "acme-news")
    assert _file(window)["integrations"][NEWS]["auth"] == {"NEWSDESK_WORKSPACE": "acme-news"}
    assert ring.entries == {}


def test_without_a_keyring_the_page_says_why_and_the_buttons_are_off(
    tmp_path: Path, qtbot: QtBot
) -> None:
    before = keyring.get_keyring()
    # keyring leaves the backends' __init__ unannotated.
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]
    try:
        window = _window(tmp_path, qtbot)
        note = window.api_keys.note
        assert note is not None and "No OS keyring" in note.text()
        assert "plain-text file" in note.text()
        row = window.api_keys.secret_rows["NEWSDESK_API_KEY"]
        assert not row.set_button.isEnabled()
        assert row.state.text() == "Not set · required"
        # The plain field and the preferences still work: they need no keyring.
        assert window.api_keys.plain_rows["NEWSDESK_WORKSPACE"].value_field.isEnabled()
    finally:
        keyring.set_keyring(before)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshot(tmp_path: Path, qtbot: QtBot, ring: MemoryKeyring, theme: ThemeName) -> None:
    """Renders the page to artifacts/ to look at: one key set, one editor open, a bad value."""
    ring.entries[(f"notch:{NEWS}", "NEWSDESK_API_KEY")] = SECRET
    window = _window(tmp_path, qtbot, theme)
    window.book.set_value(NEWS, "preferences", "notifyEditors", True)
    QApplication.processEvents()  # the page's own redraw for that change, no waiting
    window.api_keys.secret_rows["NEWSDESK_WEBHOOK_SECRET"].open_editor()
    _finish(window.preference_rows["maxDrafts"].control, qtbot, "lots")
    QApplication.processEvents()  # the page's posted layout requests, no waiting
    image = window.grab().toImage()
    assert not image.isNull() and image.width() == 720
    ARTIFACTS.mkdir(exist_ok=True)
    image.save(str(ARTIFACTS / f"settings-integration-prefs-{theme}.png"))
    assert SECRET not in _shown_text(window)

"""The studio follows the folder: every save refreshes it, a broken save keeps the last
valid card dimmed with the problem listed at its line:column, and a problem opens the
file at its line in the author's editor."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from notch_app.ui.studio import StudioWindow
from notch_app.ui.studio.card_stage import LAST_VALID
from notch_app.ui.studio.editor_launch import (
    NO_EDITOR,
    EditorUnavailable,
    editor_argv,
    open_in_editor,
)

RELOAD_MS = 3000
"""How long a test waits for a refresh (the budget is 300 ms; a loaded 2-core CI runner
is slower, and the benchmark holds the budget)."""


def _retitle(folder: Path, title: str) -> str:
    """The manifest's text with send_email's card titled `title`."""
    manifest = json.loads((folder / "manifest.json").read_text())
    tool = next(t for t in manifest["tools"] if t["name"] == "send_email")
    tool["confirmation"]["root"]["title"] = title
    return json.dumps(manifest, indent=2)


def _title(window: StudioWindow) -> str:
    card = window.stage.card
    assert card is not None
    root = card.state().view.root
    return str(getattr(root, "title", ""))


def test_a_save_refreshes_the_card(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    count = window.reload_count
    (mail_folder / "manifest.json").write_text(_retitle(mail_folder, "Send it now"))
    qtbot.waitUntil(lambda: _title(window) == "Send it now", timeout=RELOAD_MS)
    assert window.reload_count == count + 1
    assert not window.stage.stale


def test_a_save_by_rename_refreshes_and_the_next_one_too(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    for title in ("Renamed once", "Renamed twice"):
        temporary = mail_folder / ".manifest.json.swp"
        temporary.write_text(_retitle(mail_folder, title))
        os.replace(temporary, mail_folder / "manifest.json")  # how vim and VS Code save

        def shows(wanted: str = title) -> bool:
            return _title(window) == wanted

        qtbot.waitUntil(shows, timeout=RELOAD_MS)


def test_an_editor_writing_twice_refreshes_once(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    count = window.reload_count
    path = mail_folder / "manifest.json"
    twice, changed = _retitle(mail_folder, "Written twice"), _retitle(mail_folder, "Then changed")
    path.write_text("")  # truncate, then the content: one save in two writes
    path.write_text(twice)
    qtbot.waitUntil(lambda: _title(window) == "Written twice", timeout=RELOAD_MS)
    path.write_text(twice)  # the same bytes again
    path.write_text(changed)
    qtbot.waitUntil(lambda: _title(window) == "Then changed", timeout=RELOAD_MS)
    # One refresh for the double write, none for the same bytes, one for the change.
    assert window.reload_count == count + 2
    assert not window.stage.stale


def test_a_broken_manifest_keeps_the_last_valid_card_dimmed_and_lists_the_problem(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    card = window.stage.card
    assert card is not None
    fixed = _retitle(mail_folder, "Fixed")
    broken = _retitle(mail_folder, "Send email").replace("{{subject}}", "{{subjcet}}", 1)
    (mail_folder / "manifest.json").write_text(broken)
    qtbot.waitUntil(lambda: window.stage.stale, timeout=RELOAD_MS)
    assert window.stage.card is card  # not blanked: the last valid card stays
    assert window.stage.card.isVisible()
    assert LAST_VALID in window.stage.stale_label.text()
    assert window.stage.stale_label.isVisible()
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if "{{subjcet}}" in text)
    column = broken.splitlines()[line - 1].index('"{{subjcet}}"') + 1
    rows = window.problems.texts()
    assert f"manifest.json:{line}:{column}: error[binding-unknown-argument]:" in "\n".join(rows)
    assert "Problems: 1 error" in window.problems.heading.text()

    (mail_folder / "manifest.json").write_text(fixed)
    qtbot.waitUntil(lambda: not window.stage.stale, timeout=RELOAD_MS)
    assert _title(window) == "Fixed"
    assert window.problems.texts() == []


def test_a_file_that_is_not_json_at_all_never_crashes_the_window(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    (mail_folder / "manifest.json").write_bytes(b"\xff\xfe\x00garbage{{{" * 1000)
    qtbot.waitUntil(lambda: window.stage.stale, timeout=RELOAD_MS)
    assert window.problems.texts()
    (mail_folder / "preview.json").write_text('{"schemaVersion": 1, "tools": ')
    (mail_folder / "manifest.json").unlink()
    qtbot.waitUntil(
        lambda: "file-unreadable" in "\n".join(window.problems.texts()), timeout=RELOAD_MS
    )
    assert window.stage.card is not None


def test_a_studio_opened_on_a_broken_folder_says_so_in_place_of_the_card(
    open_studio: Callable[..., StudioWindow], mail_folder: Path
) -> None:
    (mail_folder / "manifest.json").write_text('{"schemaVersion": 1,')
    window = open_studio(mail_folder)
    assert window.stage.card is None
    assert "the manifest has errors" in window.stage.message.text()
    assert "json-syntax" in "\n".join(window.problems.texts())


def test_a_fixture_or_scenario_save_refreshes_too(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, qtbot: QtBot
) -> None:
    window = open_studio(mail_folder)
    preview = json.loads((mail_folder / "preview.json").read_text())
    preview["tools"]["send_email"]["args"]["subject"] = "From the fixture"
    (mail_folder / "preview.json").write_text(json.dumps(preview))
    qtbot.waitUntil(
        lambda: (
            window.stage.card is not None
            and window.stage.card.state().proposed.get("subject") == "From the fixture"
        ),
        timeout=RELOAD_MS,
    )
    scenario = json.loads((mail_folder / "scenarios" / "approve-with-edits.json").read_text())
    scenario["name"] = "A new scenario"
    (mail_folder / "scenarios" / "new.json").write_text(json.dumps(scenario))
    qtbot.waitUntil(
        lambda: (
            "Scenario: A new scenario"
            in [window.fixture.itemText(i) for i in range(window.fixture.count())]
        ),
        timeout=RELOAD_MS,
    )


def test_clicking_a_problem_shows_its_lines_with_the_column_marked_and_opens_the_editor(
    open_studio: Callable[..., StudioWindow], mail_folder: Path
) -> None:
    broken = _retitle(mail_folder, "Send email").replace("{{subject}}", "{{subjcet}}", 1)
    (mail_folder / "manifest.json").write_text(broken)
    asked: list[tuple[Path, int]] = []

    def opener(path: Path, line: int) -> list[str]:
        asked.append((path, line))
        return ["/usr/bin/fake-editor", f"+{line}", str(path)]

    window = open_studio(mail_folder, opener=opener)
    problem = window.problems.texts()[0]
    line, column = (int(n) for n in problem.split(":")[1:3])
    window.problems.lines_of(0)
    shown = window.problems.lines.toPlainText().splitlines()
    marked = next(i for i, text in enumerate(shown) if text.startswith(f">{line} |"))
    assert "{{subjcet}}" in shown[marked]
    caret = shown[marked + 1]
    gutter = shown[marked].index("| ") + 2
    assert caret.index("^") - gutter == column - 1
    assert shown[marked][gutter + column - 1] == '"'  # the caret is under the value
    window.problems.open_button.click()
    assert asked == [(mail_folder / "manifest.json", line)]
    assert "fake-editor" in window.problems.note.text()


def test_no_editor_set_is_a_clear_line_not_a_crash(
    open_studio: Callable[..., StudioWindow], mail_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (mail_folder / "manifest.json").write_text('{"schemaVersion": 1,')
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    window = open_studio(mail_folder)
    window.problems.lines_of(0)
    window.problems.open_button.click()
    assert window.problems.note.text() == NO_EDITOR


def test_editors_get_the_line_the_way_each_takes_it(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("vim", "code", "subl", "kate", "mystery"):
        program = bin_dir / name
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    file = tmp_path / "manifest.json"
    env = {"PATH": str(bin_dir)}
    assert editor_argv(file, 12, {**env, "EDITOR": "vim"})[1:] == ["+12", str(file)]
    assert editor_argv(file, 12, {**env, "VISUAL": "code --wait", "EDITOR": "vim"})[1:] == [
        "--wait",
        "--goto",
        f"{file}:12",
    ]
    assert editor_argv(file, 3, {**env, "EDITOR": "subl"})[1:] == [f"{file}:3"]
    assert editor_argv(file, 3, {**env, "EDITOR": "kate"})[1:] == ["--line", "3", str(file)]
    assert editor_argv(file, 3, {**env, "EDITOR": "mystery"})[1:] == [str(file)]
    with pytest.raises(EditorUnavailable, match="not found on PATH"):
        editor_argv(file, 3, {**env, "EDITOR": "nano-not-here"})
    with pytest.raises(EditorUnavailable, match="cannot be read as a command"):
        editor_argv(file, 3, {**env, "EDITOR": 'vim "unclosed'})


def test_the_editor_runs_detached_with_the_file_as_one_argument_never_through_a_shell(
    tmp_path: Path, qtbot: QtBot
) -> None:
    """A file name that a shell would run (`$(…)`, `;`) reaches the editor as one word."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "argv.txt"
    editor = bin_dir / "vim"
    editor.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}.part"\n/bin/mv "{record}.part" "{record}"\n'
    )
    editor.chmod(0o755)
    hostile = tmp_path / "x; touch PWNED $(touch PWNED2).json"
    hostile.write_text("{}")
    argv = open_in_editor(hostile, 7, {"PATH": str(bin_dir), "EDITOR": "vim"})
    assert argv[0] == str(editor)
    qtbot.waitUntil(record.exists, timeout=5000)
    assert record.read_text().splitlines() == ["+7", str(hostile)]
    assert not (tmp_path / "PWNED").exists() and not Path("PWNED2").exists()

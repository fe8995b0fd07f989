"""`notch init`: a new integration folder that is right the first time — it validates with
no warnings, its scenarios pass, its sample glance shows whole, and its server answers as
its preview fixture says."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from notch_app.cli import main

NOTCH = [sys.executable, "-m", "notch_app"]
MADE = {
    "icon.png",
    "manifest.json",
    "preview.json",
    "server.py",
    "scenarios/approve-with-an-edit.json",
    "scenarios/decline.json",
}


def init(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["init", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fresh(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A folder made by `notch init DIR --name "Team tasks"`, untouched."""
    folder = tmp_path / "team-tasks"
    code, _, err = init(tmp_path, capsys, str(folder), "--name", "Team tasks")
    assert code == 0, err
    return folder


def files_in(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def notch(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*NOTCH, *argv], capture_output=True, text=True, timeout=120, cwd=cwd, check=False
    )


def test_init_makes_the_folder_and_says_what_to_run_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "team-tasks"
    code, out, err = init(tmp_path, capsys, str(folder), "--name", "Team tasks")
    assert (code, err) == (0, "")
    assert files_in(folder) == MADE
    assert f"({'dev.local.team-tasks'})" in out
    for step in ("notch preview", "notch validate", "notch test", "notch mcp"):
        assert step in out
    assert [p.name for p in tmp_path.iterdir()] == ["team-tasks"]  # no staging folder left


def test_the_folder_defaults_to_the_slug_of_the_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = init(tmp_path, capsys, "--name", "Café Notes")
    assert code == 0
    assert files_in(tmp_path / "cafe-notes") == MADE
    assert out.startswith("Made cafe-notes (dev.local.cafe-notes):")


def test_an_empty_existing_folder_is_filled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    code, _, err = init(tmp_path, capsys, str(folder), "--name", "Tasks")
    assert code == 0, err
    assert files_in(folder) == MADE


def test_the_manifest_has_an_acting_tool_with_its_card_and_a_read_tool(fresh: Path) -> None:
    manifest = json.loads((fresh / "manifest.json").read_text())
    assert manifest["id"] == "dev.local.team-tasks"
    assert manifest["name"] == "Team tasks"
    assert manifest["icon"] == "icon.png"
    assert manifest["runtime"] == {"kind": "local-mcp", "command": "python", "args": ["server.py"]}
    acting, read = manifest["tools"]
    card = acting["confirmation"]["root"]
    assert any(c.get("required") and c["bind"] == "{{title}}" for c in card["children"])
    (actions,) = card["footer"]
    confirm = next(i for i in actions["items"] if i["role"] == "confirm")
    assert confirm["label"] == "Add item"  # names what happens, not "Confirm"
    assert read["annotations"] == {"readOnlyHint": True} and "confirmation" not in read
    fixture = json.loads((fresh / "preview.json").read_text())["tools"]
    assert set(fixture) == {acting["name"], read["name"]}
    assert fixture[read["name"]]["expectedGlanceBlocks"] == 2


def test_notch_validate_passes_with_no_warnings(fresh: Path) -> None:
    done = notch("validate", str(fresh), cwd=fresh.parent)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_notch_test_passes_both_scenarios(fresh: Path) -> None:
    scenarios = sorted(str(p) for p in (fresh / "scenarios").glob("*.json"))
    done = notch("test", *scenarios, cwd=fresh.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "PASS team-tasks: add an item after changing its words and priority",
        "PASS team-tasks: the person declines, nothing is added",
        "2 passed, 0 failed",
    ]


def test_the_sample_results_glance_passes_glance_check(
    fresh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture = json.loads((fresh / "preview.json").read_text())
    result = tmp_path / "result.json"
    result.write_text(json.dumps(fixture["tools"]["list_items"]["result"]))
    assert main(["glance", "check", str(result)]) == 0
    assert capsys.readouterr().out == "2 blocks would show: header, list\n"


def test_the_server_answers_as_the_preview_fixture_says(fresh: Path) -> None:
    """The sample result in preview.json is what server.py returns for the sample args, so
    the glance the author previews is the one people will see."""
    server: dict[str, Any] = runpy.run_path(str(fresh / "server.py"), run_name="scaffold")
    fixture = json.loads((fresh / "preview.json").read_text())["tools"]
    assert server["list_items"](**fixture["list_items"]["args"]) == fixture["list_items"]["result"]
    created = server["create_item"](**fixture["create_item"]["args"])
    assert created["created"] | {"id": "item-3"} == {
        "id": "item-3",
        **fixture["create_item"]["args"],
    }
    newest = server["list_items"](limit=1)
    assert newest["items"][0]["title"] == "Book the team lunch"  # what it added, read back


def test_the_icon_is_a_square_png_with_a_letter_on_it(fresh: Path) -> None:
    from PySide6.QtGui import QImage

    icon = QImage(str(fresh / "icon.png"))
    assert (icon.width(), icon.height()) == (256, 256)
    middle = icon.pixelColor(128, 100)  # the T's bar crosses the middle near the top
    edge = icon.pixelColor(30, 128)
    white = (255, 255, 255)
    assert (middle.red(), middle.green(), middle.blue()) == white
    assert (edge.red(), edge.green(), edge.blue()) != white
    assert icon.pixelColor(0, 0).alpha() == 0  # rounded corners


def test_notch_mcp_starts_the_server_with_the_python_running_notch(fresh: Path) -> None:
    """`python` in the runtime is the interpreter that has the mcp SDK, whatever PATH an
    MCP client passes (setup.sh installs notch in a venv nobody activates)."""
    from notch_app.gateway.fronts import folder_front

    front = folder_front(fresh)
    assert front.command.command == sys.executable
    assert front.command.args == ("server.py",) and front.command.cwd == fresh
    assert front.integration_id == "dev.local.team-tasks"


def test_an_own_id_is_used_as_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "tasks"
    code, _, err = init(
        tmp_path, capsys, str(folder), "--name", "Tasks", "--id", "com.example.tasks"
    )
    assert code == 0, err
    assert json.loads((folder / "manifest.json").read_text())["id"] == "com.example.tasks"


def test_a_name_with_quotes_and_backslashes_is_only_ever_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An author's name is data in every file: it cannot end a JSON string or run as code
    in server.py."""
    name = 'Ana\'s "to-do" \\ list"; import os; os.mkdir("pwned") #'[:60]
    folder = tmp_path / "quoted"
    code, _, err = init(tmp_path, capsys, str(folder), "--name", name)
    assert code == 0, err
    assert json.loads((folder / "manifest.json").read_text())["name"] == name
    server: dict[str, Any] = runpy.run_path(str(folder / "server.py"), run_name="scaffold")
    assert server["NAME"] == name
    assert not (folder / "pwned").exists() and not Path("pwned").exists()
    done = notch("validate", str(folder), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")

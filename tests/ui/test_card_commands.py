"""`notch render` and `notch test`, run in-process through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

from notch_app.cli import main

ROOT = Path(__file__).resolve().parents[2]
FILES = ROOT / "manifests" / "files"


def test_render_writes_the_card_png(qtbot: Any, tmp_path: Path) -> None:
    out = tmp_path / "card.png"
    assert main(["render", str(FILES), "--tool", "delete_files", "--fixture", "-o", str(out)]) == 0
    image = QImage(str(out))
    assert image.width() == 440 and image.height() > 150
    assert image.pixelColor(0, 0).alpha() == 0  # rounded corner: transparent
    assert image.pixelColor(220, image.height() // 2).alpha() > 200  # the glass


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--tool", "nope", "--fixture"], "tools with cards: delete_files, move_file"),
        (["--tool", "delete_files", "--args", '{"paths": [1,}'], "--args:1:14"),
        (["--tool", "delete_files", "--args", '{"paths": "x"}'], "paths"),
    ],
)
def test_render_errors_are_clear_and_exit_2(
    qtbot: Any, tmp_path: Path, capsys: Any, argv: list[str], said: str
) -> None:
    code = main(["render", str(FILES), *argv, "-o", str(tmp_path / "x.png")])
    assert code == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_notch_test_passes_the_bundled_scenarios(qtbot: Any, capsys: Any) -> None:
    files = sorted(str(p) for p in (ROOT / "manifests").glob("*/scenarios/*.json"))
    assert main(["test", *files]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == f"{len(files)} passed, 0 failed"
    assert all(line.startswith("PASS ") for line in lines[:-1])


def test_notch_test_reports_a_failing_scenario_and_exits_1(
    qtbot: Any, tmp_path: Path, capsys: Any
) -> None:
    scenario = json.loads((FILES / "scenarios" / "delete-approve.json").read_text())
    scenario["manifest"] = str(FILES)
    scenario["name"] = "keeps folders"
    scenario["finalArguments"]["remove_empty_folders"] = False
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario))
    assert main(["test", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL keeps folders: finalArguments differ: remove_empty_folders is True" in out
    assert out.splitlines()[-1] == "0 passed, 1 failed"


def test_notch_test_places_an_invalid_scenario_and_exits_2(
    qtbot: Any, tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "manifest": "x",\n  "tool": "t",\n  "arguments": {},\n'
                    '  "steps": [{"prss": "confirm"}],\n  "outcome": "approved"\n}\n')  # fmt: skip
    assert main(["test", str(path)]) == 2
    err = capsys.readouterr().err
    assert ":5:13: error[scenario-step]" in err

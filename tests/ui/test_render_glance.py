"""`notch render --glance RESULT.json -o OUT.png`: a tool result's glance as the notch
shows it, with every dropped block named as `notch glance check` names it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

from notch_app.cli import main

GLANCE = {
    "blocks": [
        {"type": "header", "icon": "sun", "title": "Madrid today", "trailing": "9:40"},
        {
            "type": "stats",
            "items": [{"label": "Now", "value": "24°"}, {"label": "High", "value": 31}],
        },
    ]
}


def _write(tmp_path: Path, value: Any, name: str = "result.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    return path


def _render(tmp_path: Path, result: Path, *extra: str) -> tuple[int, Path]:
    out = tmp_path / "glance.png"
    return main(["render", "--glance", str(result), "-o", str(out), *extra]), out


def test_a_results_glance_is_drawn(qtbot: Any, tmp_path: Path, capsys: Any) -> None:
    result = _write(tmp_path, {"temperature": 24, "_voiceos_glance": GLANCE})
    code, out = _render(tmp_path, result)
    assert code == 0
    image = QImage(str(out))
    assert image.width() == 440 and 60 < image.height() < 300
    said = capsys.readouterr()
    assert said.out.startswith(f"wrote {out} (440×")
    assert "header, stats" in said.out
    assert said.err == ""


def test_theme_and_width_are_honoured(qtbot: Any, tmp_path: Path) -> None:
    result = _write(tmp_path, {"_voiceos_glance": GLANCE})
    dark_code, dark = _render(tmp_path, result, "--width", "320")
    dark_image = QImage(str(dark))
    light_code, light = _render(tmp_path, result, "--theme", "light", "--width", "320")
    light_image = QImage(str(light))
    assert dark_code == light_code == 0
    assert dark_image.width() == light_image.width() == 320
    middle = (160, dark_image.height() // 2)
    assert dark_image.pixelColor(*middle).lightness() < light_image.pixelColor(*middle).lightness()


@pytest.mark.parametrize(
    "shape",
    [
        lambda g: {"structuredContent": {"_voiceos_glance": g}, "content": []},
        lambda g: {"content": [{"type": "text", "text": json.dumps({"_voiceos_glance": g})}]},
        lambda g: {
            "jsonrpc": "2.0",
            "id": 3,
            "result": {"structuredContent": {"_voiceos_glance": g}},
        },
    ],
    ids=["structuredContent", "json-text-content", "json-rpc-response"],
)
def test_mcp_shapes_are_read_as_glance_check_reads_them(
    qtbot: Any, tmp_path: Path, shape: Any
) -> None:
    code, out = _render(tmp_path, _write(tmp_path, shape(GLANCE)))
    assert code == 0 and out.exists()


def test_dropped_blocks_are_named_as_glance_check_names_them(
    qtbot: Any, tmp_path: Path, capsys: Any
) -> None:
    glance = {
        "blocks": [
            {"type": "header", "title": "Inbox"},
            {"type": "list", "rows": [{"title": f"Mail {i}"} for i in range(8)]},
            {"type": "bars", "labels": ["a"], "values": [1]},
            {"type": "line", "points": [1, 2]},
        ]
    }
    result = _write(tmp_path, {"_voiceos_glance": glance})
    code, out = _render(tmp_path, result)
    rendered = capsys.readouterr().err.splitlines()
    assert code == 0 and out.exists()  # the header and the bars still show
    assert main(["glance", "check", str(result)]) == 1
    checked = capsys.readouterr().out.splitlines()
    assert rendered == checked
    assert rendered[0].startswith(f"{result}:1:")
    assert rendered[0].endswith("block 1 (list): rows: 8 rows, at most 6 show; keep the first 6")
    assert any("block 3 (line)" in line and "at most one chart" in line for line in rendered)


def test_nothing_to_show_exits_1_and_draws_nothing(qtbot: Any, tmp_path: Path, capsys: Any) -> None:
    result = _write(
        tmp_path, {"_voiceos_glance": {"blocks": [{"type": "button", "label": "Approve"}]}}
    )
    code, out = _render(tmp_path, result)
    err = capsys.readouterr().err
    assert code == 1
    assert not out.exists()
    assert "block 0 (button): type: 'button' is not a glance block" in err
    assert "nothing drawn" in err


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"temperature": 24}', "no _voiceos_glance here"),
        ('{"_voiceos_glance": {"blocks": [1,}', "json"),
        ("[1, 2, 3]", "no _voiceos_glance here"),
    ],
    ids=["no-glance", "bad-json", "not-an-object"],
)
def test_unreadable_results_exit_2_with_the_place(
    qtbot: Any, tmp_path: Path, capsys: Any, content: str, said: str
) -> None:
    result = tmp_path / "result.json"
    result.write_text(content, encoding="utf-8")
    code, out = _render(tmp_path, result)
    err = capsys.readouterr().err
    assert code == 2
    assert str(result) in err and said in err.lower()
    assert not out.exists()
    assert "Traceback" not in err


def test_a_missing_file_is_named(qtbot: Any, tmp_path: Path, capsys: Any) -> None:
    code, _ = _render(tmp_path, tmp_path / "nope.json")
    assert code == 2
    assert "nope.json" in capsys.readouterr().err


def test_card_options_with_glance_are_refused(qtbot: Any, tmp_path: Path, capsys: Any) -> None:
    result = _write(tmp_path, {"_voiceos_glance": GLANCE})
    out = tmp_path / "x.png"
    code = main(
        [
            "render",
            "manifests/mail",
            "--glance",
            str(result),
            "--tool",
            "send_email",
            "-o",
            str(out),
        ]
    )
    assert code == 2
    assert "MANIFEST_OR_FOLDER, --tool are for a card" in capsys.readouterr().err
    assert not out.exists()


def test_a_card_still_needs_its_manifest_and_tool(qtbot: Any, tmp_path: Path, capsys: Any) -> None:
    code = main(["render", "-o", str(tmp_path / "x.png")])
    assert code == 2
    assert "give MANIFEST_OR_FOLDER and --tool NAME" in capsys.readouterr().err


def test_a_hostile_result_is_bounded(qtbot: Any, tmp_path: Path, capsys: Any) -> None:
    # Thousands of blocks, a 10,000-character title, bidi tricks: a few lines, one bounded picture.
    blocks = [{"type": "header", "title": "\u202e" + "W" * 10_000}] + [
        {"type": "header", "title": f"H{i}\u200b"} for i in range(5000)
    ]
    result = _write(tmp_path, {"_voiceos_glance": {"blocks": blocks}})
    code, out = _render(tmp_path, result)
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    assert len(err) < 40
    assert "block 0 (header): title: 10001 characters, at most 60 show" in err[0]
    image = QImage(str(out))
    assert image.width() == 440 and image.height() < 300

"""`notch glance check RESULT.json`: what an author sees for a tool result's glance."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from notch_app.cli import main

HEADER = {"type": "header", "title": "WhatsApp", "appIcon": "whatsapp", "icon": "message"}
PAIRS = {"type": "keyValue", "pairs": [["To", "Ana"], ["Message", "On my way"]]}
BADGES = {"type": "badges", "items": [{"text": "Delivered", "tone": "good"}]}


def check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, *flags: str
) -> tuple[int, str, str]:
    """Write `content` (JSON, or text as is) to RESULT.json and run the command on it."""
    path = tmp_path / "RESULT.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=1))
    code = main(["glance", "check", *flags, str(path)])
    out, err = capsys.readouterr()
    return code, out.replace(str(path), "RESULT.json"), err.replace(str(path), "RESULT.json")


def test_every_block_shows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = {"ok": True, "_voiceos_glance": {"blocks": [HEADER, PAIRS, BADGES]}}
    code, out, err = check(tmp_path, capsys, result)
    assert (code, out, err) == (0, "3 blocks would show: header, keyValue, badges\n", "")


def test_each_dropped_block_is_one_line_at_its_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"title": f"r{i}"} for i in range(8)]
    text = (
        '{"_voiceos_glance": {"blocks": [\n'
        '  {"type": "header", "title": "Mail"},\n'
        '  {"type": "header", "title": "Mail", "icon": "rocket"},\n'
        f'  {{"type": "list", "rows": {json.dumps(rows)}}}\n'
        "]}}\n"
    )
    code, out, err = check(tmp_path, capsys, text)
    assert code == 1
    assert out.splitlines() == [
        "RESULT.json:3:47: block 1 (header): icon: 'rocket' is not a glance icon; use one of "
        "calendar, clock, timer, bed, car, mail, message, music, sun, moon, cloud, rain, star, "
        "folder, file, globe, pin, phone, person, heart, bolt, check, x, mic, note, list, "
        "battery, chart, dollar, home, wifi, coffee, plane, sparkle",
        "RESULT.json:4:28: block 2 (list): rows: 8 rows, at most 6 show; keep the first 6",
    ]
    assert err == "1 block would show: header\n"
    assert text.splitlines()[2][46:54] == '"rocket"'  # the column points at the value


def test_more_than_three_blocks_and_a_second_chart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = {"type": "line", "points": [1, 2]}
    bars = {"type": "bars", "labels": ["a"], "values": [1]}
    result = {"_voiceos_glance": {"blocks": [line, bars, HEADER, PAIRS, BADGES]}}
    code, out, _ = check(tmp_path, capsys, result)
    assert code == 1
    assert [line.split(": ", 2)[1:] for line in out.splitlines()] == [
        ["block 1 (bars)", "chart: a glance shows at most one chart (bars, line, splitBar) "
         "and block 0 is one; remove this one or show its figures as stats"],
        ["block 4 (badges)", "blocks: a glance shows at most 3 blocks and 3 came before "
         "this one; remove it or fold it into another block"],
    ]  # fmt: skip


def test_an_mcp_result_says_which_part_was_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # How the public VoiceOS integrations return it: JSON in a text content item.
    payload = {"ok": True, "_voiceos_glance": {"blocks": [HEADER, PAIRS]}}
    mcp = {"content": [{"type": "text", "text": json.dumps(payload)}]}
    assert check(tmp_path, capsys, mcp)[:2] == (
        0,
        "2 blocks would show: header, keyValue (read from content[0].text (JSON in a text item))\n",
    )
    structured = {"content": [], "structuredContent": payload}
    assert check(tmp_path, capsys, structured)[1] == (
        "2 blocks would show: header, keyValue (read from structuredContent)\n"
    )
    rpc = {"jsonrpc": "2.0", "id": 4, "result": {"structuredContent": payload}}
    assert check(tmp_path, capsys, rpc)[1] == (
        "2 blocks would show: header, keyValue (read from result.structuredContent)\n"
    )


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = {"_voiceos_glance": {"blocks": [HEADER, {"type": "table"}]}}
    code, out, err = check(tmp_path, capsys, result, "--json")
    assert code == 1 and err == ""
    found = json.loads(out)
    assert found["shown"] == ["header"]
    assert found["readFrom"] == "the result's top level"
    [dropped] = found["dropped"]
    assert dropped["index"] == 1 and dropped["kind"] == "table"
    assert dropped["pointer"] == "/_voiceos_glance/blocks/1/type"
    assert dropped["reason"].startswith("type: 'table' is not a glance block")
    assert (dropped["line"], dropped["column"]) > (1, 0)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"_voiceos_glance": {"blocks": [}}', "RESULT.json:1:33: invalid JSON: Expecting value"),
        ({"ok": True, "data": {"_voiceos_glance": {}}}, "RESULT.json:1:1: no _voiceos_glance "
         "here: a tool's result carries it at its top level"),
        ("[1, 2]", "RESULT.json:1:1: no _voiceos_glance here"),
        ('{"_voiceos_glance": NaN}', "RESULT.json:1:21: NaN is not valid JSON"),
    ],
)  # fmt: skip
def test_unreadable_results_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, message: str
) -> None:
    code, out, err = check(tmp_path, capsys, content)
    assert (code, out) == (2, "")
    assert err.startswith(message)


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["glance", "check", str(tmp_path / "nope.json")])
    assert code == 2
    assert "cannot read" in capsys.readouterr().err


def test_an_empty_or_malformed_glance_is_not_silent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = check(tmp_path, capsys, {"_voiceos_glance": {"blocks": []}})
    assert code == 1
    assert out.endswith(": blocks: empty; a glance needs 1 to 3 blocks\n")
    assert err == "0 blocks would show\n"
    code, out, _ = check(tmp_path, capsys, {"_voiceos_glance": "header"})
    assert code == 1
    assert '_voiceos_glance: text, not an object; write {"blocks": [...]}' in out


def test_hostile_text_is_named_per_block_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A lone surrogate escape and a number that overflows: valid JSON, unshowable values.
    text = (
        '{"_voiceos_glance": {"blocks": [{"type": "header", "title": "a\\ud800"}, '
        '{"type": "line", "points": [1, 1e999]}, {"type": "divider"}]}}'
    )
    code, out, err = check(tmp_path, capsys, text)
    assert code == 1
    assert [line.split(": ", 1)[1] for line in out.splitlines()] == [
        "block 0 (header): title: holds a lone surrogate character; remove it (plain text only)",
        "block 1 (line): points[1]: must be a finite number within ±1e15",
    ]
    assert err == "1 block would show: divider\n"


def test_a_deeply_nested_result_is_refused_not_recursed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = '{"_voiceos_glance": ' + "[" * 100_000 + "]" * 100_000 + "}"
    code, _, err = check(tmp_path, capsys, text)
    assert code == 2
    assert "nested more than 64 levels" in err
    inner = "[" * 5000 + "]" * 5000
    mcp = {"content": [{"type": "text", "text": '{"_voiceos_glance": ' + inner + "}"}]}
    code, _, err = check(tmp_path, capsys, mcp)
    assert code == 2
    assert "no _voiceos_glance here" in err


def test_glance_is_listed_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "glance" in capsys.readouterr().out
    assert main(["glance", "--help"]) == 0
    assert "check" in capsys.readouterr().out

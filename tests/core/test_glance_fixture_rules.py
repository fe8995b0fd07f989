"""`notch validate` on preview fixtures' glances: `expectedGlanceBlocks` and an optional
sample `result` (fixture-glance-count, glance-block-dropped)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from notch_app.cli import main
from notch_app.manifest.reading import Problem
from notch_app.manifest.rules import RULES
from notch_app.manifest.validate import validate_path

MAIL = Path(__file__).resolve().parents[2] / "manifests" / "mail"
GLANCE_RULES = {"fixture-glance-count", "glance-block-dropped"}


@pytest.fixture
def mail(tmp_path: Path) -> Path:
    folder = tmp_path / "mail"
    shutil.copytree(MAIL, folder)
    return folder


def with_entries(folder: Path, **entries: dict[str, Any]) -> list[Problem]:
    """The glance problems of the mail fixtures with these keys added to tool entries."""
    preview = folder / "preview.json"
    data = json.loads(preview.read_text(encoding="utf-8"))
    for tool, extra in entries.items():
        data["tools"][tool].update(extra)
    preview.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return [p for p in validate_path(folder) if p.rule in GLANCE_RULES]


def glance(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True, "_voiceos_glance": {"blocks": list(blocks)}}


HEADER = {"type": "header", "title": "Mail", "icon": "mail"}
PAIRS = {"type": "keyValue", "pairs": [["To", "ana@example.com"]]}


def test_the_rule_ids_are_known_and_listed_in_the_readme() -> None:
    readme = (MAIL.parents[1] / "README.md").read_text(encoding="utf-8")
    for rule in GLANCE_RULES:
        assert rule in RULES
        assert rule in readme
    assert RULES["glance-block-dropped"].startswith("(warning)")


def test_a_count_that_can_show_with_no_result_is_fine(mail: Path) -> None:
    assert with_entries(mail, send_email={"expectedGlanceBlocks": 2}) == []
    assert with_entries(mail, send_email={"expectedGlanceBlocks": 0}) == []


def test_more_than_three_expected_blocks_can_never_show(mail: Path) -> None:
    [problem] = with_entries(mail, send_email={"expectedGlanceBlocks": 4})
    assert (problem.rule, problem.severity, problem.pointer) == (
        "fixture-glance-count",
        "error",
        "/tools/send_email/expectedGlanceBlocks",
    )
    assert problem.message == (
        "expectedGlanceBlocks is 4, but a glance shows at most 3 blocks; expect 0 to 3"
    )


def test_a_sample_result_that_matches(mail: Path) -> None:
    entry = {"expectedGlanceBlocks": 2, "result": glance(HEADER, PAIRS)}
    assert with_entries(mail, search_mail=entry) == []


def test_each_dropped_block_is_a_warning_and_the_count_an_error(mail: Path) -> None:
    rows = [{"title": f"r{i}"} for i in range(8)]
    entry = {
        "expectedGlanceBlocks": 2,
        "result": glance(HEADER, {"type": "list", "rows": rows}),
    }
    dropped, count = sorted(with_entries(mail, search_mail=entry), key=lambda p: p.rule)[::-1]
    assert (dropped.rule, dropped.severity) == ("glance-block-dropped", "warning")
    assert dropped.pointer == "/tools/search_mail/result/_voiceos_glance/blocks/1/rows"
    assert dropped.message == (
        "block 1 (list) of the sample result would not show: rows: 8 rows, at most 6 show; "
        "keep the first 6"
    )
    assert (count.rule, count.severity) == ("fixture-glance-count", "error")
    assert count.message == (
        "expectedGlanceBlocks is 2, but 1 block of the sample result would show (header); "
        "fix the result's glance or the expected count"
    )
    preview = (mail / "preview.json").read_text(encoding="utf-8").splitlines()
    assert preview[dropped.line - 1][dropped.column - 1] == "["  # at the rows list


def test_a_result_without_a_glance_but_blocks_expected(mail: Path) -> None:
    [problem] = with_entries(
        mail, search_mail={"expectedGlanceBlocks": 1, "result": {"ok": True, "messages": []}}
    )
    assert problem.rule == "fixture-glance-count"
    assert "the sample result carries no _voiceos_glance" in problem.message


def test_an_mcp_shaped_sample_result_is_read(mail: Path) -> None:
    text = json.dumps(glance(HEADER, PAIRS, {"type": "table"}))
    entry = {"expectedGlanceBlocks": 2, "result": {"content": [{"type": "text", "text": text}]}}
    [problem] = with_entries(mail, search_mail=entry)
    assert problem.rule == "glance-block-dropped"
    assert problem.pointer == "/tools/search_mail/result/content/0/text"
    assert "block 2 (table) of the sample result would not show: type: 'table'" in problem.message


def test_a_result_that_is_not_an_object_is_a_structure_error(mail: Path) -> None:
    preview = mail / "preview.json"
    data = json.loads(preview.read_text(encoding="utf-8"))
    data["tools"]["search_mail"]["result"] = "ok"
    preview.write_text(json.dumps(data, indent=2), encoding="utf-8")
    problems = validate_path(mail)
    assert any(p.pointer == "/tools/search_mail/result" and p.is_error for p in problems)


def test_a_hostile_sample_glance_is_reported_not_crashed(mail: Path) -> None:
    blocks = [{"type": "header", "title": "x" * 10_000}] + [{"type": "divider"}] * 200
    entry = {"expectedGlanceBlocks": 3, "result": {"_voiceos_glance": {"blocks": blocks}}}
    problems = with_entries(mail, search_mail=entry)
    assert all(p.rule == "glance-block-dropped" for p in problems)
    assert len(problems) <= 40
    assert problems[0].message.startswith(
        "block 0 (header) of the sample result would not show: title: 10000 characters"
    )


def test_validate_exits_1_on_a_glance_count_error(
    mail: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with_entries(mail, send_email={"expectedGlanceBlocks": 9})
    assert main(["validate", str(mail)]) == 1
    assert "error[fixture-glance-count]" in capsys.readouterr().out

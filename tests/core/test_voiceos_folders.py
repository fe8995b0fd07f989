"""VoiceOS integration folders load unchanged: `voiceos.integration.json` is the manifest,
`voiceos.integration.preview.json` its fixture, the acting-tool rule follows the spec's
verbs, and every tool that must ask has a card to show (its own, or a generated one).

The folders under tests/fixtures/voiceos are this project's own, written in the shape
real VoiceOS folders have (runtime, auth, preferences, execution, widgets, glance rows).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from notch_app.cli import main
from notch_app.manifest.acting import must_ask
from notch_app.manifest.integration import load_integration
from notch_app.manifest.reading import discover_integrations
from notch_app.manifest.validate import validate_path
from notch_app.runtime.catalog import Catalog

FOLDERS = Path(__file__).resolve().parents[1] / "fixtures" / "voiceos"
ALL = sorted(p.name for p in FOLDERS.iterdir() if p.is_dir())


@pytest.mark.parametrize("name", ALL)
def test_each_folder_validates_with_exit_0(name: str, capsys: Any) -> None:
    code = main(["validate", str(FOLDERS / name)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "error[" not in out


@pytest.mark.parametrize("name", ALL)
def test_each_folder_loads_and_every_tool_that_must_ask_has_a_card(name: str) -> None:
    integration, problems = load_integration(FOLDERS / name)
    assert integration is not None, [p.format() for p in problems if p.is_error]
    assert integration.manifest_path.name == "voiceos.integration.json"
    catalog = Catalog.load([FOLDERS / name])[0]
    entry = catalog.entry(integration.manifest.id)
    assert entry is not None
    for tool in entry.manifest.tools:
        if must_ask(tool, has_card=tool.confirmation is not None):
            assert tool.confirmation is not None, f"{tool.name} would ask with nothing to show"


def test_the_fixture_is_found_beside_the_manifest() -> None:
    integration, _ = load_integration(FOLDERS / "task-runner")
    assert integration is not None and integration.fixtures is not None
    assert "run_task" in integration.fixtures.tools
    assert integration.fixtures.tools["task_status"].expected_glance_blocks == 2


def test_a_folder_of_voiceos_folders_is_searched_like_one_of_notchs() -> None:
    found = discover_integrations(FOLDERS)
    assert sorted(p.parent.name for p in found.manifests) == ALL
    assert all(p.name == "voiceos.integration.json" for p in found.manifests)
    # package.json and friends beside a server are never taken for a manifest.
    assert not any(p.name == "package.json" for p in found.manifests)


def test_validating_the_fixture_file_checks_it_with_its_manifest(capsys: Any) -> None:
    fixture = FOLDERS / "task-runner" / "voiceos.integration.preview.json"
    assert main(["validate", str(fixture)]) == 0
    out = capsys.readouterr().out
    assert "missing required property 'id'" not in out
    assert "'tools' must be a list" not in out


def test_a_fixture_under_any_name_is_told_by_its_shape(tmp_path: Path, capsys: Any) -> None:
    sample = tmp_path / "samples.json"
    sample.write_text(json.dumps({"schemaVersion": 1, "tools": {"run": {"args": {}}}}))
    assert main(["validate", str(sample)]) == 0
    out = capsys.readouterr().out
    assert "fixture-without-manifest" in out and "missing required" not in out


def _voiceos_folder(tmp_path: Path, tool: dict[str, Any]) -> Path:
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "voiceos.integration.json").write_text(
        json.dumps(
            {
                "schemaVersion": 1,
                "id": "com.example.one",
                "version": "1.0.0",
                "name": "One",
                "tools": [tool],
            }
        )
    )
    return folder


SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}


@pytest.mark.parametrize("verb", ["send", "create", "delete", "update", "post", "book", "pay",
                                  "publish", "open"])  # fmt: skip
def test_a_spec_verb_without_a_card_is_an_error(tmp_path: Path, verb: str) -> None:
    folder = _voiceos_folder(tmp_path, {"name": f"{verb}_thing", "inputSchema": SCHEMA})
    problems = validate_path(folder)
    assert [p.rule for p in problems if p.is_error] == ["acting-tool-needs-confirmation"]


@pytest.mark.parametrize(
    "tool",
    [
        {"name": "cancel_agent", "inputSchema": SCHEMA},
        {"name": "remove_member", "inputSchema": SCHEMA},
        {"name": "transfer_funds", "inputSchema": SCHEMA},
        {"name": "archive", "inputSchema": SCHEMA, "annotations": {"destructiveHint": True}},
    ],
)
def test_other_acting_tools_warn_and_ask_with_a_generated_card(
    tmp_path: Path, tool: dict[str, Any]
) -> None:
    folder = _voiceos_folder(tmp_path, tool)
    problems = validate_path(folder)
    assert not [p.format() for p in problems if p.is_error]
    assert "acting-tool-without-card" in {p.rule for p in problems}
    catalog = Catalog.load([folder])[0]
    asked = catalog.tool("com.example.one", tool["name"])
    assert asked is not None and asked.confirmation is not None


def test_a_copy_of_a_folder_elsewhere_loads_the_same(tmp_path: Path) -> None:
    """Nothing depends on where the folder sits (a person installs it anywhere)."""
    copy = tmp_path / "installed" / "team-chat"
    shutil.copytree(FOLDERS / "team-chat", copy)
    integration, problems = load_integration(copy)
    assert integration is not None, [p.format() for p in problems if p.is_error]

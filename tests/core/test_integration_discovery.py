"""Loading a folder of integrations: every folder that is skipped is named with the reason,
and what was skipped is counted once per folder or manifest (not per problem line)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from notch_app.bundled import bundled_folder
from notch_app.cli import main
from notch_app.manifest.reading import MAX_SEARCH_DEPTH, discover_integrations
from notch_app.runtime.catalog import Catalog

BUNDLED = bundled_folder("manifests")


def _integration(target: Path, name: str = "mail") -> Path:
    shutil.copytree(BUNDLED / name, target)
    return target


def test_folders_of_a_kind_notch_does_not_know_are_named_with_the_reason(tmp_path: Path) -> None:
    # What an agent's plugin folder or a half-copied integration looks like on disk.
    (tmp_path / "claude-plugin").mkdir()
    (tmp_path / "claude-plugin" / "plugin.json").write_text("{}")
    (tmp_path / "mcp-server" / "src").mkdir(parents=True)
    (tmp_path / "mcp-server" / "src" / "server.py").write_text("print()")
    (tmp_path / ".git").mkdir()

    catalog, problems = Catalog.load([tmp_path])

    assert len(catalog) == 0
    assert sorted(catalog.skipped) == sorted(
        [tmp_path / ".git", tmp_path / "claude-plugin", tmp_path / "mcp-server"]
    )
    by_folder = {line.split(": ", 1)[0]: line for line in problems}
    assert set(by_folder) == {str(p) for p in catalog.skipped}
    plugin = by_folder[str(tmp_path / "claude-plugin")]
    assert "not an integration folder" in plugin and "plugin.json" in plugin
    assert "manifest.json" in plugin  # the fix: what an integration folder holds
    assert "hidden" in by_folder[str(tmp_path / ".git")]


def test_good_integrations_load_beside_skipped_folders_and_nested_ones_are_found(
    tmp_path: Path,
) -> None:
    _integration(tmp_path / "mail")
    _integration(tmp_path / "vendor" / "calendar", "calendar")
    (tmp_path / "vendor" / "notes").mkdir()
    (tmp_path / "vendor" / "notes" / "README.txt").write_text("not yet")

    catalog, problems = Catalog.load([tmp_path])

    assert catalog.ids() == ["dev.notch.examples.calendar", "dev.notch.examples.mail"]
    # Only the empty folder is named, not its parent that did hold an integration.
    assert catalog.skipped == [tmp_path / "vendor" / "notes"]
    assert [line.split(": ", 1)[0] for line in problems] == [str(tmp_path / "vendor" / "notes")]


def test_an_invalid_manifest_counts_once_however_many_errors_it_has(tmp_path: Path) -> None:
    broken = _integration(tmp_path / "mail")
    text = (broken / "manifest.json").read_text()
    # Two independent errors in one manifest.
    text = text.replace('"schemaVersion": 1', '"schemaVersion": 7', 1)
    text = text.replace('"type": "card"', '"type": "cardd"', 1)
    (broken / "manifest.json").write_text(text)

    catalog, problems = Catalog.load([tmp_path])

    assert len(catalog) == 0
    assert len([p for p in problems if ": error[" in p]) >= 2
    assert catalog.skipped == [broken / "manifest.json"]


def test_an_empty_folder_skips_nothing_and_a_missing_one_is_named(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    catalog, problems = Catalog.load([empty, tmp_path / "typo"])
    assert catalog.skipped == [tmp_path / "typo"]
    assert problems == [f"{tmp_path / 'typo'}: no such file or folder; check the --manifests path"]


def test_folders_too_deep_to_search_are_named(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*(f"d{i}" for i in range(MAX_SEARCH_DEPTH + 1)))
    _integration(deep / "mail")
    _integration(tmp_path / "near")
    found = discover_integrations(tmp_path)
    assert found.manifests == [tmp_path / "near" / "manifest.json"]
    assert [s.folder for s in found.skipped] == [tmp_path / "d0"]


def test_a_link_back_to_a_folder_already_searched_loads_nothing_twice(tmp_path: Path) -> None:
    _integration(tmp_path / "mail")
    (tmp_path / "loop").symlink_to(".")
    catalog, problems = Catalog.load([tmp_path])
    assert catalog.ids() == ["dev.notch.examples.mail"]
    entry = catalog.entry("dev.notch.examples.mail")
    assert entry is not None and entry.folder == tmp_path / "mail"
    assert problems == [
        f"{tmp_path / 'loop'}: the same folder as {tmp_path} (a link), searched once"
    ]


def test_a_preview_file_beside_a_manifest_file_is_not_read_as_a_manifest(tmp_path: Path) -> None:
    shutil.copy(BUNDLED / "mail" / "manifest.json", tmp_path / "mail.json")
    shutil.copy(BUNDLED / "mail" / "preview.json", tmp_path / "mail.preview.json")
    assert discover_integrations(tmp_path).manifests == [tmp_path / "mail.json"]


def test_notch_validate_warns_about_the_folders_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _integration(tmp_path / "mail")
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "plugin.json").write_text("{}")
    assert main(["validate", str(tmp_path)]) == 0  # a warning, not an error
    out = capsys.readouterr().out
    assert f"{tmp_path / 'plugin'}:1:1: warning[folder-skipped]: not an integration folder" in out

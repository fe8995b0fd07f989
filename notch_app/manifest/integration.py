"""An integration: a folder holding `manifest.json` and optional `preview.json`.

`find_integrations()` turns a path given on the command line into manifest files;
`load_integration()` reads one manifest (and its preview fixtures), runs every check of
`notch validate`, and returns the typed integration only when there are no errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from notch_app.manifest.fixtures import PreviewFixtures
from notch_app.manifest.model import Manifest
from notch_app.manifest.problems import Problem

MANIFEST_FILE = "manifest.json"
PREVIEW_FILE = "preview.json"
_MAX_SEARCH_DEPTH = 6


@dataclass(frozen=True)
class Integration:
    """A loaded, valid integration."""

    manifest: Manifest
    folder: Path
    manifest_path: Path
    fixtures: PreviewFixtures | None


def find_integrations(path: Path) -> list[Path]:
    """Manifest files named by `path`, sorted.

    - a file: that file;
    - an integration folder (holding `manifest.json`): its manifest;
    - any other folder: its `*.json` files (a folder of manifest files) and the manifests
      of the integration folders below it (hidden folders skipped, a few levels deep).

    Raises FileNotFoundError when `path` does not exist.
    """
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(str(path))
    if (path / MANIFEST_FILE).is_file():
        return [path / MANIFEST_FILE]
    found: list[Path] = sorted(
        p for p in path.iterdir() if p.is_file() and p.suffix == ".json" and p.name != PREVIEW_FILE
    )
    # Iterative, bounded walk: symlink loops or deep trees cannot hang it.
    pending: list[tuple[Path, int]] = [(path, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            children = sorted(folder.iterdir())
        except OSError:
            continue
        for child in children:
            if child.name.startswith(".") or not child.is_dir():
                continue
            if (child / MANIFEST_FILE).is_file():
                found.append(child / MANIFEST_FILE)
            elif depth + 1 < _MAX_SEARCH_DEPTH:
                pending.append((child, depth + 1))
    return sorted(found)


def preview_path_for(manifest_path: Path) -> Path | None:
    """The preview fixture file that goes with a manifest, if it exists.

    `manifest.json` pairs with `preview.json` in the same folder; any other `NAME.json`
    pairs with `NAME.preview.json` beside it.
    """
    if manifest_path.name == MANIFEST_FILE:
        candidate = manifest_path.with_name(PREVIEW_FILE)
    else:
        candidate = manifest_path.with_name(manifest_path.stem + ".preview.json")
    return candidate if candidate.is_file() else None


def load_integration(path: Path) -> tuple[Integration | None, list[Problem]]:
    """Load and check one integration (a manifest file or an integration folder).

    Returns the integration and its warnings, or None and every problem found when there
    is at least one error. Never raises for bad content; an unreadable file is reported as
    a `file-unreadable` problem.
    """
    # Imported here: rules imports this module's siblings, and callers that only need the
    # dataclass should not pay for the checks.
    from notch_app.manifest.validate import check_integration

    manifest_path = path / MANIFEST_FILE if path.is_dir() else path
    manifest, fixtures, problems = check_integration(manifest_path)
    if manifest is None or any(p.is_error for p in problems):
        return None, problems
    integration = Integration(
        manifest=manifest,
        folder=manifest_path.parent,
        manifest_path=manifest_path,
        fixtures=fixtures,
    )
    return integration, problems

"""An integration: a folder holding `manifest.json` (or `voiceos.integration.json`) and an
optional preview fixture.

`load_integration()` reads one manifest (and its preview fixtures), runs every check of
`notch validate`, and returns the typed integration only when there are no errors. Which
manifest files a path names is `notch_app.manifest.reading.discovery`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from notch_app.manifest.model import Manifest, PreviewFixtures
from notch_app.manifest.reading import MANIFEST_FILE, Problem, integration_manifest
from notch_app.manifest.validate import check_integration


@dataclass(frozen=True)
class Integration:
    """A loaded, valid integration."""

    manifest: Manifest
    folder: Path
    manifest_path: Path
    fixtures: PreviewFixtures | None


def load_integration(path: Path) -> tuple[Integration | None, list[Problem]]:
    """Load and check one integration (a manifest file or an integration folder).

    Returns the integration and its warnings, or None and every problem found when there
    is at least one error. Never raises for bad content; an unreadable file is reported as
    a `file-unreadable` problem.
    """
    manifest_path = (integration_manifest(path) or path / MANIFEST_FILE) if path.is_dir() else path
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

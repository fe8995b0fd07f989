"""What the studio shows of an integration folder, read in one pass: the manifest (with
the cards Notch generates for tools that ask without their own), the preview fixture, the
scenarios, and every problem `notch validate` (and `notch test`'s reading of a scenario)
finds, placed at FILE:LINE:COLUMN.

Nothing here imports Qt: `read_folder` is what a reload runs, and is timed by
benchmarks/bench_preview.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from notch_app.card.scenario import Scenario, load_scenario
from notch_app.manifest.generated import with_generated_card
from notch_app.manifest.model import Manifest, PreviewFixtures, Tool
from notch_app.manifest.reading import (
    MANIFEST_FILE,
    Problem,
    integration_manifest,
    preview_path_for,
)
from notch_app.manifest.validate import check_integration

SCENARIOS_FOLDER: Final = "scenarios"
MAX_SCENARIOS: Final = 200
"""Scenario files read per folder; more are named as one problem (a studio, not a runner)."""
IMAGE_SUFFIXES: Final = frozenset({".png", ".svg", ".jpg", ".jpeg", ".gif", ".webp", ".ico"})
MAX_FINGERPRINT_BYTES: Final = 8 * 1024 * 1024
"""Files larger than this are fingerprinted by size and time, not by their bytes."""
MAX_WATCHED_FILES: Final = 400

CardKind = Literal["card", "generated", "never asks"]


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One tool as the studio lists it."""

    tool: Tool
    """The tool as the notch asks with it: its own card, or the generated one."""
    kind: CardKind
    """`card` (its own), `generated` (Notch made it from the inputSchema) or `never asks`."""

    @property
    def name(self) -> str:
        return self.tool.name


@dataclass(frozen=True, slots=True)
class ScenarioEntry:
    """One scenario file of the folder that loaded."""

    path: Path
    scenario: Scenario

    @property
    def label(self) -> str:
        return self.scenario.name or self.path.stem


@dataclass(frozen=True, slots=True)
class FolderReading:
    """One reading of an integration folder.

    `manifest` is None when the manifest has errors (the studio then keeps the last valid
    reading on screen, dimmed); `problems` holds every error and warning either way."""

    folder: Path
    manifest_path: Path
    manifest: Manifest | None
    fixtures: PreviewFixtures | None
    tools: tuple[ToolEntry, ...] = ()
    scenarios: tuple[ScenarioEntry, ...] = ()
    problems: tuple[Problem, ...] = ()
    fingerprint: str = ""

    @property
    def valid(self) -> bool:
        """True when the manifest loaded without errors (warnings allowed)."""
        return self.manifest is not None and not any(p.is_error for p in self.problems)

    def entry(self, name: str) -> ToolEntry | None:
        return next((t for t in self.tools if t.name == name), None)

    def fixture_args(self, tool_name: str) -> dict[str, Any] | None:
        """The preview fixture's args for `tool_name`, or None when it has none."""
        return self.fixtures.args_for(tool_name) if self.fixtures is not None else None

    def fixture_result(self, tool_name: str) -> dict[str, Any] | None:
        """The sample `result` the preview fixture carries for `tool_name`, if any."""
        if self.fixtures is None:
            return None
        fixture = self.fixtures.tools.get(tool_name)
        return fixture.result if fixture is not None else None

    def scenarios_for(self, tool_name: str) -> list[ScenarioEntry]:
        return [s for s in self.scenarios if s.scenario.tool == tool_name]


def manifest_path_in(folder: Path) -> Path:
    """The manifest file of an integration folder (`manifest.json` when there is none
    yet, so the problem says which file is missing)."""
    return integration_manifest(folder) or folder / MANIFEST_FILE


def read_folder(folder: Path) -> FolderReading:
    """Read and check the integration in `folder`. Never raises for content: an unreadable
    or broken file is a problem in the reading."""
    manifest_path = manifest_path_in(folder)
    stamp = fingerprint(folder)
    manifest, fixtures, problems = check_integration(manifest_path)
    problems = [_relative(p, folder) for p in problems]
    tools: list[ToolEntry] = []
    if manifest is not None:
        for tool in manifest.tools:
            asked = with_generated_card(tool)
            kind: CardKind = (
                "never asks"
                if asked.confirmation is None
                else "card"
                if asked is tool
                else "generated"
            )
            tools.append(ToolEntry(asked, kind))
    scenarios, scenario_problems = _read_scenarios(folder)
    reading = FolderReading(
        folder=folder,
        manifest_path=manifest_path,
        manifest=manifest,
        fixtures=fixtures,
        tools=tuple(tools),
        scenarios=tuple(scenarios),
        problems=tuple(problems + scenario_problems),
        fingerprint=stamp,
    )
    if not reading.valid:
        # A manifest with errors is not shown: the notch would not load it either.
        return FolderReading(
            folder, manifest_path, None, None, (), reading.scenarios, reading.problems, stamp
        )
    return reading


def _read_scenarios(folder: Path) -> tuple[list[ScenarioEntry], list[Problem]]:
    out: list[ScenarioEntry] = []
    problems: list[Problem] = []
    for path in scenario_files(folder)[:MAX_SCENARIOS]:
        scenario, found = load_scenario(path, _shown_path(path, folder))
        problems.extend(found)
        if scenario is not None:
            out.append(ScenarioEntry(path, scenario))
    return out, problems


def scenario_files(folder: Path) -> list[Path]:
    """The folder's `scenarios/*.json`, sorted (none when there is no such folder)."""
    place = folder / SCENARIOS_FOLDER
    try:
        return sorted(p for p in place.iterdir() if p.suffix == ".json" and p.is_file())
    except OSError:
        return []


def watched_files(folder: Path) -> list[Path]:
    """The files whose saves refresh the studio: the manifest, its preview fixture, the
    scenarios and the images in the folder and its first level of subfolders."""
    manifest = manifest_path_in(folder)
    files = [manifest]
    preview = preview_path_for(manifest)
    if preview is not None:
        files.append(preview)
    files.extend(scenario_files(folder))
    for place in [folder, *watched_folders(folder)[1:]]:
        try:
            files.extend(sorted(p for p in place.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES))
        except OSError:
            continue
    return files[:MAX_WATCHED_FILES]


def watched_folders(folder: Path) -> list[Path]:
    """The folder itself and its subfolders one level down (scenarios/, images/, …): a
    save by rename is seen as a change of the folder that holds the file."""
    out = [folder]
    with contextlib.suppress(OSError):
        out.extend(
            sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))[:40]
        )
    return out


def fingerprint(folder: Path) -> str:
    """A digest of what the studio reads from `folder`: equal fingerprints mean nothing
    the studio shows changed (an editor that writes a file twice, a touch)."""
    digest = hashlib.sha256()
    for path in watched_files(folder):
        digest.update(os.fsencode(str(path)) + b"\0")
        try:
            size = path.stat().st_size
            if size > MAX_FINGERPRINT_BYTES:
                digest.update(f"{size}:{path.stat().st_mtime_ns}".encode())
            else:
                digest.update(path.read_bytes())
        except OSError as exc:
            digest.update(f"unreadable:{type(exc).__name__}".encode())
        digest.update(b"\1")
    return digest.hexdigest()


def _shown_path(path: Path, folder: Path) -> str:
    try:
        return str(path.relative_to(folder))
    except ValueError:
        return str(path)


def _relative(problem: Problem, folder: Path) -> Problem:
    """The problem with its file named relative to the folder, as the studio lists it."""
    shown = _shown_path(Path(problem.file), folder)
    if shown == problem.file:
        return problem
    return Problem(
        shown,
        problem.line,
        problem.column,
        problem.pointer,
        problem.rule,
        problem.severity,
        problem.message,
    )


@dataclass
class FixtureChoice:
    """One source of arguments offered for a tool: the preview fixture, a scenario, or
    the author's own JSON."""

    label: str
    arguments: dict[str, Any] | None
    """None for the arguments editor (its text decides)."""
    kind: Literal["fixture", "scenario", "editor"]
    result: dict[str, Any] | None = field(default=None)
    """A sample tool result (the fixture's), whose glance the studio shows."""


def fixture_choices(reading: FolderReading, tool_name: str) -> list[FixtureChoice]:
    """The argument sources for `tool_name`: the preview fixture's (when it has one),
    each scenario's for the tool, then the arguments editor."""
    out: list[FixtureChoice] = []
    args = reading.fixture_args(tool_name)
    if args is not None:
        out.append(
            FixtureChoice("Preview fixture", args, "fixture", reading.fixture_result(tool_name))
        )
    for entry in reading.scenarios_for(tool_name):
        out.append(
            FixtureChoice(f"Scenario: {entry.label}", dict(entry.scenario.arguments), "scenario")
        )
    out.append(FixtureChoice("Arguments editor (JSON)", None, "editor"))
    return out

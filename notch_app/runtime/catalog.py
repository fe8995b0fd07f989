"""The integrations a running Notch knows: which integration ids and tools exist, and
where they are loaded from (the bundled `manifests/` folder, the person's own folder,
folders named on the command line: `load_integrations`).

Built from integration folders with the manifest loader; an invalid manifest is skipped
and its problems returned (printed with the `notch validate` messages), never fatal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from notch_app.bundled import bundled_folder
from notch_app.manifest.facts import tool_facts
from notch_app.manifest.generated import with_generated_cards
from notch_app.manifest.integration import load_integration
from notch_app.manifest.model import Manifest, PreviewFixtures, Tool
from notch_app.manifest.reading import discover_integrations


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One loaded integration, the folder it came from (None when built in memory) and its
    preview fixtures (sample arguments per tool), when the folder has them."""

    manifest: Manifest
    folder: Path | None = None
    fixtures: PreviewFixtures | None = None
    through_gateway: bool = False
    """Brought by a `notch mcp` gateway (`gateway.attach`), not installed by the person."""
    command: str | None = None
    """A bare server's command line as its gateway started it (shell-quoted, with the
    folder it runs in): where its tools come from, since it has no folder."""

    def __post_init__(self) -> None:
        # A tool that must ask but declares no card (cancel_*, destructiveHint) asks with
        # the card generated from its inputSchema: every lookup sees a card to show.
        object.__setattr__(self, "manifest", with_generated_cards(self.manifest))


class Catalog:
    """Integrations by id. Later folders do not replace an id already loaded."""

    def __init__(self, entries: Iterable[CatalogEntry | Manifest] = ()) -> None:
        self._entries: dict[str, CatalogEntry] = {}
        self._tools: dict[tuple[str, str], Tool] = {}
        """(integration id, tool name) -> tool: one dict lookup on every request."""
        self.duplicates: list[str] = []
        """Messages for integration ids seen twice (the first one loaded wins)."""
        self.skipped: list[Path] = []
        """What `load` did not load: invalid manifests, duplicate ids, folders that hold no
        integration and paths that do not exist, one entry each."""
        for item in entries:
            entry = item if isinstance(item, CatalogEntry) else CatalogEntry(item)
            self.add(entry)

    def add(self, entry: CatalogEntry) -> bool:
        """Add one integration; False (and a message in `duplicates`) if its id is taken."""
        known = self._entries.get(entry.manifest.id)
        if known is not None:
            self.skipped.append(entry.folder or Path(entry.manifest.id))
            self.duplicates.append(
                f"{entry.folder or entry.manifest.id}: integration id {entry.manifest.id!r} is "
                f"already loaded from {known.folder or 'memory'}; this copy is skipped"
            )
            return False
        self._entries[entry.manifest.id] = entry
        for tool in entry.manifest.tools:
            self._tools.setdefault((entry.manifest.id, tool.name), tool)
        return True

    def replace(self, entry: CatalogEntry) -> None:
        """Put `entry` in place of the loaded integration with its id (or add it). Open
        requests keep the tool they were asked with; new ones use the new tools."""
        old = self._entries.get(entry.manifest.id)
        if old is not None:
            for tool in old.manifest.tools:
                self._tools.pop((entry.manifest.id, tool.name), None)
        self._entries[entry.manifest.id] = entry
        for tool in entry.manifest.tools:
            self._tools[(entry.manifest.id, tool.name)] = tool

    @classmethod
    def load(cls, paths: Sequence[Path]) -> tuple[Catalog, list[str]]:
        """Load every integration under `paths` (folders of integrations, integration
        folders, or manifest files). Returns the catalog and the problems found, each one
        line: `FILE:LINE:COLUMN: error[rule]: message` for an invalid manifest, `FOLDER:
        reason` for a folder that holds no integration. Never raises for a bad manifest; a
        path that does not exist is reported as a problem. `catalog.skipped` counts what
        was not loaded.
        """
        catalog = cls()
        problems: list[str] = []
        for base in paths:
            try:
                found = discover_integrations(base)
            except FileNotFoundError:
                catalog.skipped.append(base)
                problems.append(f"{base}: no such file or folder; check the --manifests path")
                continue
            for skipped in found.skipped:
                catalog.skipped.append(skipped.folder)
                problems.append(skipped.format())
            for manifest_path in found.manifests:
                integration, checked = load_integration(manifest_path)
                problems.extend(p.format() for p in checked if p.is_error)
                if integration is None:
                    catalog.skipped.append(manifest_path)
                else:
                    catalog.add(
                        CatalogEntry(integration.manifest, integration.folder, integration.fixtures)
                    )
        problems.extend(catalog.duplicates)
        return catalog, problems

    def __len__(self) -> int:
        return len(self._entries)

    def ids(self) -> list[str]:
        return sorted(self._entries)

    def integration(self, integration_id: str) -> Manifest | None:
        entry = self._entries.get(integration_id)
        return entry.manifest if entry else None

    def entry(self, integration_id: str) -> CatalogEntry | None:
        return self._entries.get(integration_id)

    def tool(self, integration_id: str, tool_name: str) -> Tool | None:
        return self._tools.get((integration_id, tool_name))

    def describe(self) -> list[dict[str, Any]]:
        """The integrations and their tools as plain JSON (for `integrations.list`)."""
        out: list[dict[str, Any]] = []
        for iid in self.ids():
            m = self._entries[iid].manifest
            out.append(
                {
                    "id": m.id,
                    "name": m.name,
                    "version": m.version,
                    "summary": m.summary,
                    "publisher": m.publisher.name if m.publisher else None,
                    "tools": [
                        {
                            "name": t.name,
                            "title": t.display_title,
                            "description": t.description,
                            "confirms": t.confirmation is not None,
                            "kind": tool_facts(t).own_acting.kind,
                            **listed_schema(t),
                        }
                        for t in m.tools
                    ],
                }
            )
        return out


MAX_LISTED_SCHEMA_CHARS = 64 * 1024
"""A tool's inputSchema or annotations longer than this as JSON are listed as `{}` with
`schemaTooLong: true`, so `integrations.list` stays well inside a client's reply limit
(the tool is still fully checked against its real schema when called)."""


def listed_schema(tool: Tool) -> dict[str, Any]:
    """`inputSchema` and `annotations` of `tool` as `integrations.list` lists them (for a
    model's tool definitions), bounded by MAX_LISTED_SCHEMA_CHARS each."""
    annotations = (
        tool.annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
        if tool.annotations is not None
        else None
    )
    out: dict[str, Any] = {"inputSchema": tool.input_schema, "annotations": annotations}
    for key in ("inputSchema", "annotations"):
        if (
            out[key] is not None
            and len(json.dumps(out[key], default=str)) > MAX_LISTED_SCHEMA_CHARS
        ):
            out[key] = {} if key == "inputSchema" else None
            out["schemaTooLong"] = True
    return out


# --- where integrations come from ------------------------------------------------------


def bundled_manifests_dir() -> Path:
    """The shipped `manifests/` folder: the bundled example integrations (the repository's
    top-level `manifests/` in a checkout; see `notch_app.bundled`)."""
    return bundled_folder("manifests")


def user_integrations_dir() -> Path:
    """The person's installed integrations: `<user config dir>/notch/integrations`."""
    import platformdirs

    return Path(platformdirs.user_config_dir("notch", appauthor=False)) / "integrations"


def integration_folders(extra: Sequence[Path] = ()) -> list[Path]:
    """Folders to load integrations from: bundled, then the person's, then `extra`.

    Folders that do not exist are left out, except those in `extra` (the person named
    them, so a typo must be reported). Duplicates are dropped, order kept.
    """
    out: list[Path] = []
    for folder in (bundled_manifests_dir(), user_integrations_dir()):
        if folder.is_dir():
            out.append(folder)
    out.extend(Path(p) for p in extra)
    seen: set[Path] = set()
    unique: list[Path] = []
    for folder in out:
        key = folder.resolve() if folder.exists() else folder
        if key not in seen:
            seen.add(key)
            unique.append(folder)
    return unique


def load_integrations(extra: Sequence[Path] = ()) -> tuple[Catalog, list[str]]:
    """Load every integration `notch run`, `notch policy` and `notch settings` know:
    bundled, the person's, then each of `extra` (`~` expanded). Returns the catalog and
    the problems found (`notch validate` lines); never raises for a bad manifest."""
    return Catalog.load(integration_folders([Path(p).expanduser() for p in extra]))

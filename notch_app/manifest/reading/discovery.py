"""Integration discovery: which manifest files a path names, and which folders it skips.

An integration is a folder holding `manifest.json` or VoiceOS's `voiceos.integration.json`
(and an optional fixture, `preview.json` or `voiceos.integration.preview.json`); a path
given to `notch validate` or `notch run --manifests` may also be one manifest file or a
folder of either. Every folder the walk passes over without finding a manifest is
reported with the reason, so a folder of a kind Notch does not recognise never loads
nothing silently. Reads only the file system; checks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

MANIFEST_FILE = "manifest.json"
PREVIEW_FILE = "preview.json"
VOICEOS_MANIFEST_FILE = "voiceos.integration.json"
VOICEOS_PREVIEW_FILE = "voiceos.integration.preview.json"
MANIFEST_FILES = (MANIFEST_FILE, VOICEOS_MANIFEST_FILE)
"""The names of an integration folder's manifest, in the order they are looked for."""
PREVIEW_FILES = (PREVIEW_FILE, VOICEOS_PREVIEW_FILE)
NOT_MANIFESTS = frozenset(
    {"package.json", "package-lock.json", "tsconfig.json", "jsconfig.json", "deno.json",
     "composer.json", "biome.json", "bun.lock", ".eslintrc.json"}
)  # fmt: skip
"""JSON files that sit beside manifests (a Node/Bun server's) and are never manifests."""
MAX_SEARCH_DEPTH = 6
"""How many folder levels below a path are searched for integration folders."""

_NAMES_SHOWN = 3


@dataclass(frozen=True, slots=True)
class SkippedFolder:
    """A folder under a searched path that holds no integration, and why."""

    folder: Path
    reason: str

    def format(self) -> str:
        """`FOLDER: reason` (the fix included), one line."""
        return f"{self.folder}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Discovered:
    """What a path holds: manifest files (sorted) and the folders passed over."""

    manifests: list[Path] = field(default_factory=list)
    skipped: list[SkippedFolder] = field(default_factory=list)
    searched: dict[Path, Path] = field(default_factory=dict, repr=False)
    """Real folder -> the path it was first searched as (links are followed once)."""


def discover_integrations(path: Path) -> Discovered:
    """The manifest files named by `path`, and the folders below it that hold none.

    - a file: that file;
    - an integration folder (holding `manifest.json` or `voiceos.integration.json`): its
      manifest (`manifest.json` when it holds both);
    - any other folder: its `*.json` files (a folder of manifest files) and the manifests
      of the integration folders below it, up to `MAX_SEARCH_DEPTH` levels. Each topmost
      folder below it in which nothing was found (hidden, unreadable, too deep, or with no
      `manifest.json`) is one `SkippedFolder`. An empty folder skips nothing.

    Raises FileNotFoundError when `path` does not exist.
    """
    if _is_file(path):
        return Discovered([path])
    if not _is_dir(path):
        raise FileNotFoundError(str(path))
    manifest = integration_manifest(path)
    if manifest is not None:
        return Discovered([manifest])
    found = Discovered()
    found.searched[_real(path)] = path
    try:
        entries = sorted(path.iterdir())
    except OSError as exc:
        found.skipped.append(SkippedFolder(path, f"cannot be read ({exc.strerror or exc})"))
        return found
    found.manifests.extend(p for p in entries if _is_manifest_file(p))
    for child in entries:
        if _is_dir(child):
            _search(child, 1, found)
    found.manifests.sort()
    return found


def find_integrations(path: Path) -> list[Path]:
    """The manifest files named by `path`, sorted (see `discover_integrations`).

    Raises FileNotFoundError when `path` does not exist.
    """
    return discover_integrations(path).manifests


def _search(folder: Path, depth: int, found: Discovered) -> int:
    """Add the integration folders under `folder` to `found`; returns how many. Reports
    `folder` itself as skipped when it yields none (its empty subfolders are not listed
    one by one). A folder reached again through a link is searched once; depth bounds
    the rest, so link loops and deep trees cannot hang it."""
    if folder.name.startswith("."):
        found.skipped.append(SkippedFolder(folder, "hidden folder, not searched"))
        return 0
    real = _real(folder)
    first = found.searched.setdefault(real, folder)
    if first != folder:
        found.skipped.append(
            SkippedFolder(folder, f"the same folder as {first} (a link), searched once")
        )
        return 0
    manifest = integration_manifest(folder)
    if manifest is not None:
        found.manifests.append(manifest)
        return 1
    if depth >= MAX_SEARCH_DEPTH:
        found.skipped.append(
            SkippedFolder(
                folder,
                f"deeper than {MAX_SEARCH_DEPTH} levels below the folder given, not "
                "searched; point at a folder closer to it",
            )
        )
        return 0
    try:
        children = sorted(folder.iterdir())
    except OSError as exc:
        found.skipped.append(SkippedFolder(folder, f"cannot be read ({exc.strerror or exc})"))
        return 0
    mark = len(found.skipped)
    count = sum(_search(child, depth + 1, found) for child in children if _is_dir(child))
    if count == 0:
        # One line for the whole empty subtree, not one per folder in it.
        del found.skipped[mark:]
        found.skipped.append(SkippedFolder(folder, _not_an_integration(children)))
    return count


def integration_manifest(folder: Path) -> Path | None:
    """The manifest of an integration folder (`MANIFEST_FILES`, first found), or None."""
    for name in MANIFEST_FILES:
        if _is_file(folder / name):
            return folder / name
    return None


def is_fixture_name(name: str) -> bool:
    """Whether a file name is a preview fixture's: `preview.json`, `NAME.preview.json`."""
    return name == PREVIEW_FILE or name.endswith(".preview.json")


def _is_manifest_file(path: Path) -> bool:
    # NAME.preview.json is the fixture file of NAME.json, not a manifest.
    name = path.name
    return (
        name.endswith(".json")
        and not is_fixture_name(name)
        and name not in NOT_MANIFESTS
        and _is_file(path)
    )


# Path.is_file/is_dir raise for some errors (a name too long, a path past PATH_MAX in a
# deep tree); here such a path is simply not a file or folder Notch can read.
def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):  # a link loop or an odd name
        return path


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _not_an_integration(children: list[Path]) -> str:
    json_files = [c.name for c in children if c.suffix == ".json" and _is_file(c)]
    held = ""
    if json_files:
        shown = ", ".join(json_files[:_NAMES_SHOWN])
        more = len(json_files) - _NAMES_SHOWN
        held = f" (it holds {shown}{f' and {more} more' if more > 0 else ''})"
    return (
        f"not an integration folder: no {MANIFEST_FILE} in it or its subfolders{held}; "
        f"an integration folder holds {MANIFEST_FILE} (or {VOICEOS_MANIFEST_FILE}) and an "
        f"optional {PREVIEW_FILE} (or {VOICEOS_PREVIEW_FILE})"
    )


def preview_path_for(manifest_path: Path) -> Path | None:
    """The preview fixture file that goes with a manifest, if it exists.

    An integration folder's manifest (`manifest.json` or `voiceos.integration.json`) pairs
    with `preview.json` or `voiceos.integration.preview.json` beside it (its own
    spelling first); any other `NAME.json` pairs with `NAME.preview.json` beside it.
    """
    if manifest_path.name in MANIFEST_FILES:
        own = 0 if manifest_path.name == MANIFEST_FILE else 1
        names: tuple[str, ...] = (PREVIEW_FILES[own], PREVIEW_FILES[1 - own])
    else:
        names = (manifest_path.stem + ".preview.json",)
    for name in names:
        candidate = manifest_path.with_name(name)
        if _is_file(candidate):
            return candidate
    return None


def manifest_path_for(fixture_path: Path) -> Path | None:
    """The manifest a preview fixture file belongs to, if it exists beside it (the
    reverse of `preview_path_for`)."""
    name = fixture_path.name
    if name in PREVIEW_FILES:
        own = PREVIEW_FILES.index(name)
        names: tuple[str, ...] = (MANIFEST_FILES[own], MANIFEST_FILES[1 - own])
    elif name.endswith(".preview.json"):
        names = (name[: -len(".preview.json")] + ".json",)
    else:
        return None
    for candidate_name in names:
        candidate = fixture_path.with_name(candidate_name)
        if _is_file(candidate) and preview_path_for(candidate) == fixture_path:
            return candidate
    return None

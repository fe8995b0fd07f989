"""Installing and removing the person's own integrations (no Qt here).

An integration is installed by copying its folder into the person's integrations folder
as `<install_dir>/<integration id>/`, only after it passes every `notch validate` check.
The copy is bounded (size, file count), skips symlinks, and replaces an earlier copy in
one rename so a half-copied integration is never loaded.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from notch_app.manifest.integration import load_integration
from notch_app.manifest.model import Manifest
from notch_app.runtime.folders import make_private_folder

MAX_INSTALL_BYTES = 50 * 1024 * 1024
MAX_INSTALL_FILES = 2000


class InstallError(Exception):
    """The folder cannot be installed; `lines` are the messages to show (one per line)."""

    def __init__(self, summary: str, lines: list[str] | None = None) -> None:
        super().__init__(summary)
        self.summary = summary
        self.lines = lines or []


@dataclass(frozen=True, slots=True)
class InstallCheck:
    """A folder that passed validation and may be copied in."""

    source: Path
    manifest: Manifest
    destination: Path
    replaces: bool
    """True when an earlier copy of the same integration id is already installed."""
    warnings: list[str] = field(default_factory=list)


def check_install(source: Path, install_dir: Path, loaded: dict[str, Path | None]) -> InstallCheck:
    """Validate `source` for installing into `install_dir`.

    `loaded` maps integration ids already loaded to their folders. Raises InstallError
    with the `notch validate` messages when the folder has errors, or when the id is
    already provided by a folder outside `install_dir` (a bundled integration).
    """
    source = Path(source)
    if not (source / "manifest.json").is_file():
        raise InstallError(
            f"{source} holds no manifest.json",
            [f"{source}: choose the integration's own folder (the one holding manifest.json)"],
        )
    integration, problems = load_integration(source)
    lines = [p.format() for p in problems]
    if integration is None:
        errors = sum(1 for p in problems if p.is_error)
        raise InstallError(
            f"{source.name} has {errors} error{'s' * (errors != 1)}; nothing was installed",
            lines,
        )
    manifest = integration.manifest
    destination = install_dir / manifest.id
    owner = loaded.get(manifest.id)
    if owner is not None and not _inside(owner, install_dir):
        raise InstallError(
            f"{manifest.id} is already loaded from {owner}",
            [
                f"{source / 'manifest.json'}: integration id {manifest.id!r} is already loaded "
                f"from {owner}; give this copy its own id to install it"
            ],
        )
    _check_size(source)
    return InstallCheck(source, manifest, destination, destination.exists(), lines)


def install(check: InstallCheck) -> Path:
    """Copy a checked integration into place (replacing an earlier copy). Returns its folder.

    Raises InstallError when the copy fails; an earlier copy is then left as it was.
    """
    install_dir = check.destination.parent
    try:
        # 0700 whatever the umask: what is in it becomes cards (nobody else may add to it).
        make_private_folder(install_dir)
        staging = Path(tempfile.mkdtemp(prefix=".installing-", dir=install_dir))
    except OSError as exc:
        raise InstallError(f"cannot write to {install_dir}: {exc.strerror or exc}") from exc
    try:
        copy = staging / "integration"
        shutil.copytree(check.source, copy, symlinks=True, ignore=_skip_links_and_hidden)
        old = None
        if check.destination.exists():
            old = staging / "previous"
            check.destination.rename(old)
        copy.rename(check.destination)
    except OSError as exc:
        raise InstallError(f"could not copy {check.source}: {exc.strerror or exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return check.destination


def remove(folder: Path, install_dir: Path) -> None:
    """Delete an installed integration. Raises InstallError for a folder outside
    `install_dir` (bundled integrations cannot be removed) or when deleting fails."""
    if not _inside(folder, install_dir) or Path(folder).resolve() == install_dir.resolve():
        raise InstallError(f"{folder} is not one of your installed integrations; it stays")
    try:
        shutil.rmtree(folder)
    except OSError as exc:
        raise InstallError(f"could not remove {folder}: {exc.strerror or exc}") from exc


def is_installed(folder: Path | None, install_dir: Path) -> bool:
    """Whether an integration's folder is one the person installed (so it can be removed)."""
    return folder is not None and _inside(folder, install_dir)


def _inside(folder: Path, parent: Path) -> bool:
    with contextlib.suppress(OSError, ValueError):
        Path(folder).resolve().relative_to(Path(parent).resolve())
        return True
    return False


def _skip_links_and_hidden(folder: str, names: list[str]) -> set[str]:
    # A symlink could point anywhere on the disk; hidden files (.git) are not the integration.
    base = Path(folder)
    return {n for n in names if n.startswith(".") or (base / n).is_symlink()}


def _check_size(source: Path) -> None:
    total = 0
    count = 0
    for path in source.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        count += 1
        total += path.stat().st_size
        if count > MAX_INSTALL_FILES or total > MAX_INSTALL_BYTES:
            raise InstallError(
                f"{source} is too large to install",
                [
                    f"{source}: an integration folder may hold at most {MAX_INSTALL_FILES} "
                    f"files and {MAX_INSTALL_BYTES // (1024 * 1024)} MB; remove build output "
                    "or large media from it"
                ],
            )

"""Notch's own folders: the data dir and the socket's folder, owner-only.

Every command that creates one goes through `make_private_folder`: each folder Notch
makes is 0700 whatever the umask, and a folder Notch did not make is never chmodded.
`check_private_folder` is the strict test the socket's folder must pass (a real folder,
not a symlink, this user's, closed to everyone else); `make_data_dir` is the data dir's.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import platformdirs

PRIVATE_MODE: Final = 0o700
SETTINGS_FILE_NAME: Final = "notch-settings.json"
"""The person's settings in the data dir (`runtime/settings` reads and writes it); named
here, where finding it needs no models (`notch mcp` starts its server with the values)."""

# Where the platform lacks them (Windows) the flags are 0: a plain open, no symlink check.
_NOFOLLOW_DIR: Final = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


class FolderError(OSError):
    """A folder Notch would use is unsafe or cannot be made; the message names the fix."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unsafe folder"


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """`NOTCH_DATA_DIR` if set, else the platform's app-data folder for "notch"."""
    env = os.environ if env is None else env
    override = env.get("NOTCH_DATA_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir("notch", appauthor=False))


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


RUN_USER: Final = Path("/run/user")
"""Where systemd-logind makes each logged-in user's runtime folder (`<uid>` in it)."""


def derived_runtime_dir(run_user: Path = RUN_USER) -> Path | None:
    """On Linux, `/run/user/<uid>` when it exists and is this user's alone (what a
    desktop session sets `XDG_RUNTIME_DIR` to); else None. MCP clients start servers
    without that variable, and both Notch's socket (ipc/address.py) and the session bus
    (runtime/session_bus.py) are found here then. `run_user` is a seam for tests. One
    lstat: `notch mcp` may call it before its first read."""
    uid = _uid()
    if uid is None or not sys.platform.startswith("linux"):
        return None
    folder = run_user / str(uid)
    try:
        check_private_folder(folder, what="the runtime folder", fix="")
    except FolderError:
        return None
    return folder


def make_private_folder(folder: Path) -> bool:
    """Create `folder` and any missing parents, each 0700 however the umask is set.

    True when `folder` itself was created now. A component that already exists is left
    as it is (checking it is the caller's job). Raises OSError when a component cannot be
    made, or when a folder just made was swapped for a symlink or another user's folder.
    """
    missing: list[Path] = []
    probe = folder
    while not os.path.lexists(probe) and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    created = False
    for path in reversed(missing):
        try:
            os.mkdir(path, PRIVATE_MODE)
        except FileExistsError:
            continue  # made by someone else meanwhile: the caller's checks judge it
        created = path == folder
        if not hasattr(os, "fchmod"):
            continue
        # The umask may have taken bits away (0o277 gives 0500): restore exactly 0700 on
        # the folder just made, through a descriptor that refuses a symlink put in its place.
        fd = os.open(path, _NOFOLLOW_DIR)
        try:
            info = os.fstat(fd)
            if info.st_uid != _uid():
                raise FolderError(f"{path}: was replaced by another user's folder while made")
            if stat.S_IMODE(info.st_mode) != PRIVATE_MODE:
                os.fchmod(fd, PRIVATE_MODE)
        finally:
            os.close(fd)
    return created


def check_private_folder(folder: Path, *, what: str, fix: str) -> None:
    """Refuse `folder` unless it is a real folder (not a symlink), owned by this user,
    with no access for group or others (0700).

    Raises FolderError: "<folder>: <what> is ...; <how to repair>, or <fix>".
    """
    try:
        info = os.lstat(folder)
    except OSError as exc:
        raise FolderError(f"{folder}: cannot read {what} ({exc.strerror}); {fix}") from None
    if stat.S_ISLNK(info.st_mode):
        raise FolderError(
            f"{folder}: {what} is a symbolic link, which Notch never follows there (another "
            f"user could point it anywhere); remove it (rm {folder}), or {fix}"
        )
    if not stat.S_ISDIR(info.st_mode):
        raise FolderError(f"{folder}: {what} is not a folder; remove it, or {fix}")
    uid = _uid()
    if uid is not None and info.st_uid != uid:
        raise FolderError(
            f"{folder}: {what} belongs to another user (uid {info.st_uid}, you are {uid}); {fix}"
        )
    mode = stat.S_IMODE(info.st_mode)
    if uid is not None and mode & 0o077:
        raise FolderError(
            f"{folder}: {what} is open to other users (mode {mode:04o}); make it yours "
            f"alone (chmod 700 {folder}), or {fix}"
        )


def make_data_dir(folder: Path) -> Path:
    """Create Notch's data dir (0700, missing parents too) if it is not there, and return
    it. The person may point it anywhere, through symlinks too; but an existing folder
    must be this user's and not writable by others (the files in it are 0600).

    Raises FolderError (an OSError) naming the folder and the fix.
    """
    fix = "pass --data-dir with a folder of your own"
    try:
        make_private_folder(folder)
        info = folder.stat()
    except FolderError:
        raise
    except OSError as exc:
        raise FolderError(
            f"{folder}: cannot create the data folder ({exc.strerror or exc}); {fix}"
        ) from None
    if not stat.S_ISDIR(info.st_mode):
        raise FolderError(f"{folder}: the data folder is not a folder; {fix}")
    uid = _uid()
    if uid is not None and info.st_uid != uid:
        raise FolderError(
            f"{folder}: the data folder belongs to another user (uid {info.st_uid}); {fix}"
        )
    if uid is not None and stat.S_IMODE(info.st_mode) & 0o022:
        raise FolderError(
            f"{folder}: the data folder is writable by other users (mode "
            f"{stat.S_IMODE(info.st_mode):04o}); chmod 700 {folder}, or {fix}"
        )
    return folder

"""Reading and writing `notch-settings.json` in the data dir.

Written atomically (a temporary file in the same folder, fsync, rename), so a crash never
leaves half a file. A file that cannot be read or does not parse is reported, moved aside
(`notch-settings.json.corrupt-<timestamp>`) and replaced by the safe default in memory:
every action asks first. Never "everything runs".
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from notch_app.runtime.folders import SETTINGS_FILE_NAME, make_data_dir
from notch_app.runtime.settings.document import SETTINGS_VERSION, SettingsDocument

__all__ = [
    "MAX_SETTINGS_BYTES",
    "SETTINGS_FILE_NAME",
    "LoadedSettings",
    "read_settings",
    "settings_lock",
    "settings_path",
    "write_settings",
]

log = logging.getLogger("notch.settings")

MAX_SETTINGS_BYTES = 2 * 1024 * 1024
"""A settings file larger than this is treated as corrupt before it is parsed."""


def settings_path(data_dir: Path) -> Path:
    """Where the settings file lives in a data dir."""
    return Path(data_dir) / SETTINGS_FILE_NAME


@dataclass(frozen=True, slots=True)
class LoadedSettings:
    """What `read_settings` found."""

    document: SettingsDocument
    problem: str | None = None
    """A note for the person when the file could not be used (shown in Settings)."""
    writable: bool = True
    """False when the file was written by a newer Notch: it is left untouched."""


def read_settings(path: Path) -> LoadedSettings:
    """Read and validate the settings file; never raises.

    A missing file is the default (no note). An unreadable, oversized, malformed or
    invalid file is moved aside and the default is used, with a note saying so. A file
    from a newer version of Notch is left in place, used as the default, and not written.
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return LoadedSettings(SettingsDocument())
    except OSError as exc:
        return _corrupt(path, f"could not be read ({exc.strerror or exc})")
    if len(raw) > MAX_SETTINGS_BYTES:
        return _corrupt(path, f"is larger than {MAX_SETTINGS_BYTES // 1024} KB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return _corrupt(path, "is not UTF-8 text")
    except json.JSONDecodeError as exc:
        return _corrupt(
            path, f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        )
    except RecursionError:
        return _corrupt(path, "is nested too deeply")
    version = data.get("version") if isinstance(data, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version > SETTINGS_VERSION:
        note = (
            f"{path} was written by a newer Notch (settings version {version}); it is left "
            "as it is and every action asks first. Update Notch to use it."
        )
        log.warning("%s", note)
        return LoadedSettings(SettingsDocument(), note, writable=False)
    try:
        document = SettingsDocument.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        return _corrupt(path, f"does not match the settings format at {where}: {first['msg']}")
    return LoadedSettings(document)


def _corrupt(path: Path, what: str) -> LoadedSettings:
    aside = _move_aside(path)
    if aside is not None:
        kept = f"It was moved aside to {aside.name}"
    else:
        kept = "It could not be moved aside"
    note = (
        f"{path} {what}. {kept}; every action asks first until you change a setting "
        "(fix the old file and copy it back to restore your choices)."
    )
    log.warning("%s", note)
    return LoadedSettings(SettingsDocument(), note)


def _move_aside(path: Path) -> Path | None:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        suffix = f".corrupt-{stamp}" + (f"-{n}" if n else "")
        aside = path.with_name(path.name + suffix)
        if aside.exists():
            continue
        try:
            os.replace(path, aside)
        except OSError as exc:
            log.warning("could not move %s aside: %s", path, exc)
            return None
        return aside
    return None


def write_settings(path: Path, document: SettingsDocument) -> None:
    """Write the settings atomically: temp file in the same folder, fsync, rename.

    Raises OSError when the folder cannot be created or written.
    """
    make_data_dir(path.parent)  # 0700 like every data dir (issue 9 finding 10)
    # No preferences set: no "integrations" key, so the file reads as it always did.
    skip = None if document.integrations else {"integrations"}
    text = (
        document.model_dump_json(by_alias=True, indent=2, exclude_defaults=False, exclude=skip)
        + "\n"
    )
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    # The rename itself is durable only once the directory entry is flushed (POSIX).
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def settings_lock(path: Path) -> Iterator[None]:
    """Hold an advisory lock while reading, changing and writing the file.

    The running Notch and `notch policy` may change the file at the same moment; the lock
    keeps one from overwriting the other's change. Where file locks are unavailable
    (Windows), the write is still atomic, only not serialised.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    make_data_dir(path.parent)  # 0700 like every data dir (issue 9 finding 10)
    fd = _open_private(path.with_name(path.name + ".lock"))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _open_private(path: Path) -> int:
    """Open (creating) the file `path` as 0600 whatever the umask, never through a
    symlink; a file of ours left wider by an older Notch (the lock was 0666 under umask
    000) is narrowed. Raises OSError."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    try:
        if hasattr(os, "fchmod") and stat.S_IMODE(os.fstat(fd).st_mode) != 0o600:
            os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd

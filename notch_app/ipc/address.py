"""Where the socket lives, how every client finds it, and claiming it safely.

Linux and macOS: a Unix socket. `notch run` listens at `--socket PATH`, else
`NOTCH_SOCKET`, else `notch/notch.sock` in the per-user runtime folder:
`$XDG_RUNTIME_DIR`, or the real one when the variable is missing (`/run/user/<uid>`,
when it exists and is this user's alone), else `notch-<uid>/notch.sock` in `$TMPDIR` or
`/tmp`. Unless given `--socket`, it also leaves a note saying where it listens
(`~/.local/state/notch/socket.json`, removed when it stops): MCP clients start servers
with only HOME, USER, PATH and the like, and a client without `XDG_RUNTIME_DIR` or with
another `TMPDIR` (macOS's is per user) finds Notch through it.

A client looks, in this order (`find_socket`), and takes the first place holding a
socket: `NOTCH_SOCKET` (then nowhere else); `$XDG_RUNTIME_DIR/notch/notch.sock`;
`/run/user/<uid>/notch/notch.sock`; the socket the note names; the `$TMPDIR` or `/tmp`
fallback. None holding one: the error names every place looked at.

Trust is never taken from where a path came from: the socket's folder must be a real
folder (never a symlink), this user's, closed to others, and the server's peer uid ours
(`peer.verify_server`, for every client, wherever it found the path); the note is read
only from a folder and file of this user's that nobody else can write. Notch makes its
folders so, and refuses rather than chmods one it did not make.
Windows (planned, not implemented): a named pipe `\\\\.\\pipe\\notch-<user>` with an ACL for
the current user only.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from notch_app.runtime.folders import (
    FolderError,
    check_private_folder,
    derived_runtime_dir,
    make_private_folder,
)

SOCKET_NAME: Final = "notch.sock"
FOLDER_FIX: Final = "pass --socket with a path in a folder of your own (mode 0700)"
NOTE_NAME: Final = "socket.json"
"""The note a running Notch leaves in `note_folder()`: where it listens."""
_MAX_UNIX_PATH: Final = 104  # macOS sun_path is 104 bytes; Linux allows 108
_MAX_NOTE_BYTES: Final = 4096
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)


class SocketError(Exception):
    """The socket cannot be claimed; the message names the path and the fix."""


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def _own_runtime_dir(env: Mapping[str, str]) -> Path | None:
    """`$XDG_RUNTIME_DIR` when set and a folder; else, on Linux, `/run/user/<uid>` when it
    exists and is this user's alone (what a desktop session sets the variable to)."""
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) if Path(runtime).is_dir() else None
    return derived_runtime_dir()


def _fallback_socket_path() -> Path:
    return Path(tempfile.gettempdir()) / f"notch-{_uid() or 0}" / SOCKET_NAME


def default_socket_path(env: Mapping[str, str] | None = None) -> Path:
    """Where `notch run` listens without `--socket`: `NOTCH_SOCKET`, else the per-user
    runtime folder's `notch/notch.sock` (`$XDG_RUNTIME_DIR`, else `/run/user/<uid>` when
    it is this user's), else `notch-<uid>/notch.sock` in `$TMPDIR` or `/tmp`."""
    env = os.environ if env is None else env
    override = env.get("NOTCH_SOCKET")
    if override:
        return Path(override).expanduser()
    runtime = _own_runtime_dir(env)
    if runtime is not None:
        return runtime / "notch" / SOCKET_NAME
    return _fallback_socket_path()


def note_folder(env: Mapping[str, str] | None = None) -> Path:
    """Where a running Notch leaves its note: `~/.local/state/notch`, from HOME (or the
    password database when HOME is unset). Never `$XDG_STATE_HOME`: an MCP client does
    not pass it on, so Notch and its clients could disagree on it."""
    env = os.environ if env is None else env
    home = env.get("HOME")
    if not home:
        try:
            import pwd

            home = pwd.getpwuid(os.getuid()).pw_dir
        except (ImportError, KeyError, AttributeError):
            home = str(Path.home())
    return Path(home) / ".local" / "state" / "notch"


@dataclass(frozen=True, slots=True)
class SocketSearch:
    """Where a client connects, and every place it looked to choose it."""

    path: Path
    looked: tuple[str, ...] = ()
    """Each place in order with what was there ("… (no socket)"); empty when the path was
    given (`--socket`, a client's `socket_path`)."""

    def places(self) -> str:
        """The places looked at, for an error: "A (no socket), B (…)"."""
        return "; ".join(self.looked)


def find_socket(env: Mapping[str, str] | None = None) -> SocketSearch:
    """The running Notch's socket, for a client given no path: the first of
    `NOTCH_SOCKET` (alone), `$XDG_RUNTIME_DIR/notch/notch.sock`,
    `/run/user/<uid>/notch/notch.sock`, the socket named by the note in `note_folder()`,
    and the `$TMPDIR`/`/tmp` fallback that holds a socket; with none, the first of them
    (its connect fails, and the error lists `looked`). Never raises; checks no trust
    (the connect does)."""
    env = os.environ if env is None else env
    override = env.get("NOTCH_SOCKET")
    if override:
        path = Path(override).expanduser()
        return SocketSearch(path, (f"NOTCH_SOCKET={path} ({_what_is_at(path)})",))
    places: list[tuple[Path, str]] = []
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        places.append((Path(runtime) / "notch" / SOCKET_NAME, "$XDG_RUNTIME_DIR"))
    derived = derived_runtime_dir()
    if derived is not None and (not runtime or Path(runtime) != derived):
        places.append((derived / "notch" / SOCKET_NAME, "the runtime folder"))
    looked: list[str] = []
    for path, why in places:
        found = _what_is_at(path)
        looked.append(f"{path} ({why}: {found})")
        if found == "a socket":
            return SocketSearch(path, tuple(looked))
    note = note_folder(env) / NOTE_NAME
    noted, said = read_note(note)
    looked.append(f"{note} (Notch's note: {said})")
    if noted is not None:
        found = _what_is_at(noted)
        looked[-1] = f"{note} (Notch's note: names {noted}, {found})"
        if found == "a socket":
            return SocketSearch(noted, tuple(looked))
    fallback = _fallback_socket_path()
    found = _what_is_at(fallback)
    looked.append(f"{fallback} ({found})")
    if found == "a socket":
        return SocketSearch(fallback, tuple(looked))
    first = places[0][0] if places else (noted or fallback)
    return SocketSearch(first, tuple(looked))


def _what_is_at(path: Path) -> str:
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return "nothing there"
    except OSError as exc:
        return f"cannot be read: {exc.strerror}"
    return "a socket" if stat.S_ISSOCK(mode) else "not a socket"


def read_note(note: Path) -> tuple[Path | None, str]:
    """The socket path a running Notch's note names, and what was found ("absent", or
    why it is not trusted). Trusted only from a real file, not a symlink, this user's and
    writable by nobody else, in a folder of this user's alone (0700). Never raises."""
    try:
        check_private_folder(note.parent, what="the note's folder", fix="")
    except FolderError as exc:
        if not os.path.lexists(note.parent):
            return None, "absent"
        return None, f"not trusted: {str(exc).split(';')[0]}"
    try:
        fd = os.open(note, os.O_RDONLY | _NOFOLLOW)
    except FileNotFoundError:
        return None, "absent"
    except OSError as exc:
        return None, f"not trusted: cannot open it ({exc.strerror})"
    try:
        info = os.fstat(fd)
        uid = _uid()
        if not stat.S_ISREG(info.st_mode):
            return None, "not trusted: not a plain file"
        if uid is not None and (info.st_uid != uid or stat.S_IMODE(info.st_mode) & 0o022):
            return None, "not trusted: another user's, or writable by others"
        raw = os.read(fd, _MAX_NOTE_BYTES + 1)
    finally:
        os.close(fd)
    try:
        data = json.loads(raw) if len(raw) <= _MAX_NOTE_BYTES else None
    except ValueError:
        data = None
    named = data.get("socket") if isinstance(data, dict) else None
    if not isinstance(named, str) or not os.path.isabs(named):
        return None, "not trusted: it names no socket path"
    return Path(named), f"names {named}"


def leave_note(socket_path: Path, env: Mapping[str, str] | None = None) -> Path | None:
    """Say where this Notch listens, for clients whose environment lacks the variables
    that chose `socket_path`: the note in `note_folder()` (folder 0700, file 0600, written
    whole). Returns the note's path, None when it cannot be written (clients then find
    Notch only where they would have anyway). Never raises."""
    note = note_folder(env) / NOTE_NAME
    try:
        make_private_folder(note.parent)
        check_private_folder(note.parent, what="the note's folder", fix="")
        body = json.dumps({"socket": os.fspath(socket_path.absolute()), "pid": os.getpid()})
        fd, scratch = tempfile.mkstemp(prefix=".socket-", dir=note.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(body)
            os.replace(scratch, note)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(scratch)
            raise
    except OSError:
        return None
    return note


def take_note_back(socket_path: Path, env: Mapping[str, str] | None = None) -> None:
    """Remove the note if it still names `socket_path` (a later Notch's note is left).
    Never raises."""
    note = note_folder(env) / NOTE_NAME
    named, _ = read_note(note)
    if named is not None and named == socket_path.absolute():
        with contextlib.suppress(OSError):
            note.unlink()


def claim_socket_path(path: Path) -> None:
    """Prepare `path` for a new server: create its folder (0700, owned by this user) if
    missing, and remove a stale socket left by a crash. Raises SocketError, naming the
    fix, if another live server owns it, if the path is not a socket, or if the folder is
    a symlink, another user's, or open to others (it is never chmodded: see folders.py).
    """
    if sys.platform == "win32":
        raise SocketError(
            "Notch's socket on Windows will be a named pipe (\\\\.\\pipe\\notch-<user>); "
            "it is not implemented yet"
        )
    if len(os.fsencode(path)) >= _MAX_UNIX_PATH:
        raise SocketError(
            f"{path}: socket path is too long for a Unix socket; pass a shorter --socket"
        )
    folder = path.parent
    # Made 0700 before anything is bound in it, so no umask leaves a moment in which
    # another user can reach the socket; a folder Notch did not make is judged, not fixed.
    try:
        make_private_folder(folder)
    except OSError as exc:
        raise SocketError(
            f"{folder}: cannot create the socket folder ({exc.strerror or exc}); {FOLDER_FIX}"
        ) from None
    try:
        check_private_folder(folder, what="the socket folder", fix=FOLDER_FIX)
    except FolderError as exc:
        raise SocketError(str(exc)) from None
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise SocketError(f"{path}: exists and is not a socket; remove it or pass --socket")
    if socket_is_live(path):
        raise SocketError(
            f"another Notch is already running at {path}; stop it first or pass --socket"
        )
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def socket_is_live(path: Path) -> bool:
    """True when something accepts connections on the Unix socket `path`."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(os.fspath(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True

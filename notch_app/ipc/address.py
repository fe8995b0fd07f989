"""Where the socket lives, and claiming it safely.

Linux and macOS: a Unix socket, by default `$XDG_RUNTIME_DIR/notch/notch.sock` (else
`$TMPDIR` or `/tmp` + `notch-<uid>/notch.sock`); `--socket PATH` or `NOTCH_SOCKET`
override. The folder is 0700 and the socket 0600: only its owner can connect. The folder
must be a real folder (never a symlink), this user's, closed to others: Notch makes it so
when it creates it, and otherwise refuses it rather than chmod what it did not make.
Windows (planned, not implemented): a named pipe `\\\\.\\pipe\\notch-<user>` with an ACL for
the current user only.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from notch_app.runtime.folders import FolderError, check_private_folder, make_private_folder

SOCKET_NAME: Final = "notch.sock"
FOLDER_FIX: Final = "pass --socket with a path in a folder of your own (mode 0700)"
_MAX_UNIX_PATH: Final = 104  # macOS sun_path is 104 bytes; Linux allows 108


class SocketError(Exception):
    """The socket cannot be claimed; the message names the path and the fix."""


def default_socket_path(env: Mapping[str, str] | None = None) -> Path:
    """`NOTCH_SOCKET`, else the per-user runtime folder's `notch/notch.sock`."""
    env = os.environ if env is None else env
    override = env.get("NOTCH_SOCKET")
    if override:
        return Path(override).expanduser()
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "notch" / SOCKET_NAME
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"notch-{uid}" / SOCKET_NAME


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

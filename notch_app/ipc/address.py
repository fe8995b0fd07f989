"""Where the socket lives, and claiming it safely.

Linux and macOS: a Unix socket, by default `$XDG_RUNTIME_DIR/notch/notch.sock` (else
`$TMPDIR` or `/tmp` + `notch-<uid>/notch.sock`); `--socket PATH` or `NOTCH_SOCKET`
override. The folder is 0700 and the socket 0600: only its owner can connect.
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

SOCKET_NAME: Final = "notch.sock"
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
    """Prepare `path` for a new server: create its folder (0700, owned by this user),
    remove a stale socket left by a crash. Raises SocketError if another live server
    owns it, if the folder belongs to someone else, or if the path is not a socket.
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
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = folder.stat()
    except OSError as exc:
        raise SocketError(
            f"{folder}: cannot create the socket folder ({exc.strerror}); pass --socket"
        ) from None
    # A folder made for Notch must be ours alone; a folder the person chose (--socket)
    # is theirs to judge, and the socket itself is 0600 either way.
    if folder.name.startswith("notch"):
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise SocketError(
                f"{folder}: belongs to another user; pass --socket with a folder of your own"
            )
        if stat.S_IMODE(info.st_mode) & 0o077:
            folder.chmod(0o700)
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

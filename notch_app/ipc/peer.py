"""Is the Notch on the other end of the socket this user's own? Checked by every client.

A client that connects to whatever listens at the socket path would hand the arguments
to, and take `approved` from, a fake server another local user put there. So before it
sends anything a client calls `verify_server(sock, path)`:

* the socket's folder is a real folder (not a symlink), the user's own, mode 0700
  (`verify_socket_folder`), and
* the process that accepted the connection runs as the same user: `SO_PEERCRED` on Linux,
  `LOCAL_PEERCRED` on macOS (`peer_uid`). Where neither exists the folder check stands alone.

The server asks the same question the other way round: `peer_process(sock)` is the
process that connected (pid, start time, command name), what its fair share of
connections and open requests is counted against (runtime/askers.py).

Qt-free; the asyncio client passes `writer.get_extra_info("socket")`, the blocking client
its `socket.socket`.
"""

from __future__ import annotations

import os
import socket
import struct
import sys
from pathlib import Path
from typing import Final, Protocol

from notch_app.runtime.askers import AskingProcess
from notch_app.runtime.folders import FolderError, check_private_folder

_LINUX_UCRED: Final = struct.Struct("=iII")  # struct ucred: pid, uid, gid
_MAC_SOL_LOCAL: Final = 0
_MAC_LOCAL_PEERCRED: Final = 0x001
_MAC_XUCRED: Final = struct.Struct("=IIh")  # struct xucred: cr_version, cr_uid, cr_ngroups
_MAC_XUCRED_SIZE: Final = 76  # with cr_groups[16] and padding
_MAC_XUCRED_VERSION: Final = 0


class UntrustedServer(Exception):
    """The socket is not this user's Notch; the message says why and what to do."""


class _Connected(Protocol):
    """A connected Unix socket: `socket.socket`, or asyncio's TransportSocket."""

    def getsockopt(self, level: int, optname: int, buflen: int, /) -> bytes: ...


def peer_uid(sock: _Connected) -> int | None:
    """The uid of the process at the other end of the connected Unix socket `sock`, or
    None where the platform cannot tell. Raises OSError if the socket cannot be asked."""
    if sys.platform.startswith("linux") and hasattr(socket, "SO_PEERCRED"):
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _LINUX_UCRED.size)
        return int(_LINUX_UCRED.unpack(raw[: _LINUX_UCRED.size])[1])
    if sys.platform == "darwin":
        raw = sock.getsockopt(_MAC_SOL_LOCAL, _MAC_LOCAL_PEERCRED, _MAC_XUCRED_SIZE)
        version, uid, _groups = _MAC_XUCRED.unpack(raw[: _MAC_XUCRED.size])
        return int(uid) if version == _MAC_XUCRED_VERSION else None
    return None


_MAC_LOCAL_PEERPID: Final = 0x002
_MAX_NAME_CHARS: Final = 32


def peer_process(sock: _Connected) -> AskingProcess | None:
    """The process at the other end of the connected Unix socket `sock` (the one that
    connected), as the kernel reports it: its pid, and on Linux its start time and
    command name from /proc. None where the platform cannot tell, or the socket cannot be
    asked. Never raises."""
    try:
        if sys.platform.startswith("linux") and hasattr(socket, "SO_PEERCRED"):
            raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _LINUX_UCRED.size)
            pid = int(_LINUX_UCRED.unpack(raw[: _LINUX_UCRED.size])[0])
        elif sys.platform == "darwin":
            raw = sock.getsockopt(_MAC_SOL_LOCAL, _MAC_LOCAL_PEERPID, 4)
            pid = int.from_bytes(raw[:4], sys.byteorder)
        else:
            return None
    except OSError:
        return None
    if pid <= 0:
        return None
    started, name = _proc_stat(pid)
    return AskingProcess(pid, started, name)


def _proc_stat(pid: int) -> tuple[int, str]:
    """(start time in clock ticks, command name) from /proc/PID/stat; (0, "") when it
    cannot be read (not Linux, or the process is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read(4096).decode("utf-8", "replace")
    except OSError:
        return 0, ""
    # "PID (comm) S PPID ...": comm may hold spaces and parentheses; it ends at the last ")".
    opened, closed = stat.find("("), stat.rfind(")")
    if opened < 0 or closed < opened:
        return 0, ""
    comm = stat[opened + 1 : closed]
    fields = stat[closed + 2 :].split()
    try:
        started = int(fields[19])  # field 22 of stat, the 20th after "(comm)"
    except (IndexError, ValueError):
        started = 0
    name = "".join(c if c.isprintable() else "?" for c in comm)[:_MAX_NAME_CHARS]
    return started, name


def verify_socket_folder(socket_path: Path) -> None:
    """Refuse a socket whose folder is a symlink, another user's, or open to others.

    Raises UntrustedServer naming the folder and the fix.
    """
    try:
        check_private_folder(
            Path(socket_path).parent,
            what="the Notch socket's folder",
            fix="connect only to a Notch you started (notch run), whose folder is yours "
            "with mode 0700",
        )
    except FolderError as exc:
        raise UntrustedServer(str(exc)) from None


def verify_server(sock: _Connected, socket_path: Path) -> None:
    """Refuse the server on `sock` (connected to `socket_path`) unless it is this user's:
    its folder passes `verify_socket_folder` and its peer uid is ours.

    Call it right after connecting, before sending anything. Raises UntrustedServer.
    """
    verify_socket_folder(socket_path)
    if not hasattr(os, "getuid"):
        return
    try:
        uid = peer_uid(sock)
    except OSError as exc:
        raise UntrustedServer(
            f"{socket_path}: cannot learn who runs the server there ({exc.strerror}); "
            "nothing was sent"
        ) from None
    if uid is not None and uid != os.getuid():
        raise UntrustedServer(
            f"{socket_path}: the server there runs as another user (uid {uid}, you are "
            f"{os.getuid()}), so it is not your Notch; nothing was sent. Stop whatever "
            "listens there and start notch run yourself"
        )

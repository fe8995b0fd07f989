"""Finding the person's D-Bus session bus when the environment does not say where it is.

On Linux the keyring (`runtime/secrets.py`) is the Secret Service, reached over the
session bus, and the `keyring` library (through jeepney) finds that bus only through
`DBUS_SESSION_BUS_ADDRESS`. MCP clients (Claude Desktop, Cursor, the SDKs' default
environment) start `notch mcp` with HOME, USER, PATH and little else, so without help an
integration's API key kept in the keyring is never found under a real client.

`reach_session_bus` fills the variable in for this process, before the keyring is first
consulted, when it is unset: with the first of `$XDG_RUNTIME_DIR/bus` and
`/run/user/<uid>/bus` (when that folder is this user's alone: `folders.derived_runtime_dir`,
the same lookup that finds Notch's socket) that is a socket owned by this user. A symlink,
a plain file or another user's socket is never used: whoever answers on that bus would
be handed the keyring's questions and could answer them with a key of its choosing.
A variable already set is left as it is (the person's session chose it). Stat calls
only: `notch mcp` reads its keys while it starts.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Final

from notch_app.runtime.folders import RUN_USER, derived_runtime_dir

BUS_VARIABLE: Final = "DBUS_SESSION_BUS_ADDRESS"
BUS_NAME: Final = "bus"
"""The session bus's socket in the runtime folder (what systemd's dbus.socket binds)."""

# D-Bus addresses carry these bytes as they are; every other byte is %XX (the spec's
# "optionally escaped" set), which jeepney and libdbus both read back.
_PLAIN_BYTES: Final = frozenset(
    b"-_/.*0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)


def is_own_socket(info: os.stat_result, uid: int) -> bool:
    """Whether `info` (from lstat) is a socket, not a symlink, owned by `uid`."""
    return stat.S_ISSOCK(info.st_mode) and info.st_uid == uid


def find_session_bus(
    env: Mapping[str, str] | None = None, *, run_user: Path = RUN_USER
) -> Path | None:
    """The session bus's socket for a process whose environment lacks its address: the
    first of `$XDG_RUNTIME_DIR/bus` and `<run_user>/<uid>/bus` (that folder this user's
    alone) that is a socket owned by this user, else None. Never raises. `run_user` is a
    seam for tests (`/run/user` needs root to make)."""
    if not hasattr(os, "getuid") or sys.platform in ("win32", "darwin"):
        return None  # Keychain and Credential Manager need no bus
    env = os.environ if env is None else env
    uid = os.getuid()
    places: list[Path] = []
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        places.append(Path(runtime) / BUS_NAME)
    derived = derived_runtime_dir(run_user)
    if derived is not None and derived / BUS_NAME not in places:
        places.append(derived / BUS_NAME)
    for place in places:
        try:
            info = os.lstat(place)
        except OSError:
            continue
        if is_own_socket(info, uid):
            return place
    return None


def bus_address(socket_path: Path) -> str:
    """`unix:path=…` for `socket_path`, escaped as D-Bus addresses are."""
    raw = os.fsencode(socket_path)
    return "unix:path=" + "".join(chr(b) if b in _PLAIN_BYTES else f"%{b:02x}" for b in raw)


def reach_session_bus(
    env: MutableMapping[str, str] | None = None, *, run_user: Path = RUN_USER
) -> str | None:
    """Set `DBUS_SESSION_BUS_ADDRESS` in `env` (default: this process's environment) when
    it is unset and `find_session_bus` finds this user's bus. Returns the address set, or
    None when nothing was changed. Idempotent and cheap: call it before each first use of
    the keyring."""
    env = os.environ if env is None else env
    if env.get(BUS_VARIABLE):
        return None
    found = find_session_bus(env, run_user=run_user)
    if found is None:
        return None
    address = bus_address(found)
    env[BUS_VARIABLE] = address
    return address

"""A few Wayland requests spoken on the wire, without libwayland or Qt.

`notch doctor` asks the compositor which protocols it offers (layer-shell? a seat?) and
which compositor it is (weston, KDE, GNOME and wlroots compositors each offer protocols
of their own). The wire format is small and stable (wayland.xml, "Wire Format"): a
header of object id, size and opcode, then 32-bit arguments; strings are length-prefixed
and padded to 4 bytes. Requests that pass file descriptors are not spoken here.

Every call raises `WaylandError` when the compositor cannot be reached, answers with a
protocol error, or does not answer within `timeout_s`.
"""

from __future__ import annotations

import os
import socket
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

DISPLAY_ID = 1
_HEADER = struct.Struct("=II")
_MAX_MESSAGE = 4096  # the protocol's own limit on one message


class WaylandError(Exception):
    """The compositor cannot be reached, refused a request, or did not answer."""


@dataclass(frozen=True, slots=True)
class Fixed:
    """A wl_fixed_t argument (24.8 fixed point)."""

    value: float


@dataclass(frozen=True, slots=True)
class NewId:
    """A new object the request creates; `interface`/`version` only for wl_registry.bind."""

    id: int
    interface: str = ""
    version: int = 0


@dataclass(frozen=True, slots=True)
class Global:
    """One global the compositor offers (wl_registry.global)."""

    name: int
    interface: str
    version: int


def socket_path(env: Mapping[str, str] | None = None) -> Path | None:
    """Where the session's compositor listens: WAYLAND_DISPLAY (absolute, or inside
    XDG_RUNTIME_DIR); None without a WAYLAND_DISPLAY or a runtime folder to find it in."""
    env = os.environ if env is None else env
    name = env.get("WAYLAND_DISPLAY", "")
    if not name:
        return None
    if os.path.isabs(name):
        return Path(name)
    runtime = env.get("XDG_RUNTIME_DIR", "")
    return Path(runtime) / name if runtime else None


class WaylandWire:
    """One client connection to a compositor, spoken to request by request."""

    def __init__(self, path: Path, *, timeout_s: float = 2.0) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout_s)
        try:
            self._sock.connect(os.fspath(path))
        except OSError as exc:
            self._sock.close()
            raise WaylandError(f"cannot connect to {path} ({exc.strerror or exc})") from None
        self._next_id = DISPLAY_ID + 1
        self._buffer = b""
        self._registry = 0
        self.globals: list[Global] = []

    def __enter__(self) -> WaylandWire:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._sock.close()

    def new_id(self) -> int:
        """A fresh client object id for a request's new_id argument."""
        self._next_id += 1
        return self._next_id - 1

    def list_globals(self) -> list[Global]:
        """Every global the compositor offers now (wl_display.get_registry + a round trip)."""
        if not self._registry:
            self._registry = self.new_id()
            self.request(DISPLAY_ID, 1, NewId(self._registry))  # wl_display.get_registry
        self.roundtrip()
        return list(self.globals)

    def bind(self, interface: str, version: int) -> int:
        """Bind the first global offering `interface` (at most `version`); its object id.
        Raises WaylandError when the compositor offers no such global."""
        if not self._registry:
            self.list_globals()
        offered = next((g for g in self.globals if g.interface == interface), None)
        if offered is None:
            raise WaylandError(f"the compositor offers no {interface}")
        new = self.new_id()
        self.request(
            self._registry, 0, offered.name, NewId(new, interface, min(version, offered.version))
        )
        return new

    def request(self, obj: int, opcode: int, *args: int | str | Fixed | NewId | None) -> None:
        """Send request `opcode` of object `obj`; ints are uint/int/object (None: a null
        object), str a string, Fixed a fixed-point number, NewId a new object."""
        body = b"".join(_encode(a) for a in args)
        size = _HEADER.size + len(body)
        try:
            self._sock.sendall(_HEADER.pack(obj, (size << 16) | opcode) + body)
        except OSError as exc:
            raise WaylandError(f"the compositor closed the connection ({exc})") from None

    def roundtrip(self) -> None:
        """Wait until the compositor has handled every request sent so far (wl_display.sync)."""
        callback = self.new_id()
        self.request(DISPLAY_ID, 0, NewId(callback))
        for obj, opcode, payload in self._events():
            if obj == callback and opcode == 0:  # wl_callback.done
                return
            self._dispatch(obj, opcode, payload)

    # ---- events --------------------------------------------------------------------

    def _dispatch(self, obj: int, opcode: int, payload: bytes) -> None:
        if obj == DISPLAY_ID and opcode == 0:  # wl_display.error(object, code, message)
            failed, code = struct.unpack_from("=II", payload)
            message, _ = _string(payload, 8)
            raise WaylandError(f"protocol error {code} on object {failed}: {message}")
        if obj == self._registry and opcode == 0:  # wl_registry.global(name, interface, ver)
            (name,) = struct.unpack_from("=I", payload)
            interface, end = _string(payload, 4)
            (version,) = struct.unpack_from("=I", payload, end)
            self.globals.append(Global(name, interface, version))
        elif obj == self._registry and opcode == 1:  # wl_registry.global_remove(name)
            (name,) = struct.unpack_from("=I", payload)
            self.globals = [g for g in self.globals if g.name != name]

    def _events(self) -> Iterator[tuple[int, int, bytes]]:
        while True:
            while len(self._buffer) >= _HEADER.size:
                obj, word = _HEADER.unpack_from(self._buffer)
                size, opcode = word >> 16, word & 0xFFFF
                if size < _HEADER.size or size > _MAX_MESSAGE:
                    raise WaylandError(f"the compositor sent a malformed message ({size} bytes)")
                if len(self._buffer) < size:
                    break
                payload = self._buffer[_HEADER.size : size]
                self._buffer = self._buffer[size:]
                yield obj, opcode, payload
            try:
                chunk = self._sock.recv(65536)
            except TimeoutError:
                raise WaylandError("the compositor did not answer in time") from None
            except OSError as exc:
                raise WaylandError(f"lost the compositor ({exc.strerror or exc})") from None
            if not chunk:
                raise WaylandError("the compositor closed the connection")
            self._buffer += chunk


def _encode(arg: int | str | Fixed | NewId | None) -> bytes:
    if arg is None:
        return struct.pack("=I", 0)
    if isinstance(arg, bool):
        return struct.pack("=I", int(arg))
    if isinstance(arg, int):
        return struct.pack("=I" if arg >= 0 else "=i", arg)
    if isinstance(arg, Fixed):
        return struct.pack("=i", round(arg.value * 256))
    if isinstance(arg, NewId):
        if not arg.interface:
            return struct.pack("=I", arg.id)
        return _encode(arg.interface) + struct.pack("=II", arg.version, arg.id)
    raw = arg.encode() + b"\0"
    return struct.pack("=I", len(raw)) + raw + b"\0" * (-len(raw) % 4)


def _string(payload: bytes, at: int) -> tuple[str, int]:
    (length,) = struct.unpack_from("=I", payload, at)
    start = at + 4
    text = payload[start : start + max(0, length - 1)].decode("utf-8", "replace")
    return text, start + length + (-length % 4)


def offered_globals(env: Mapping[str, str] | None = None, timeout_s: float = 2.0) -> list[Global]:
    """The globals of the session's compositor. Raises WaylandError when there is no
    Wayland socket to reach or it does not answer."""
    path = socket_path(env)
    if path is None:
        raise WaylandError("WAYLAND_DISPLAY is not set (or XDG_RUNTIME_DIR to find it in)")
    with WaylandWire(path, timeout_s=timeout_s) as wire:
        return wire.list_globals()


def compositor_from_globals(interfaces: set[str]) -> str:
    """Which compositor offers these protocols, where one gives itself away: weston's own
    shell, KDE's plasma shell, mutter's gtk_shell1, wlroots' protocols; "" if unknown."""
    if "weston_desktop_shell" in interfaces:
        return "weston"
    if "org_kde_plasma_shell" in interfaces:
        return "KDE Plasma (KWin)"
    if "gtk_shell1" in interfaces:
        return "GNOME (Mutter)"
    if "hyprland_toplevel_export_manager_v1" in interfaces:
        return "Hyprland"
    if "zwlr_layer_shell_v1" in interfaces and "zwlr_screencopy_manager_v1" in interfaces:
        return "a wlroots compositor (sway or alike)"
    return ""

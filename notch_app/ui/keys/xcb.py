"""The few libxcb calls a root-window key grab needs, through ctypes.

Why not a binding from PyPI: xcffib (well kept) parses its C declarations with pycparser
and runs `ldconfig` to find libxcb when first imported, measured at 170–400 ms and +7 MiB
on this 2-core machine — paid by the person's first card. python-xlib needs `six` and
last released in 2022. libxcb itself (Debian `libxcb1`, which Qt's xcb platform already
loads) is the well-kept library; these are its stable C ABI calls (xcb.h, xproto.h) and
the structs' fixed wire layouts. ctypes is already loaded by Notch's socket server.

Every function here raises `XcbError` when the connection is broken or a request is
refused; nothing returns a dangling pointer to Python.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

_P = ctypes.c_void_p
_U8 = ctypes.c_uint8


class XcbError(Exception):
    """The X connection failed, or the server refused a request (`code`, X's error code)."""

    def __init__(self, message: str, code: int = 0) -> None:
        super().__init__(message)
        self.code = code


BAD_ACCESS = 10
"""X's error code when another client already grabbed the same key and modifiers."""


class _Cookie(ctypes.Structure):
    _fields_ = [("sequence", ctypes.c_uint)]


class _ScreenIterator(ctypes.Structure):
    _fields_ = [("data", _P), ("rem", ctypes.c_int), ("index", ctypes.c_int)]


class _Setup(ctypes.Structure):
    # xcb_setup_t's fixed part (xproto.h), up to the keycode range.
    _fields_ = [
        ("status", ctypes.c_uint8),
        ("pad0", ctypes.c_uint8),
        ("protocol_major_version", ctypes.c_uint16),
        ("protocol_minor_version", ctypes.c_uint16),
        ("length", ctypes.c_uint16),
        ("release_number", ctypes.c_uint32),
        ("resource_id_base", ctypes.c_uint32),
        ("resource_id_mask", ctypes.c_uint32),
        ("motion_buffer_size", ctypes.c_uint32),
        ("vendor_len", ctypes.c_uint16),
        ("maximum_request_length", ctypes.c_uint16),
        ("roots_len", ctypes.c_uint8),
        ("pixmap_formats_len", ctypes.c_uint8),
        ("image_byte_order", ctypes.c_uint8),
        ("bitmap_format_bit_order", ctypes.c_uint8),
        ("bitmap_format_scanline_unit", ctypes.c_uint8),
        ("bitmap_format_scanline_pad", ctypes.c_uint8),
        ("min_keycode", ctypes.c_uint8),
        ("max_keycode", ctypes.c_uint8),
    ]


class _ReplyHead(ctypes.Structure):
    # Every reply starts so; byte 1 is the per-reply count (keysyms per keycode,
    # keycodes per modifier), the data follows the 32-byte header.
    _fields_ = [
        ("response_type", ctypes.c_uint8),
        ("count", ctypes.c_uint8),
        ("sequence", ctypes.c_uint16),
        ("length", ctypes.c_uint32),
    ]


class _Event(ctypes.Structure):
    # xcb_key_press_event_t's head; the same for every core event (32 bytes in all).
    _fields_ = [
        ("response_type", ctypes.c_uint8),
        ("detail", ctypes.c_uint8),
        ("sequence", ctypes.c_uint16),
        ("time", ctypes.c_uint32),
        ("root", ctypes.c_uint32),
        ("event", ctypes.c_uint32),
        ("child", ctypes.c_uint32),
        ("root_x", ctypes.c_int16),
        ("root_y", ctypes.c_int16),
        ("event_x", ctypes.c_int16),
        ("event_y", ctypes.c_int16),
        ("state", ctypes.c_uint16),
    ]


class _GenericError(ctypes.Structure):
    _fields_ = [
        ("response_type", ctypes.c_uint8),
        ("error_code", ctypes.c_uint8),
    ]


@dataclass(frozen=True, slots=True)
class XEvent:
    """One event from the server: its type (2 KeyPress, 3 KeyRelease, 34 MappingNotify),
    the keycode (`detail`), the server time and the modifier state."""

    kind: int
    detail: int
    time: int
    state: int


_lib: Any = None
_libc: Any = None


def _load() -> Any:
    """libxcb with the prototypes used below; XcbError when it is not installed."""
    global _lib, _libc
    if _lib is not None:
        return _lib
    try:
        lib = ctypes.CDLL("libxcb.so.1")
        libc = ctypes.CDLL(None)  # free() from the C library the process already has
    except OSError as exc:
        raise XcbError(f"libxcb is not installed ({exc}): install Debian's libxcb1") from exc
    proto: list[tuple[str, Any, list[Any]]] = [
        ("xcb_connect", _P, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]),
        ("xcb_disconnect", None, [_P]),
        ("xcb_connection_has_error", ctypes.c_int, [_P]),
        ("xcb_get_file_descriptor", ctypes.c_int, [_P]),
        ("xcb_flush", ctypes.c_int, [_P]),
        ("xcb_get_setup", ctypes.POINTER(_Setup), [_P]),
        ("xcb_setup_roots_iterator", _ScreenIterator, [ctypes.POINTER(_Setup)]),
        ("xcb_screen_next", None, [ctypes.POINTER(_ScreenIterator)]),
        (
            "xcb_grab_key_checked",
            _Cookie,
            # connection, owner_events, window, modifiers, key, pointer and keyboard mode
            [_P, _U8, ctypes.c_uint32, ctypes.c_uint16, _U8, _U8, _U8],
        ),
        ("xcb_ungrab_key", _Cookie, [_P, ctypes.c_uint8, ctypes.c_uint32, ctypes.c_uint16]),
        ("xcb_request_check", ctypes.POINTER(_GenericError), [_P, _Cookie]),
        ("xcb_get_keyboard_mapping", _Cookie, [_P, ctypes.c_uint8, ctypes.c_uint8]),
        ("xcb_get_keyboard_mapping_reply", ctypes.POINTER(_ReplyHead), [_P, _Cookie, _P]),
        ("xcb_get_modifier_mapping", _Cookie, [_P]),
        ("xcb_get_modifier_mapping_reply", ctypes.POINTER(_ReplyHead), [_P, _Cookie, _P]),
        ("xcb_poll_for_event", ctypes.POINTER(_Event), [_P]),
    ]
    for name, restype, argtypes in proto:
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    libc.free.restype = None
    libc.free.argtypes = [_P]
    _lib, _libc = lib, libc
    return lib


class XcbConnection:
    """An X connection of Notch's own (not Qt's): opened with `display` ("":
    $DISPLAY). Raises XcbError when it cannot connect."""

    def __init__(self, display: str = "") -> None:
        self._lib = _load()
        screen = ctypes.c_int(0)
        conn = self._lib.xcb_connect(display.encode() or None, ctypes.byref(screen))
        if not conn or self._lib.xcb_connection_has_error(conn):
            if conn:
                self._lib.xcb_disconnect(conn)
            raise XcbError(f"cannot connect to the X display {display or '$DISPLAY'}")
        self._conn: int | None = conn
        setup = self._lib.xcb_get_setup(conn)
        self.min_keycode = int(setup.contents.min_keycode)
        self.max_keycode = int(setup.contents.max_keycode)
        roots = self._lib.xcb_setup_roots_iterator(setup)
        for _ in range(screen.value):
            self._lib.xcb_screen_next(ctypes.byref(roots))
        # xcb_screen_t starts with its root window's id.
        self.root = int(ctypes.cast(roots.data, ctypes.POINTER(ctypes.c_uint32)).contents.value)

    def _c(self) -> int:
        conn = self._conn
        if conn is None:
            raise XcbError("the X connection is closed")
        if self._lib.xcb_connection_has_error(conn):
            raise XcbError("the X connection failed")
        return conn

    @property
    def fileno(self) -> int:
        """The connection's socket, for a QSocketNotifier."""
        return int(self._lib.xcb_get_file_descriptor(self._c()))

    def keyboard_mapping(self) -> tuple[int, list[int]]:
        """(keysyms per keycode, every keycode's keysyms from `min_keycode` on)."""
        conn = self._c()
        count = self.max_keycode - self.min_keycode + 1
        cookie = self._lib.xcb_get_keyboard_mapping(conn, self.min_keycode, count)
        per, data = self._reply(self._lib.xcb_get_keyboard_mapping_reply, cookie, ctypes.c_uint32)
        return per, data

    def modifier_mapping(self) -> tuple[int, list[int]]:
        """(keycodes per modifier, the keycodes of Shift, Lock, Control, Mod1..Mod5)."""
        conn = self._c()
        cookie = self._lib.xcb_get_modifier_mapping(conn)
        return self._reply(self._lib.xcb_get_modifier_mapping_reply, cookie, ctypes.c_uint8)

    def _reply(self, fetch: Any, cookie: Any, item: Any) -> tuple[int, list[int]]:
        reply = fetch(self._c(), cookie, None)
        if not reply:
            raise XcbError("the X server sent no reply")
        try:
            head = reply.contents
            words = int(head.length)  # 4-byte units after the 32-byte header
            n = words * 4 // ctypes.sizeof(item)
            base = ctypes.cast(reply, ctypes.c_void_p).value or 0
            data = (item * n).from_address(base + 32)
            return int(head.count), [int(v) for v in data]
        finally:
            _libc.free(reply)

    def grab_keys(self, grabs: list[tuple[int, int]]) -> list[int]:
        """Grab each (keycode, modifiers) on the root window, asynchronously for both
        devices (nothing freezes); returns the X error code of each (0: grabbed)."""
        conn = self._c()
        cookies = [
            self._lib.xcb_grab_key_checked(conn, 0, self.root, mods, key, 1, 1)
            for key, mods in grabs
        ]
        codes = []
        for cookie in cookies:
            error = self._lib.xcb_request_check(conn, cookie)
            if error:
                codes.append(int(error.contents.error_code) or -1)
                _libc.free(error)
            else:
                codes.append(0)
        return codes

    def ungrab_keys(self, grabs: list[tuple[int, int]]) -> None:
        """Let go of each (keycode, modifiers) grabbed with `grab_keys`."""
        conn = self._c()
        for key, mods in grabs:
            self._lib.xcb_ungrab_key(conn, key, self.root, mods)
        self._lib.xcb_flush(conn)

    def poll_event(self) -> XEvent | None:
        """The next event already received, else None (never waits)."""
        conn = self._c()
        event = self._lib.xcb_poll_for_event(conn)
        if not event:
            self._c()  # a closed connection also answers "no event"
            return None
        try:
            e = event.contents
            # The top bit marks an event another client sent (SendEvent): never a key.
            return XEvent(int(e.response_type), int(e.detail), int(e.time), int(e.state))
        finally:
            _libc.free(event)

    def close(self) -> None:
        """Disconnect (the server drops this connection's grabs). Never raises."""
        conn, self._conn = self._conn, None
        if conn is not None:
            self._lib.xcb_disconnect(conn)

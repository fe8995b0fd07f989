"""Opening the display, and losing it: one clear line, never a Qt abort or a traceback.

Without a display Qt aborts the process (SIGABRT) after blaming a missing libxcb-cursor0;
when the X server goes away it stops the event loop (qasync then raises "Event loop
stopped before Future completed"), and when the Wayland compositor goes away it exits
the process at once. `prepare_display()` says the first before Qt is started;
`watch_display()` turns Qt's own words for the others into one line naming the display.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TextIO

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

from notch_app.ui.desktop.session import DesktopSession, read_session

_BROKE = (
    "The X11 connection broke",
    "The Wayland connection broke",
    "The Wayland connection experienced a fatal error",
)
_CANNOT_OPEN = ("could not connect to display", "Failed to create wl_display")
_lost: list[str] = []


def prepare_display(session: DesktopSession | None = None) -> str | None:
    """Ask Qt for the platform Notch's overlay wants on this session (XWayland on a
    Wayland session: see session.py). Returns why no window can be shown (no display
    at all), else None. Call before the QApplication is made."""
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None  # macOS and Windows have one display, no DISPLAY to look for
    session = session or read_session()
    forced = session.forced_platform
    if forced and forced not in ("xcb", "wayland"):
        return None  # offscreen, vnc…: the person chose
    if session.server == "none" or (forced == "xcb" and not session.x_display):
        return (
            "no display to show the notch on (neither DISPLAY nor WAYLAND_DISPLAY is set): "
            "run it in your desktop session, or without a screen under `xvfb-run -a`"
        )
    if session.qt_platform:
        os.environ["QT_QPA_PLATFORM"] = session.qt_platform
    return None


def watch_display(command: str = "notch", err: TextIO | None = None) -> None:
    """From now on, Qt's words for a display it cannot open or has lost become one line
    on `err` naming the display (`display_lost()` is then set); other Qt messages pass
    through as Qt would print them."""
    out = err or sys.stderr
    session = read_session()

    def handler(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if any(m in message for m in _BROKE):
            _say_lost(command, session, out)
            return
        if any(m in message for m in _CANNOT_OPEN) or (
            kind == QtMsgType.QtFatalMsg and "platform plugin" in message
        ):
            if not _lost:
                line = (
                    f"{command}: cannot open the display ({_which(session)}): is it running?"
                    if session.server != "none" or os.environ.get("QT_QPA_PLATFORM")
                    else f"{command}: no display to show a window on (neither DISPLAY nor "
                    "WAYLAND_DISPLAY is set): run it in your desktop session"
                )
                _lost.append(line)
                print(line, file=out, flush=True)
            if kind == QtMsgType.QtFatalMsg:
                os._exit(2)  # Qt would abort (a core dump) right after this message
            return
        if _lost:
            return  # what Qt says after the display went away adds nothing
        category = context.category if context is not None else None
        prefix = f"{category}: " if category and category != "default" else ""
        print(f"{prefix}{message}", file=out, flush=True)

    qInstallMessageHandler(handler)
    _said_by.clear()
    _said_by.append(lambda: _say_lost(command, session, out))


_said_by: list[Callable[[], None]] = []  # how watch_display says the display was lost


def display_opened() -> None:
    """Call once the QApplication exists: Qt's X11 platform also opens the display through
    Xlib (for OpenGL) and sets Xlib's I/O error handler, which prints "XIO: fatal IO
    error…" and exits when the X server goes away — at times before Qt itself notices.
    Replaced now by one that says `watch_display`'s one line, then ends as Xlib would."""
    if _said_by:
        _quiet_xlib(_said_by[0])


def _say_lost(command: str, session: DesktopSession, out: TextIO) -> None:
    if not _lost:
        line = f"{command}: lost the display ({_which(session)} went away); Notch stopped"
        _lost.append(line)
        print(line, file=out, flush=True)


_xlib_handlers: list[object] = []  # ctypes callbacks live as long as the process


def _quiet_xlib(say: Callable[[], None]) -> None:
    """Qt's X11 platform also opens the display through Xlib (for OpenGL), whose own
    handler prints "XIO: fatal IO error…" and exits when the X server goes away, at
    times before Qt notices: say Notch's one line instead, then end as Xlib would."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("X11")
    if not name:
        return
    try:
        xlib = ctypes.CDLL(name)
    except OSError:
        return
    handler_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)

    def lost(_display: int | None) -> int:
        say()
        os._exit(1)  # Xlib exits the process after its handler returns, whatever it says

    callback = handler_type(lost)
    _xlib_handlers.append(callback)
    xlib.XSetIOErrorHandler.argtypes = [handler_type]
    xlib.XSetIOErrorHandler.restype = ctypes.c_void_p
    xlib.XSetIOErrorHandler(callback)


def display_lost() -> str | None:
    """The line said when the display went away (or could not be opened), else None."""
    return _lost[0] if _lost else None


def _which(session: DesktopSession) -> str:
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform == "xcb" or (not platform and session.server == "x11"):
        return f"the X server {session.x_display or '(DISPLAY unset)'}"
    return f"the Wayland compositor {session.wayland_display or 'wayland-0'}"

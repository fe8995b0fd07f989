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
            if not _lost:
                line = f"{command}: lost the display ({_which(session)} went away); Notch stopped"
                _lost.append(line)
                print(line, file=out, flush=True)
            return
        if any(m in message for m in _CANNOT_OPEN) or (
            kind == QtMsgType.QtFatalMsg and "platform plugin" in message
        ):
            if not _lost:
                line = f"{command}: cannot open the display ({_which(session)}): is it running?"
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


def display_lost() -> str | None:
    """The line said when the display went away (or could not be opened), else None."""
    return _lost[0] if _lost else None


def _which(session: DesktopSession) -> str:
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform == "xcb" or (not platform and session.server == "x11"):
        return f"the X server {session.x_display or '(DISPLAY unset)'}"
    return f"the Wayland compositor {session.wayland_display or 'wayland-0'}"

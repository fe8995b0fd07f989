"""How the notch's windows get to the top centre of the screen on this desktop.

Three routes, chosen by the Qt platform Notch runs on and the session around it:

- "x11": an X11 session. A frameless, always-on-top tool window; the window manager
  honours the position Notch asks for (measured under Xvfb, with and without xcompmgr).
- "xwayland": a Wayland session with XWayland (what `notch run` asks Qt for there; see
  `session.py`). The window is override-redirect: no window manager places it, so it
  appears exactly where Notch puts it and above other windows. Measured under weston 10
  (headless, --xwayland) and sway 1.7 (headless): at the top centre to the pixel, where
  a managed window went to weston's top-left corner. What it costs there: the
  compositor never gives such a window keyboard focus (measured under sway: clicks
  reach the card, keys stay with the person's window), so a card is answered by click,
  or by the answer chords where the desktop's GlobalShortcuts portal offers them.
- "wayland": a Wayland session where Qt runs natively (no XWayland, or the person chose
  QT_QPA_PLATFORM=wayland). The compositor places every window itself: the notch hides
  while idle and opens each look as a new window of its final size, so it is never
  larger than the place the compositor gives it (weston placed a growing window so
  that it ran off the bottom of the screen).
- "other": offscreen (tests, `notch render`), macOS and Windows: geometry as asked.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from notch_app.ui.desktop.session import read_session

OverlayRoute = Literal["x11", "xwayland", "wayland", "other"]


def overlay_route() -> OverlayRoute:
    """The route this process's overlay windows take (see the module's docstring)."""
    platform = QGuiApplication.platformName()
    if platform == "xcb":
        return "xwayland" if read_session().server == "wayland" else "x11"
    if platform.startswith("wayland"):
        return "wayland"
    return "other"


def overlay_flags(route: OverlayRoute | None = None) -> Qt.WindowType:
    """The window flags of a notch window (the notch and the side notch) on `route`
    (default: this process's): frameless, always on top, never focused when shown;
    override-redirect through XWayland."""
    flags = (
        Qt.WindowType.Tool
        | Qt.WindowType.FramelessWindowHint
        | Qt.WindowType.WindowStaysOnTopHint
        | Qt.WindowType.WindowDoesNotAcceptFocus
    )
    if (route or overlay_route()) == "xwayland":
        flags |= Qt.WindowType.X11BypassWindowManagerHint
    return flags


def places_itself(route: OverlayRoute | None = None) -> bool:
    """True where a window appears where Notch puts it (every route but "wayland")."""
    return (route or overlay_route()) != "wayland"

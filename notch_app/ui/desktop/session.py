"""Which desktop session Notch runs in, as its environment says (no Qt, no connection).

A Wayland session is one with WAYLAND_DISPLAY (or XDG_SESSION_TYPE=wayland); an X11
session has only DISPLAY. On a Wayland session DISPLAY too means XWayland is there: GNOME,
KDE Plasma, sway, Hyprland and weston --xwayland all set it for the programs they start.

Why Notch asks Qt for XWayland on a Wayland session (the `qt_platform` below): a native
Wayland window cannot choose where it appears — xdg-shell leaves that to the compositor
(weston drops it at a random place, sway tiles it, GNOME centres it), and the protocol
that lets a panel sit at the top of the screen (wlr-layer-shell, offered by KDE Plasma,
sway, Hyprland, COSMIC, niri; not by GNOME or weston) needs a Qt plugin built against the
exact private Qt inside the PySide6 wheel, which neither the wheel (its shell plugins:
xdg-shell, wl-shell, ivi-shell, qt-shell, fullscreen-shell-v1) nor Debian's layer-shell-qt
(5.27, built for Qt 5) provides. Through XWayland an override-redirect window is placed by
the program itself, above other windows, on every one of those compositors.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

DisplayServer = Literal["x11", "wayland", "none"]

_DESKTOP_NAMES = {
    "gnome": "GNOME",
    "ubuntu": "GNOME",
    "kde": "KDE Plasma",
    "sway": "sway",
    "hyprland": "Hyprland",
    "cosmic": "COSMIC",
    "niri": "niri",
    "weston": "weston",
    "xfce": "Xfce",
    "x-cinnamon": "Cinnamon",
    "mate": "MATE",
    "lxqt": "LXQt",
}


@dataclass(frozen=True, slots=True)
class DesktopSession:
    """The session as the environment describes it."""

    server: DisplayServer
    x_display: str
    """DISPLAY ("" when unset): the X server, or XWayland beside a Wayland compositor."""
    wayland_display: str
    """WAYLAND_DISPLAY ("" when unset)."""
    desktop: str
    """The desktop's own name ("GNOME", "KDE Plasma", "sway"…), "" when it says none."""
    forced_platform: str
    """QT_QPA_PLATFORM as the person set it ("" when unset): Notch then never chooses."""

    @property
    def xwayland(self) -> bool:
        """A Wayland session with an X server beside it (XWayland)."""
        return self.server == "wayland" and bool(self.x_display)

    @property
    def qt_platform(self) -> str | None:
        """The Qt platform Notch's overlay asks for: "xcb" on a Wayland session with
        XWayland (see the module's docstring), None to leave Qt its own choice (an X11
        session, no display, or a platform the person chose)."""
        if self.forced_platform or not self.xwayland:
            return None
        return "xcb"

    @property
    def described(self) -> str:
        """One phrase for messages: "Wayland (sway, wayland-1) with XWayland on :1"."""
        if self.server == "none":
            return "no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"
        name = f"{self.desktop}, " if self.desktop else ""
        if self.server == "x11":
            return f"X11 ({name}DISPLAY {self.x_display})"
        where = self.wayland_display or "wayland-0"
        beside = f" with XWayland on {self.x_display}" if self.xwayland else ", no XWayland"
        return f"Wayland ({name}{where}){beside}"


def read_session(env: Mapping[str, str] | None = None) -> DesktopSession:
    """The session `env` (default: this process's environment) describes."""
    env = os.environ if env is None else env
    x_display = env.get("DISPLAY", "")
    wayland_display = env.get("WAYLAND_DISPLAY", "")
    server: DisplayServer
    if wayland_display or (env.get("XDG_SESSION_TYPE") == "wayland" and not x_display):
        server = "wayland"
    elif x_display:
        server = "x11"
    else:
        server = "none"
    return DesktopSession(
        server=server,
        x_display=x_display,
        wayland_display=wayland_display,
        desktop=desktop_name(env),
        forced_platform=env.get("QT_QPA_PLATFORM", ""),
    )


def desktop_name(env: Mapping[str, str]) -> str:
    """The desktop's name from XDG_CURRENT_DESKTOP (first known entry), else from the
    sockets a compositor announces (SWAYSOCK, HYPRLAND_INSTANCE_SIGNATURE); "" if none."""
    for part in env.get("XDG_CURRENT_DESKTOP", "").split(":"):
        name = _DESKTOP_NAMES.get(part.strip().lower())
        if name:
            return name
    if env.get("SWAYSOCK"):
        return "sway"
    if env.get("HYPRLAND_INSTANCE_SIGNATURE"):
        return "Hyprland"
    if env.get("KDE_FULL_SESSION"):
        return "KDE Plasma"
    return ""

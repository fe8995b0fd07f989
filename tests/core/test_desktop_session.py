"""Which session Notch runs in, read from the environment, and the Qt platform its overlay
asks for: XWayland on a Wayland session that has it, never over the person's own choice."""

from __future__ import annotations

import pytest

from notch_app.ui.desktop.session import read_session


@pytest.mark.parametrize(
    ("env", "server", "platform", "desktop"),
    [
        ({"DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "XFCE"}, "x11", None, "Xfce"),
        ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0",
          "XDG_CURRENT_DESKTOP": "ubuntu:GNOME"}, "wayland", "xcb", "GNOME"),
        ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":1", "XDG_CURRENT_DESKTOP": "KDE"},
         "wayland", "xcb", "KDE Plasma"),
        ({"WAYLAND_DISPLAY": "wayland-1", "SWAYSOCK": "/run/user/1000/sway-ipc.sock"},
         "wayland", None, "sway"),  # sway without XWayland: Qt's own choice (native)
        ({"WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0", "QT_QPA_PLATFORM": "wayland"},
         "wayland", None, ""),  # the person chose native Wayland: Notch never overrides it
        ({"XDG_SESSION_TYPE": "wayland"}, "wayland", None, ""),
        ({}, "none", None, ""),
    ],
)  # fmt: skip
def test_the_session_and_the_platform_the_overlay_asks_for(
    env: dict[str, str], server: str, platform: str | None, desktop: str
) -> None:
    session = read_session(env)
    assert (session.server, session.qt_platform, session.desktop) == (server, platform, desktop)


def test_a_session_describes_itself_in_one_phrase() -> None:
    wayland = read_session({"WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":3",
                            "XDG_CURRENT_DESKTOP": "sway"})  # fmt: skip
    assert wayland.described == "Wayland (sway, wayland-1) with XWayland on :3"
    assert read_session({"DISPLAY": ":99"}).described == "X11 (DISPLAY :99)"
    assert read_session({}).described.startswith("no display")

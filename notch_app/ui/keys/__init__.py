"""Answering the card on screen from the keyboard without taking focus (issue 13 §5).

A card without inputs never takes keyboard focus, so plain Enter and Esc keep going to
the application the person is typing in. Instead, while a card is on screen, Notch takes
two chords from every application: Ctrl+Alt+Enter approves (held by the card's arming
delay and its confirm gate, like any yes) and Ctrl+Alt+Esc declines. Where no global
grab is possible nothing is grabbed and the card shows no hint.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication

from notch_app.ui.desktop.session import read_session
from notch_app.ui.keys.answer_keys import AnswerKeys, FocusedAnswerKeys
from notch_app.ui.keys.chords import ANSWER_CHORDS, APPROVE_CHORD, DECLINE_CHORD, chords_hint

__all__ = [
    "ANSWER_CHORDS",
    "APPROVE_CHORD",
    "DECLINE_CHORD",
    "AnswerKeys",
    "FocusedAnswerKeys",
    "answer_keys_for_platform",
    "chords_hint",
]


def answer_keys_for_platform(parent: QObject | None = None) -> AnswerKeys:
    """The answer chords for the session Qt runs in. Never raises.

    - an X11 session: a root-window grab (x11_grab.py);
    - a Wayland session: the desktop portal's GlobalShortcuts where it offers them
      (portal.py). An X11 grab through XWayland would see keys only while an X11 window
      has focus, so it is never offered there. Without the portal a native Wayland card
      says ↵ and Esc work once it has focus; through XWayland it takes no keyboard at all
      (measured: weston, sway) and offers no keys;
    - macOS, Windows, offscreen: nothing is grabbed, no hint."""
    platform = QGuiApplication.platformName()
    native = platform.startswith("wayland")
    if native or (platform == "xcb" and read_session().server == "wayland"):
        from notch_app.ui.keys.portal import PortalAnswerKeys, portal_shortcuts_version

        if portal_shortcuts_version() is not None:
            keys = PortalAnswerKeys(parent)
            keys.start()
            return keys
        return FocusedAnswerKeys(parent) if native else AnswerKeys(parent)
    if platform != "xcb":
        return AnswerKeys(parent)
    from notch_app.ui.keys.x11_grab import X11AnswerKeys

    return X11AnswerKeys(parent=parent)

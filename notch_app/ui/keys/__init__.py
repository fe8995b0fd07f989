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

from notch_app.ui.keys.answer_keys import AnswerKeys
from notch_app.ui.keys.chords import ANSWER_CHORDS, APPROVE_CHORD, DECLINE_CHORD, chords_hint

__all__ = [
    "ANSWER_CHORDS",
    "APPROVE_CHORD",
    "DECLINE_CHORD",
    "AnswerKeys",
    "answer_keys_for_platform",
    "chords_hint",
]


def answer_keys_for_platform(parent: QObject | None = None) -> AnswerKeys:
    """The answer chords for the platform Qt runs on: a root-window grab on X11 (xcb),
    else (Wayland, macOS, Windows, offscreen) chords that grab nothing. Never raises."""
    if QGuiApplication.platformName() != "xcb":
        return AnswerKeys(parent)
    from notch_app.ui.keys.x11_grab import X11AnswerKeys

    return X11AnswerKeys(parent=parent)

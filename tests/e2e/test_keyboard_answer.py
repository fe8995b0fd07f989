"""Answering a card from the keyboard without it taking focus (issue 13 §5), against the
real `notch run` on Xvfb, with another application holding the keyboard focus.

The other application is a small Qt text window (a "typing pad", its own process) that
writes down every key it receives. The person types into it, Enter included, while a
card without inputs is on screen: the pad gets every key, the card stays undecided, and
focus never moves. Ctrl+Alt+Enter approves the card and Ctrl+Alt+Esc declines it from
there (also with CapsLock and NumLock on), a chord pressed before the card armed does
nothing, and once the card is gone the chord reaches the pad again.

Chords go through XTEST on an open connection from this process (`Keyboard`), so a key
lands when the test says: starting xdotool takes 100–230 ms on a loaded machine.
"""

from __future__ import annotations

import ctypes
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from notch_app.client import NotchClient
from notch_app.ipc.client import ConfirmationEvent
from notch_app.runtime.decision import Decision

pytestmark = pytest.mark.e2e

FILES = "dev.notch.examples.files"
DELETE_ARGS = {
    "paths": ["/home/maya/Downloads/Zoom-5.17.dmg", "/home/maya/Downloads/Slack-4.36.dmg"],
    "count": 2,
    "folder": "/home/maya/Downloads",
    "total_size": "410 MB",
}

PAD_SCRIPT = r"""
import sys
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPlainTextEdit

log = open(sys.argv[1], "a", buffering=1, encoding="utf-8")


class Pad(QPlainTextEdit):
    def keyPressEvent(self, event):
        mods = event.modifiers()
        words = [Qt.Key(event.key()).name]
        if mods & Qt.KeyboardModifier.ControlModifier:
            words.append("ctrl")
        if mods & Qt.KeyboardModifier.AltModifier:
            words.append("alt")
        log.write(" ".join(words) + "\n")
        super().keyPressEvent(event)

    def focusInEvent(self, event):
        log.write("focus in\n")
        super().focusInEvent(event)


app = QApplication(sys.argv[:1])
pad = Pad()
pad.setWindowTitle("Typing pad")
pad.setGeometry(100, 560, 500, 180)  # below the card: never over its footer
pad.show()
app.exec()
"""


class Keyboard:
    """Key presses through XTEST on an open display connection (the same input path as a
    person's keyboard). `press("ctrl", "alt", "Return")` holds each key in order and lets
    go in reverse; it returns once the X server has taken every event (XSync)."""

    NAMES: ClassVar[dict[str, str]] = {"ctrl": "Control_L", "alt": "Alt_L"}

    def __init__(self, display: str) -> None:
        self._x11 = ctypes.CDLL("libX11.so.6")
        self._xtst = ctypes.CDLL("libXtst.so.6")
        self._x11.XOpenDisplay.restype = ctypes.c_void_p
        self._x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self._x11.XStringToKeysym.restype = ctypes.c_ulong
        self._x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
        self._x11.XKeysymToKeycode.restype = ctypes.c_ubyte
        self._x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        self._x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self._x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self._xtst.XTestFakeKeyEvent.argtypes = [
            ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong,
        ]  # fmt: skip
        self._display = self._x11.XOpenDisplay(display.encode())
        if not self._display:
            raise AssertionError(f"cannot open X display {display} for XTEST keys")

    def _code(self, name: str) -> int:
        sym = self._x11.XStringToKeysym(self.NAMES.get(name, name).encode())
        code = int(self._x11.XKeysymToKeycode(self._display, sym))
        assert code, f"no key for {name} in the X keymap"
        return code

    def press(self, *names: str) -> None:
        self.hold(*names)
        self.let_go(*names)

    def hold(self, *names: str) -> None:
        """Press each key and keep it down (the X server repeats the last one)."""
        for name in names:
            self._xtst.XTestFakeKeyEvent(self._display, self._code(name), 1, 0)
        self._x11.XSync(self._display, 0)

    def let_go(self, *names: str) -> None:
        """Release keys held with `hold`, in reverse order."""
        for name in reversed(names):
            self._xtst.XTestFakeKeyEvent(self._display, self._code(name), 0, 0)
        self._x11.XSync(self._display, 0)

    def close(self) -> None:
        self._x11.XCloseDisplay(self._display)


class TypingPad:
    """The other application: its X window, and the keys it received, in order."""

    def __init__(self, xserver: Any, log: Path, proc: subprocess.Popen[bytes]) -> None:
        self.xserver = xserver
        self.log = log
        self.proc = proc
        self.window = ""

    def received(self) -> list[str]:
        return self.log.read_text(encoding="utf-8").splitlines()

    def has_focus(self) -> bool:
        focused: str = self.xserver.xdotool("getwindowfocus")
        return focused == self.window


@pytest.fixture
def keyboard(xserver: Any) -> Iterator[Keyboard]:
    try:
        ctypes.CDLL("libXtst.so.6")
    except OSError:
        pytest.skip("libXtst is not installed (it comes with xdotool: scripts/setup.sh)")
    keys = Keyboard(xserver.display)
    yield keys
    keys.close()


@pytest.fixture
def pad(xserver: Any, tmp_path: Path, wait_for: Any) -> Iterator[TypingPad]:
    """The typing pad on screen with the keyboard focus, its first "focus in" seen."""
    log = tmp_path / "pad-keys.txt"
    log.write_text("", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-c", PAD_SCRIPT, str(log)],
        env=xserver.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    typing_pad = TypingPad(xserver, log, proc)
    try:
        typing_pad.window = str(
            wait_for(lambda: xserver.windows("^Typing pad$"), 30, "the typing pad's window")[-1]
        )
        xserver.xdotool("windowfocus", "--sync", typing_pad.window)
        wait_for(lambda: "focus in" in typing_pad.received(), 20, "the typing pad to take focus")
        assert typing_pad.has_focus()
        yield typing_pad
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


class Asking:
    """One `confirm` from an agent in a thread: the events it heard and its decision."""

    def __init__(self, socket: Path, args: dict[str, Any]) -> None:
        self.asked = threading.Event()
        self.shown = threading.Event()
        self.decision: Decision | None = None
        self.error: BaseException | None = None
        self.call_id = ""
        self._thread = threading.Thread(target=self._run, args=(socket, args), daemon=True)
        self._thread.start()

    def _heard(self, event: ConfirmationEvent) -> None:
        self.call_id = event.call_id
        self.asked.set()
        if event.event == "shown":
            self.shown.set()

    def _run(self, socket: Path, args: dict[str, Any]) -> None:
        try:
            with NotchClient(socket) as client:
                self.decision = client.confirm(
                    FILES, "delete_files", args, timeout=60, on_event=self._heard
                )
        except BaseException as exc:  # reported by the test that waits for it
            self.error = exc

    def undecided(self) -> bool:
        return self._thread.is_alive()

    def result(self, timeout: float = 30) -> Decision:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "no decision came"
        assert self.error is None, self.error
        assert self.decision is not None
        return self.decision


@pytest.fixture
def notch(xserver: Any, shared_notch: Any, wait_for: Any) -> Any:
    """`notch run` on the display (this module's shared one), its idle pill up."""
    process = shared_notch()
    wait_for(lambda: xserver.window(), 20, "the idle notch pill")
    return process


def _ask(notch: Any, wait_for: Any, args: dict[str, Any] = DELETE_ARGS) -> Asking:
    asking = Asking(notch.socket, args)
    wait_for(asking.shown.is_set, 30, "the card's first frame on screen (its `shown` event)")
    return asking


def test_typing_elsewhere_never_decides_and_the_chord_approves_without_taking_focus(
    xserver: Any,
    notch: Any,
    pad: TypingPad,
    keyboard: Keyboard,
    wait_for: Any,
) -> None:
    asking = _ask(notch, wait_for)
    # At once, long before the card armed: the chord is Notch's, and does nothing.
    keyboard.press("ctrl", "alt", "Return")
    card = xserver.settled_card()
    wait_for(lambda: xserver.confirm_armed(card), 20, "the card's Delete to show armed")
    assert asking.undecided(), "a chord pressed before the card armed decided it"
    assert "Key_Return ctrl alt" not in pad.received(), "the chord went to the pad, not Notch"

    # The person goes on typing in the pad, Enter included: all of it is the pad's.
    xserver.xdotool("type", "--delay", "20", "ship it")
    xserver.xdotool("key", "Return")
    xserver.xdotool("key", "Escape")
    wait_for(lambda: pad.received()[-1:] == ["Key_Escape"], 20, "the pad to get Enter and Esc")
    assert "Key_Return" in pad.received()
    assert asking.undecided(), "Enter or Esc typed into another application decided the card"
    assert pad.has_focus(), "the card took the keyboard focus"
    xserver.screenshot("keyboard-answer-card-up")

    keyboard.press("ctrl", "alt", "Return")
    decision = asking.result()
    assert (decision.outcome, decision.decided_by) == ("approved", "key")
    assert decision.arguments == DELETE_ARGS
    assert pad.has_focus(), "approving by chord moved the focus"
    assert "Key_Return ctrl alt" not in pad.received()

    # The card is gone: the idle notch holds no grab, the chord is the pad's again.
    xserver.notch_idle()
    keyboard.press("ctrl", "alt", "Return")
    wait_for(
        lambda: "Key_Return ctrl alt" in pad.received(), 20, "the chord to reach the pad once idle"
    )


@pytest.fixture
def locks_on(keyboard: Keyboard) -> Iterator[Callable[[], None]]:
    """`locks_on()`: turn CapsLock and NumLock on; both are turned off again after the
    test (the X server is shared by every e2e test)."""
    turned: list[str] = []

    def turn_on() -> None:
        for key in ("Caps_Lock", "Num_Lock"):
            keyboard.press(key)
            turned.append(key)

    yield turn_on
    for key in turned:
        keyboard.press(key)


def test_the_decline_chord_declines_at_once_also_with_caps_lock_and_num_lock_on(
    xserver: Any,
    notch: Any,
    pad: TypingPad,
    keyboard: Keyboard,
    locks_on: Callable[[], None],
    wait_for: Any,
) -> None:
    locks_on()
    asking = _ask(notch, wait_for)
    keyboard.press("ctrl", "alt", "Escape")  # decline is never held
    decision = asking.result()
    assert (decision.outcome, decision.decided_by) == ("declined", "key")
    assert pad.has_focus()
    assert "Key_Escape ctrl alt" not in pad.received()

    # And approve with the locks on, once this card armed.
    asking = _ask(notch, wait_for)
    card = xserver.settled_card()
    wait_for(lambda: xserver.confirm_armed(card), 20, "the card's Delete to show armed")
    keyboard.press("ctrl", "alt", "Return")
    assert asking.result().outcome == "approved"
    assert "Key_Return ctrl alt" not in pad.received()


def test_a_chord_another_program_holds_is_left_to_it_and_the_other_still_works(
    xserver: Any,
    notch: Any,
    pad: TypingPad,
    keyboard: Keyboard,
    wait_for: Any,
) -> None:
    from notch_app.ui.keys.chords import XK_ESCAPE
    from notch_app.ui.keys.x11_grab import CONTROL_MASK, MOD_MASKS
    from notch_app.ui.keys.xcb import XcbConnection

    other = XcbConnection(xserver.display)  # e.g. a desktop's own Ctrl+Alt+Esc
    try:
        per, syms = other.keyboard_mapping()
        escape = other.min_keycode + syms.index(XK_ESCAPE) // per
        assert other.grab_keys([(escape, CONTROL_MASK | MOD_MASKS[0])]) == [0]
        asking = _ask(notch, wait_for)
        wait_for(
            lambda: "another program holds the decline chord" in notch.output(),
            20,
            "Notch to say the decline chord is another program's",
        )
        keyboard.press("ctrl", "alt", "Escape")  # the other program's: not a decline
        card = xserver.settled_card()
        wait_for(lambda: xserver.confirm_armed(card), 20, "the card's Delete to show armed")
        assert asking.undecided()
        keyboard.press("ctrl", "alt", "Return")
        assert asking.result().outcome == "approved"
    finally:
        other.close()


def test_a_held_chord_approves_one_card_never_the_next(
    xserver: Any,
    notch: Any,
    pad: TypingPad,
    keyboard: Keyboard,
    wait_for: Any,
) -> None:
    first = _ask(notch, wait_for)
    card = xserver.settled_card()
    wait_for(lambda: xserver.confirm_armed(card), 20, "the first card's Delete to show armed")
    one_file = {**DELETE_ARGS, "paths": ["/home/maya/thesis.tex"], "count": 1}
    second = Asking(notch.socket, one_file)
    wait_for(second.asked.is_set, 30, "the second card to wait behind the first")
    chord = ("ctrl", "alt", "Return")
    keyboard.hold(*chord)  # and keeps holding: Enter repeats while the next card arrives
    try:
        assert first.result().outcome == "approved"
        wait_for(second.shown.is_set, 30, "the second card on screen")
        nxt = xserver.settled_card()
        wait_for(lambda: xserver.confirm_armed(nxt), 20, "the second card's Delete armed")
        assert second.undecided(), "a held chord ran on into the next card"
    finally:
        keyboard.let_go(*chord)
    keyboard.press("ctrl", "alt", "Escape")
    assert second.result().outcome == "declined"
    assert pad.has_focus()

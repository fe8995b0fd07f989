"""The answer chords on X11: a passive key grab on the root window, through libxcb.

While a card is on screen Notch grabs Ctrl+Alt+Enter and Ctrl+Alt+Esc on the root
window (with every combination of CapsLock, NumLock and ScrollLock, which X counts as
modifiers). The X server then hands those chords to Notch whichever window has focus,
and only those: focus never moves, every other key (plain Enter and Esc included) goes
where the person is typing. Released for every other look, so the idle notch holds no
grab. Its own X connection is read from Qt's loop by a socket notifier: no thread, no
timer. The binding is `xcb.py` beside this file (why not one from PyPI: see there).
"""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QObject, QSocketNotifier, QTimer

from notch_app.ui.desktop.display import display_lost
from notch_app.ui.keys.answer_keys import AnswerKeys
from notch_app.ui.keys.chords import ANSWER_CHORDS, AnswerRole
from notch_app.ui.keys.xcb import BAD_ACCESS, XcbConnection, XEvent

CONTROL_MASK = 1 << 2
LOCK_MASK = 1 << 1  # CapsLock
MOD_MASKS = tuple(1 << n for n in range(3, 8))  # Mod1..Mod5, in the modifier map's order
XK_ALT_L, XK_ALT_R, XK_META_L = 0xFFE9, 0xFFEA, 0xFFE7
XK_NUM_LOCK, XK_SCROLL_LOCK = 0xFF7F, 0xFF14
KEY_PRESS, KEY_RELEASE, MAPPING_NOTIFY = 2, 3, 34
"""Core event types; one another client sent (SendEvent) has the top bit set: not a key."""


class X11AnswerKeys(AnswerKeys):
    """The chords grabbed on the root window of `display` (default: $DISPLAY).

    A failure to connect or to grab is said once on stderr and leaves the chords out of
    the hint; the card still works by click, and by Enter and Esc once focused."""

    def __init__(self, display: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._display = display if display is not None else os.environ.get("DISPLAY", "")
        self._conn: XcbConnection | None = None
        self._notifier: QSocketNotifier | None = None
        self._broken = False
        self._grabs: list[tuple[int, int]] = []  # (keycode, modifiers) held now
        self._roles: dict[int, AnswerRole] = {}  # keycode → its chord, while grabbed
        self._taken: frozenset[AnswerRole] = frozenset()
        self._down: set[int] = set()
        # A held key repeats as release + press with the same server time (or, with
        # detectable auto-repeat, as presses without a release): neither is a new press.
        self._last_release: tuple[int, int] | None = None
        self._refused_said: set[AnswerRole] = set()  # said on stderr once, not per card

    @property
    def grabbed(self) -> frozenset[AnswerRole]:
        return self._taken

    def grab(self) -> None:
        if self._grabs or self._broken:
            return
        try:
            self._grab(self._connect())
        except Exception as exc:  # no X server, no libxcb, a refused connection
            self._give_up(f"cannot take the answer keys on X11 ({exc})")

    def release(self) -> None:
        grabs, self._grabs = self._grabs, []
        self._roles = {}
        self._taken = frozenset()
        self._down.clear()
        if not grabs or self._conn is None:
            return
        try:
            self._conn.ungrab_keys(grabs)
        except Exception as exc:  # the X server went away: nothing is grabbed then
            self._give_up(f"lost the X connection for the answer keys ({exc})", lost=True)

    def close(self) -> None:
        self.release()
        self._disconnect()

    # ---- grabbing ------------------------------------------------------------------

    def _connect(self) -> XcbConnection:
        if self._conn is None:
            conn = XcbConnection(self._display)
            notifier = QSocketNotifier(conn.fileno, QSocketNotifier.Type.Read, self)
            notifier.activated.connect(self._read_events)
            self._conn, self._notifier = conn, notifier
        return self._conn

    def _grab(self, conn: XcbConnection) -> None:
        """Grab the chords as the keyboard is laid out now. Grabs already held that still
        fit are kept, never let go and taken again: no chord slips through to another
        application while the layout is read again (MappingNotify)."""
        asked, plain = chord_grabs(conn)
        held = set(self._grabs)
        new = [(keycode, mods) for _, keycode, mods in asked if (keycode, mods) not in held]
        errors = iter(conn.grab_keys(new))
        grabs: list[tuple[int, int, AnswerRole]] = []
        refused: set[AnswerRole] = set()
        for role, keycode, modifiers in asked:
            if (keycode, modifiers) not in held and (error := next(errors)):
                if modifiers == plain and error == BAD_ACCESS:
                    refused.add(role)  # another program holds the chord itself
                continue
            grabs.append((keycode, modifiers, role))
        # A chord another program holds is left to it whole, CapsLock and NumLock too.
        kept = [(k, m) for k, m, role in grabs if role not in refused]
        stale = [g for g in held | {(k, m) for k, m, _ in grabs} if g not in kept]
        if stale:
            conn.ungrab_keys(stale)
        self._grabs = kept
        self._roles = {k: role for k, _, role in grabs if role not in refused}
        self._taken = frozenset(self._roles.values())
        if refused and refused != self._refused_said:
            print(
                "notch: another program holds the "
                + " and ".join(sorted(refused))
                + " chord; cards do not offer it",
                file=sys.stderr,
            )
        self._refused_said = refused
        self._read_events()  # events xcb read while it waited for the replies

    # ---- reading -------------------------------------------------------------------

    def _read_events(self) -> None:
        conn = self._conn
        if conn is None:
            return
        try:
            while (event := conn.poll_event()) is not None:
                self._on_event(event)
        except Exception as exc:
            self._give_up(f"lost the X connection for the answer keys ({exc})", lost=True)

    def _on_event(self, event: XEvent) -> None:
        if event.kind == MAPPING_NOTIFY and self._grabs and self._conn is not None:
            # The keyboard layout changed: the chords' keys may be other keycodes now.
            self._grab(self._conn)
            return
        if event.kind == KEY_RELEASE:
            self._down.discard(event.detail)
            self._last_release = (event.detail, event.time)
            return
        if event.kind != KEY_PRESS:
            return
        repeat = event.detail in self._down or self._last_release == (event.detail, event.time)
        self._down.add(event.detail)
        role = self._roles.get(event.detail)
        if repeat or role is None:
            return
        if role == "approve":
            self.approvePressed.emit()
        else:
            self.declinePressed.emit()

    def _give_up(self, why: str, *, lost: bool = False) -> None:
        if lost:
            # The X server itself may be gone: Notch then says so in one line of its own
            # (ui/desktop/display.py), and a line about the keys would only add noise.
            QTimer.singleShot(1000, lambda: self._say_given_up(why))
        else:
            self._say_given_up(why)
        self._broken = True
        self._grabs = []
        self._roles = {}
        self._taken = frozenset()
        self._disconnect()

    @staticmethod
    def _say_given_up(why: str) -> None:
        if display_lost() is None:
            print(
                f"notch: {why}; answer cards by click, or by Enter and Esc once focused",
                file=sys.stderr,
            )

    def _disconnect(self) -> None:
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


def chord_grabs(conn: XcbConnection) -> tuple[list[tuple[AnswerRole, int, int]], int]:
    """Every (chord, keycode, modifiers) to grab for the keyboard's layout now — each
    chord's keys with Ctrl+Alt and every mix of the lock modifiers — and Ctrl+Alt's mask."""
    per, syms = conn.keyboard_mapping()
    codes: dict[int, list[int]] = {}
    for i in range(len(syms) // max(per, 1)):
        for sym in syms[i * per : (i + 1) * per]:
            if sym:
                codes.setdefault(sym, []).append(conn.min_keycode + i)
    per_mod, mods = conn.modifier_mapping()

    def mask_of(*keysyms: int) -> int:
        wanted = {code for sym in keysyms for code in codes.get(sym, [])}
        for n, mask in enumerate(MOD_MASKS, start=3):
            if wanted & set(mods[n * per_mod : (n + 1) * per_mod]):
                return mask
        return 0

    alt = mask_of(XK_ALT_L, XK_ALT_R) or mask_of(XK_META_L) or MOD_MASKS[0]
    locks = sorted({m for m in (LOCK_MASK, mask_of(XK_NUM_LOCK), mask_of(XK_SCROLL_LOCK)) if m})
    variants = sorted({_combine(subset) for subset in _subsets(locks)})
    plain = CONTROL_MASK | alt
    asked: list[tuple[AnswerRole, int, int]] = [
        (chord.role, keycode, plain | extra)
        for chord in ANSWER_CHORDS
        for keycode in sorted({c for sym in chord.keysyms for c in codes.get(sym, [])})
        for extra in variants
    ]
    return asked, plain


def _subsets(masks: list[int]) -> list[list[int]]:
    out: list[list[int]] = [[]]
    for mask in masks:
        out += [[*s, mask] for s in out]
    return out


def _combine(masks: list[int]) -> int:
    total = 0
    for mask in masks:
        total |= mask
    return total

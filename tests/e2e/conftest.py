"""End-to-end fixtures: a real X server (Xvfb + xcompmgr), `notch run` as a real process.

Every test here drives the installed `notch` command over its real socket and, for the
window tests, the real notch window with xdotool (XTEST key presses and clicks, the same
input path a person's keyboard takes), looking its windows up over an X connection of the
test process's own (XWindows) and reading its pixels from Xvfb's screen file. Skipped,
with the reason, when Xvfb is missing — except under CI (CI=true), where that fails.

Nothing here sleeps for a fixed time: every wait polls a state the program shows from
outside (its socket, its window's geometry and X shape, a process's exit) until a
deadline, and fails naming what it waited for.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import pytest
from PySide6.QtCore import QObject, QRect
from PySide6.QtGui import QImage

T = TypeVar("T")
REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts" / "e2e"
NOTCH = [sys.executable, "-m", "notch_app"]
POLL_S = 0.05
"""How often a wait looks again: the poll interval, never a wait of its own."""

QObject()  # Qt's main thread is the test process's own
# Qt takes the first thread that makes a QObject as its main thread. Tests read
# screenshots (QImage through a QBuffer) from `asyncio.to_thread`; without this, that
# helper thread became Qt's main thread and a later test's QApplication in this worker
# warned "QApplication was not created in the main() thread".
FOOTER_PX = 150
"""The bottom of a card where its confirm pill sits (the footer's action row)."""
PILL_RUN_PX = 30
"""A confirm pill is 70 px wide or more; no stroke of 13 px text runs this far in one colour."""


def colour_over_glass(token: str, strength: float = 1.0) -> tuple[int, int, int]:
    """The dark theme's colour `token` as the card draws it over its glass, at `strength`
    of its own opacity (a held confirm is drawn at 40 %)."""
    from notch_app.ui.theme import palette, parse_color

    colours = palette("dark")
    glass = parse_color(colours["glass_fill"])
    fill = parse_color(colours[token])
    a = fill.alphaF() * strength
    r, g, b = (
        round(a * f + (1 - a) * q)
        for f, q in zip(
            (fill.red(), fill.green(), fill.blue()),
            (glass.red(), glass.green(), glass.blue()),
            strict=True,
        )
    )
    return r, g, b


@pytest.fixture(scope="session")
def over_glass() -> Callable[[str], tuple[int, int, int]]:
    """`over_glass(token)`: the dark theme's colour `token` as drawn over the card's glass,
    for tests that find a pill, badge or link on screen by its colour."""
    return colour_over_glass


def _confirm_fills(strength: float = 1.0) -> list[tuple[int, int, int]]:
    """The colours of a confirm pill on the dark notch, one per tone, as drawn over the
    card's glass: armed at full strength; a held confirm is the same pill at 40 % opacity
    (`strength=0.4`), which matches none of the armed ones."""
    tones = ("primary_fill", "accent_fill", "danger_fill", "success_fill", "warning_fill")
    return [colour_over_glass(token, strength) for token in tones]


def wait_for(check: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll `check` until it returns something truthy and return that; fail naming `what`
    after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(POLL_S)


class XWindows:
    """The X server's windows as tools like xdotool and xwininfo see them, read over one
    connection of this test process's own (libxcb through xcffib): a poll asks the server
    directly instead of starting three processes (`xdotool search`, `xdotool
    getwindowgeometry`, `xwininfo -shape`), ~10 ms of CPU each poll on a loaded machine.

    The connection is opened on the first look (xcffib is imported then, not when pytest
    collects), shared by the threads that look (a lock: `asyncio.to_thread` waits), opened
    again when the server has dropped it, and closed with the X server's fixture.
    """

    def __init__(self, display: str) -> None:
        self.display = display
        self._lock = threading.Lock()
        self._conn: Any = None
        self._root = 0
        self._atoms: dict[str, int] = {}

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.disconnect()
            self._conn = None

    def _ask(self, question: Callable[[Any], T]) -> T:
        """`question(connection)`'s answer; once more on a new connection when the old
        one is broken (the server restarted, or dropped this client)."""
        import xcffib

        with self._lock:
            try:
                return question(self._connection())
            except xcffib.ConnectionException:
                self._drop()
            return question(self._connection())

    def _connection(self) -> Any:
        import xcffib
        import xcffib.shape  # registered before connecting: the connection sets it up
        import xcffib.xproto

        if self._conn is None:
            self._conn = xcffib.connect(display=self.display)
            self._root = int(self._conn.get_setup().roots[0].root)
            self._atoms = {}  # a restarted server has atoms of its own
        return self._conn

    def search(self, pattern: str, *, classname: bool = False) -> list[int]:
        """The viewable windows whose name (WM_NAME) matches `pattern` — or, with
        `classname`, their WM_CLASS instance name — as `xdotool search --onlyvisible
        --name` (`--classname`) lists them (see `_found`)."""
        return self._ask(lambda conn: [w for w, _ in self._found(conn, pattern, classname)])

    def look(self, pattern: str) -> dict[str, int] | None:
        """XServer.window's answer: the last window `search(pattern)` lists that is
        wider than 1 px, with its geometry as `xdotool getwindowgeometry --shell` gives it
        (X, Y, WIDTH, HEIGHT, WINDOW) and SHAPED, 1 when it has a bounding shape (what
        `xwininfo -shape` reports as anything but "No window shape defined")."""
        return self._ask(lambda conn: self._look(conn, pattern))

    def _look(self, conn: Any, pattern: str) -> dict[str, int] | None:
        import xcffib
        import xcffib.shape

        core, shape = conn.core, conn(xcffib.shape.key)
        for wid, parent in reversed(self._found(conn, pattern, classname=False)):
            asked = (
                core.GetGeometry(wid),
                core.TranslateCoordinates(wid, self._root, 0, 0),
                shape.QueryExtents(wid),
            )  # one round trip for the three
            geometry, inside, extents = _replies(asked)
            if geometry is None or inside is None or extents is None:
                continue  # destroyed between the search and the look
            if geometry.width <= 1:
                continue
            # As xdotool: a child of the root is where its border's outer corner is in
            # the root; any other window, where its inside starts, in root coordinates.
            # (Debian's xdotool 3.20160805 adds the window's place in its parent a
            # second time there; fixed upstream in 3.20210804.)
            x, y = (
                (geometry.x, geometry.y) if parent == self._root else (inside.dst_x, inside.dst_y)
            )
            return {
                "X": int(x),
                "Y": int(y),
                "WIDTH": int(geometry.width),
                "HEIGHT": int(geometry.height),
                "WINDOW": wid,
                "SHAPED": int(bool(extents.bounding_shaped)),
            }
        return None

    def _found(self, conn: Any, pattern: str, classname: bool) -> list[tuple[int, int]]:
        """(window, parent) for each viewable window whose name matches `pattern`, in
        xdotool search's order: the root first, then, from the root down, each window's
        matching children (bottom of the stack first) before its children's own matches.
        As xdotool: the pattern is searched anywhere in the text, ignoring case; a window
        without the property is matched as "" (POSIX ERE there, Python's re here: the
        same for the plain patterns these tests use)."""
        import xcffib.xproto

        core = conn.core
        children = self._viewable_tree(conn)
        windows = list(children)  # the root and every viewable window under it
        prop = xcffib.xproto.Atom.WM_CLASS if classname else xcffib.xproto.Atom.WM_NAME
        asked = [
            core.GetProperty(False, w, prop, xcffib.xproto.GetPropertyType.Any, 0, 16384)
            for w in windows
        ]  # one round trip for all of them
        regex = re.compile(pattern, re.IGNORECASE)
        matching: set[int] = set()
        for window, value in zip(windows, _replies(asked), strict=True):
            if value is None:
                continue  # destroyed since it was listed
            texts = self._class_name(value) if classname else self._text(conn, value)
            if any(regex.search(text) for text in texts):
                matching.add(window)

        parents = {c: p for p, kids in children.items() for c in kids}

        def in_order(window: int) -> list[int]:
            found = [c for c in children[window] if c in matching]
            for child in children[window]:
                found += in_order(child)
            return found

        ordered = ([self._root] if self._root in matching else []) + in_order(self._root)
        return [(w, parents.get(w, 0)) for w in ordered]

    def _viewable_tree(self, conn: Any) -> dict[int, list[int]]:
        """Each viewable window's viewable children, bottom of the stack first, from the
        root down, two round trips a level. A window that is not viewable has no viewable
        window under it (viewable: mapped, and every ancestor too), so its subtree,
        which xdotool walks, cannot add a match and is not read."""
        import xcffib
        import xcffib.xproto

        core = conn.core
        children: dict[int, list[int]] = {}
        level = [self._root]
        while level:
            trees = [core.QueryTree(w) for w in level]
            listed: list[tuple[int, int]] = []
            for window, tree in zip(level, _replies(trees), strict=True):
                children[window] = []
                if tree is not None:  # None: destroyed since its parent listed it
                    listed += [(window, int(c)) for c in tree.children]
            looks = [core.GetWindowAttributes(c) for _, c in listed]
            level = []
            for (parent, child), look in zip(listed, _replies(looks), strict=True):
                if look is not None and look.map_state == xcffib.xproto.MapState.Viewable:
                    children[parent].append(child)
                    level.append(child)
        return children

    def _text(self, conn: Any, value: Any) -> list[str]:
        """A text property as Xlib's Xutf8TextPropertyToTextList reads it for xdotool:
        its strings (NUL-separated), "" when it is missing or empty, none in an
        encoding Xlib cannot convert."""
        raw = bytes(value.value.buf())
        if not raw:
            return [""]
        kind = int(value.type)
        if kind == self._atom(conn, "STRING"):
            text = raw.decode("latin-1")
        elif kind == self._atom(conn, "UTF8_STRING"):
            text = raw.decode("utf-8", errors="replace")
        elif kind == self._atom(conn, "COMPOUND_TEXT"):
            text = _compound_text(raw)
        else:
            return []
        return text.split("\0")

    @staticmethod
    def _class_name(value: Any) -> list[str]:
        """WM_CLASS's instance name (its first string) as XGetClassHint reads it: only
        from a STRING of 8-bit items; "" for a window without one."""
        import xcffib.xproto

        if int(value.type) != xcffib.xproto.Atom.STRING or int(value.format) != 8:
            return [""]
        return [bytes(value.value.buf()).split(b"\0", 1)[0].decode("latin-1")]

    def _atom(self, conn: Any, name: str) -> int:
        if name not in self._atoms:
            reply = conn.core.InternAtom(False, len(name), name).reply()
            self._atoms[name] = int(reply.atom)
        return self._atoms[name]


def _replies(cookies: Sequence[Any]) -> list[Any]:
    """Each request's reply, None where the server answered with an error (the window was
    destroyed meanwhile). Every reply is read, so none stays queued in libxcb."""
    import xcffib

    answers: list[Any] = []
    for cookie in cookies:
        try:
            answers.append(cookie.reply())
        except xcffib.Error:
            answers.append(None)
    return answers


_COMPOUND_SWITCH = re.compile(rb"(\x1b%G|\x1b%@|\x1b[()*+\-./$][\x20-\x2f]*[\x30-\x7e])")


def _compound_text(raw: bytes) -> str:
    """COMPOUND_TEXT as Xlib converts it for the titles toolkits write: Latin-1, with
    UTF-8 between ESC % G and ESC % @ (Qt's title "Notch – parked cards…" is written so);
    the escapes that designate ASCII and Latin-1 carry no text."""
    parts: list[str] = []
    utf8 = False
    for part in _COMPOUND_SWITCH.split(raw):
        if part in (b"\x1b%G", b"\x1b%@"):
            utf8 = part == b"\x1b%G"
        elif not part.startswith(b"\x1b"):
            parts.append(part.decode("utf-8" if utf8 else "latin-1", errors="replace"))
    return "".join(parts)


@dataclass
class XServer:
    """The X server the tests run on, and what a person sees on it (windows, pixels)."""

    display: str
    env: dict[str, str]
    compositor: bool
    framebuffer: Path
    """Xvfb's screen as a file (`-fbdir`): what it shows, read without a screenshot tool."""
    seen: XWindows = field(init=False, repr=False, compare=False)
    """Its windows, read over this process's own connection (see XWindows)."""

    def __post_init__(self) -> None:
        self.seen = XWindows(self.display)

    def screenshot(self, name: str) -> Path:
        """The whole screen as PNG under artifacts/e2e/ (kept as a test artefact)."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        out = ARTIFACTS / f"{name}.png"
        assert self.screen().save(str(out)), f"could not write {out}"  # .png: PNG
        return out

    def xdotool(self, *args: str) -> str:
        done = subprocess.run(
            ["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=10
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    def window(self, name: str = "^Notch$") -> dict[str, int] | None:
        """Geometry of the visible window called `name` (X, Y, WIDTH, HEIGHT, WINDOW), or
        None: the last one `xdotool search --onlyvisible --name NAME` lists that is wider
        than 1 px, placed as `xdotool getwindowgeometry` says. SHAPED is 1 while the window
        has an X shape: the notch masks itself to the revealed part while it grows or
        shrinks, and clears the mask once it has settled. Read in-process (XWindows): the
        same answers as those tools (tests/e2e/test_x_windows_read_in_process.py)."""
        return self.seen.look(name)

    def windows(self, name: str, *, classname: bool = False) -> list[int]:
        """The visible windows whose name (with `classname`, WM_CLASS instance name)
        matches `name`, as `xdotool search --onlyvisible --name` (`--classname`) lists them."""
        return self.seen.search(name, classname=classname)

    def settled_card(self, timeout: float = 20) -> dict[str, int]:
        """The notch's geometry once it shows a card that is fully revealed (no X shape:
        the expand animation has ended) and at the same place on two looks in a row."""
        seen: list[dict[str, int]] = []

        def settled() -> dict[str, int] | None:
            now = self.window()
            if now is None or now["HEIGHT"] <= 150 or now["SHAPED"]:
                seen.clear()
                return None
            seen.append(now)
            return now if len(seen) >= 2 and seen[-2] == now else None

        card: dict[str, int] = wait_for(settled, timeout, "a card to settle on screen")
        return card

    def settled_glance(self, timeout: float = 20) -> dict[str, int]:
        """The notch's geometry once it shows a result glance (taller than the pill and
        a note, shorter than a card, no X shape) at the same place on two looks in a row."""
        seen: list[dict[str, int]] = []

        def settled() -> dict[str, int] | None:
            now = self.window()
            if now is None or now["HEIGHT"] <= 60 or now["SHAPED"]:
                seen.clear()
                return None
            seen.append(now)
            return now if len(seen) >= 2 and seen[-2] == now else None

        glance: dict[str, int] = wait_for(settled, timeout, "a result glance to settle")
        return glance

    def notch_idle(self, timeout: float = 20) -> None:
        """Wait until the notch is back to its idle pill (or hidden)."""

        def idle() -> bool:
            now = self.window()
            return now is None or (now["HEIGHT"] < 30 and not now["SHAPED"])

        wait_for(idle, timeout, "the notch to go back to its idle pill")

    def card_gone(self, card: dict[str, int], timeout: float = 20) -> None:
        """Wait until `card` (a settled_card) is no longer what the notch shows."""
        wait_for(lambda: self.window() != card, timeout, "the card to leave the screen")

    def click_close(self, card: dict[str, int]) -> None:
        """Click the × in the card's header corner (decline: never held)."""
        self.xdotool(
            "mousemove", str(card["X"] + card["WIDTH"] - 19), str(card["Y"] + 18), "click", "1"
        )

    def focus_card(self, card: dict[str, int]) -> None:
        """Click the card's header: the notch takes keyboard focus (it has a field)."""
        self.xdotool("mousemove", str(card["X"] + 150), str(card["Y"] + 16), "click", "1")

    def retype_first_field(self, card: dict[str, int], text: str) -> None:
        """As a person edits the card's first field: click the header (focus), Tab to the
        field, select all, type `text` from the X keyboard."""
        self.focus_card(card)
        self.xdotool("key", "--delay", "60", "Tab", "ctrl+a")
        self.xdotool("type", "--delay", "15", text)

    def screen(self) -> QImage:
        """The whole screen now, as a person sees it."""
        return read_framebuffer(self.framebuffer)

    def confirm_armed(self, card: dict[str, int]) -> bool:
        """True while `card`'s confirm button is drawn armed: a pill of a confirm colour at
        full strength in the card's footer (rows of it wider than any text stroke). The
        notch holds confirm, dimmed to 40 %, for 600 ms once a card has settled and again
        after it changes or moves."""
        return confirm_armed_on(self.screen(), _rect(card))

    def confirm_center(self, card: dict[str, int]) -> tuple[int, int] | None:
        """Where `card`'s confirm pill is on screen (its centre), armed or held: found by
        its colour in the footer, so a click lands on it wherever the layout puts it."""
        return confirm_center_on(self.screen(), _rect(card))

    def confirm_with_keys(self, card: dict[str, int], timeout: float = 20) -> None:
        """Once `card` (focused) shows its confirm armed, press Ctrl+Enter and wait until
        the card leaves the screen. The card's place is looked up again first: it may
        have grown since it was found (Details unfolded by a Tab, a hint line)."""
        card = self.settled_card()
        wait_for(lambda: self.confirm_armed(card), timeout, "the card's confirm to show armed")
        self.xdotool("key", "ctrl+Return")
        self.card_gone(card, timeout)


XWD_HEADER = struct.Struct(">25I")


def read_framebuffer(path: Path) -> QImage:
    """Xvfb's screen file (`-fbdir`, X Window Dump format, kept in step with the screen):
    a header of 25 big-endian words, the window name, the colour map, then the pixels."""
    data = path.read_bytes()
    head = XWD_HEADER.unpack_from(data)
    header_size, depth, width, height = head[0], head[3], head[4], head[5]
    bits, line, colours = head[11], head[12], head[19]
    assert (depth, bits) == (24, 32), f"{path}: a {depth}-bit screen at {bits} bits a pixel"
    start = header_size + colours * 12
    pixels = data[start : start + line * height]
    assert len(pixels) == line * height, f"{path}: the screen file is cut short"
    return QImage(pixels, width, height, line, QImage.Format.Format_RGB32).copy()


def _rect(card: dict[str, int]) -> QRect:
    return QRect(card["X"], card["Y"], card["WIDTH"], card["HEIGHT"])


TOLERANCE = 24
"""How far (per channel) a drawn pixel may be from a pill's colour: antialiasing and the
compositor's rounding."""


@functools.cache
def _near_table(value: int) -> bytes:
    """A bytes.translate table: 1 for a channel value within TOLERANCE of `value`, else 0."""
    return bytes(int(abs(v - value) <= TOLERANCE) for v in range(256))


def _footer_rows(image: QImage, card: QRect) -> tuple[QRect, list[bytes]]:
    """The card's footer on `image` (clipped to it), and its rows as RGB bytes."""
    area = QRect(
        card.x(), card.y() + card.height() - FOOTER_PX, card.width(), FOOTER_PX
    ).intersected(image.rect())
    if area.isEmpty():
        return area, []
    part = image.copy(area).convertToFormat(QImage.Format.Format_RGB888)
    stride, width = part.bytesPerLine(), part.width() * 3
    data = bytes(part.constBits())
    return area, [data[y * stride : y * stride + width] for y in range(part.height())]


def _near_mask(row: bytes, fill: tuple[int, int, int]) -> int:
    """One byte per pixel of `row` (as an int, most significant first): 1 where every
    channel is within TOLERANCE of `fill`. Whole rows at a time in C (translate and big
    int AND), not pixel by pixel in Python: a footer is ~100,000 pixels, looked at many
    times while a test waits for a card to arm."""
    mask = -1
    for channel, value in enumerate(fill):
        mask &= int.from_bytes(row[channel::3].translate(_near_table(value)), "big")
    return mask


def _runs(mask: int, width: int) -> list[tuple[int, int]]:
    """(first, last) pixel of each run of PILL_RUN_PX or more matching pixels."""
    found = mask.to_bytes(width, "big")
    return [(m.start(), m.end() - 1) for m in _PILL_RUN.finditer(found)]


_PILL_RUN = re.compile(b"\x01{%d,}" % PILL_RUN_PX)


def confirm_armed_on(image: QImage, card: QRect) -> bool:
    """True while the card at `card` on `image` (a screenshot) shows its confirm pill at
    full strength (see XServer.confirm_armed)."""
    _, rows = _footer_rows(image, card)
    rows = rows[::2]
    for fill in _confirm_fills():
        solid_rows = 0
        for row in rows:
            solid_rows += b"\x01" * PILL_RUN_PX in _near_mask(row, fill).to_bytes(
                len(row) // 3, "big"
            )
        if solid_rows >= 4:  # 8 px of the pill's height above and below its label
            return True
    return False


def confirm_center_on(image: QImage, card: QRect) -> tuple[int, int] | None:
    """The centre of the confirm pill of the card at `card` on `image`, armed or held
    (see XServer.confirm_center); None when none is drawn."""
    area, rows = _footer_rows(image, card)
    fills = _confirm_fills() + _confirm_fills(0.4)
    hits: list[tuple[int, int, int]] = []  # (y, first x, last x) of long runs
    for dy, row in enumerate(rows):
        mask = 0
        for fill in fills:
            mask |= _near_mask(row, fill)
        for first, last in _runs(mask, len(row) // 3):
            hits.append((area.top() + dy, area.left() + first, area.left() + last))
    hits = [h for h in hits if h[2] - h[1] <= 220]  # a pill, not an edge of the glass
    # Rows of one shape share their span: the pill is the span with the most rows
    # (a pill is ~30 px tall; a stray line of the same colour is a row or two).
    spans: dict[tuple[int, int], list[int]] = {}
    for y, first, last in hits:
        key = next(
            (k for k in spans if abs(k[0] - first) <= 12 and abs(k[1] - last) <= 12),
            (first, last),
        )
        spans.setdefault(key, []).append(y)
    if not spans:
        return None
    (first, last), ys = max(spans.items(), key=lambda kv: (len(kv[1]), kv[0][1]))
    if len(ys) < 8:
        return None
    return (first + last) // 2, (min(ys) + max(ys)) // 2


@pytest.fixture(scope="session")
def confirm_on() -> Callable[[QImage, QRect], tuple[bool, tuple[int, int] | None]]:
    """`confirm_on(screenshot, card_rect)`: (is the card's confirm armed, the centre of
    its confirm pill or None), for screens that are not this X server's (compositors)."""

    def look(image: QImage, card: QRect) -> tuple[bool, tuple[int, int] | None]:
        return confirm_armed_on(image, card), confirm_center_on(image, card)

    return look


def start_xvfb(*args: str, timeout: float = 30) -> tuple[str, subprocess.Popen[bytes]]:
    """An Xvfb with `args` (its screen and extensions), on a display number it chose
    itself, and that display (":N") once it accepts connections. Xvfb's -displayfd takes
    the first number whose lock file it can create and writes it to a pipe when ready: no
    two X servers, of this run's parallel workers or of anything else on the machine, can
    pick the same number (looking for a free number first, then starting, could)."""
    read_end, write_end = os.pipe()
    try:
        proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_end,),
        )
    finally:
        os.close(write_end)
    said = b""
    deadline = time.monotonic() + timeout
    try:
        with os.fdopen(read_end, "rb", buffering=0) as pipe:
            while not said.endswith(b"\n"):
                if time.monotonic() > deadline or proc.poll() is not None:
                    break
                ready, _, _ = select.select([pipe], [], [], POLL_S)
                if ready:
                    chunk = pipe.read(64)
                    if not chunk:
                        break  # Xvfb closed the pipe without a number: it failed
                    said += chunk
    except BaseException:
        _stop(proc)
        raise
    if not said.strip().isdigit():
        _stop(proc)
        raise AssertionError(
            f"Xvfb {' '.join(args)} gave no display number within {timeout:.0f} s "
            f"(exit code {proc.poll()})"
        )
    return f":{int(said)}", proc


def _stop(proc: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@pytest.fixture(scope="session", name="start_xvfb")
def start_xvfb_fixture() -> Callable[..., tuple[str, subprocess.Popen[bytes]]]:
    """`start_xvfb(*args)`: (":N", the Xvfb process) on a display number no one else can
    take (see `start_xvfb`); stop the process when done."""
    return start_xvfb


@pytest.fixture(scope="session")
def xserver() -> Iterator[XServer]:
    """A private Xvfb (1280×800) with a compositor when xcompmgr is installed."""
    for tool in ("Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            reason = (
                f"{tool} is not installed: scripts/setup.sh installs it "
                "(packages in scripts/debian-packages.txt)"
            )
            # In CI a missing X server is a broken install, never a quiet skip.
            if os.environ.get("CI"):
                pytest.fail(reason)
            pytest.skip(reason)
    screen_dir = Path(tempfile.mkdtemp(prefix="notch-xvfb-screen-"))
    display, xvfb = start_xvfb(
        "-screen", "0", "1280x800x24", "-nolisten", "tcp", "+extension", "RANDR",
        "-fbdir", str(screen_dir),  # the screen as a file: screen() reads it
        "-nocursor",  # the file would hold the pointer's sprite too (X's GetImage hides it)
    )  # fmt: skip
    env = dict(os.environ)
    env.update(
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
        PYTHONUNBUFFERED="1",
        XDG_CONFIG_HOME=str(REPO / "tmp" / "e2e-config"),  # no personal integrations
    )
    env.pop("WAYLAND_DISPLAY", None)
    try:
        compositor = None
        if shutil.which("xcompmgr"):
            # Without a compositor translucent corners render black; with it, as on a desktop.
            compositor = subprocess.Popen(
                ["xcompmgr", "-n"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        server = XServer(display, env, compositor is not None, screen_dir / "Xvfb_screen0")
        yield server
        server.seen.close()
        if compositor is not None:
            _stop(compositor)
    finally:
        _stop(xvfb)
        shutil.rmtree(screen_dir, ignore_errors=True)


@dataclass
class NotchProcess:
    proc: subprocess.Popen[str]
    socket: Path
    data_dir: Path
    log: Path
    log_start: int = 0
    """Where this test's part of the log begins (a shared `notch run` served others first)."""

    def output(self) -> str:
        """What the process printed (to its log), from this test's start."""
        with self.log.open("rb") as log:
            log.seek(self.log_start)
            return log.read().decode("utf-8", errors="replace")


@pytest.fixture(scope="session")
def notch_argv() -> list[str]:
    """The `notch` command as this interpreter runs it: add a subcommand and its flags."""
    return list(NOTCH)


@pytest.fixture(scope="session")
def repo() -> Path:
    """The checkout: the working folder for `notch` processes."""
    return REPO


@pytest.fixture(scope="session", name="wait_for")
def wait_for_fixture() -> Callable[[Callable[[], Any], float, str], Any]:
    """`wait_for(check, timeout, what)`: poll `check` until truthy, else fail naming `what`."""
    return wait_for


@pytest.fixture
def notch_env(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """Where one `notch run` keeps its socket (short: Unix socket paths are limited to
    ~104 bytes), data and log."""
    short = Path(f"/tmp/notch-e2e-{os.getpid()}-{time.monotonic_ns() % 10**6}")
    short.mkdir(mode=0o700)
    yield {
        "socket": short / "notch.sock",
        "data_dir": tmp_path / "data",
        "log": tmp_path / "notch.log",
    }
    shutil.rmtree(short, ignore_errors=True)


@pytest.fixture
def stop_notch() -> Iterator[Callable[[NotchProcess], None]]:
    """`stop_notch(process)`: SIGTERM it (then SIGKILL) when the test ends."""
    started: list[NotchProcess] = []

    def register(n: NotchProcess) -> None:
        started.append(n)

    yield register
    for n in started:
        _stop(n.proc)


def _launch(
    env: dict[str, str],
    socket: Path,
    data_dir: Path,
    log: Path,
    *extra: str,
    started: Callable[[NotchProcess], None] = lambda _: None,
) -> NotchProcess:
    """`notch run` as a process, returned once its socket accepts connections; `started`
    is told of it at once (to stop it however the wait ends)."""
    from notch_app.ipc.address import socket_is_live

    with log.open("a", encoding="utf-8") as handle:
        proc = subprocess.Popen(
            [*NOTCH, "run", "--socket", str(socket), "--data-dir", str(data_dir), *extra],
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=REPO,
        )
    notch = NotchProcess(proc, socket, data_dir, log)
    started(notch)

    def ready() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"notch run exited with {proc.returncode}:\n{notch.output()}")
        return socket_is_live(socket)

    wait_for(ready, 30, "notch run to listen on its socket")
    return notch


@pytest.fixture
def start_notch(
    stop_notch: Callable[[NotchProcess], None], shared_notch_on_screen: SharedNotchOnScreen
) -> Callable[..., NotchProcess]:
    """`start_notch(env, socket, data_dir, log, *flags)`: `notch run` as a process of
    this test's own, returned once its socket accepts connections, stopped when the test
    ends. A shared `notch run` of this module (`shared_notch`) is stopped first: one
    notch on the screen at a time."""

    def start(
        env: dict[str, str], socket: Path, data_dir: Path, log: Path, *extra: str
    ) -> NotchProcess:
        shared_notch_on_screen.stop()
        return _launch(env, socket, data_dir, log, *extra, started=stop_notch)

    return start


# ---- an async context held across tests ----------------------------------------------


class InItsOwnTask(Generic[T]):
    """What `opened()` (an async context manager) gives, entered and left by a task of its
    own: the SDK's stdio client must be left by the task that entered it, and a
    module-scoped pytest-asyncio fixture is set up and torn down in two different tasks
    (on the module's loop: its tests run with `@pytest.mark.asyncio(loop_scope="module")`).
    """

    def __init__(self, opened: Callable[[], AbstractAsyncContextManager[T]]) -> None:
        self._opened = opened
        self._stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def start(self, timeout: float = 60) -> T:
        """Enter it; what it gives, once it has (or what kept it from it, raised)."""
        ready: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self.task = asyncio.create_task(self._hold(ready))
        return await asyncio.wait_for(asyncio.shield(ready), timeout)

    async def end(self, timeout: float = 30) -> None:
        """Leave it; raise what ended it otherwise."""
        task, self.task = self.task, None
        if task is not None:
            self._stop.set()
            await asyncio.wait_for(task, timeout)

    async def _hold(self, ready: asyncio.Future[T]) -> None:
        try:
            async with self._opened() as given:
                ready.set_result(given)
                await self._stop.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise
        finally:
            if not ready.done():
                ready.cancel()


@pytest.fixture(scope="session")
def in_its_own_task() -> type[InItsOwnTask[Any]]:
    """`held = in_its_own_task(lambda: some_async_cm())`: `await held.start()` enters it
    in a task of its own and gives what it gives; `await held.end()` leaves it there (see
    InItsOwnTask)."""
    return InItsOwnTask


# ---- one `notch run` for the tests of a module -------------------------------------------

SIDE_NOTCH = "^Notch – parked cards and running work$"


class SharedNotchOnScreen:
    """The one shared `notch run` of this test process (at most one at a time: two notches
    on one X server would both show and both grab the answer chords).

    Started by the first test of a module that asks for it with some flags, handed to the
    next tests asking for the same flags, and checked after each test as qutebrowser's
    quteproc is: still running, back to its idle pill with nothing parked, the same
    integrations loaded and the same settings file. Whatever a test left behind (a card
    up, a folder attached, a changed policy, a killed process) stops it, and the next
    test gets a fresh one; so does the end of the module, or a test starting its own.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.running: NotchProcess | None = None
        self.flags: tuple[str, ...] = ()
        self.starts = 0
        self._integrations: list[dict[str, Any]] = []
        self._settings = b""

    def get(self, xserver: XServer, flags: tuple[str, ...]) -> NotchProcess:
        """The shared `notch run` with `flags`, idle, its log read from now on."""
        if self.running is not None and (
            self.flags != flags or self.running.proc.poll() is not None
        ):
            self.stop()
        if self.running is None:
            self._start(xserver, flags)
        notch = self.running
        assert notch is not None
        xserver.notch_idle()
        notch.log_start = notch.log.stat().st_size
        return notch

    def after_test(self, xserver: XServer) -> None:
        """Keep the process for the next test only if this one left it as it was handed out."""
        notch = self.running
        if notch is None:
            return
        if notch.proc.poll() is not None or not self._idle(xserver) or self._changed(notch):
            self.stop()

    def stop(self) -> None:
        if self.running is not None:
            _stop(self.running.proc)
            shutil.rmtree(self.running.socket.parent, ignore_errors=True)
            self.running = None

    def _start(self, xserver: XServer, flags: tuple[str, ...]) -> None:
        self.starts += 1
        home = self.root / f"notch-{self.starts}"
        home.mkdir(parents=True)
        short = Path(tempfile.mkdtemp(prefix="notch-e2e-"))  # Unix socket paths are short
        notch = _launch(
            xserver.env, short / "notch.sock", home / "data", home / "notch.log", *flags
        )
        self.running, self.flags = notch, flags
        xserver.notch_idle()
        self._integrations = self._loaded(notch)
        self._settings = self._settings_file(notch)

    def _idle(self, xserver: XServer) -> bool:
        def idle() -> bool:
            now = xserver.window()
            pill = now is None or (now["HEIGHT"] < 30 and not now["SHAPED"])
            return pill and xserver.window(SIDE_NOTCH) is None

        try:
            wait_for(idle, 10, "the shared notch to go back to its idle pill")
        except AssertionError:
            return False
        return True

    def _changed(self, notch: NotchProcess) -> bool:
        try:
            return (
                self._loaded(notch) != self._integrations
                or self._settings_file(notch) != self._settings
            )
        except Exception:  # no answer from its socket: not fit for the next test
            return True

    @staticmethod
    def _loaded(notch: NotchProcess) -> list[dict[str, Any]]:
        from notch_app.client import NotchClient

        with NotchClient(notch.socket) as client:
            return client.integrations(timeout=20)

    @staticmethod
    def _settings_file(notch: NotchProcess) -> bytes:
        found = sorted(notch.data_dir.glob("*settings*.json"))
        return b"".join(p.read_bytes() for p in found)


@pytest.fixture(scope="session")
def shared_notch_on_screen(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SharedNotchOnScreen]:
    """The shared `notch run` of this test process (see SharedNotchOnScreen)."""
    shared = SharedNotchOnScreen(tmp_path_factory.mktemp("shared-notch"))
    yield shared
    shared.stop()


@pytest.fixture(scope="module")
def _shared_notch_for_module(
    shared_notch_on_screen: SharedNotchOnScreen,
) -> Iterator[SharedNotchOnScreen]:
    yield shared_notch_on_screen
    shared_notch_on_screen.stop()  # a module's notch never serves the next module


@pytest.fixture
def shared_notch(
    xserver: XServer, _shared_notch_for_module: SharedNotchOnScreen, request: pytest.FixtureRequest
) -> Iterator[Callable[..., NotchProcess]]:
    """`shared_notch(*flags)`: `notch run FLAGS` on the X server, shared by the tests of
    this module that ask for the same flags: started by the first, handed idle to the
    next (its `output()` from this test's start), and replaced by a fresh one after a test
    that left it otherwise (see SharedNotchOnScreen). Use `start_notch` for a test that
    needs a process of its own: one it kills, restarts or starts with its own data."""
    used: list[NotchProcess] = []

    def get(*flags: str) -> NotchProcess:
        notch = _shared_notch_for_module.get(xserver, tuple(flags))
        used.append(notch)
        return notch

    yield get
    # After the module's last test the notch is stopped with the module: not waited on
    # to go idle first (a test's last notes can stay up for seconds).
    if used and _module_goes_on(request.node):
        _shared_notch_for_module.after_test(xserver)


_NEXT_TEST = pytest.StashKey["pytest.Item | None"]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    """Keep which test runs after `item`, for `shared_notch`."""
    item.stash[_NEXT_TEST] = nextitem
    return (yield)


def _module_goes_on(test: pytest.Item) -> bool:
    """Whether the test run after `test` is of its module (when not known: yes)."""
    if _NEXT_TEST not in test.stash:
        return True
    following = test.stash[_NEXT_TEST]
    return following is not None and following.path == test.path


@dataclass
class Wire:
    """Listeners on 127.0.0.1: a UDP port (STUN, TURN over UDP, ICE checks, QUIC) and two
    TCP ports (TURN over TCP and TLS, ICE over TCP, preconnects). `heard` holds what each
    received, as `kind port: first bytes`."""

    udp: int
    tcp: int
    tls: int
    heard: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def hear(self, what: str) -> None:
        with self.changed:
            self.heard.append(what)
            self.changed.notify_all()

    def control(self) -> None:
        """A datagram and a connection from the test itself: heard, then forgotten (the
        silence afterwards is the sandbox's, not deaf listeners')."""
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as out:
            out.sendto(b"control", ("127.0.0.1", self.udp))
        for port in (self.tcp, self.tls):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
                conn.sendall(b"control")
        with self.changed:
            all_three = self.changed.wait_for(lambda: len(self.heard) >= 3, timeout=10)
        assert all_three, f"the listeners heard only {self.heard}"
        assert sorted(h.split(": ")[1] for h in self.heard) == ["b'control'"] * 3, self.heard
        self.heard.clear()


@pytest.fixture
def wire() -> Iterator[Wire]:
    """Listeners on 127.0.0.1 that keep what they hear: what a sandboxed page must never
    reach (tests/e2e/test_web_sandbox.py, test_widget_confirmation.py)."""
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    tcps = [socket.socket() for _ in range(2)]
    for tcp in tcps:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(16)
    found = Wire(udp.getsockname()[1], tcps[0].getsockname()[1], tcps[1].getsockname()[1])

    def hear_udp() -> None:
        while True:
            try:
                data, _ = udp.recvfrom(65535)
            except OSError:
                return
            found.hear(f"udp {found.udp}: {data[:80]!r}")

    def hear_tcp(server: socket.socket) -> None:
        port = server.getsockname()[1]
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    data = conn.recv(300)
                except OSError:
                    data = b"(connected, sent nothing)"
                found.hear(f"tcp {port}: {data[:80]!r}")

    threads = [threading.Thread(target=hear_udp, daemon=True)]
    threads += [threading.Thread(target=hear_tcp, args=(t,), daemon=True) for t in tcps]
    for thread in threads:
        thread.start()
    yield found
    for sock in (udp, *tcps):
        sock.close()

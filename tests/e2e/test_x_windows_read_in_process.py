"""The e2e tests read the screen's windows in-process (XServer.window and .windows, over
one libxcb connection: tests/e2e/conftest.py's XWindows) where they used to start
`xdotool search`, `xdotool getwindowgeometry` and `xwininfo -shape` on every poll. Here
both read the same windows on the real Xvfb and must agree: which windows a name finds
(and in which order), where each one is, how big, and whether it has an X shape.

The windows are made by this test over a connection of its own (they go when it closes):
plain, shaped, border-shaped only, a framed one inside another (as a window manager
reparents), one mapped inside an unmapped parent (not viewable), and a title Qt writes
as COMPOUND_TEXT; then the real notch's pill.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

# The title of the notch's side window as Qt writes WM_NAME for it: COMPOUND_TEXT with
# the en dash in a UTF-8 run (ESC % G … ESC % @).
SIDE_TITLE = "Probe – parked cards"
SIDE_TITLE_COMPOUND = b"Probe \x1b%G\xe2\x80\x93\x1b%@ parked cards"


class Probes:
    """Windows on the test's X server, made over a connection of this test's own."""

    def __init__(self, display: str) -> None:
        import xcffib
        import xcffib.shape
        import xcffib.xproto

        self.xproto = xcffib.xproto
        self.conn: Any = xcffib.connect(display=display)
        self.shape: Any = self.conn(xcffib.shape.key)
        self.root = int(self.conn.get_setup().roots[0].root)

    def atom(self, name: str) -> int:
        return int(self.conn.core.InternAtom(False, len(name), name).reply().atom)

    def window(
        self,
        title: str,
        box: tuple[int, int, int, int],
        *,
        border: int = 0,
        parent: int | None = None,
        mapped: bool = True,
        title_bytes: bytes | None = None,
    ) -> int:
        """A window at `box` (x, y, width, height in its parent) named `title` (WM_NAME:
        STRING, or COMPOUND_TEXT given as `title_bytes`)."""
        core, xp = self.conn.core, self.xproto
        wid = int(self.conn.generate_id())
        x, y, width, height = box
        core.CreateWindow(
            0, wid, self.root if parent is None else parent, x, y, width, height, border,
            xp.WindowClass.InputOutput, 0, xp.CW.BackPixel | xp.CW.BorderPixel,
            [0x3366AA, 0xAA3333],
        )  # fmt: skip
        kind = xp.Atom.STRING if title_bytes is None else self.atom("COMPOUND_TEXT")
        text = title.encode("latin-1") if title_bytes is None else title_bytes
        core.ChangeProperty(xp.PropMode.Replace, wid, xp.Atom.WM_NAME, kind, 8, len(text), text)
        if mapped:
            core.MapWindow(wid)
        return wid

    def shape_to(self, wid: int, kind: int, width: int, height: int) -> None:
        """Give `wid` a shape of `kind` (bounding or clip): one rectangle at its corner."""
        from xcffib.shape import SO

        rect = self.xproto.RECTANGLE.synthetic(0, 0, width, height)
        self.shape.Rectangles(SO.Set, kind, 0, wid, 0, 0, 1, [rect])

    def sync(self) -> None:
        """Return once the server has done every request sent so far."""
        self.conn.core.GetInputFocus().reply()

    def close(self) -> None:
        self.conn.disconnect()


@pytest.fixture
def probes(xserver: Any) -> Iterator[Probes]:
    made = Probes(xserver.display)
    yield made
    made.close()


def _tool(xserver: Any, *argv: str, found_nothing: int = 0) -> str:
    """What `argv` printed; it must succeed (or exit `found_nothing` printing nothing)."""
    done = subprocess.run(argv, env=xserver.env, capture_output=True, text=True, timeout=10)
    fine = done.returncode == 0 or (done.returncode == found_nothing and not done.stdout)
    assert fine, (argv, done.returncode, done.stderr)
    return done.stdout


def _xdotool_search(xserver: Any, pattern: str, flag: str = "--name") -> list[int]:
    # xdotool search exits 1 when no window matches.
    found = _tool(xserver, "xdotool", "search", "--onlyvisible", flag, pattern, found_nothing=1)
    return [int(w) for w in found.split()]


def _xdotool_geometry(xserver: Any, wid: int) -> dict[str, int]:
    shell = _tool(xserver, "xdotool", "getwindowgeometry", "--shell", str(wid))
    geo = dict(line.split("=", 1) for line in shell.splitlines() if "=" in line)
    return {k: int(geo[k]) for k in ("X", "Y", "WIDTH", "HEIGHT", "WINDOW")}


def _xwininfo(xserver: Any, wid: int) -> tuple[bool, tuple[int, int], int]:
    """(has a bounding shape, absolute upper-left corner, border width) as xwininfo says."""
    said = _tool(xserver, "xwininfo", "-shape", "-id", str(wid))

    def number(label: str) -> int:
        found = re.search(rf"{label}:\s+(-?\d+)", said)
        assert found, f"xwininfo says no {label}:\n{said}"
        return int(found.group(1))

    corner = (number("Absolute upper-left X"), number("Absolute upper-left Y"))
    return "No window shape defined" not in said, corner, number("Border width")


def _xdotool_dates_nested_windows_twice(xserver: Any) -> bool:
    """Debian's xdotool 3.20160805 places a window that is not a child of the root at
    its inside corner plus its place in its parent (XTranslateCoordinates of (x, y)
    instead of (0, 0)); upstream fixed it in 3.20210804."""
    version = re.search(r"3\.(\d{8})", _tool(xserver, "xdotool", "version"))
    assert version, "xdotool printed no version"
    return int(version.group(1)) < 20210804


def test_names_places_sizes_and_shapes_read_as_xdotool_and_xwininfo_read_them(
    xserver: Any, probes: Probes
) -> None:
    for tool in ("xdotool", "xwininfo"):  # x11-utils: scripts/debian-packages.txt
        assert shutil.which(tool), f"{tool} is not installed: scripts/setup.sh installs it"
    plain = probes.window("Probe plain", (30, 40, 200, 60))
    shaped = probes.window("Probe shaped", (300, 50, 180, 90), border=3)
    probes.shape_to(shaped, 0, 100, 40)  # bounding
    clipped = probes.window("Probe clipped", (30, 160, 150, 50))
    probes.shape_to(clipped, 1, 60, 20)  # clip only: xwininfo's "No window shape defined"
    frame = probes.window(
        SIDE_TITLE, (500, 200, 300, 200), border=2, title_bytes=SIDE_TITLE_COMPOUND
    )
    inner = probes.window("Probe inner", (15, 25, 120, 80), border=4, parent=frame)
    unmapped = probes.window("Probe under an unmapped parent", (600, 500, 100, 100), mapped=False)
    probes.window("Probe hidden", (5, 5, 50, 50), parent=unmapped)
    probes.sync()

    # Which windows a name finds, and in which order: the same lists as xdotool's.
    for pattern in ("^probe", "Probe", "^Probe plain$", "parked cards", f"^{SIDE_TITLE}$",
                    "hidden", "inner|plain", "^Notch$"):  # fmt: skip
        assert xserver.windows(pattern) == _xdotool_search(xserver, pattern), pattern
    assert xserver.windows("^probe") == [plain, shaped, clipped, frame, inner]
    assert xserver.windows("hidden") == []  # mapped, but its parent is not: not viewable
    assert xserver.windows(".", classname=True) == _xdotool_search(xserver, ".", "--classname")

    # Where each is, how big, and whether it has a (bounding) X shape.
    for wid, title in ((plain, "Probe plain"), (shaped, "Probe shaped"),
                       (clipped, "Probe clipped"), (frame, SIDE_TITLE)):  # fmt: skip
        seen = xserver.window(f"^{title}$")
        assert seen is not None, title
        has_shape, _, _ = _xwininfo(xserver, wid)
        assert {**_xdotool_geometry(xserver, wid), "SHAPED": int(has_shape)} == seen, title
    assert xserver.window("^Probe shaped$")["SHAPED"] == 1
    assert xserver.window("^Probe clipped$")["SHAPED"] == 0
    assert xserver.window("^Probe plain$")["SHAPED"] == 0

    # A window inside another (as under a window manager's frame): where its inside
    # starts on the screen, xwininfo's absolute corner within its border.
    seen = xserver.window("^Probe inner$")
    assert seen is not None
    has_shape, (left, top), border = _xwininfo(xserver, inner)
    assert (seen["X"], seen["Y"], seen["SHAPED"]) == (left + border, top + border, has_shape)
    assert (seen["X"], seen["Y"]) == (500 + 2 + 15 + 4, 200 + 2 + 25 + 4)
    xdo = _xdotool_geometry(xserver, inner)
    assert (xdo["WIDTH"], xdo["HEIGHT"]) == (seen["WIDTH"], seen["HEIGHT"]) == (120, 80)
    twice = _xdotool_dates_nested_windows_twice(xserver)
    assert (xdo["X"], xdo["Y"]) == (seen["X"] + 15 * twice, seen["Y"] + 25 * twice)


def test_the_notch_reads_as_xdotool_and_xwininfo_read_it(
    xserver: Any, shared_notch: Callable[..., Any], wait_for: Any
) -> None:
    shared_notch()
    pill = wait_for(lambda: xserver.window(), 20, "the idle notch pill")
    assert xserver.windows("^Notch$") == _xdotool_search(xserver, "^Notch$")
    has_shape, _, _ = _xwininfo(xserver, pill["WINDOW"])
    assert {**_xdotool_geometry(xserver, pill["WINDOW"]), "SHAPED": int(has_shape)} == pill
    assert pill["SHAPED"] == 0 and pill["HEIGHT"] < 40


def test_a_dropped_connection_is_opened_again(xserver: Any, probes: Probes) -> None:
    """The tests' connection to the X server breaks (as when the server restarts: the
    socket ends): the next look opens a new one and answers."""
    probes.window("Probe plain", (30, 40, 200, 60))
    probes.sync()
    before = xserver.window("^Probe plain$")
    assert before is not None
    dropped = xserver.seen._conn
    fd = dropped.get_file_descriptor()
    with socket.socket(fileno=os.dup(fd)) as end:
        end.shutdown(socket.SHUT_RDWR)  # both ways: what a server going away leaves
    assert xserver.window("^Probe plain$") == before
    assert xserver.seen._conn is not dropped, "the broken connection was not replaced"

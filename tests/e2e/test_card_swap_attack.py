"""The card swap under the cursor (issue 9, finding 1), against the real `notch run`.

The person's pointer rests on the Send button of card A (mail to sam@example.com). A
hostile agent supersedes A with B: the same layout, sending to attacker@evil.example. A
click 50, 150, 300 or 550 ms later lands on B's Send — and must not approve B, because a
card that just appeared holds confirm for ARMING_DELAY_MS (600 ms) once fully in view.
B is approved only by a click after its Send shows armed, at the very same spot.

The gap is timed from the moment the supersede leaves the agent, the earliest B can be on
screen. (It was timed from when `submit` returned, and on a loaded machine Notch answers
that only after building and painting B, 100–450 ms after the swap arrived; while the old
notch counted B's hold from when it was asked to show, not from its first frame, and with
a timer that may fire 5 % early, so a click 550 ms after that answer once approved B.) A
click the X server takes too late to test anything is tried again with a new pair.

The timed clicks go through XTEST from this process on an already open display, so the
click lands when the test says: starting xdotool takes 100–230 ms on a loaded machine,
longer than the gaps under test. Pointer moves and the approving click use xdotool.

The four gaps share one `notch run`. Notch remembers what the person approved per action
and marks a card for a recipient never approved before (issue 20): after one gap's B was
approved, the next A (to Sam) would grow a marks panel B lacks, and B's Send would no
longer be where A's was. So each gap asks through a copy of the bundled mail integration
under an id of its own: an action with no approval yet, A and B alike, as on a fresh notch.
"""

from __future__ import annotations

import ctypes
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage

from notch_app.client import NotchClient
from notch_app.ui.overlay_presenter import ARMING_DELAY_MS

pytestmark = pytest.mark.e2e

MAIL = "dev.notch.examples.mail"
MAIL_FOLDER = Path(__file__).resolve().parents[2] / "manifests" / "mail"
CLICK_AFTER_MS = [50, 150, 300, 550]
ARGS = {
    "from": "maya@example.com",
    "to": ["sam@example.com"],
    "subject": "Re: Q3 report",
    "body": "Hi Sam,\n\nThe Q3 report is attached.\n\nBest,\nMaya",
}
ATTACKER = "attacker@evil.example"

SEND_ARMED = (0x4C, 0x8D, 0xFF)
"""The mail card's Send (accent) in the dark theme; a held Send is the same pill at 40 %
opacity over the card (about #2a4375), so it never matches."""
MIN_SEND_PIXELS = 400  # a ~70×34 pill is ~2,000 pixels; text and corners take some


class XTestClicker:
    """Left clicks through the XTEST extension on an open connection: no process start-up
    between deciding to click and the click. `click()` returns once the X server has
    taken both events (XSync)."""

    def __init__(self, display: str) -> None:
        self._x11 = ctypes.CDLL("libX11.so.6")
        self._xtst = ctypes.CDLL("libXtst.so.6")
        self._x11.XOpenDisplay.restype = ctypes.c_void_p
        self._x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self._x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self._x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self._xtst.XTestFakeButtonEvent.argtypes = [
            ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong,
        ]  # fmt: skip
        self._display = self._x11.XOpenDisplay(display.encode())
        if not self._display:
            raise AssertionError(f"cannot open X display {display} for XTEST clicks")

    def click(self) -> None:
        for down in (1, 0):
            self._xtst.XTestFakeButtonEvent(self._display, 1, down, 0)
        self._x11.XSync(self._display, 0)

    def close(self) -> None:
        self._x11.XCloseDisplay(self._display)


@pytest.fixture
def clicker(xserver: Any) -> Iterator[XTestClicker]:
    try:
        ctypes.CDLL("libXtst.so.6")
    except OSError:
        pytest.skip("libXtst is not installed (it comes with xdotool: scripts/setup.sh)")
    x = XTestClicker(xserver.display)
    yield x
    x.close()


@pytest.fixture(scope="module")
def mail_copies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the bundled mail integration once per gap, as `mail_for(gap)`."""
    root = tmp_path_factory.mktemp("swap-mail")
    manifest = json.loads((MAIL_FOLDER / "manifest.json").read_text(encoding="utf-8"))
    for gap in CLICK_AFTER_MS:
        copy = root / f"mail-{gap}"
        shutil.copytree(MAIL_FOLDER, copy)
        manifest["id"] = mail_for(gap)
        (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def mail_for(click_after_ms: int) -> str:
    """The id of the mail integration's copy that the gap `click_after_ms` asks through."""
    return f"{MAIL}-{click_after_ms}ms"


def _near(value: int) -> bytes:
    """A bytes.translate table: 1 for a channel value within 24 of `value`, else 0."""
    return bytes(int(abs(v - value) <= 24) for v in range(256))


_SEND_TABLES = tuple(_near(c) for c in SEND_ARMED)


def armed_send(xserver: Any, card: dict[str, int]) -> tuple[int, int] | None:
    """The centre of the card's Send button on screen while it shows armed, else None."""
    image: QImage = xserver.screen()
    # Send sits in the lower right of the card.
    area = QRect(
        card["X"] + card["WIDTH"] // 2, card["Y"] + card["HEIGHT"] // 2,
        card["WIDTH"] // 2, card["HEIGHT"] // 2,
    ).intersected(image.rect())  # fmt: skip
    if area.isEmpty():
        return None
    part = image.copy(area).convertToFormat(QImage.Format.Format_RGB888)
    data, stride, width = bytes(part.constBits()), part.bytesPerLine(), part.width() * 3
    # Every other row and column, a row at a time in C (translate, a big int's AND), not
    # a QColor per pixel: the test looks at Send many times while it waits for it to arm.
    found, first, last, rows = 0, part.width(), -1, []
    for dy in range(0, part.height(), 2):
        row = data[dy * stride : dy * stride + width]
        mask = -1
        for channel, table in enumerate(_SEND_TABLES):
            mask &= int.from_bytes(row[channel::6].translate(table), "big")
        if mask:
            hits = mask.to_bytes((part.width() + 1) // 2, "big")
            found += hits.count(1)
            first, last = min(first, hits.index(1)), max(last, hits.rindex(1))
            rows.append(dy)
    if found * 4 < MIN_SEND_PIXELS:  # every other row and column was looked at
        return None
    # Column i of the row looked at is x = left + 2 i: the middle of the first and last.
    return area.left() + first + last, area.top() + (rows[0] + rows[-1]) // 2


def wait_armed_send(xserver: Any, wait_for: Any, card: dict[str, int]) -> tuple[int, int]:
    found: tuple[int, int] = wait_for(
        lambda: armed_send(xserver, card), 20, "the card's Send button to show armed"
    )
    return found


ATTEMPTS = 3
"""Tries at a timed click: one whose click the X server took too late to test the hold
(a busy machine) is withdrawn and made again, up to this many times."""


@pytest.mark.parametrize("click_after_ms", CLICK_AFTER_MS)
def test_a_card_swapped_in_under_the_pointer_takes_no_click_until_armed(
    xserver: Any,
    shared_notch: Any,
    mail_copies: Path,
    wait_for: Any,
    clicker: XTestClicker,
    click_after_ms: int,
) -> None:
    assert click_after_ms < ARMING_DELAY_MS
    socket = shared_notch("--manifests", str(mail_copies)).socket
    with NotchClient(socket) as agent:
        for attempt in range(1, ATTEMPTS + 1):
            tried = _swap_and_click(xserver, wait_for, clicker, agent, click_after_ms, attempt)
            if tried is not None:
                break
        else:
            pytest.fail(
                f"in {ATTEMPTS} tries no click landed within {ARMING_DELAY_MS} ms of the "
                "swap being sent: the machine is too busy to test the hold"
            )
        b, card, (send_x, send_y) = tried
        assert armed_send(xserver, card) == (send_x, send_y)

        # The same click at the same spot, now that B has been in view long enough.
        clicker.click()
        decision = agent.await_decision(b, timeout=20)
        assert decision.outcome == "approved"
        assert decision.arguments is not None and decision.arguments["to"] == [ATTACKER]
        assert decision.decided_by == "click"


def _swap_and_click(
    xserver: Any,
    wait_for: Any,
    clicker: XTestClicker,
    agent: NotchClient,
    click_after_ms: int,
    attempt: int,
) -> tuple[str, dict[str, int], tuple[int, int]] | None:
    """Card A with the pointer on its armed Send, swapped for B, and a click
    `click_after_ms` after the swap was sent. Returns B's callId, the card's geometry and
    Send's centre once B shows its Send armed and undecided; None when the X server took
    the click too late to test anything (B is withdrawn)."""
    tag, mail = f"{click_after_ms}-{attempt}", mail_for(click_after_ms)
    a, pending = agent.submit(mail, "send_email", ARGS, call_id=f"swap-a-{tag}")
    assert pending is None
    card = xserver.settled_card()
    send_x, send_y = wait_armed_send(xserver, wait_for, card)
    # The person's pointer rests on A's Send (as if about to click it).
    xserver.xdotool("mousemove", str(send_x), str(send_y))

    # Timed from the moment the swap leaves the agent: B cannot be on screen before that,
    # so a click the X server takes less than ARMING_DELAY_MS later came before B had been
    # in view that long, however long Notch took to show B or to answer the submit.
    swap_sent = time.monotonic()
    b, pending = agent.submit(
        mail, "send_email", ARGS | {"to": [ATTACKER]}, call_id=f"swap-b-{tag}", supersedes=a,
    )  # fmt: skip
    assert pending is None
    # The attack's own timing, not a wait for a state: click this long after the swap.
    time.sleep(max(0.0, swap_sent + click_after_ms / 1000 - time.monotonic()))
    clicked = time.monotonic()
    clicker.click()
    landed = time.monotonic()
    print(  # the figure behind the test (shown with -s)
        f"try {attempt}: click {click_after_ms} ms after the swap was sent: sent at "
        f"{(clicked - swap_sent) * 1000:.1f} ms, taken by X at {(landed - swap_sent) * 1000:.1f} ms"
    )
    if (landed - swap_sent) * 1000 >= ARMING_DELAY_MS:
        # Too late to say anything about the hold (B may rightly have taken it).
        if agent.get(b) is None:
            agent.withdraw(b, timeout=20)
        wait_for(lambda: xserver.window() is None or xserver.window() != card, 20, "B to go")
        return None

    # Same layout: B's Send is where A's was. Once it shows armed, the early click is
    # known to have been handled (X events are taken in order) — and B must be open.
    def approved_or_armed() -> str | None:
        decided = agent.get(b)
        if decided is not None:
            return f"decided: {decided.outcome}"
        return "armed" if xserver.window() == card and armed_send(xserver, card) else None

    state = wait_for(approved_or_armed, 20, "B to show its Send armed (or be decided)")
    shot = xserver.screenshot(f"swap-{click_after_ms}ms-after-early-click")
    assert state == "armed", (
        f"a click {(landed - swap_sent) * 1000:.0f} ms after the swap was sent left B (the "
        f"card sending to {ATTACKER}) {state}, not open; screen: {shot}"
    )
    superseded = agent.get(a)
    assert superseded is not None and superseded.outcome == "superseded"
    return b, card, (send_x, send_y)

"""End-to-end fixtures: a real X server (Xvfb + xcompmgr), `notch run` as a real process.

Every test here drives the installed `notch` command over its real socket and, for the
window tests, the real notch window with xdotool (XTEST key presses and clicks, the same
input path a person's keyboard takes). Skipped, with the reason, when Xvfb is missing —
except under CI (CI=true), where that fails.

Nothing here sleeps for a fixed time: every wait polls a state the program shows from
outside (its socket, its window's geometry and X shape, a process's exit) until a
deadline, and fails naming what it waited for.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts" / "e2e"
NOTCH = [sys.executable, "-m", "notch_app"]
POLL_S = 0.05
"""How often a wait looks again: the poll interval, never a wait of its own."""
FOOTER_PX = 150
"""The bottom of a card where its confirm pill sits (the footer's action row)."""
PILL_RUN_PX = 30
"""A confirm pill is 70 px wide or more; no stroke of 13 px text runs this far in one colour."""


def _confirm_fills(strength: float = 1.0) -> list[tuple[int, int, int]]:
    """The colours of a confirm pill on the dark notch, one per tone, as drawn over the
    card's glass: armed at full strength; a held confirm is the same pill at 40 % opacity
    (`strength=0.4`), which matches none of the armed ones."""
    from notch_app.ui.theme import palette, parse_color

    colours = palette("dark")
    glass = parse_color(colours["glass_fill"])
    fills = []
    for token in ("primary_fill", "accent_fill", "danger_fill", "success_fill", "warning_fill"):
        fill = parse_color(colours[token])
        a = fill.alphaF() * strength
        fills.append(
            tuple(
                round(a * f + (1 - a) * g)
                for f, g in zip(fill.getRgb()[:3], glass.getRgb()[:3], strict=True)
            )
        )
    return fills  # type: ignore[return-value]


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


@dataclass
class XServer:
    """The X server the tests run on, and what a person sees on it (windows, pixels)."""

    display: str
    env: dict[str, str]
    compositor: bool

    def screenshot(self, name: str) -> Path:
        """The whole screen as PNG under artifacts/e2e/ (kept as a test artefact)."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        out = ARTIFACTS / f"{name}.png"
        subprocess.run(
            ["import", "-window", "root", str(out)], env=self.env, check=True, timeout=20
        )
        return out

    def xdotool(self, *args: str) -> str:
        done = subprocess.run(
            ["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=10
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    def window(self, name: str = "^Notch$") -> dict[str, int] | None:
        """Geometry of the visible window called `name` (X, Y, WIDTH, HEIGHT, WINDOW), or
        None. SHAPED is 1 while the window has an X shape: the notch masks itself to the
        revealed part while it grows or shrinks, and clears the mask once it has settled."""
        for wid in reversed(self.xdotool("search", "--onlyvisible", "--name", name).split()):
            shell = self.xdotool("getwindowgeometry", "--shell", wid)
            geo = dict(line.split("=", 1) for line in shell.splitlines() if "=" in line)
            if not all(k in geo for k in ("X", "Y", "WIDTH", "HEIGHT")):
                continue  # unmapped between the search and the look
            box = {k: int(geo[k]) for k in ("X", "Y", "WIDTH", "HEIGHT")}
            box["WINDOW"] = int(wid)
            if box["WIDTH"] > 1:
                shape = subprocess.run(
                    ["xwininfo", "-shape", "-id", wid],
                    env=self.env, capture_output=True, text=True, timeout=10,
                ).stdout  # fmt: skip
                box["SHAPED"] = int("No window shape defined" not in shape)
                return box
        return None

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

    def screen(self) -> QImage:
        """The whole screen now, as a person sees it."""
        png = subprocess.run(
            ["import", "-window", "root", "png:-"], env=self.env, capture_output=True,
            check=True, timeout=20,
        ).stdout  # fmt: skip
        image = QImage.fromData(png, "PNG")
        assert not image.isNull(), "import gave no picture of the screen"
        return image

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
        the card leaves the screen."""
        wait_for(lambda: self.confirm_armed(card), timeout, "the card's confirm to show armed")
        self.xdotool("key", "ctrl+Return")
        self.card_gone(card, timeout)


def _rect(card: dict[str, int]) -> QRect:
    return QRect(card["X"], card["Y"], card["WIDTH"], card["HEIGHT"])


def confirm_armed_on(image: QImage, card: QRect) -> bool:
    """True while the card at `card` on `image` (a screenshot) shows its confirm pill at
    full strength (see XServer.confirm_armed)."""
    area = QRect(
        card.x(), card.y() + card.height() - FOOTER_PX, card.width(), FOOTER_PX
    ).intersected(image.rect())
    rows = [
        [image.pixelColor(x, y).getRgb()[:3] for x in range(area.left(), area.right() + 1)]
        for y in range(area.top(), area.bottom() + 1, 2)
    ]
    for fill in _confirm_fills():
        solid_rows = 0
        for row in rows:
            run = longest = 0
            for rgb in row:
                close = all(abs(a - b) <= 24 for a, b in zip(rgb, fill, strict=True))
                run = run + 1 if close else 0
                longest = max(longest, run)
            solid_rows += longest >= PILL_RUN_PX
        if solid_rows >= 4:  # 8 px of the pill's height above and below its label
            return True
    return False


def confirm_center_on(image: QImage, card: QRect) -> tuple[int, int] | None:
    """The centre of the confirm pill of the card at `card` on `image`, armed or held
    (see XServer.confirm_center); None when none is drawn."""
    area = QRect(
        card.x(), card.y() + card.height() - FOOTER_PX, card.width(), FOOTER_PX
    ).intersected(image.rect())
    fills = _confirm_fills() + _confirm_fills(0.4)
    hits: list[tuple[int, int, int]] = []  # (y, first x, last x) of long runs
    for y in range(area.top(), area.bottom() + 1):
        run, start = 0, area.left()
        for x in range(area.left(), area.right() + 1):
            rgb = image.pixelColor(x, y).getRgb()[:3]
            if any(all(abs(a - b) <= 24 for a, b in zip(rgb, f, strict=True)) for f in fills):
                start = x if run == 0 else start
                run += 1
                if run == PILL_RUN_PX:
                    hits.append((y, start, x))
                elif run > PILL_RUN_PX:
                    hits[-1] = (y, start, x)
            else:
                run = 0
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


def _free_display() -> int:
    for n in range(91, 200):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise RuntimeError("no free X display number between :91 and :199")


def _stop(proc: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@pytest.fixture(scope="session")
def xserver() -> Iterator[XServer]:
    """A private Xvfb (1280×800) with a compositor when xcompmgr is installed."""
    for tool in ("Xvfb", "xdotool", "xwininfo", "import"):
        if shutil.which(tool) is None:
            reason = (
                f"{tool} is not installed: scripts/setup.sh installs it "
                "(packages in scripts/debian-packages.txt)"
            )
            # In CI a missing X server is a broken install, never a quiet skip.
            if os.environ.get("CI"):
                pytest.fail(reason)
            pytest.skip(reason)
    n = _free_display()
    display = f":{n}"
    xvfb = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp", "+extension", "RANDR"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    env = dict(os.environ)
    env.update(
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
        PYTHONUNBUFFERED="1",
        XDG_CONFIG_HOME=str(REPO / "tmp" / "e2e-config"),  # no personal integrations
    )
    env.pop("WAYLAND_DISPLAY", None)
    try:
        wait_for(lambda: Path(f"/tmp/.X11-unix/X{n}").exists(), 10, f"Xvfb on {display}")
        compositor = None
        if shutil.which("xcompmgr"):
            # Without a compositor translucent corners render black; with it, as on a desktop.
            compositor = subprocess.Popen(
                ["xcompmgr", "-n"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        yield XServer(display, env, compositor is not None)
        if compositor is not None:
            _stop(compositor)
    finally:
        _stop(xvfb)


@dataclass
class NotchProcess:
    proc: subprocess.Popen[str]
    socket: Path
    data_dir: Path
    log: Path

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


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


@pytest.fixture
def start_notch(
    stop_notch: Callable[[NotchProcess], None],
) -> Callable[..., NotchProcess]:
    """`start_notch(env, socket, data_dir, log, *flags)`: `notch run` as a process,
    returned once its socket accepts connections, stopped when the test ends."""
    from notch_app.ipc.address import socket_is_live

    def start(
        env: dict[str, str], socket: Path, data_dir: Path, log: Path, *extra: str
    ) -> NotchProcess:
        handle = log.open("a", encoding="utf-8")
        proc = subprocess.Popen(
            [*NOTCH, "run", "--socket", str(socket), "--data-dir", str(data_dir), *extra],
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=REPO,
        )
        notch = NotchProcess(proc, socket, data_dir, log)
        stop_notch(notch)

        def ready() -> bool:
            if proc.poll() is not None:
                raise AssertionError(f"notch run exited with {proc.returncode}:\n{notch.output()}")
            return socket_is_live(socket)

        wait_for(ready, 30, "notch run to listen on its socket")
        return notch

    return start


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

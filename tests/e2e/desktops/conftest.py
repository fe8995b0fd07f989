"""Real Wayland compositors for the desktop tests: weston and sway, one per test module.

- **weston** runs its X11 backend inside a private Xvfb (1920×1200; weston's output is
  1920×1080 at its top-left) with XWayland. Its headless backend has no seat at all (no
  wl_seat global), and an XTEST click into the XWayland of a seatless weston crashed
  Xwayland 22.1 (measured): nested in Xvfb, weston gets a real pointer and keyboard fed
  by XTEST, so a click takes the path a person's does (X server → weston → the client).
  Screenshots are weston's own (weston-screenshooter; weston runs with --debug for it).
- **sway** runs headless (WLR_BACKENDS=headless, pixman renderer) with XWayland. sway
  refuses to run as root: under root it runs as `nobody` (setpriv), and lets root's
  clients into its XWayland with `xhost +SI:localuser:root`. Clicks come from a virtual
  pointer (zwlr_virtual_pointer_v1) spoken on the Wayland wire; screenshots from grim.

Each fixture is skipped, with the reason, when a program it needs is missing (CI installs
them: scripts/debian-packages.txt). Nothing here sleeps: every wait is `wait_for`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage

from notch_app.ui.desktop.wayland_wire import NewId, WaylandError, WaylandWire, offered_globals

SCREEN = (1920, 1080)
NOBODY = 65534


def _need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            reason = (
                f"{tool} is not installed: scripts/setup.sh installs it "
                "(packages in scripts/debian-packages.txt)"
            )
            if os.environ.get("CI"):  # CI installs the list: missing is a broken install
                pytest.fail(reason)
            pytest.skip(reason)


def _stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@dataclass
class Compositor:
    """A running compositor: how its clients reach it, what its screen shows, a click."""

    name: str
    env: dict[str, str]
    """The session environment a program started inside it gets (WAYLAND_DISPLAY,
    XDG_RUNTIME_DIR, DISPLAY of its XWayland); QT_QPA_PLATFORM is never set."""
    shoot: Callable[[], QImage]
    click_at: Callable[[int, int], None]
    log: Path
    procs: list[subprocess.Popen[Any]] = field(default_factory=list)

    def native_env(self) -> dict[str, str]:
        """The same session seen by a program that has no XWayland (no DISPLAY)."""
        env = dict(self.env)
        env.pop("DISPLAY", None)
        return env

    def screen(self) -> QImage:
        image = self.shoot()
        assert image.width() == SCREEN[0] and image.height() == SCREEN[1], image.size()
        return image

    def notch_env(self, repo: Path, *, xwayland: bool = True) -> dict[str, str]:
        """The environment `notch` gets when a person starts it in this session (with or
        without its XWayland): their PATH and HOME, no QT_QPA_PLATFORM, no personal
        integrations."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("QT_", "XDG_"))}
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK"):
            env.pop(name, None)
        env.update(self.env if xwayland else self.native_env())
        env["PYTHONUNBUFFERED"] = "1"
        env["XDG_CONFIG_HOME"] = str(repo / "tmp" / "e2e-config")
        return env

    def settled_card(self, wait_for: Any, timeout: float = 30) -> tuple[QRect, QImage]:
        """The card's rectangle once it shows the same, card-sized, on two screenshots in a
        row (the expand animation has ended), with the second screenshot."""
        seen: list[QRect] = []

        def settled() -> tuple[QRect, QImage] | None:
            image = self.screen()
            rect = glass_rect(image)
            if rect is None or rect.height() < 200:
                seen.clear()
                return None
            seen.append(rect)
            return (rect, image) if len(seen) >= 2 and seen[-2] == rect else None

        found: tuple[QRect, QImage] = wait_for(settled, timeout, f"a card to settle on {self.name}")
        return found

    def card_gone(self, wait_for: Any, timeout: float = 20) -> None:
        """Wait until no card-sized glass is on screen."""

        def gone() -> bool:
            rect = glass_rect(self.screen())
            return rect is None or rect.height() < 200

        wait_for(gone, timeout, f"the card to leave {self.name}'s screen")

    def save(self, image: QImage, name: str) -> None:
        """Keep `image` as a test artefact (artifacts/e2e/<name>.png)."""
        out = Path(__file__).resolve().parents[3] / "artifacts" / "e2e"
        out.mkdir(parents=True, exist_ok=True)
        image.save(str(out / f"{name}.png"))


def _table(low: int, high: int) -> bytes:
    return bytes(1 if low <= v <= high else 0 for v in range(256))


# The glass's channels (18, 19, 25), with room for its 4 % of the desktop showing through.
_GLASS = (_table(13, 37), _table(9, 29), _table(8, 28))  # blue, green, red bytes


def glass_rect(image: QImage, run: int = 60) -> QRect | None:
    """The bounding box of every row of `image` holding `run` pixels of card glass in a
    row: the card on screen, whatever the desktop around it shows. Read row by row from
    the image's bytes (a Python loop over two million pixels would take seconds)."""
    argb = image.convertToFormat(QImage.Format.Format_ARGB32)  # B, G, R, A in memory
    data = bytes(argb.constBits())
    width, stride = argb.width(), argb.bytesPerLine()
    streak = b"\x01" * run
    rows: list[int] = []
    left, right = width, -1
    for y in range(argb.height()):
        row = data[y * stride : y * stride + width * 4]
        mask = -1
        for channel, table in enumerate(_GLASS):
            mask &= int.from_bytes(row[channel::4].translate(table), "little")
        line = mask.to_bytes(width, "little")
        first = line.find(streak)
        if first < 0:
            continue
        rows.append(y)
        left = min(left, first)
        end = line.rfind(streak) + run
        while end < width and line[end] == 1:
            end += 1
        right = max(right, end - 1)
    if not rows:
        return None
    return QRect(left, rows[0], right - left + 1, rows[-1] - rows[0] + 1)


def _private_dir(owner: int | None) -> Path:
    path = Path(tempfile.mkdtemp(prefix="notch-desk-"))
    path.chmod(0o700)
    if owner is not None:
        os.chown(path, owner, owner)
    return path


@pytest.fixture(scope="module")
def weston(wait_for: Any, start_xvfb: Callable[..., Any]) -> Iterator[Compositor]:
    """weston 10 (X11 backend in a private Xvfb, XWayland on), for one test module."""
    _need("weston", "weston-screenshooter", "Xvfb", "xdotool", "Xwayland")
    runtime = _private_dir(None)
    # A display number Xvfb takes itself (-displayfd): two workers looking for a free one
    # among :300-:399 and then starting could pick the same one.
    outer, xvfb = start_xvfb("-screen", "0", "1920x1200x24", "-nolisten", "tcp")
    log = runtime / "weston.log"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(runtime),
        "XDG_RUNTIME_DIR": str(runtime),
        "DISPLAY": outer,
    }
    procs: list[subprocess.Popen[Any]] = [xvfb]
    # weston's own panel is drawn above every window, XWayland's too (its top 32 px
    # would veil the card's header): a session without it, as a kiosk would run.
    (runtime / "weston.ini").write_text("[shell]\npanel-position=none\n")
    try:
        with log.open("w") as out:
            procs.append(
                subprocess.Popen(
                    [
                        "weston",
                        "--backend=x11-backend.so",
                        "--use-pixman",
                        "--width=1920",
                        "--height=1080",
                        "--socket=wayland-notch",
                        "--xwayland",
                        "--idle-time=0",
                        "--debug",
                        f"--config={runtime / 'weston.ini'}",
                    ],
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    cwd=runtime,
                )
            )

        def xwayland_display() -> str | None:
            for line in log.read_text(errors="replace").splitlines():
                if "xserver listening on display" in line:
                    return line.rsplit(" ", 1)[-1].strip()
            if procs[-1].poll() is not None:
                raise AssertionError(f"weston exited:\n{log.read_text(errors='replace')}")
            return None

        xwayland = wait_for(xwayland_display, 20, "weston to start XWayland's listener")
        session = {
            "PATH": env["PATH"],
            "HOME": os.environ.get("HOME", str(runtime)),
            "XDG_RUNTIME_DIR": str(runtime),
            "WAYLAND_DISPLAY": "wayland-notch",
            "DISPLAY": xwayland,
            "XDG_SESSION_TYPE": "wayland",
        }

        def shoot() -> QImage:
            shots = runtime / "shots"
            shots.mkdir(exist_ok=True)
            for old in shots.iterdir():
                old.unlink()
            subprocess.run(
                ["weston-screenshooter"], env=session, cwd=shots, check=True, timeout=20,
                capture_output=True,
            )  # fmt: skip
            taken = wait_for(lambda: sorted(shots.glob("*.png")), 10, "weston's screenshot")
            image = QImage(str(taken[-1]))
            assert not image.isNull(), "weston-screenshooter wrote no picture"
            return image

        def click_at(x: int, y: int) -> None:
            # weston's X11 backend reads pointer motion as relative moves, except when
            # the pointer enters its window: enter from below the output, at the spot.
            subprocess.run(
                ["xdotool", "mousemove", "5", "1195", "mousemove", str(x), str(y),
                 "click", "1"],
                env=env, check=True, timeout=10,
            )  # fmt: skip

        wait_for(lambda: _answers(session), 20, "weston to answer on its socket")
        yield Compositor("weston", session, shoot, click_at, log, procs)
    finally:
        for proc in reversed(procs):
            _stop(proc)
        shutil.rmtree(runtime, ignore_errors=True)


def _answers(env: dict[str, str]) -> bool:
    try:
        return bool(offered_globals(env, timeout_s=1))
    except WaylandError:
        return False


class VirtualPointer:
    """A pointer device of our own in a wlroots compositor (zwlr_virtual_pointer_v1)."""

    def __init__(self, env: dict[str, str]) -> None:
        path = Path(env["XDG_RUNTIME_DIR"]) / env["WAYLAND_DISPLAY"]
        self.wire = WaylandWire(path)
        seat = self.wire.bind("wl_seat", 1)
        manager = self.wire.bind("zwlr_virtual_pointer_manager_v1", 1)
        self.pointer = self.wire.new_id()
        self.wire.request(manager, 0, seat, NewId(self.pointer))
        self.wire.roundtrip()

    def click(self, x: int, y: int) -> None:
        now = int(time.monotonic() * 1000) & 0xFFFFFFFF
        w, p = self.wire, self.pointer
        w.request(p, 1, now, x, y, SCREEN[0], SCREEN[1])  # motion_absolute
        w.request(p, 4)  # frame
        w.roundtrip()
        for state in (1, 0):  # pressed, released
            w.request(p, 2, now + 20, 0x110, state)  # button BTN_LEFT
            w.request(p, 4)
            w.roundtrip()


@pytest.fixture(scope="module")
def sway(wait_for: Any) -> Iterator[Compositor]:
    """sway 1.7 (headless, XWayland on), for one test module; as `nobody` under root."""
    _need("sway", "grim", "Xwayland", "xhost")
    as_root = os.geteuid() == 0
    if as_root and shutil.which("setpriv") is None:
        pytest.skip("sway refuses to run as root and setpriv (util-linux) is missing")
    owner = NOBODY if as_root else None
    runtime = _private_dir(owner)
    log = runtime / "sway.log"
    display_file = runtime / "xwayland-display"
    config = runtime / "config"
    allow_root = "xhost +SI:localuser:root; " if as_root else ""
    config.write_text(
        "output HEADLESS-1 mode 1920x1080 bg #8a9bb0 solid_color\n"
        "xwayland enable\n"
        "default_border none\n"
        # Starts XWayland (it starts on the first X client) and says where it is.
        f"exec sh -c '{allow_root}echo $DISPLAY > {display_file}.part && "
        f"mv {display_file}.part {display_file}'\n"
    )
    if owner is not None:
        for path in (config,):
            os.chown(path, owner, owner)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(runtime),
        "XDG_RUNTIME_DIR": str(runtime),
        "WLR_BACKENDS": "headless",
        "WLR_LIBINPUT_NO_DEVICES": "1",
        "WLR_RENDERER": "pixman",
    }
    prefix = (
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] if as_root else []
    )
    procs: list[subprocess.Popen[Any]] = []
    try:
        with log.open("w") as out:
            procs.append(
                subprocess.Popen(
                    [*prefix, "sway", "-c", str(config)],
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    cwd=runtime,
                )
            )

        def socket_name() -> str | None:
            if procs[0].poll() is not None:
                raise AssertionError(f"sway exited:\n{log.read_text(errors='replace')}")
            names = sorted(p.name for p in runtime.glob("wayland-*") if p.is_socket())
            return names[0] if names else None

        wayland = wait_for(socket_name, 20, "sway's Wayland socket")
        x_display = wait_for(
            lambda: display_file.exists() and display_file.read_text().strip(),
            30,
            "sway to start XWayland",
        )
        session = {
            "PATH": env["PATH"],
            "HOME": os.environ.get("HOME", str(runtime)),
            "XDG_RUNTIME_DIR": str(runtime),
            "WAYLAND_DISPLAY": wayland,
            "DISPLAY": x_display,
            "XDG_SESSION_TYPE": "wayland",
            "XDG_CURRENT_DESKTOP": "sway",
        }
        ipc = sorted(runtime.glob("sway-ipc.*.sock"))
        if ipc:
            session["SWAYSOCK"] = str(ipc[0])
        wait_for(lambda: _answers(session), 20, "sway to answer on its socket")
        pointer = VirtualPointer(session)

        def shoot() -> QImage:
            png = subprocess.run(
                ["grim", "-t", "png", "-"], env=session, capture_output=True, check=True,
                timeout=20,
            ).stdout  # fmt: skip
            image = QImage.fromData(png, "PNG")  # type: ignore[arg-type]  # str works; stubs say bytes
            assert not image.isNull(), "grim gave no picture"
            return image

        yield Compositor("sway", session, shoot, pointer.click, log, procs)
        pointer.wire.close()
    finally:
        for proc in reversed(procs):
            _stop(proc)
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture
def ask_card(notch_argv: list[str], repo: Path) -> Callable[..., subprocess.Popen[str]]:
    """`ask_card(env, socket, text)`: `notch ask` for an ElevenLabs voice note (a card
    with a text field and a voice), as a process whose JSON decision is its stdout."""

    def asking(env: dict[str, str], socket: Path, text: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*notch_argv, "ask", "--socket", str(socket), "--integration", "io.elevenlabs",
             "--tool", "generate_speech", "--args", json.dumps({"text": text, "voice": "rachel"}),
             "--timeout", "90"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=repo,
        )  # fmt: skip

    return asking


PERSON_APP = """
import sys
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget
QGuiApplication.setDesktopFileName("person-at-work")
app = QApplication(sys.argv[:1])
window = QWidget()
window.setWindowTitle("The person's work")
window.setStyleSheet("background: #f4f1e8;")
window.resize(900, 700)
window.show()
sys.exit(app.exec())
"""


@pytest.fixture
def person_at_work(repo: Path) -> Iterator[Callable[[Compositor], subprocess.Popen[str]]]:
    """`person_at_work(compositor)`: a native Wayland window (app_id "person-at-work",
    light as a document) the person is working in, started and waited for by the caller;
    closed when the test ends."""
    started: list[subprocess.Popen[str]] = []

    def start(compositor: Compositor) -> subprocess.Popen[str]:
        env = compositor.notch_env(repo, xwayland=False)
        env["QT_QPA_PLATFORM"] = "wayland"
        proc = subprocess.Popen(
            [sys.executable, "-c", PERSON_APP], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        started.append(proc)
        return proc

    yield start
    for proc in started:
        _stop(proc)


def sway_focus(compositor: Compositor) -> str | None:
    """The app_id (or X11 class) of the window sway's seat has focused, None for none."""
    tree = json.loads(
        subprocess.run(
            ["swaymsg", "-t", "get_tree"],
            env=compositor.env,
            capture_output=True,
            check=True,
            text=True,
            timeout=10,
        ).stdout
    )
    pending = [tree]
    while pending:
        node = pending.pop()
        if node.get("focused"):
            props = node.get("window_properties") or {}
            return node.get("app_id") or props.get("class") or None
        pending += node.get("nodes", []) + node.get("floating_nodes", [])
    return None


@pytest.fixture(scope="session")
def focused_in_sway() -> Callable[[Compositor], str | None]:
    """`focused_in_sway(sway)`: the app_id of the window that has the keyboard now."""
    return sway_focus


@pytest.fixture
def doctor(notch_argv: list[str], repo: Path) -> Callable[[dict[str, str]], dict[str, Any]]:
    """`doctor(env)`: `notch doctor --json` in that session, its findings by topic (and
    "core": whether cards can be shown and answered)."""

    def examine(env: dict[str, str]) -> dict[str, Any]:
        done = subprocess.run(
            [*notch_argv, "doctor", "--json"], env=env, capture_output=True, text=True,
            timeout=90, cwd=repo,
        )  # fmt: skip
        report = json.loads(done.stdout)
        return {f["topic"]: f for f in report["findings"]} | {"core": report["core"]}

    return examine


PORTAL_FIXTURE = (
    Path(__file__).resolve().parents[2] / "fixtures" / "portal" / "global_shortcuts_portal.py"
)


@dataclass
class ShortcutsPortal:
    """A session bus of the test's own with a GlobalShortcuts portal on it."""

    address: str
    said: list[str]
    """What the portal printed so far ("ready", "bound approve,decline")."""
    _lines: Any

    def heard(self) -> list[str]:
        while not self._lines.empty():
            self.said.append(self._lines.get())
        return self.said

    def press(self, shortcut: str, *, foreign: bool = False) -> None:
        """The person presses a bound shortcut (`foreign`: one another program bound)."""
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection

        keyboard = DBusAddress(
            "/org/freedesktop/portal/desktop",
            bus_name="org.freedesktop.portal.Desktop",
            interface="dev.notch.test.Keyboard",
        )
        with open_dbus_connection(bus=self.address) as conn:
            reply = conn.send_and_get_reply(
                new_method_call(keyboard, "PressForeign" if foreign else "Press", "s", (shortcut,)),
                timeout=5,
            )
        assert reply.header.message_type.name == "method_return", reply.body


@pytest.fixture
def shortcuts_portal(wait_for: Any) -> Iterator[ShortcutsPortal]:
    """A private session bus (dbus-daemon) with a desktop portal that offers
    GlobalShortcuts, as KDE Plasma's and GNOME's do (tests/fixtures/portal/)."""
    import queue
    import threading

    _need("dbus-daemon")
    folder = _private_dir(None)
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1",
         f"--address=unix:path={folder / 'bus'}"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert bus.stdout is not None
    address = bus.stdout.readline().strip()
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address)
    portal = subprocess.Popen(
        [sys.executable, str(PORTAL_FIXTURE)], env=env, stdout=subprocess.PIPE, text=True
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert portal.stdout is not None
        for line in portal.stdout:
            lines.put(line.strip())

    threading.Thread(target=pump, daemon=True).start()
    found = ShortcutsPortal(address, [], lines)
    try:
        wait_for(lambda: "ready" in found.heard(), 20, "the portal on the test's bus")
        yield found
    finally:
        _stop(portal)
        _stop(bus)
        shutil.rmtree(folder, ignore_errors=True)

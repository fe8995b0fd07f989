"""End-to-end fixtures: a real X server (Xvfb + xcompmgr), `notch run` as a real process.

Every test here drives the installed `notch` command over its real socket and, for the
window tests, the real notch window with xdotool (XTEST key presses and clicks, the same
input path a person's keyboard takes). Skipped, with the reason, when Xvfb is missing —
except under CI (CI=true), where that fails.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts" / "e2e"
NOTCH = [sys.executable, "-m", "notch_app"]


def wait_for(check: Callable[[], object], timeout: float, what: str) -> object:
    """Poll `check` until it returns something truthy; fail naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


@dataclass
class XServer:
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
    for tool in ("Xvfb", "xdotool", "import"):
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


def start_notch(
    env: dict[str, str], socket: Path, data_dir: Path, log: Path, *extra: str
) -> NotchProcess:
    """`notch run` as a process; returns once its socket accepts connections."""
    from notch_app.ipc.address import socket_is_live

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

    def ready() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"notch run exited with {proc.returncode}:\n{notch.output()}")
        return socket_is_live(socket)

    wait_for(ready, 30, "notch run to listen on its socket")
    return notch


@pytest.fixture
def notch_env(tmp_path: Path) -> dict[str, Path]:
    # Unix socket paths are short (104 bytes on macOS): keep it near the root of tmp.
    short = Path(f"/tmp/notch-e2e-{os.getpid()}-{time.monotonic_ns() % 10**6}")
    short.mkdir(mode=0o700)
    yield {
        "socket": short / "notch.sock",
        "data_dir": tmp_path / "data",
        "log": tmp_path / "notch.log",
    }  # type: ignore[misc]
    shutil.rmtree(short, ignore_errors=True)


@pytest.fixture
def stop_notch() -> Iterator[Callable[[NotchProcess], None]]:
    started: list[NotchProcess] = []

    def register(n: NotchProcess) -> None:
        started.append(n)

    yield register
    for n in started:
        _stop(n.proc)

"""`notch doctor` under Xvfb and with no display: each line checked against the real thing
— the chords another program holds, a Notch that runs (or something that only pretends
to), the login entry `notch install` writes. (Under weston and sway: tests/e2e/desktops.)"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.ui.keys.x11_grab import chord_grabs
from notch_app.ui.keys.xcb import XcbConnection

pytestmark = pytest.mark.e2e


@pytest.fixture
def person(tmp_path: Path) -> dict[str, str]:
    """A person's own HOME and data folder (nothing installed yet)."""
    home = tmp_path / "home"
    home.mkdir()
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "NOTCH_DATA_DIR": str(tmp_path / "data"),
    }


def _doctor(env: dict[str, str], repo: Path, *args: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [*_notch(), "doctor", "--json", *args], env=env, capture_output=True, text=True,
        timeout=90, cwd=repo,
    )  # fmt: skip
    report = json.loads(done.stdout)
    return done.returncode, {f["topic"]: f for f in report["findings"]} | {"core": report["core"]}


def _notch() -> list[str]:
    import sys

    return [sys.executable, "-m", "notch_app"]


def test_under_xvfb_each_line_says_what_is_true(
    xserver: Any, person: dict[str, str], notch_env: dict[str, Path], start_notch: Any,
    repo: Path,
) -> None:  # fmt: skip
    env = {k: v for k, v in xserver.env.items() if k != "QT_QPA_PLATFORM"} | person
    sock = str(notch_env["socket"])
    code, said = _doctor(env, repo, "--socket", sock)
    assert code == 0 and said["core"] is True
    assert (
        said["display"]["status"] == "ok"
        and f"DISPLAY {xserver.display}" in said["display"]["says"]
    )
    assert said["top centre"]["status"] == "ok"
    assert said["answer keys"]["status"] == "ok"
    web = importlib.util.find_spec("PySide6.QtWebEngineWidgets") is not None
    assert (said["widgets"]["status"] == "ok") is web
    assert said["running"]["status"] == "no"
    assert said["at login"]["status"] == "no" and "notch install" in said["at login"]["fix"]

    notch = start_notch(env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
    assert subprocess.run([*_notch(), "install"], env=env, capture_output=True,
                          timeout=60).returncode == 0  # fmt: skip
    code, said = _doctor(env, repo, "--socket", sock)
    assert said["running"]["status"] == "ok"
    assert f"process {notch.proc.pid}" in said["running"]["says"]
    assert said["at login"]["status"] == "ok"
    assert (
        str(Path(person["HOME"]) / ".config/autostart/dev.notch.Notch.desktop")
        in (said["at login"]["says"])
    )


def test_a_chord_another_program_holds_is_named(
    xserver: Any, person: dict[str, str], repo: Path
) -> None:
    """Another program grabbed Ctrl+Alt+Return first: the doctor does not claim the chord."""
    other = XcbConnection(xserver.display)
    try:
        asked, plain = chord_grabs(other)
        held = [(k, m) for role, k, m in asked if role == "approve" and m == plain]
        assert other.grab_keys(held) == [0] * len(held)
        env = {k: v for k, v in xserver.env.items() if k != "QT_QPA_PLATFORM"} | person
        code, said = _doctor(env, repo)
        assert code == 0
        assert said["answer keys"]["status"] == "no"
        assert "another program holds the approve chord" in said["answer keys"]["says"]
    finally:
        other.close()


@pytest.fixture
def pretender(notch_env: dict[str, Path]) -> Iterator[Path]:
    """Something that listens on Notch's socket, accepts, and never answers."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(notch_env["socket"]))
    server.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield notch_env["socket"]
    stop.set()
    thread.join(5)
    for conn in held:
        conn.close()
    server.close()


def test_something_that_only_listens_on_the_socket_is_not_called_notch(
    xserver: Any, person: dict[str, str], pretender: Path, repo: Path
) -> None:
    env = {k: v for k, v in xserver.env.items() if k != "QT_QPA_PLATFORM"} | person
    _code, said = _doctor(env, repo, "--socket", str(pretender))
    assert said["running"]["status"] == "no"
    assert f"process {os.getpid()}" in said["running"]["says"]
    assert "does not answer as Notch" in said["running"]["says"]


def test_without_a_display_it_says_so_and_exits_1(person: dict[str, str], repo: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XDG_SESSION_TYPE")
    } | person
    code, said = _doctor(env, repo)
    assert code == 1 and said["core"] is False
    assert said["display"]["status"] == "no"
    assert "neither DISPLAY nor WAYLAND_DISPLAY is set" in said["display"]["says"]
    assert said["voice"]["status"] == "info" and said["widgets"]["status"] == "info"
    plain = subprocess.run(
        [*_notch(), "doctor"], env=env, capture_output=True, text=True, timeout=90, cwd=repo
    )
    assert plain.returncode == 1
    assert plain.stdout.splitlines()[1].startswith("✗ display: no display")
    assert plain.stdout.rstrip().endswith(
        "Cards cannot be shown here: see the ✗ display line above."
    )
    assert "Traceback" not in plain.stderr

"""A display that goes away, or none at all: every `notch` command that shows a window ends
with one line naming the display — no Qt abort, no qasync traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.ipc.address import socket_is_live

pytestmark = pytest.mark.e2e


@pytest.fixture
def doomed_x(
    start_xvfb: Callable[..., tuple[str, subprocess.Popen[bytes]]],
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """An Xvfb of this test's own, for the test to kill. Its number is Xvfb's own choice
    (-displayfd, tests/e2e/conftest.py): an Xvfb killed with SIGKILL leaves its socket
    behind, and a search for a number without one ran out after a hundred runs."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (scripts/debian-packages.txt)")
    display, xvfb = start_xvfb("-screen", "0", "1280x800x24", "-nolisten", "tcp")
    yield display, xvfb
    if xvfb.poll() is None:
        xvfb.kill()
        xvfb.wait(5)


def _env(display: str | None, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    env.update(XDG_CONFIG_HOME=str(tmp_path / "cfg"), PYTHONUNBUFFERED="1")
    if display:
        env["DISPLAY"] = display
    return env


@pytest.mark.parametrize("command", ["run", "demo"])
def test_losing_the_x_server_ends_the_command_with_one_line(
    command: str, doomed_x: tuple[str, subprocess.Popen[bytes]], notch_env: dict[str, Path],
    notch_argv: list[str], repo: Path, wait_for: Any, tmp_path: Path,
) -> None:  # fmt: skip
    display, xvfb = doomed_x
    args = ["--socket", str(notch_env["socket"]), "--data-dir", str(notch_env["data_dir"])]
    if command == "demo":
        args += ["--answer-after", "0"]  # the card stays up until the display goes
    proc = subprocess.Popen(
        [*notch_argv, command, *args], env=_env(display, tmp_path), cwd=repo,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for(lambda: socket_is_live(notch_env["socket"]), 30, f"notch {command} to listen")
        xvfb.kill()
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    # Qt's X11 plugin may say its own line first as the server vanishes mid-frame
    # ("qt.qpa.xcb: xcb_shm_create_segment() failed"): Qt's, not Notch's, and no traceback.
    said = [
        line
        for line in err.splitlines()
        if not line.startswith(("notch: listening on", "qt.qpa.xcb: "))
    ]
    assert said == [f"notch: lost the display (the X server {display} went away); Notch stopped"]
    assert proc.returncode == 1


def test_no_display_at_all_is_one_line_and_no_abort(
    notch_env: dict[str, Path], notch_argv: list[str], repo: Path, tmp_path: Path
) -> None:
    for command, line in (
        (["run", "--socket", str(notch_env["socket"])], "notch: no display to show the notch on"),
        (["settings"], "notch settings: no display to show a window on"),
    ):
        done = subprocess.run(
            [*notch_argv, *command], env=_env(None, tmp_path), cwd=repo, capture_output=True,
            text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 2, (command, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(line), (command, lines)

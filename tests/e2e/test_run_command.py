"""`notch run` as a process: bad manifests are reported and skipped, SIGTERM stops it cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import NotchClient
from notch_app.ipc.address import socket_is_live

pytestmark = pytest.mark.e2e


def test_invalid_manifest_is_reported_and_skipped_and_sigterm_stops(
    tmp_path: Path, notch_env: dict[str, Path], notch_argv: list[str], repo: Path, wait_for: Any
) -> None:
    bad = tmp_path / "extra" / "broken"
    bad.mkdir(parents=True)
    (bad / "manifest.json").write_text('{"schemaVersion": 1, "id": "x", "tools": [}\n')
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    proc = subprocess.Popen(
        [*notch_argv, "run", "--socket", str(notch_env["socket"]), "--data-dir",
         str(notch_env["data_dir"]), "--manifests", str(tmp_path / "extra")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=repo,
    )  # fmt: skip
    try:
        wait_for(lambda: proc.poll() is not None or socket_is_live(notch_env["socket"]), 30,
                 "notch run to listen")  # fmt: skip
        assert proc.poll() is None
        with NotchClient(notch_env["socket"]) as client:
            ids = {i["id"] for i in client.integrations()}
        assert "io.elevenlabs" in ids and "x" not in ids  # bundled loaded, broken skipped
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert f"{bad / 'manifest.json'}:1:" in err, err  # file:line:column, as notch validate
    assert "those integrations were skipped" in err
    assert not notch_env["socket"].exists(), "the socket file is removed on a clean stop"
    assert "Traceback" not in err


def test_a_second_notch_on_the_same_socket_says_where_the_first_runs_and_exits_0(
    xserver: Any, notch_env: dict[str, Path], notch_argv: list[str], repo: Path, wait_for: Any,
    start_notch: Any,
) -> None:  # fmt: skip
    """Started at login and again by hand: the second says where the first runs and leaves
    it alone; never a second overlay on screen."""
    first = start_notch(xserver.env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
    wait_for(lambda: xserver.window(), 20, "the first notch's pill")
    args = [*notch_argv, "run", "--socket", str(notch_env["socket"])]
    second = subprocess.run(args, env=xserver.env, capture_output=True, text=True, cwd=repo,
                            timeout=30)  # fmt: skip
    assert second.returncode == 0, second.stderr
    said = second.stderr.strip().splitlines()
    assert len(said) == 1, said
    assert str(notch_env["socket"]) in said[0] and f"process {first.proc.pid}" in said[0]
    assert "not starting a second one" in said[0]
    windows = xserver.windows("^Notch$")
    assert len(windows) == 1, "one overlay on screen"
    assert first.proc.poll() is None, "the first keeps running"
    with NotchClient(notch_env["socket"]) as client:
        assert client.integrations(), "and keeps answering"


def test_a_socket_left_by_a_killed_notch_does_not_stop_the_next_one(
    tmp_path: Path, notch_env: dict[str, Path], notch_argv: list[str], repo: Path, wait_for: Any
) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    args = [*notch_argv, "run", "--socket", str(notch_env["socket"]), "--data-dir",
            str(notch_env["data_dir"])]  # fmt: skip
    killed = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, text=True, cwd=repo)
    wait_for(lambda: socket_is_live(notch_env["socket"]), 30, "the first notch")
    killed.kill()
    killed.communicate(timeout=15)
    assert notch_env["socket"].exists(), "a killed notch leaves its socket file behind"
    again = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, text=True, cwd=repo)
    try:
        wait_for(
            lambda: again.poll() is not None or socket_is_live(notch_env["socket"]), 30,
            "the next notch to listen",
        )  # fmt: skip
        assert again.poll() is None, again.communicate(timeout=5)[1]
    finally:
        again.send_signal(signal.SIGTERM)
        again.communicate(timeout=15)

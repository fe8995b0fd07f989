"""`notch run --manifests DIR` where DIR holds folders Notch does not recognise: each
skipped folder is named on stderr with the reason, and the summary counts them."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from notch_app.bundled import bundled_folder
from notch_app.client import NotchClient
from notch_app.ipc.address import socket_is_live

pytestmark = pytest.mark.e2e


def test_run_names_every_folder_it_skips_and_counts_them(
    tmp_path: Path, notch_env: dict[str, Path], notch_argv: list[str], repo: Path, wait_for: Any
) -> None:
    extra = tmp_path / "extra"
    (extra / "claude-plugin").mkdir(parents=True)
    (extra / "claude-plugin" / "plugin.json").write_text("{}")
    (extra / "tools" / "src").mkdir(parents=True)
    (extra / "tools" / "src" / "main.py").write_text("print()")
    broken = extra / "broken"
    broken.mkdir()
    # One manifest, two errors: it is still one skipped integration.
    (broken / "manifest.json").write_text('{"schemaVersion": 9, "id": 3}\n')
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    proc = subprocess.Popen(
        [*notch_argv, "run", "--socket", str(notch_env["socket"]), "--data-dir",
         str(notch_env["data_dir"]), "--manifests", str(extra)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=repo,
    )  # fmt: skip
    try:
        wait_for(lambda: proc.poll() is not None or socket_is_live(notch_env["socket"]), 30,
                 "notch run to listen")  # fmt: skip
        assert proc.poll() is None
        with NotchClient(notch_env["socket"]) as client:
            loaded = len(client.integrations())
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    bundled = sum(1 for p in bundled_folder("manifests").iterdir() if p.is_dir())
    assert loaded == bundled
    lines = err.splitlines()
    plugin = [line for line in lines if line.startswith(f"{extra / 'claude-plugin'}: ")]
    assert len(plugin) == 1 and "plugin.json" in plugin[0] and "manifest.json" in plugin[0]
    assert any(line.startswith(f"{extra / 'tools'}: not an integration folder") for line in lines)
    assert f"{broken / 'manifest.json'}:1:" in err  # file:line:column, as notch validate
    summary = [line for line in lines if "those integrations were skipped" in line]
    assert summary == [
        f"notch: {bundled} integrations loaded, 3 skipped for the reasons above; "
        "those integrations were skipped"
    ]
    assert "Traceback" not in err

"""`notch run` reports a fixture's bad sample arguments at start, as `notch validate`
words them, now that loading decides fixtures on the fast path first and leaves
jsonschema for the ones it cannot clear (issue 19: idle memory).

Through the real program: a copy of the bundled mail integration whose fixture holds an
address that is not one ("sam@": the fast path is not sure, and the validator's
email-validator check refuses it); `notch validate` and `notch run --manifests` on the
same folder say the same line.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from notch_app.bundled import bundled_folder
from notch_app.ipc.address import socket_is_live

pytestmark = pytest.mark.e2e


def _broken_mail(folder: Path) -> Path:
    mail = folder / "mail-copy"
    shutil.copytree(bundled_folder("manifests") / "mail", mail)
    manifest = json.loads((mail / "manifest.json").read_text())
    manifest["id"] = "dev.notch.tests.mail-copy"
    (mail / "manifest.json").write_text(json.dumps(manifest, indent=2))
    preview = json.loads((mail / "preview.json").read_text())
    preview["tools"]["send_email"]["args"]["to"] = ["sam@"]
    (mail / "preview.json").write_text(json.dumps(preview, indent=2))
    return mail


def test_run_reports_a_bad_fixture_at_start_as_validate_does(
    tmp_path: Path, notch_env: dict[str, Path], notch_argv: list[str], repo: Path, wait_for: Any
) -> None:
    extra = tmp_path / "extra"
    mail = _broken_mail(extra)
    checked = subprocess.run(
        [*notch_argv, "validate", str(mail)], capture_output=True, text=True, timeout=60,
        cwd=repo,
    )  # fmt: skip
    said = [line for line in checked.stdout.splitlines() if "fixture-args-invalid" in line]
    assert len(said) == 1 and "'to.0'" in said[0] and "valid email" in said[0], checked.stdout
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
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert said[0] in err.splitlines(), err
    assert "1 skipped for the reasons above" in err
    assert "Traceback" not in err

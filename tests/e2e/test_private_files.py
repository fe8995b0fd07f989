"""Every file and folder Notch makes is the person's alone, whatever the umask (issue 18,
finding 12): `notch-settings.json.lock` was made 0666 under umask 000, and the folder
installed integrations go to 0777. Here `notch run`, `notch policy` and an install from
Settings each run under umask 000, and every file they leave is 0600, every folder 0700.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import NotchClient

pytestmark = pytest.mark.e2e

MAIL = "dev.notch.examples.mail"

INSTALL = """
import sys
from pathlib import Path
from notch_app.ui.settings.install import check_install, install
print(install(check_install(Path(sys.argv[1]), Path(sys.argv[2]), {})))
"""


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    """Processes started inside inherit `mask` (this process makes no files meanwhile)."""
    before = os.umask(mask)
    try:
        yield
    finally:
        os.umask(before)


def modes_under(top: Path) -> dict[str, str]:
    """`top` and everything in it (never through a symlink): path → octal mode."""
    found = {str(top): oct(stat.S_IMODE(top.lstat().st_mode))}
    for path in sorted(top.rglob("*")):
        found[str(path)] = oct(stat.S_IMODE(path.lstat().st_mode))
    return found


def not_private(top: Path) -> dict[str, str]:
    """What under `top` others could read or write: files not 0600, folders not 0700."""
    wrong = {}
    for name, mode in modes_under(top).items():
        private = "0o700" if Path(name).is_dir() and not Path(name).is_symlink() else "0o600"
        if mode != private:
            wrong[name] = mode
    return wrong


@pytest.mark.timeout(120)
def test_everything_notch_makes_under_umask_000_is_owner_only(
    tmp_path: Path,
    notch_env: dict[str, Path],
    notch_argv: list[str],
    repo: Path,
    start_notch: Any,
) -> None:
    config = tmp_path / "cfg"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(config))
    socket_dir = notch_env["socket"].parent / "made-by-notch"
    socket = socket_dir / "notch.sock"
    data = notch_env["data_dir"]
    with umask(0o000):
        notch = start_notch(env, socket, data, notch_env["log"])
    # A request stored while its card is up: the database, its WAL and shared memory.
    with NotchClient(socket) as client:
        sample = json.loads((repo / "manifests" / "mail" / "preview.json").read_text())
        call_id, _ = client.submit(MAIL, "send_email", sample["tools"]["send_email"]["args"])
    db = data / "notch.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        assert db.with_name(db.name + suffix).exists(), f"{db.name}{suffix} was made"
    with umask(0o000):
        policy = subprocess.run(
            [*notch_argv, "policy", "asker-grace", "7", "--data-dir", str(data)],
            env=env, capture_output=True, text=True, cwd=repo, timeout=60,
        )  # fmt: skip
        assert policy.returncode == 0, policy.stderr
        installed = subprocess.run(
            [sys.executable, "-c", INSTALL, str(repo / "manifests" / "mail"),
             str(config / "notch" / "integrations")],
            env=env, capture_output=True, text=True, cwd=repo, timeout=60,
        )  # fmt: skip
        assert installed.returncode == 0, installed.stderr
    assert (data / "notch-settings.json.lock").exists()
    assert json.loads((data / "notch-settings.json").read_text())["agents"]
    assert not_private(data) == {}
    assert not_private(socket_dir) == {}, "the socket 0600 in a folder 0700"
    assert stat.S_ISSOCK(socket.lstat().st_mode)
    # Installed integrations become cards: nobody else may add to their folder.
    assert modes_under(config / "notch")[str(config / "notch" / "integrations")] == "0o700"
    assert modes_under(config / "notch")[str(config / "notch")] == "0o700"
    notch.proc.terminate()
    assert notch.proc.wait(20) == 0, notch.output()
    assert call_id

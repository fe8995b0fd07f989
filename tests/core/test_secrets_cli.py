"""`notch secrets set|clear|list` run as a person runs it: a real process, the value typed
at a real terminal (a pty) or piped on stdin, never on the command line.

The child process has no OS keyring either, so it is given one through keyring's own
setting, `PYTHON_KEYRING_BACKEND`, naming a small file-backed backend
(tests/fixtures/secrets_keyring/json_file_keyring.py).
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

MAIL = "com.example.mail"
SECRET = "sk-live-4b1d0e77-TYPED-NOT-SHOWN"
NOTCH_SECRETS = [sys.executable, "-m", "notch_app", "secrets"]
KEYRING_FOLDER = Path(__file__).parents[1] / "fixtures" / "secrets_keyring"


MANIFEST: dict[str, Any] = {
    "schemaVersion": 1,
    "id": MAIL,
    "version": "1.0.0",
    "name": "Test Mail",
    "auth": {
        "kind": "apiKey",
        "fields": [
            {"key": "ACCOUNT", "label": "Account", "required": True},
            {"key": "API_KEY", "label": "API key", "secret": True, "required": True},
            {"key": "WEBHOOK_TOKEN", "label": "Webhook token", "secret": True},
        ],
    },
    "tools": [
        {
            "name": "list_messages",
            "title": "List messages",
            "description": "List the newest messages.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": True},
        }
    ],
}


@pytest.fixture
def home(tmp_path: Path) -> dict[str, Any]:
    folder = tmp_path / "integrations" / "mail"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps(MANIFEST))
    ring = tmp_path / "ring.json"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON_KEYRING", "NOTCH_", "DBUS_"))
    }
    env.update(
        PYTHON_KEYRING_BACKEND="json_file_keyring.JsonFileKeyringForTests",
        PYTHONPATH=os.pathsep.join([str(KEYRING_FOLDER), env.get("PYTHONPATH", "")]),
        NOTCH_TEST_KEYRING_FILE=str(ring),
        NOTCH_DATA_DIR=str(tmp_path / "data"),
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    return {"env": env, "ring": ring, "manifests": str(tmp_path / "integrations")}


def _notch(home: dict[str, Any], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*NOTCH_SECRETS, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=home["env"],
        timeout=60,
        check=False,
    )


def _ring(home: dict[str, Any]) -> dict[str, str]:
    path: Path = home["ring"]
    return json.loads(path.read_text()) if path.exists() else {}


def test_set_reads_the_value_from_stdin_and_list_shows_set_never_the_value(
    home: dict[str, Any],
) -> None:
    done = _notch(
        home, "set", MAIL, "API_KEY", "--manifests", home["manifests"], stdin=SECRET + "\n"
    )
    assert done.returncode == 0, done.stderr
    assert _ring(home) == {f"notch:{MAIL}\nAPI_KEY": SECRET}  # the line end is not the key
    assert SECRET not in done.stdout + done.stderr

    listed = _notch(home, "list", MAIL, "--manifests", home["manifests"])
    assert listed.returncode == 0, listed.stderr
    lines = {line.split()[0]: line for line in listed.stdout.splitlines()}
    assert "  set  " in lines["API_KEY"]
    assert "not set" in lines["WEBHOOK_TOKEN"]
    assert SECRET not in listed.stdout

    cleared = _notch(home, "clear", MAIL, "API_KEY")
    assert cleared.returncode == 0 and "Removed API_KEY" in cleared.stderr
    assert _ring(home) == {}
    again = _notch(home, "clear", MAIL, "API_KEY")
    assert again.returncode == 0 and "was not set" in again.stderr


def test_a_value_on_the_command_line_is_refused_and_never_echoed(home: dict[str, Any]) -> None:
    done = _notch(home, "set", MAIL, "API_KEY", SECRET)
    assert done.returncode == 2
    assert "never taken from the command line" in done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert _ring(home) == {}


def test_a_field_the_manifest_does_not_declare_secret_is_refused_with_the_known_ones(
    home: dict[str, Any],
) -> None:
    for field in ("API_KEYS", "ACCOUNT"):  # a typo; a field that is not secret
        done = _notch(home, "set", MAIL, field, "--manifests", home["manifests"], stdin=SECRET)
        assert done.returncode == 2
        assert "its secret fields: API_KEY, WEBHOOK_TOKEN" in done.stderr
    assert _ring(home) == {}


def test_an_odd_integration_id_is_refused(home: dict[str, Any]) -> None:
    done = _notch(home, "set", f"{MAIL}:x", "API_KEY", stdin=SECRET)
    assert done.returncode == 2
    assert "reverse-DNS" in done.stderr
    assert _ring(home) == {}


def test_an_empty_value_is_refused(home: dict[str, Any]) -> None:
    done = _notch(home, "set", MAIL, "API_KEY", "--manifests", home["manifests"], stdin="\n")
    assert done.returncode == 2 and "empty" in done.stderr
    assert _ring(home) == {}


def _read_until(fd: int, wanted: bytes, seen: bytearray, deadline: float) -> bool:
    while wanted not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return False
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            return wanted in seen
        if not chunk:
            return wanted in seen
        seen.extend(chunk)
    return True


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_at_a_terminal_the_value_is_typed_without_echo(home: dict[str, Any]) -> None:
    master, slave = pty.openpty()
    child = subprocess.Popen(
        [*NOTCH_SECRETS, "set", MAIL, "API_KEY", "--manifests", home["manifests"]],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=home["env"],
        start_new_session=True,  # no other terminal to fall back on: only this pty
    )
    os.close(slave)
    shown = bytearray()
    try:
        assert _read_until(master, b"typing is not shown", shown, time.monotonic() + 60), shown
        os.write(master, SECRET.encode() + b"\n")
        _read_until(master, b"OS keyring.", shown, time.monotonic() + 60)
        assert child.wait(timeout=60) == 0, shown
    finally:
        if child.poll() is None:
            child.kill()
        os.close(master)
    assert b"API key (typing is not shown): " in shown
    assert SECRET.encode() not in shown  # not echoed to the screen
    assert _ring(home) == {f"notch:{MAIL}\nAPI_KEY": SECRET}

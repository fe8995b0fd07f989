"""On a machine with no OS keyring (a headless CI box: no Secret Service on D-Bus), Notch
refuses to keep a secret, says how to get a keyring, and writes no file holding it.

Nothing is chosen for keyring here: the child process resolves its backend exactly as
it would for a person (no PYTHON_KEYRING_BACKEND, no keyringrc.cfg, a D-Bus address that
leads nowhere), so a Secret Service on the developer's own desktop cannot answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MAIL = "com.example.mail"
SECRET = "sk-live-headless-91c4-NEVER-ON-DISK"

REFUSALS = ("No OS keyring", "plain text", "does not recommend")
"""The refusal depends on what keyring finds: nothing, or (with keyrings.alt installed)
its plain-text or not-recommended file backends. Each is refused."""


def _headless_env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON_KEYRING", "NOTCH_", "DBUS_", "XDG_"))
    }
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "home" / ".config"),
        XDG_DATA_HOME=str(tmp_path / "home" / ".local" / "share"),
        NOTCH_DATA_DIR=str(tmp_path / "data"),
        DBUS_SESSION_BUS_ADDRESS=f"unix:path={tmp_path / 'no-bus'}",
    )
    return env


def _files_holding(root: Path, needle: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_no_keyring_refuses_to_keep_a_secret_and_writes_no_file(tmp_path: Path) -> None:
    env = _headless_env(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "notch_app", "secrets", "set", MAIL, "API_KEY"],
        input=SECRET,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert any(words in done.stderr for words in REFUSALS), done.stderr
    assert "PYTHON_KEYRING_BACKEND" in done.stderr  # says how to choose a keyring
    assert "never keeps API keys in a plain-text file" in done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert _files_holding(tmp_path, SECRET) == []


def test_no_keyring_the_server_environment_says_the_required_secret_cannot_be_read(
    tmp_path: Path,
) -> None:
    auth = {"kind": "apiKey", "fields": [{"key": "API_KEY", "label": "API key", "secret": True,
                                          "required": True}]}  # fmt: skip
    code = (
        "import json, sys\n"
        "from notch_app.runtime.secrets import integration_environment, MissingSecret\n"
        "try:\n"
        f"    integration_environment({MAIL!r}, json.loads(sys.argv[1]), [])\n"
        "except MissingSecret as exc:\n"
        "    print(exc.field); print(exc)\n"
        "    sys.exit(3)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(auth)],
        capture_output=True,
        text=True,
        env=_headless_env(tmp_path),
        timeout=60,
        check=False,
    )
    assert done.returncode == 3, done.stderr
    field, message = done.stdout.split("\n", 1)
    assert field == "API_KEY"
    assert f"notch secrets set {MAIL} API_KEY" in message
    assert any(words in message for words in REFUSALS), message

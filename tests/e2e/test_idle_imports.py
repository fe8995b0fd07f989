"""An idle `notch run` loads only what an idle notch uses (issue 19: idle memory).

The phone page's server and certificate code, the Settings window and the keyring, the
card and reply code, and the web engine load on first use; together they were ~50 MiB
of an idle process that no agent had asked anything yet (benchmarks/README-overlay.md,
`benchmarks/bench_idle_memory.sh`). This starts the real `notch run` (its own process,
the offscreen platform, a throw-away socket and data folder) and, the moment it says it
is listening, lists the modules it has imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

LAZY = (
    # The phone page (off until the person turns it on): starlette, uvicorn, cryptography
    # for its certificate, segno for the pairing QR.
    "starlette",
    "uvicorn",
    "cryptography",
    "segno",
    "notch_app.phone.server",
    "notch_app.phone.tls",
    "notch_app.phone.pairing",
    # The Settings window (tray → Settings…) and the keyring its pages read.
    "notch_app.ui.settings.window",
    "keyring",
    # Cards and their parts: built when a card is asked (or a gateway attaches).
    "notch_app.ui.card_view",
    "notch_app.ui.blocks",
    "notch_app.reply",
    "tree_sitter",
    "babel",
    # jsonschema and its reference resolver: the bundled fixtures are decided on the fast
    # path at load, so they load with the first check it cannot decide.
    "jsonschema",
    "referencing",
    "rpds",
    # email-validator: the bundled fixtures' addresses are plain, decided without it.
    "email_validator",
    # Glances, voice, the gateway, the studio and the web engine: never in an idle notch.
    "notch_app.manifest.glance",
    "notch_app.ui.glance",
    "notch_app.ui.voice",
    "notch_app.gateway",
    "notch_app.ui.studio",
    "PySide6.QtWebEngineCore",
    "PySide6.QtWebEngineWidgets",
)
"""Top-level names of what an idle `notch run` must not have imported."""

_DRIVER = r"""
import io, json, linecache, os, runpy, sys

real = sys.stderr


class Listening(io.TextIOBase):
    # `notch run` says "notch: listening on …" once its start is complete.
    def write(self, text):
        real.write(text)
        if "notch: listening on" in text:
            from PySide6.QtCore import QTimer  # after Notch's own imports, as in `notch run`

            QTimer.singleShot(0, dump)  # the next turn of the loop: start() has returned
        return len(text)

    def flush(self):
        real.flush()


def dump():
    sys.stdout.write(json.dumps({"sources held": sorted(linecache.cache)}) + "\n")
    sys.stdout.write(json.dumps(sorted(sys.modules)) + "\n")
    sys.stdout.flush()
    os._exit(0)


sys.stderr = Listening()
sys.argv = ["notch", "run", "--socket", sys.argv[1], "--data-dir", sys.argv[2]]
runpy.run_module("notch_app", run_name="__main__")
"""


def _idle_run(tmp_path: Path) -> tuple[set[str], list[str]]:
    """The modules an idle `notch run` has imported, and the files whose source it holds
    in `linecache`."""
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["HOME"] = str(tmp_path / "home")  # no person's settings or integrations
    env["XDG_CONFIG_HOME"] = str(tmp_path / "home" / ".config")
    env.pop("NOTCH_SOCKET", None)
    (tmp_path / "home").mkdir()
    sock = tmp_path / "run" / "notch.sock"
    sock.parent.mkdir(mode=0o700)
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, str(sock), str(tmp_path / "data")],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, f"notch run did not start: {done.stderr[-2000:]}"
    lines = [line for line in done.stdout.splitlines() if line.startswith("[")]
    assert lines, f"no module list: {done.stdout[-500:]} {done.stderr[-2000:]}"
    modules: list[str] = json.loads(lines[-1])
    held = [line for line in done.stdout.splitlines() if line.startswith('{"sources held"')]
    assert held, f"no list of held sources: {done.stdout[-500:]}"
    sources: list[str] = json.loads(held[-1])["sources held"]
    return set(modules), sources


@pytest.mark.timeout(180)
def test_an_idle_notch_run_has_not_imported_what_it_loads_on_first_use(tmp_path: Path) -> None:
    modules, _ = _idle_run(tmp_path)
    assert "notch_app.app" in modules and "notch_app.ui.notch_window" in modules
    loaded = sorted(
        name for name in modules if any(name == m or name.startswith(m + ".") for m in LAZY)
    )
    assert not loaded, f"an idle `notch run` imported what it loads on first use: {loaded}"


@pytest.mark.timeout(180)
def test_an_idle_notch_run_does_not_hold_the_source_of_its_qt_modules(tmp_path: Path) -> None:
    # PySide's import hook reads each module imported after Qt with `inspect.getsource`,
    # which kept every line in `linecache` (~3 MiB idle); `ui/pyside_imports.py` reads
    # them without keeping them.
    modules, sources = _idle_run(tmp_path)
    assert "notch_app.ui.notch_window" in modules
    notch_ui = [path for path in sources if f"notch_app{os.sep}ui{os.sep}" in path]
    assert not notch_ui, f"an idle `notch run` holds the source of {len(notch_ui)} modules"

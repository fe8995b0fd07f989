"""`notch run` whose database is overwritten while it runs (issue 18, finding 12): every
request was answered -32603 ("internal error; see Notch's log") with a traceback in the
log. Now agents get a storage error naming the fix, the log says it in one line, and
Notch takes no request until it is restarted; `--reset-store` then starts it clean."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import NotchClient, NotchRequestError
from notch_app.ipc import protocol as rpc

pytestmark = pytest.mark.e2e

MAIL = "dev.notch.examples.mail"


@pytest.mark.timeout(120)
def test_notch_run_stops_taking_requests_with_a_clear_error_when_its_store_is_damaged(
    tmp_path: Path, notch_env: dict[str, Path], repo: Path, start_notch: Any, stop_notch: Any
) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    socket, data, log = notch_env["socket"], notch_env["data_dir"], notch_env["log"]
    notch = start_notch(env, socket, data, log)
    sample = json.loads((repo / "manifests" / "mail" / "preview.json").read_text())
    args = sample["tools"]["send_email"]["args"]
    with NotchClient(socket) as client:
        client.submit(MAIL, "send_email", args)  # stored, its card up
        with open(data / "notch.sqlite3", "r+b") as db:
            db.write(os.urandom(8192))
        for _ in range(3):
            with pytest.raises(NotchRequestError) as refused:
                client.confirm(MAIL, "send_email", args, timeout=10)
            assert refused.value.code == rpc.STORAGE_ERROR
            assert "notch run --reset-store" in refused.value.message
        assert client.integrations(), "Notch itself still answers"
    notch.proc.terminate()
    assert notch.proc.wait(20) == 0
    said = notch.output()
    assert "Traceback" not in said, said
    assert said.count("stopped taking requests") == 1, said

    # Restarted with --reset-store: the damaged file is moved aside and Notch asks again.
    again = start_notch(env, socket, data, log, "--reset-store")
    with NotchClient(socket) as client:
        call_id, pending = client.submit(MAIL, "send_email", args)
    assert pending is None and call_id
    assert list(data.glob("notch.sqlite3.broken-*"))
    stop_notch(again)

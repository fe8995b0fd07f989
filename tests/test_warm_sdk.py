"""The run's warm MCP SDK (tests/fixtures/warm_sdk.py) serves a fixture server's start as
that server: the same bytes on its pipes, its exit code, its end on a signal or when the
process its client started is killed. Started as an MCP client starts it: `python
server.py` in its folder, with a bare environment."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
WARM = REPO / "tests" / "fixtures" / "warm_sdk.py"
PYTHON = REPO / ".venv" / "bin" / "python"
INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}},
}  # fmt: skip
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


@pytest.fixture(scope="module")
def warm() -> Iterator[None]:
    """A warm SDK listening: this module's own, or the run's when it is already up (it says
    "listening" either way); ends with this worker, once its forks have."""
    if not PYTHON.exists():
        pytest.skip("needs the project's .venv")
    proc = subprocess.Popen(
        [str(PYTHON), str(WARM), str(os.getpid())],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:  # the line it writes, not a poll
        sel.register(proc.stdout, selectors.EVENT_READ)
        assert sel.select(60), "the warm SDK said nothing in 60 s"
    assert proc.stdout.readline() == b"listening\n"
    yield


def _start(home: Path) -> subprocess.Popen[bytes]:
    if not PYTHON.exists():
        pytest.skip("needs the project's .venv")
    return subprocess.Popen(
        ["python", "server.py"],
        cwd=NOTES,
        env={"PATH": f"{PYTHON.parent}:/usr/bin:/bin", "HOME": str(home)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _ask(proc: subprocess.Popen[bytes], *messages: dict[str, Any]) -> list[dict[str, Any]]:
    assert proc.stdin is not None and proc.stdout is not None
    for message in messages:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    return [json.loads(proc.stdout.readline()) for m in messages if "id" in m]


def _maps(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def test_a_warm_start_answers_as_the_server_and_never_imports_the_sdk(
    warm: None, tmp_path: Path
) -> None:
    server = _start(tmp_path)
    try:
        init, tools = _ask(
            server, INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"}, LIST
        )
        assert init["result"]["serverInfo"]["name"] == "notes"
        names = [t["name"] for t in tools["result"]["tools"]]
        assert names == [
            "send_message",
            "cancel_agent",
            "delete_note",
            "fetch_report",
            "get_status",
        ]
        # The process the client started holds no SDK: a fork of the warm one answered.
        assert "pydantic_core" not in _maps(server.pid)
        (status,) = _ask(server, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                  "params": {"name": "get_status", "arguments": {}}})  # fmt: skip
        data = json.loads(status["result"]["content"][0]["text"])
        assert data["folder"] == str(NOTES)  # its folder, its environment
        assert json.loads((tmp_path / "notes-calls.jsonl").read_text())["pid"] != server.pid
    finally:
        server.communicate(b"", timeout=30)
    assert server.returncode == 0  # stdin closed: the server ends, and so does its stand-in


def test_a_crash_mid_call_is_the_exit_code_its_client_sees(warm: None, tmp_path: Path) -> None:
    server = _start(tmp_path)
    _ask(server, INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert server.stdin is not None
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                   "params": {"name": "get_status", "arguments": {"crash": True}}}
                                  ).encode() + b"\n")  # fmt: skip
    server.stdin.flush()
    assert server.wait(30) == 3  # notes/server.py's os._exit(3)
    assert server.stdout is not None and server.stdout.read() == b""


@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGKILL])
def test_a_signal_to_the_started_process_ends_the_server(
    warm: None, tmp_path: Path, sent: signal.Signals
) -> None:
    server = _start(tmp_path)
    _ask(server, INIT)
    os.kill(server.pid, sent)
    assert server.wait(30) == -sent
    # Its stdout reaches end-of-file only when the fork holding it is gone too.
    assert server.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(server.stdout, selectors.EVENT_READ)
        assert sel.select(30), "the server outlived the process its client started"
    assert server.stdout.read() == b""

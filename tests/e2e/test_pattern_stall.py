"""No pattern can stall Notch, through the real programs (issue 18, finding 1).

The attack: `gateway.attach` a tool whose inputSchema has `"pattern": "^(a+)+$"`, then
`confirm.request` it with `"a" * 40 + "!"`. With a backtracking engine `notch run` stopped
answering every client and ignored SIGTERM; `notch mcp` over a bare server listing that
schema took the same path; `notch validate` hung on it with a 38-character fixture.
Each test here has its own deadline, so the old behaviour fails it instead of hanging.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.ipc.address import socket_is_live

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
PATTERNS = REPO / "tests" / "fixtures" / "mcp_servers" / "patterns" / "server.py"
EVIL = "^(a+)+$"
EVIL_INPUT = "a" * 40 + "!"
RENAME = {
    "name": "rename",
    "description": "Rename the thing.",
    "inputSchema": {"type": "object", "properties": {"x": {"type": "string", "pattern": EVIL}}},
}


def _rpc(path: Path, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
    """One JSON-RPC call on a fresh connection, answered within `timeout` s or raising
    TimeoutError (a raw socket: this test does not lean on a client's own limits)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        request = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        sock.sendall(json.dumps(request).encode() + b"\n")
        buffer = b""
        ends = time.monotonic() + timeout
        while True:
            while b"\n" not in buffer:
                sock.settimeout(max(0.001, ends - time.monotonic()))
                chunk = sock.recv(65536)
                if not chunk:
                    raise ConnectionError(f"Notch closed the connection during {method}")
                buffer += chunk
            line, buffer = buffer.split(b"\n", 1)
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == 1:
                return message


@pytest.fixture
def notch_run(
    tmp_path: Path, notch_env: dict[str, Path], notch_argv: list[str], wait_for: Any
) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """`notch run` as a process (offscreen: this is about its socket), and its socket."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    proc = subprocess.Popen(
        [*notch_argv, "run", "--socket", str(notch_env["socket"]), "--data-dir",
         str(notch_env["data_dir"])],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        wait_for(lambda: proc.poll() is not None or socket_is_live(notch_env["socket"]), 60,
                 "notch run to listen")  # fmt: skip
        assert proc.poll() is None, proc.communicate()[1]
        yield proc, notch_env["socket"]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _server_info_ms(path: Path) -> float:
    began = time.perf_counter()
    answer = _rpc(path, "server.info", {}, timeout=5)
    assert "result" in answer, answer
    return (time.perf_counter() - began) * 1000


# A 100 ms latency bound: beside five other workers on two cores it measured the load
# (112 ms once), so it runs alone after them (tests/conftest.py).
@pytest.mark.timing
def test_attach_and_an_evil_request_never_stall_notch_run_and_sigterm_ends_it(
    notch_run: tuple[subprocess.Popen[str], Path],
) -> None:
    proc, path = notch_run
    attached = _rpc(path, "gateway.attach", {"name": "evil", "tools": [RENAME]}, timeout=10)
    assert [t["name"] for t in attached["result"]["tools"]] == ["rename"]
    _server_info_ms(path)  # warm: the first answer pays for imports

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as hostile:
        hostile.settimeout(10)
        hostile.connect(str(path))
        for n in range(5):  # five hostile requests in a row, one connection
            request = {"jsonrpc": "2.0", "id": n, "method": "confirm.request", "params": {
                "callId": f"evil-{n}", "integration": "mcp.local.evil", "tool": "rename",
                "arguments": {"x": EVIL_INPUT}}}  # fmt: skip
            hostile.sendall(json.dumps(request).encode() + b"\n")
        # Another client, while they are being checked:
        waits = [_server_info_ms(path) for _ in range(10)]
        replies: list[dict[str, Any]] = []
        buffer = b""
        while len(replies) < 5:
            chunk = hostile.recv(65536)
            assert chunk, "Notch closed the hostile connection"
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            replies += [json.loads(line) for line in lines if b'"id"' in line]
    assert max(waits) < 100, f"server.info took {max(waits):.0f} ms"
    for reply in replies:
        assert reply["error"]["code"] == -32602
        assert "arguments.x must match the pattern ^(a+)+$" in reply["error"]["message"]

    began = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert time.monotonic() - began < 10
    assert "Traceback" not in err


def test_notch_validate_ends_fast_on_the_evil_pattern_with_a_clear_problem(
    tmp_path: Path, notch_argv: list[str]
) -> None:
    folder = tmp_path / "evil"
    shutil.copytree(NOTES, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["tools"][0]["inputSchema"]["properties"]["to"]["pattern"] = EVIL
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))
    preview = json.loads((folder / "preview.json").read_text())
    preview["tools"]["send_message"]["args"]["to"] = "a" * 37 + "!"  # 38 characters
    (folder / "preview.json").write_text(json.dumps(preview, indent=2))
    line = next(
        i for i, row in enumerate((folder / "preview.json").read_text().splitlines(), 1)
        if '"to": "aaaa' in row
    )  # fmt: skip

    began = time.monotonic()
    done = subprocess.run(
        [*notch_argv, "validate", str(folder)],
        capture_output=True, text=True, timeout=20, cwd=REPO,
    )  # fmt: skip
    assert time.monotonic() - began < 15
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    assert f"{folder / 'preview.json'}:{line}:" in out, out
    assert "must match the pattern ^(a+)+$" in out, out


def test_notch_validate_refuses_a_pattern_notch_cannot_run_at_its_place(
    tmp_path: Path, notch_argv: list[str]
) -> None:
    folder = tmp_path / "lookahead"
    shutil.copytree(NOTES, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["tools"][0]["inputSchema"]["properties"]["to"]["pattern"] = "^(?=.*@).+$"
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))
    line = next(
        i for i, row in enumerate((folder / "manifest.json").read_text().splitlines(), 1)
        if '"pattern"' in row
    )  # fmt: skip
    done = subprocess.run(
        [*notch_argv, "validate", str(folder)],
        capture_output=True, text=True, timeout=20, cwd=REPO,
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    assert f"{folder / 'manifest.json'}:{line}:" in out, out
    assert "error[input-schema-invalid]" in out and "lookahead" in out, out


@pytest.mark.asyncio
async def test_notch_mcp_over_a_bare_server_with_the_evil_pattern_answers(
    tmp_path: Path, notch_run: tuple[subprocess.Popen[str], Path], notch_env: dict[str, Path]
) -> None:
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    proc, path = notch_run
    home = tmp_path / "home"
    home.mkdir()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "notch_app", "mcp", "--name", "patterns", "--socket", str(path),
              "--data-dir", str(notch_env["data_dir"]), "--", sys.executable, str(PATTERNS)],
        env={"PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
             "HOME": str(home), "PYTHONUNBUFFERED": "1"},
        cwd=str(REPO),
    )  # fmt: skip
    with (tmp_path / "gw.log").open("a", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            listed = await asyncio.wait_for(client.list_tools(), 30)
            assert [t.name for t in listed.tools] == ["rename"]
            result = await asyncio.wait_for(client.call_tool("rename", {"x": EVIL_INPUT}), 30)
            waits = [await asyncio.to_thread(_server_info_ms, path) for _ in range(3)]
    assert result.is_error
    said = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    assert "must match the pattern ^(a+)+$" in said, said
    assert not (home / "patterns-calls.jsonl").exists(), "the server ran the refused call"
    assert max(waits) < 100
    assert proc.poll() is None

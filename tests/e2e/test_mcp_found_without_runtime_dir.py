"""No XDG_RUNTIME_DIR anywhere: `notch run` started without one (its TMPDIR a per-user
folder, as macOS gives a session) listens in `$TMPDIR/notch-<uid>/`, and an MCP client
with its default environment (HOME, PATH…, no TMPDIR) still finds it, through the note
`notch run` leaves in ~/.local/state/notch. The person answers the card; what they
changed on it is what runs."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
NOTCH_BIN = VENV_BIN / "notch"
GIT_SERVER = VENV_BIN / "mcp-server-git"


@pytest.fixture
def session_without_runtime_dir(
    xserver: Any, wait_for: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """`notch run` with no XDG_RUNTIME_DIR and a TMPDIR of its own; this process (the MCP
    client's host) with the same HOME and neither variable. Yields the socket."""
    from notch_app.ipc.address import socket_is_live

    base = Path(tempfile.mkdtemp(prefix="notch-nx"))
    home, tmp = base / "home", base / "tmp"
    home.mkdir()
    tmp.mkdir(mode=0o700)
    env = {**xserver.env, "HOME": str(home), "TMPDIR": str(tmp)}
    for name in ("XDG_RUNTIME_DIR", "NOTCH_SOCKET", "NOTCH_DATA_DIR"):
        env.pop(name, None)
    socket = tmp / f"notch-{os.getuid()}" / "notch.sock"
    if Path(f"/run/user/{os.getuid()}").is_dir():
        pytest.skip("this machine has a runtime folder: notch run would listen there")
    log = base / "notch.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "notch_app", "run", "--park-after", "0"], env=env,
            cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        wait_for(lambda: socket_is_live(socket), 60, f"notch run to listen on {socket}")
        monkeypatch.setenv("HOME", str(home))
        for name in ("XDG_RUNTIME_DIR", "NOTCH_SOCKET", "NOTCH_DATA_DIR", "TMPDIR"):
            monkeypatch.delenv(name, raising=False)
        yield socket
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(base, ignore_errors=True)


def _branches(repo: Path) -> list[str]:
    done = subprocess.run(
        ["git", "-C", str(repo), "branch", "--format=%(refname:short)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return sorted(done.stdout.split())


@pytest.mark.asyncio
async def test_a_client_with_no_runtime_dir_finds_notch_and_runs_what_the_person_edited(
    session_without_runtime_dir: Path, xserver: Any, wait_for: Any, tmp_path: Path
) -> None:
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

    repo = tmp_path / "repo"
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "README").write_text("hello\n")
    subprocess.run([*git, "add", "README"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    assert "TMPDIR" not in get_default_environment()
    assert "XDG_RUNTIME_DIR" not in get_default_environment()

    params = StdioServerParameters(
        command=str(NOTCH_BIN),
        args=["mcp", "--name", "git", "--", str(GIT_SERVER), "--repository", str(repo)],
    )  # no env: the SDK's default
    with (tmp_path / "gw.log").open("w") as err:
        async with stdio_client(params, err) as (r, w), ClientSession(r, w) as client:
            await client.initialize()
            call = asyncio.ensure_future(
                client.call_tool(
                    "git_create_branch", {"repo_path": str(repo), "branch_name": "from-model"}
                )
            )
            card = await asyncio.to_thread(xserver.settled_card)
            assert _branches(repo) == ["main"]
            # The person moves into the fields with Tab (the card opens compact; Tab
            # unfolds its Details, as a click on "Details" would, wherever the layout of
            # this screen and this path puts that link), to Branch Name, renames the
            # branch, then approves.
            await asyncio.to_thread(xserver.focus_card, card)
            await asyncio.to_thread(xserver.xdotool, "key", "--delay", "60", "Tab")
            opened = await asyncio.to_thread(xserver.settled_card)
            assert opened["HEIGHT"] > card["HEIGHT"], "Details shows the fields"
            await asyncio.to_thread(xserver.xdotool, "key", "--delay", "60", "Tab", "ctrl+a")
            await asyncio.to_thread(xserver.xdotool, "type", "--delay", "15", "from-person")
            await asyncio.to_thread(xserver.confirm_with_keys, opened)
            result = await asyncio.wait_for(call, 30)
    text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    assert not result.is_error, text
    assert _branches(repo) == ["from-person", "main"]
    assert "The person changed branch_name before approving" in text

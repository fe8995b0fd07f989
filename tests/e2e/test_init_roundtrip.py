"""The issue's round trip on a fresh `notch init` folder, with no edits: `notch init` →
`notch validate` → `notch test` → `notch mcp DIR` driven by the mcp SDK's real stdio
client (reads pass through without Notch; with `notch run` on Xvfb the acting tool's card
shows, and approving it runs the edited arguments) → `notch preview DIR` opens its window.

The MCP client is given the PATH a person's MCP client passes, with a `python` on it that
is not the one running Notch (it has no mcp SDK and says so): the folder's server must
still start, as it does for a `notch` installed by scripts/setup.sh into a venv that
nobody activates.

One `notch mcp` serves the two MCP tests, as one client would across a person's day:
first with no `notch run` (reads pass, the acting tool fails closed), then with one
started on the socket it names (the card, the edit, the approval).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.client.session import ClientSession

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

pytestmark = pytest.mark.e2e

NAME = "Team tasks"
ID = "dev.local.team-tasks"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, notch_argv: list[str]) -> Path:
    """`notch init` run as a person runs it, in a folder of their own: once per module
    (it writes the same files every time; nothing in them names where it ran)."""
    where = tmp_path_factory.mktemp("init")
    done = subprocess.run(
        [*notch_argv, "init", "team-tasks", "--name", NAME],
        cwd=where, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Made team-tasks ({ID}):")
    return where / "team-tasks"


@pytest.fixture
def fresh(tmp_path: Path, made: Path) -> Path:
    """A copy of what `notch init` made, this test's own: none sees another's changes."""
    return Path(shutil.copytree(made, tmp_path / "team-tasks"))


def client_env(where: Path, repo: Path) -> dict[str, str]:
    """What an MCP client gives `notch mcp`: a PATH whose first `python` is not Notch's."""
    wrong = where / "other-bin"
    wrong.mkdir()
    python = wrong / "python"
    python.write_text("#!/bin/sh\necho 'a python without the mcp SDK' >&2\nexit 3\n")
    python.chmod(0o755)
    home = where / "home"
    home.mkdir()
    return {
        "PATH": f"{wrong}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "PYTHONUNBUFFERED": "1",
        "XDG_CONFIG_HOME": str(repo / "tmp" / "e2e-config"),
    }


@asynccontextmanager
async def mcp_client(
    folder: Path, where: dict[str, Path], env: dict[str, str], errlog: Path
) -> AsyncIterator[ClientSession]:
    """The SDK's stdio client connected to `notch mcp FOLDER`, initialized."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "notch_app", "mcp", str(folder), "--socket", str(where["socket"]),
              "--data-dir", str(where["data_dir"])],
        env=env,
        cwd=str(folder.parent),
    )  # fmt: skip
    with errlog.open("a", encoding="utf-8") as err:
        async with stdio_client(params, err) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            yield s


def text_of(result: types.CallToolResult) -> str:
    import mcp_types as types

    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """A blocking wait (window, xdotool) without stopping the MCP client's reading."""
    return await asyncio.to_thread(fn, *args)


@dataclass
class Gateway:
    """The module's `notch mcp` on its own copy of the fresh folder, and where it looks
    for Notch (nothing listens there until a test starts `notch run` on it)."""

    client: ClientSession
    folder: Path
    socket: Path
    data_dir: Path
    errlog: Path


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def gateway(
    tmp_path_factory: pytest.TempPathFactory, made: Path, repo: Path, in_its_own_task: Any
) -> AsyncIterator[Gateway]:
    """`notch mcp` on a copy of the fresh folder for the module's MCP tests (run on the
    module's loop), started with no `notch run` on its socket."""
    root = tmp_path_factory.mktemp("gateway")
    folder = Path(shutil.copytree(made, root / "team-tasks"))
    short = Path(tempfile.mkdtemp(prefix="notch-init-"))  # Unix socket paths are short
    where = {"socket": short / "notch.sock", "data_dir": root / "data"}
    argv = (folder, where, client_env(root, repo), root / "gw.log")
    held = in_its_own_task(lambda: mcp_client(*argv))
    try:
        client = await held.start()
        yield Gateway(client, folder, where["socket"], where["data_dir"], root / "gw.log")
    finally:
        try:
            await held.end()
        finally:
            shutil.rmtree(short, ignore_errors=True)


def test_a_fresh_folder_validates_and_its_scenarios_pass(
    fresh: Path, notch_argv: list[str]
) -> None:
    checked = subprocess.run(
        [*notch_argv, "validate", "team-tasks"],
        cwd=fresh.parent, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "", "")
    scenarios = sorted(str(p.relative_to(fresh.parent)) for p in fresh.glob("scenarios/*.json"))
    tested = subprocess.run(
        [*notch_argv, "test", *scenarios],
        cwd=fresh.parent, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert tested.stdout.endswith("2 passed, 0 failed\n")


@pytest.mark.asyncio(loop_scope="module")
async def test_notch_mcp_reads_without_notch_and_refuses_to_act(gateway: Gateway) -> None:
    client = gateway.client
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == {"create_item", "list_items"}
    assert listed["create_item"].title == "Add item"  # the manifest's words
    items = await client.call_tool("list_items", {"limit": 2})
    assert not items.is_error, text_of(items) + gateway.errlog.read_text()
    assert items.structured_content is not None
    blocks = items.structured_content["_voiceos_glance"]["blocks"]
    assert [b["type"] for b in blocks] == ["header", "list"]  # as preview.json expects
    added = await client.call_tool("create_item", {"title": "Sneak it in"})
    assert added.is_error
    assert "Notch is not running" in text_of(added)
    after = await client.call_tool("list_items", {"limit": 6})
    assert after.structured_content is not None
    assert "Sneak it in" not in str(after.structured_content)  # the acting call never ran


@pytest.mark.asyncio(loop_scope="module")
async def test_with_notch_run_the_card_shows_and_approving_runs_the_edit(
    gateway: Gateway, tmp_path: Path, xserver: Any, start_notch: Any
) -> None:
    # notch run starts on the socket the running `notch mcp` names. The folder is
    # neither bundled nor installed: notch mcp attaches it to notch run.
    start_notch(xserver.env, gateway.socket, gateway.data_dir, tmp_path / "notch.log")
    client = gateway.client
    call = asyncio.ensure_future(
        client.call_tool("create_item", {"title": "Book the team lunch", "priority": "high"})
    )
    card = await in_thread(xserver.settled_card)
    xserver.screenshot("init-roundtrip-card")
    listed = await client.call_tool("list_items", {"limit": 6})
    assert "Book the team lunch" not in str(listed.structured_content)  # not yet
    await in_thread(xserver.retype_first_field, card, "Book lunch for eight")
    await in_thread(xserver.confirm_with_keys, card)
    result = await asyncio.wait_for(call, 30)
    assert not result.is_error, text_of(result)
    assert "The person changed title before approving" in text_of(result)
    newest = await client.call_tool("list_items", {"limit": 1})
    assert newest.structured_content is not None
    (item,) = newest.structured_content["items"]
    assert (item["title"], item["priority"]) == ("Book lunch for eight", "high")


def test_notch_preview_opens_the_studio_on_the_fresh_folder(
    fresh: Path, xserver: Any, notch_argv: list[str], wait_for: Any, tmp_path: Path
) -> None:
    from notch_app.cli import COMMANDS

    if "preview" not in COMMANDS:
        pytest.skip("notch preview (the studio, built beside notch init) is not registered yet")
    log = (tmp_path / "preview.log").open("w", encoding="utf-8")
    proc = subprocess.Popen(
        [*notch_argv, "preview", "team-tasks"],
        cwd=fresh.parent, env=xserver.env, stdout=log, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:

        def window() -> dict[str, int] | None:
            if proc.poll() is not None:
                output = (tmp_path / "preview.log").read_text()
                raise AssertionError(f"notch preview exited with {proc.returncode}:\n{output}")
            found: dict[str, int] | None = xserver.window("team-tasks")
            return found

        box = wait_for(window, 60, "the studio's window on the fresh folder")
        assert box["WIDTH"] > 440  # room for the card at the notch's width, and more

        def painted() -> bool:
            # A window drawn with its card holds many colours; a mapped, unpainted one few.
            image = xserver.screen()
            colours = {
                image.pixel(x, y)
                for x in range(box["X"], box["X"] + box["WIDTH"], 8)
                for y in range(box["Y"], box["Y"] + box["HEIGHT"], 8)
                if image.rect().contains(x, y)
            }
            return len(colours) > 20

        wait_for(painted, 60, "the studio to paint its window")
        xserver.screenshot("init-roundtrip-studio")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()
    assert os.path.isdir(fresh)  # the studio only reads the folder

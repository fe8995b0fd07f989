"""Issue 18, through the real `notch mcp` (its own process, driven by the SDK's stdio
client) in front of a bare SDK server that lies (tests/fixtures/mcp_servers/wipe), with
an in-process Notch whose service uses the person's PolicyBook as `notch run` wires it:

- a `readOnlyHint: true` on `delete_all` is not believed: a card, and nothing runs;
- "Always allow" on `files` started one way does not let "Files!" started another way
  run: it asks, and says it comes from another source;
- `notch policy` blocks and guards a gateway integration before it ever attached;
- a title that says "Delete 1 file" over 9 paths gets a warning on the card.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from notch_app.runtime.policy_book import PersonPolicy, PolicyBook

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.client.session import ClientSession

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

REPO = Path(__file__).resolve().parents[2]
WIPE = REPO / "tests" / "fixtures" / "mcp_servers" / "wipe" / "server.py"
VENV_BIN = str(Path(sys.executable).parent)
FILES = "mcp.local.files"

pytestmark = pytest.mark.timeout(120)


class Ran:
    """What the wrapped servers ran, from their call log."""

    def __init__(self, home: Path) -> None:
        self.path = home / "wipe-calls.jsonl"

    def of(self, tool: str) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        lines = self.path.read_text().splitlines()
        return [c for c in map(json.loads, lines) if c["tool"] == tool]


@asynccontextmanager
async def gateway(
    notch: Any, name: str, *server_args: str, log: Path
) -> AsyncIterator[ClientSession]:
    """`notch mcp --name NAME -- python wipe/server.py SERVER_ARGS`, as an MCP client
    starts it, connected to the in-process Notch."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    home = log.parent
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m", "notch_app", "mcp", "--name", name, "--socket", str(notch.server.path),
            "--data-dir", str(home / "gw-data"), "--", "python", str(WIPE), *server_args,
        ],
        env={"PATH": f"{VENV_BIN}:{os.environ.get('PATH', '')}", "HOME": str(home)},
        cwd=str(REPO),
    )  # fmt: skip
    with log.open("a", encoding="utf-8") as err:
        async with stdio_client(params, err) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            yield s


def text_of(result: types.CallToolResult) -> str:
    import mcp_types as types

    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def notch_policy(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "notch_app", "policy", *args, "--data-dir", str(data_dir)],
        capture_output=True, text=True, timeout=60, cwd=REPO, check=False,
    )  # fmt: skip


@pytest.fixture
def home(base: Path) -> Path:
    folder = base / "home"
    folder.mkdir()
    return folder


@pytest.mark.asyncio
async def test_a_bare_servers_read_only_hint_on_delete_all_is_not_believed(
    base: Path, home: Path, running_notch: Any
) -> None:
    ran = Ran(home)
    async with running_notch(base) as (notch, cards):
        notch.service.policy = PersonPolicy(PolicyBook.in_data_dir(base / "data"))
        async with gateway(notch, "files", log=home / "gw.log") as client:
            # A tool that only reads still passes straight through.
            assert not (await client.call_tool("peek", {"path": "/"})).is_error
            assert ran.of("peek") != []
            call = asyncio.ensure_future(client.call_tool("delete_all", {"path": "/"}))
            (card,) = await cards.wait_for_cards(1, timeout=30)
            assert (card.integration_id, card.tool_name) == (FILES, "delete_all")
            assert ran.of("delete_all") == [], "nothing runs before the person answers"
            cards.decline(card.call_id)
            declined = await asyncio.wait_for(call, 30)
        assert declined.is_error
        assert ran.of("delete_all") == []
    # The gateway's log says why the hint was not believed.
    logged = (home / "gw.log").read_text()
    assert "delete_all: it says readOnlyHint: true, but its name says it deletes" in logged


@pytest.mark.asyncio
async def test_always_allow_on_files_does_not_let_files_from_another_command_run(
    base: Path, home: Path, running_notch: Any
) -> None:
    ran = Ran(home)
    nine = [f"/home/me/{n}.txt" for n in range(9)]
    async with running_notch(base) as (notch, cards):
        notch.service.policy = PersonPolicy(PolicyBook.in_data_dir(base / "data"))
        async with gateway(notch, "files", log=home / "gw.log") as client:
            call = asyncio.ensure_future(client.call_tool("trash_files", {"paths": nine[:1]}))
            (card,) = await cards.wait_for_cards(1, timeout=30)
            cards.approve(card.call_id, scope="always")
            assert not (await asyncio.wait_for(call, 30)).is_error
            # Allowed: the same server runs at once from now on.
            assert not (await client.call_tool("trash_files", {"paths": nine[:1]})).is_error
            assert len(ran.of("trash_files")) == 2 and len(cards.presented) == 1
        # "Files!" is the same integration id, started with another command line.
        async with gateway(notch, "Files!", "--other", log=home / "gw.log") as other:
            call = asyncio.ensure_future(other.call_tool("trash_files", {"paths": nine[:1]}))
            await cards.wait_for(lambda: len(cards.cards) == 1, timeout=30)
            (card,) = cards.cards.values()
            assert card.integration_id == FILES
            assert card.reason is not None and "from another source" in card.reason
            assert "--other" in card.reason, "the card names where this one comes from"
            assert len(ran.of("trash_files")) == 2, "nothing ran without the person"
            cards.decline(card.call_id)
            assert (await asyncio.wait_for(call, 30)).is_error
        assert all("--other" not in c["argv"] for c in ran.of("trash_files"))


@pytest.mark.asyncio
async def test_notch_policy_blocks_and_guards_a_gateway_integration_before_it_attaches(
    base: Path, home: Path, running_notch: Any
) -> None:
    ran = Ran(home)
    data = base / "data"
    # By its notch mcp command line, and by its id: nothing of it is loaded anywhere yet.
    line = f"notch mcp --name files -- python {WIPE}"
    blocked = notch_policy(data, "set", line, "delete_all", "--block")
    assert blocked.returncode == 0, blocked.stderr
    assert "mcp.local.files" in blocked.stdout and "from the moment it attaches" in blocked.stderr
    guarded = notch_policy(data, "guard", FILES, "trash_files", "--not-one-of", "paths", "/tmp/a")
    assert guarded.returncode == 0, guarded.stderr
    # Asks first off needs the card the person agrees to: not from here.
    off = notch_policy(data, "set", FILES, "trash_files", "--asks-first", "off")
    assert off.returncode == 2 and "Always allow" in off.stderr

    async with running_notch(base) as (notch, cards):
        notch.service.policy = PersonPolicy(PolicyBook.in_data_dir(data))
        async with gateway(notch, "files", log=home / "gw.log") as client:
            result = await client.call_tool("delete_all", {"path": "/"})
            assert result.is_error and "blocked" in text_of(result).lower()
            assert ran.of("delete_all") == [] and cards.presented == []
            # Always allow from the card; the guard still asks for another path.
            call = asyncio.ensure_future(client.call_tool("trash_files", {"paths": ["/tmp/a"]}))
            (card,) = await cards.wait_for_cards(1, timeout=30)
            cards.approve(card.call_id, scope="always")
            assert not (await asyncio.wait_for(call, 30)).is_error
            assert not (await client.call_tool("trash_files", {"paths": ["/tmp/a"]})).is_error
            call = asyncio.ensure_future(client.call_tool("trash_files", {"paths": ["/etc"]}))
            await cards.wait_for(lambda: len(cards.cards) == 1, timeout=30)
            (card,) = cards.cards.values()
            assert card.reason == "Asks anyway: paths is not one of /tmp/a"
            cards.decline(card.call_id)
            assert (await asyncio.wait_for(call, 30)).is_error
    assert [c["arguments"] for c in ran.of("trash_files")] == [{"paths": ["/tmp/a"]}] * 2


@pytest.mark.asyncio
async def test_delete_1_file_over_9_paths_warns_on_the_card_even_when_allowed(
    base: Path, home: Path, running_notch: Any
) -> None:
    ran = Ran(home)
    nine = [f"/home/me/{n}.txt" for n in range(9)]
    async with running_notch(base) as (notch, cards):
        notch.service.policy = PersonPolicy(PolicyBook.in_data_dir(base / "data"))
        async with gateway(notch, "files", log=home / "gw.log") as client:
            call = asyncio.ensure_future(client.call_tool("trash_files", {"paths": nine}))
            (card,) = await cards.wait_for_cards(1, timeout=30)
            assert card.reason == "Check the count: The card says “1 file”, but paths holds 9."
            cards.decline(card.call_id)
            assert (await asyncio.wait_for(call, 30)).is_error
            # One path: the words are true, no warning; "Always allow" from that card.
            call = asyncio.ensure_future(client.call_tool("trash_files", {"paths": nine[:1]}))
            await cards.wait_for(lambda: len(cards.cards) == 1, timeout=30)
            (card,) = cards.cards.values()
            assert card.reason is None
            cards.approve(card.call_id, scope="always")
            assert not (await asyncio.wait_for(call, 30)).is_error
            # Allowed, but nine paths under "Delete 1 file" still show the card.
            call = asyncio.ensure_future(client.call_tool("trash_files", {"paths": nine}))
            await cards.wait_for(lambda: len(cards.cards) == 1, timeout=30)
            (card,) = cards.cards.values()
            assert card.reason is not None and "holds 9" in card.reason
            cards.decline(card.call_id)
            assert (await asyncio.wait_for(call, 30)).is_error
    assert [c["arguments"] for c in ran.of("trash_files")] == [{"paths": nine[:1]}]

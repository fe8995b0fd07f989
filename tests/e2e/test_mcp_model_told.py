"""The model knows (issue 24 §4): the real `notch mcp`, listed by the SDK's own stdio
client, gives every acting tool's description the one sentence that calling it asks the
person first and that success is only what the result says; reads are left as written.
And a refusal rule the person set reaches the model as Notch's sentence.

One `notch mcp NOTES` serves both tests (listing never asks Notch; the call is refused
by the in-process Notch it talks to, whose book holds the rule from the start)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

from notch_app.runtime.model_sentence import ASKS_FIRST

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"


@dataclass
class Gateway:
    client: ClientSession
    home: Path
    """The wrapped server's HOME: it logs each call it runs to notes-calls.jsonl there."""


@contextlib.asynccontextmanager
async def _client(
    argv: list[str], env: dict[str, str], errlog: Path
) -> AsyncIterator[ClientSession]:
    """The SDK's stdio client on `notch mcp ARGV`, initialized."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "notch_app", "mcp", *argv], env=env, cwd=str(REPO)
    )
    with errlog.open("a") as err:
        async with stdio_client(params, err) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            yield s


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def gateway(
    tmp_path_factory: pytest.TempPathFactory, in_its_own_task: Any
) -> AsyncIterator[Gateway]:
    """`notch mcp NOTES` in front of an in-process Notch whose book refuses send_message
    to anyone but sam (set before it starts), for the module's tests."""
    from notch_app.headless import start
    from notch_app.runtime.catalog import Catalog
    from notch_app.runtime.policy_book import NotOneOfGuard, PersonPolicy, PolicyBook

    root = tmp_path_factory.mktemp("model-told")
    data = root / "data"
    book = PolicyBook.in_data_dir(data)
    book.add_refusal_by_name(
        "dev.notch.fixtures.notes", "send_message", NotOneOfGuard(argument="to", allowed=["sam"])
    )
    short = Path(tempfile.mkdtemp(prefix="notch-m"))
    notch = await start(short / "n.sock", data, catalog=Catalog(), policy=PersonPolicy(book))
    home = root / "home"
    home.mkdir()
    argv = [str(NOTES), "--socket", str(notch.server.path), "--data-dir", str(data)]
    env = {"PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
           "HOME": str(home), "XDG_CONFIG_HOME": str(root / "config")}  # fmt: skip
    held = in_its_own_task(lambda: _client(argv, env, root / "gw.log"))
    try:
        yield Gateway(await held.start(), home)
    finally:
        try:
            await held.end()
        finally:
            await notch.close()
            shutil.rmtree(short, ignore_errors=True)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.timeout(90)
async def test_tools_list_tells_the_model_that_acting_tools_ask_first(gateway: Gateway) -> None:
    listed = {t.name: t.description for t in (await gateway.client.list_tools()).tools}
    # Acting tools: the author's words, then the sentence, once.
    assert listed["send_message"] == f"Send a chat message to someone. {ASKS_FIRST}"
    assert listed["delete_note"] == f"Delete a note for good. {ASKS_FIRST}"
    # Reads run without asking: their descriptions are the author's alone.
    assert listed["get_status"] == "How the notes are doing."
    assert all(ASKS_FIRST not in (d or "") for n, d in listed.items() if n == "get_status")


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.timeout(90)
async def test_a_refusal_rule_reaches_the_model_through_notch_mcp_as_notchs_sentence(
    gateway: Gateway,
) -> None:
    result = await gateway.client.call_tool("send_message", {"to": "eve", "body": "hi"})
    assert result.is_error
    said = " ".join(getattr(c, "text", "") for c in result.content)
    assert said == (
        "The person does not allow Send message when to is not one of sam; nothing ran. "
        "Ask them first, or use one of the allowed values (sam)."
    ), said
    assert not (gateway.home / "notes-calls.jsonl").exists()  # the server never ran it

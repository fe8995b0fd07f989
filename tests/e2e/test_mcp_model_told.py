"""The model knows (issue 24 §4): the real `notch mcp`, listed by the SDK's own stdio
client, gives every acting tool's description the one sentence that calling it asks the
person first and that success is only what the result says; reads are left as written.
Needs no `notch run` (listing never asks)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from notch_app.runtime.model_sentence import ASKS_FIRST

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"


@pytest.mark.asyncio
@pytest.mark.timeout(90)
async def test_tools_list_tells_the_model_that_acting_tools_ask_first(tmp_path: Path) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "notch_app", "mcp", str(NOTES), "--socket", str(tmp_path / "none.sock"),
              "--data-dir", str(tmp_path / "data")],
        env={"PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
             "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")},
        cwd=str(REPO),
    )  # fmt: skip
    with (tmp_path / "gw.log").open("a") as err:
        async with stdio_client(params, err) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            listed = {t.name: t.description for t in (await s.list_tools()).tools}
    # Acting tools: the author's words, then the sentence, once.
    assert listed["send_message"] == f"Send a chat message to someone. {ASKS_FIRST}"
    assert listed["delete_note"] == f"Delete a note for good. {ASKS_FIRST}"
    # Reads run without asking: their descriptions are the author's alone.
    assert listed["get_status"] == "How the notes are doing."
    assert all(ASKS_FIRST not in (d or "") for n, d in listed.items() if n == "get_status")


@pytest.mark.asyncio
@pytest.mark.timeout(90)
async def test_a_refusal_rule_reaches_the_model_through_notch_mcp_as_notchs_sentence(
    tmp_path: Path,
) -> None:
    import tempfile

    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from notch_app.headless import start
    from notch_app.runtime.catalog import Catalog
    from notch_app.runtime.policy_book import NotOneOfGuard, PersonPolicy, PolicyBook

    data = tmp_path / "data"
    book = PolicyBook.in_data_dir(data)
    book.add_refusal_by_name(
        "dev.notch.fixtures.notes", "send_message", NotOneOfGuard(argument="to", allowed=["sam"])
    )
    short = Path(tempfile.mkdtemp(prefix="notch-m"))
    notch = await start(short / "n.sock", data, catalog=Catalog(), policy=PersonPolicy(book))
    home = tmp_path / "home"
    home.mkdir()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "notch_app", "mcp", str(NOTES), "--socket", str(notch.server.path),
              "--data-dir", str(data)],
        env={"PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
             "HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "config")},
        cwd=str(REPO),
    )  # fmt: skip
    try:
        with (tmp_path / "gw.log").open("a") as err:
            async with stdio_client(params, err) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                result = await s.call_tool("send_message", {"to": "eve", "body": "hi"})
    finally:
        await notch.close()
    assert result.is_error
    said = " ".join(getattr(c, "text", "") for c in result.content)
    assert said == (
        "The person does not allow Send message when to is not one of sam; nothing ran. "
        "Ask them first, or use one of the allowed values (sam)."
    ), said
    assert not (home / "notes-calls.jsonl").exists()  # the server never ran it

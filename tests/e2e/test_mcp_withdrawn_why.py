"""A client that stops waiting takes its card away, and the person sees why (issue 21 §2).

The SDK's own stdio client, started with its default environment, calls an acting tool
of the notes fixture through `notch mcp` with a read timeout; `notch run` on a real X
server shows the card; the client's timeout runs out and it sends
`notifications/cancelled` ("timed out after …s", as the SDK does). The card leaves, the
notch says why in the client's words ("Withdrawn: “…stopped waiting after N s” · Send
message": its text is checked in tests/ui/test_withdrawn_says_why.py, where the real
window's label can be read), `notch log` keeps it, and nothing ran.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
VENV_BIN = str(Path(sys.executable).parent)
CLIENT = "notes-e2e-client"
WAITS_S = 25.0
"""The client's read timeout: long enough for the card to settle on a loaded machine."""


def _note_on_screen(window: dict[str, int] | None) -> bool:
    """The notch shows a one-line note: taller than the idle pill, far shorter than a card."""
    return window is not None and 30 <= window["HEIGHT"] <= 60 and not window["SHAPED"]


@pytest.mark.asyncio
@pytest.mark.timeout(180)
async def test_a_client_that_times_out_takes_its_card_away_and_the_notch_says_why(
    tmp_path: Path, xserver: Any, shared_notch: Any, notch_argv: list[str], wait_for: Any
) -> None:
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
    from mcp.shared.exceptions import MCPError

    notch = shared_notch("--manifests", str(NOTES))
    home = tmp_path / "home"
    home.mkdir()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "notch_app", "mcp", str(NOTES), "--socket", str(notch.socket),
              "--data-dir", str(notch.data_dir)],
        # The client's default environment (HOME, PATH…), the venv first on PATH so the
        # fixture's `python` has the SDK.
        env=get_default_environment() | {"HOME": str(home),
                                          "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '')}"},
        cwd=str(REPO),
    )  # fmt: skip
    info = types.Implementation(name=CLIENT, version="1")
    with (tmp_path / "gw.log").open("a", encoding="utf-8") as err:
        async with (
            stdio_client(params, err) as (read, write),
            ClientSession(read, write, client_info=info) as client,
        ):
            await client.initialize()
            call = asyncio.ensure_future(
                client.call_tool(
                    "send_message", {"to": "sam", "body": "Lunch?"}, read_timeout_seconds=WAITS_S
                )
            )
            card = await asyncio.to_thread(xserver.settled_card, WAITS_S)
            with pytest.raises(MCPError):
                await asyncio.wait_for(call, WAITS_S + 10)  # the client stopped waiting
            await asyncio.to_thread(xserver.card_gone, card)
            await asyncio.to_thread(
                wait_for, lambda: _note_on_screen(xserver.window()), 10, "the note saying why"
            )
            xserver.screenshot("gateway-withdrawn-why")
    await asyncio.to_thread(xserver.notch_idle)
    logged = subprocess.run(
        [*notch_argv, "log", "--json", "--data-dir", str(notch.data_dir)],
        capture_output=True, text=True, timeout=60, cwd=REPO,
    )  # fmt: skip
    assert logged.returncode == 0, logged.stderr
    (entry,) = [e for e in json.loads(logged.stdout) if e["tool"] == "send_message"]
    assert entry["outcome"] == "withdrawn"
    assert re.fullmatch(
        rf"withdrawn by the agent: “{CLIENT} stopped waiting after \d+ s”", entry["message"]
    ), entry
    assert not (home / "notes-calls.jsonl").exists(), "the server ran nothing"

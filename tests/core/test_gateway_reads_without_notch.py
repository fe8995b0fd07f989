"""The status tools of the phone, WhatsApp and Cursor VoiceOS folders answer through
`notch mcp` with no Notch running: they have no card and nothing says they act, so they
never need a person (VoiceOS runs them without a prompt, and so does Notch). Their acting
tools still fail closed, and the error names every place Notch was looked for.

The folders (tests/fixtures/voiceos_status) are this project's own, with the real
folders' tool names and shapes (no annotations on the reads); the client is the MCP SDK's
stdio client with its default environment, in a HOME where no Notch has ever run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from notch_app.manifest.acting import acting_verdict

if TYPE_CHECKING:
    import mcp_types as types

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

FOLDERS = Path(__file__).resolve().parents[1] / "fixtures" / "voiceos_status"
NOTCH = [sys.executable, "-m", "notch_app"]
READS: dict[str, list[tuple[str, dict[str, str]]]] = {
    "phone": [("phone_status", {})],
    "whatsapp": [("unread_messages", {})],
    "cursor": [("agent_status", {}), ("focus_repo", {"repo": "voiceos-demo"})],
}
ACTS: dict[str, tuple[str, dict[str, str]]] = {
    "phone": ("use_phone", {"task": "check my notifications"}),
    "whatsapp": ("send_message", {"to": "Marc", "body": "running late"}),
    "cursor": ("run_coding_agent", {"task": "add a test"}),
}


def _text(result: types.CallToolResult) -> str:
    import mcp_types as types

    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


@pytest.mark.asyncio
@pytest.mark.parametrize("folder", sorted(READS))
async def test_status_tools_answer_with_notch_stopped(
    folder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_RUNTIME_DIR", "NOTCH_SOCKET", "NOTCH_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    for tool, _ in READS[folder]:
        verdict = acting_verdict({"name": tool})
        assert not verdict.asks and verdict.kind == "unknown", verdict
    params = StdioServerParameters(
        command=NOTCH[0], args=[*NOTCH[1:], "mcp", str(FOLDERS / folder)]
    )  # env: the SDK's default, nothing else
    with (tmp_path / "gw.log").open("w") as err:
        async with stdio_client(params, err) as (r, w), ClientSession(r, w) as client:
            await client.initialize()
            answers = [await client.call_tool(t, a) for t, a in READS[folder]]
            tool, arguments = ACTS[folder]
            acting = await client.call_tool(tool, arguments)
    for (tool, arguments), answer in zip(READS[folder], answers, strict=True):
        assert not answer.is_error, _text(answer)
        assert json.loads(_text(answer)) == {"tool": tool, "status": "ok", "arguments": arguments}
    assert acting.is_error
    said = _text(acting)
    assert said.startswith("Notch is not running, so nobody can confirm")
    assert str(home / ".local" / "state" / "notch" / "socket.json") in said  # where it looked
    calls = (home / "status-calls.jsonl").read_text().splitlines()
    ran = [json.loads(line)["tool"] for line in calls]
    assert ran == [t for t, _ in READS[folder]], "the acting tool never ran"

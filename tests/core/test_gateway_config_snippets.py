"""The client-config snippets in docs/gateway.md, each read the way its client reads it
(JSON for Claude Desktop, Cursor, Claude Code's .mcp.json and VS Code; TOML for Codex;
the shell words of `claude mcp add`) and started the way the client starts a stdio
server: the command looked up on PATH, no environment but the SDK's default and the
snippet's own `env`. Only the folder is changed (to a real integration); each must then
answer `tools/list`."""

from __future__ import annotations

import json
import re
import shlex
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "gateway.md"
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
PLACEHOLDER = "/path/to/integration"
SNIPPET = re.compile(
    r"<!-- client: (?P<client>[\w-]+) -->\n```(?P<lang>\w+)\n(?P<body>.*?)```", re.S
)


def snippets() -> dict[str, tuple[str, str]]:
    return {m["client"]: (m["lang"], m["body"]) for m in SNIPPET.finditer(DOC.read_text())}


def server_of(client: str, lang: str, body: str) -> dict[str, Any]:
    """The stdio server entry the client would start, read as the client reads it."""
    if client == "claude-code-cli":
        words = shlex.split(body.strip())
        assert words[:3] == ["claude", "mcp", "add"] and "--" in words, words
        command = words[words.index("--") + 1 :]
        return {"command": command[0], "args": command[1:]}
    if lang == "toml":
        servers = tomllib.loads(body)["mcp_servers"]
    else:
        document = json.loads(body)
        # VS Code's mcp.json keeps servers under "servers"; the others under "mcpServers".
        servers = document["servers" if client == "vscode" else "mcpServers"]
    ((_name, entry),) = servers.items()
    assert entry.get("type", "stdio") == "stdio"
    return dict(entry)


def test_every_client_in_the_issue_has_a_snippet() -> None:
    assert set(snippets()) == {
        "claude-desktop", "cursor", "claude-code-cli", "claude-code-json", "vscode", "codex"
    }  # fmt: skip


_answers: dict[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]], tuple[set[str], bool]] = {}
"""What `tools/list` and `get_status` answered, per command line and env a snippet
starts: six snippets start the same `notch mcp FOLDER`, and starting it once checks what
starting it six times would (each snippet is still read and checked on its own)."""


@pytest.mark.asyncio
@pytest.mark.parametrize("client", sorted(snippets()))
async def test_each_snippet_starts_notch_mcp_with_no_path_but_the_folder(
    client: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    lang, body = snippets()[client]
    assert body.count(PLACEHOLDER) == 1, "the folder is the one thing a person fills in"
    entry = server_of(client, lang, body.replace(PLACEHOLDER, str(NOTES)))
    assert entry["command"] == "notch" and entry["args"][0] == "mcp"
    assert "NOTCH_SOCKET" not in (entry.get("env") or {}), "Notch is found without it"
    if client == "codex":
        assert entry["tool_timeout_sec"] >= 590  # waits as long as a card may
    # `notch` on PATH, as pipx installs it; a HOME where no Notch runs (reads need none).
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")
    monkeypatch.setenv("HOME", str(tmp_path))
    env = entry.get("env") or None
    started = (entry["command"], tuple(entry["args"]), tuple(sorted(env.items())) if env else ())
    if started not in _answers:  # snippets that start the same command share one start
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env)
        with (tmp_path / "err.log").open("w") as err:
            async with stdio_client(params, err) as (r, w), ClientSession(r, w) as session:
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                status = await session.call_tool("get_status", {})
        _answers[started] = (tools, status.is_error)
    tools, is_error = _answers[started]
    assert {"send_message", "get_status"} <= tools
    assert not is_error

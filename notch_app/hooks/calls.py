"""A hook payload as a Notch request: which integration and tool, with which arguments.

Claude Code's and Codex's own tools have cards in the bundled integrations
`dev.notch.agents.claude-code` and `dev.notch.agents.codex` (manifests/claude-code,
manifests/codex): a shell command in full with its working directory, a file change as
a diff, a web fetch with its site. An MCP tool (`mcp__server__tool`) goes through its own
manifest's card when that integration is installed (found with `integrations.list`),
else through the `Other` card, which shows the call's input as JSON. The agent's reads
and its conversation tools get no card: Notch never nags on reads.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from notch_app.hooks import file_change
from notch_app.hooks.payload import HookPayload

CLAUDE_CODE: Final = "dev.notch.agents.claude-code"
CODEX: Final = "dev.notch.agents.codex"

NO_CARD: Final = frozenset(
    {
        # reads and searches
        "Read", "Glob", "Grep", "LS", "NotebookRead", "WebSearch", "BashOutput",
        "TaskOutput", "ListMcpResourcesTool", "ReadMcpResourceTool",
        # the agent's own bookkeeping and conversation with the person
        "TodoWrite", "TodoRead", "Task", "Agent", "ExitPlanMode", "EnterPlanMode",
        "AskUserQuestion", "Skill", "SlashCommand",
    }
)  # fmt: skip
"""Claude Code tools that only read, or talk with the person in the agent's own UI."""

MAX_COMMAND_CHARS: Final = 100_000
"""A longer command is not sent: the agent's own prompt shows it instead."""
MAX_LABEL_COMMAND_CHARS: Final = 3500
"""A command shown in a label (Codex's read-only card) must fit whole under its bound."""
MAX_URL_CHARS: Final = 3000
MAX_AGENT_WORDS: Final = 500
"""The agent's own description of a command is cut here (it is its claim, not the call)."""

Back = Literal["none", "bash", "same"]
"""How an approved card's arguments become the tool's input again: not at all (the card
only shows), Bash's command and options, or the arguments as they are (an MCP tool's)."""


@dataclass(frozen=True, slots=True)
class NotchCall:
    """The Notch request for a hook call."""

    integration: str
    tool: str
    arguments: dict[str, Any]
    back: Back = "none"

    def updated_input(
        self, final: Mapping[str, Any], tool_input: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The tool's whole input with the person's edits (the hooks replace the input
        whole, so unchanged fields are kept)."""
        if self.back == "same":
            return dict(final)
        out = dict(tool_input)
        if self.back == "bash":
            out["command"] = final["command"]
            if "run_in_background" in final:
                out["run_in_background"] = final["run_in_background"]
            if "timeout_ms" in final:
                out["timeout"] = final["timeout_ms"]
        return out


@dataclass(frozen=True, slots=True)
class NoCard:
    """No card for this call: a read, or the agent's own conversation. The agent decides."""

    reason: str


@dataclass(frozen=True, slots=True)
class AgentAsks:
    """Notch cannot show this call whole (too large, unreadable): the agent's own prompt
    must ask instead. `reason` says why, for the person."""

    reason: str


Mapped = NotchCall | NoCard | AgentAsks


@dataclass(frozen=True, slots=True)
class Installed:
    """What `integrations.list` says is loaded: integration id → its name and tools."""

    integrations: Sequence[Mapping[str, Any]] = field(default=())

    def find(self, server: str, tool: str) -> str | None:
        """The id of the one installed integration that is MCP server `server` (by id,
        last id segment or name, ignoring case and punctuation) and has `tool`; None when
        there is none, or more than one."""
        wanted = _folded(server)
        found = []
        for entry in self.integrations:
            integration_id = str(entry.get("id", ""))
            names = {
                _folded(integration_id),
                _folded(integration_id.rsplit(".", 1)[-1]),
                _folded(str(entry.get("name", ""))),
            }
            tools = entry.get("tools") or []
            if wanted in names and any(
                isinstance(t, dict) and t.get("name") == tool for t in tools
            ):
                found.append(integration_id)
        return found[0] if len(found) == 1 else None


def _folded(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def claude_code_call(payload: HookPayload, installed: Installed) -> Mapped:
    """The Notch request for a Claude Code PreToolUse payload."""
    name, given = payload.tool_name, payload.tool_input
    try:
        if name in NO_CARD:
            return NoCard(f"{name} only reads or talks with you; Notch does not ask about it")
        if name == "Bash":
            return _bash(CLAUDE_CODE, payload, editable=True)
        if name in ("Edit", "MultiEdit"):
            change = file_change.edit_change(given, payload.cwd)
            return NotchCall(CLAUDE_CODE, "Edit", change.arguments())
        if name == "Write":
            change = file_change.write_change(given, payload.cwd)
            return NotchCall(CLAUDE_CODE, "Write", change.arguments())
        if name == "WebFetch":
            return _web_fetch(given)
        return _mcp_or_other(CLAUDE_CODE, payload, installed)
    except ValueError as exc:
        return AgentAsks(f"{name}'s input is not as Claude Code documents it: {exc}")


def codex_call(payload: HookPayload, installed: Installed) -> Mapped:
    """The Notch request for a Codex PermissionRequest payload. Codex cannot take an
    edited input back from this hook, so its cards show the call and never edit it."""
    name, given = payload.tool_name, payload.tool_input
    try:
        if name == "Bash":
            return _bash(CODEX, payload, editable=False)
        if name == "apply_patch":
            patch = given.get("command")
            if not isinstance(patch, str):
                raise ValueError("command (the patch) is missing or not text")
            change = file_change.patch_change(patch, payload.cwd)
            return NotchCall(CODEX, "apply_patch", change.arguments())
        found = _mcp_or_other(CODEX, payload, installed)
        if isinstance(found, NotchCall) and found.back == "same":
            return NotchCall(found.integration, found.tool, found.arguments, "none")
        return found
    except ValueError as exc:
        return AgentAsks(f"{name}'s input is not as Codex documents it: {exc}")


def _bash(integration: str, payload: HookPayload, *, editable: bool) -> Mapped:
    given = payload.tool_input
    command = given.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ValueError("command is missing or empty")
    limit = MAX_COMMAND_CHARS if editable else MAX_LABEL_COMMAND_CHARS
    if len(command) > limit:
        return AgentAsks(
            f"the command is {len(command):,} characters, more than Notch shows whole "
            f"({limit:,}); it was not sent to Notch"
        )
    arguments: dict[str, Any] = {"command": command, "cwd": payload.cwd or "(not given)"}
    description = given.get("description")
    if isinstance(description, str) and description.strip():
        arguments["description"] = description[:MAX_AGENT_WORDS]
    if editable:
        timeout = given.get("timeout")
        if isinstance(timeout, int) and not isinstance(timeout, bool) and timeout >= 0:
            arguments["timeout_ms"] = timeout
        background = given.get("run_in_background")
        if isinstance(background, bool):
            arguments["run_in_background"] = background
    return NotchCall(integration, "Bash", arguments, "bash" if editable else "none")


def _web_fetch(given: Mapping[str, Any]) -> Mapped:
    url = given.get("url")
    if not isinstance(url, str) or not url.strip():
        raise ValueError("url is missing or empty")
    if len(url) > MAX_URL_CHARS:
        return AgentAsks(f"the address is {len(url):,} characters, more than Notch shows whole")
    try:
        site = urllib.parse.urlsplit(url).hostname or "(no site named)"
    except ValueError:
        site = "(not a web address)"
    arguments: dict[str, Any] = {"url": url, "site": site}
    prompt = given.get("prompt")
    if isinstance(prompt, str) and prompt.strip():
        arguments["prompt"] = prompt[:MAX_AGENT_WORDS]
    return NotchCall(CLAUDE_CODE, "WebFetch", arguments)


def _mcp_or_other(integration: str, payload: HookPayload, installed: Installed) -> Mapped:
    mcp = payload.server_and_tool
    if mcp is not None:
        found = installed.find(*mcp)
        if found is not None:
            return NotchCall(found, mcp[1], dict(payload.tool_input), "same")
    text, partial = file_change.bounded(
        json.dumps(payload.tool_input, indent=2, ensure_ascii=False, sort_keys=True).splitlines()
    )
    arguments: dict[str, Any] = {"tool_name": mcp[1] if mcp else payload.tool_name, "input": text}
    if mcp is not None:
        arguments["server"] = mcp[0]
    if partial:
        arguments["notes"] = "Part of the input is not shown"
    return NotchCall(integration, "Other", arguments)

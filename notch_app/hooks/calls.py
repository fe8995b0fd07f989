"""A hook payload as a Notch request: which integration and tool, with which arguments.

Claude Code's and Codex's own tools have cards in the bundled integrations
`dev.notch.agents.claude-code` and `dev.notch.agents.codex` (manifests/claude-code,
manifests/codex): a shell command in full with its working directory, a file change as
a diff, a web fetch with its site. An MCP tool (`mcp__server__tool`) goes through its own
manifest's card when that integration is installed (found with `integrations.list`),
else through the `Other` card, which shows the call's input as JSON. The agent's reads
and its conversation tools get no card: Notch never nags on reads.

Every key of `tool_input` reaches the card. The keys a card knows are shown by it under
their own names (Bash's `command`, `timeout`, `dangerouslyDisableSandbox`...) or in the
form it shows them in (an edit's strings as the diff they make); every other key is sent
to Notch as it came, under its own name, and the card lists it under "Also sends" (its
inputSchema allows more properties). What the hook answers on an approval is rebuilt
from the approved arguments alone (`NotchCall.updated_input`): exactly the input the
card showed, never the agent's original payload, so nothing the card did not show can
ride along.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from notch_app.card.input_text import readable_input
from notch_app.hooks import file_change
from notch_app.hooks.payload import HookPayload

SECRET_SHOWN: Final = "•••••"
"""What a secret value of an unknown tool's input reads as on the `Other` card."""
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
"""A longer command is not sent: the agent's own prompt shows it instead (the card's
code panel scrolls through it whole up to here)."""
MAX_URL_CHARS: Final = 3000
MAX_AGENT_WORDS: Final = 2000
"""The agent's own words about a call (a command's description, a fetch's prompt) are
shown whole and sent back as they are; longer ones leave the call to the agent's prompt."""
MAX_OTHER_INPUT_CHARS: Final = 8000
"""Keys a card does not know are listed whole under "Also sends"; past this much JSON
they would not read as a list, and the agent's own prompt asks instead."""

Back = Literal["none", "edits", "same"]
"""What the card's inputs may change: nothing (the card only shows; Codex, file changes),
the tool-input keys it shows under their own names (Claude Code's Bash), or everything
(the arguments are the tool's input: an installed MCP integration's own card)."""

BASH_KEYS: Final = ("command", "description", "timeout", "run_in_background",
                    "dangerouslyDisableSandbox")  # fmt: skip
"""Claude Code's BashInput (Agent SDK "Tool Input Types"): the keys its card knows."""
CODEX_BASH_KEYS: Final = ("command", "description")
"""Codex's PermissionRequest `tool_input` for Bash (shell, exec and network approvals)."""
DEFAULT_TIMEOUT_MS: Final = 120_000
"""Claude Code's own time limit for a command when `timeout` is not given (2 minutes)."""


@dataclass(frozen=True, slots=True)
class NotchCall:
    """The Notch request for a hook call, and how its approved arguments become the
    tool's input again."""

    integration: str
    tool: str
    arguments: dict[str, Any]
    back: Back = "none"
    own: frozenset[str] = frozenset()
    """Arguments Notch computed for the card to show (the working directory, a diff):
    never part of the tool's input."""
    kept: Mapping[str, Any] = field(default_factory=dict)
    """Tool-input keys the card shows in another form (the diff of an edit, the JSON of
    an unknown tool's input): sent back exactly as they came."""

    def updated_input(self, final: Mapping[str, Any]) -> dict[str, Any]:
        """The tool's whole input as the card showed it when approved (`final`: the
        approved arguments, with the person's edits): the kept keys, then every other
        argument but Notch's own, known keys and "Also sends" ones alike. Nothing from
        the agent's payload that the card did not hold."""
        out: dict[str, Any] = dict(self.kept)
        out.update((key, value) for key, value in final.items() if key not in self.own)
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
            return _bash(CLAUDE_CODE, payload, BASH_KEYS, editable=True)
        if name in ("Edit", "MultiEdit"):
            change = file_change.edit_change(given, payload.cwd)
            known = ("file_path", "edits") if "edits" in given else _EDIT_KEYS
            return _file_call(CLAUDE_CODE, "Edit", change, given, known)
        if name == "Write":
            change = file_change.write_change(given, payload.cwd)
            return _file_call(CLAUDE_CODE, "Write", change, given, ("file_path", "content"))
        if name == "WebFetch":
            return _web_fetch(given)
        return _mcp_or_other(CLAUDE_CODE, payload, installed)
    except ValueError as exc:
        return AgentAsks(f"{name}'s input is not as Claude Code documents it: {exc}")


def codex_call(payload: HookPayload, installed: Installed) -> Mapped:
    """The Notch request for a Codex PermissionRequest payload.

    Codex cannot take an edited input back from this hook (its PermissionRequest output
    fails closed on `updatedInput`), so its cards show the call and never edit it. An
    allow answers this one pending approval, which Codex runs as it described it to the
    hook: the card showed every key of that `tool_input` (known ones in their place, the
    rest under "Also sends"), and the callId is bound to the whole payload."""
    name, given = payload.tool_name, payload.tool_input
    try:
        if name == "Bash":
            return _bash(CODEX, payload, CODEX_BASH_KEYS, editable=False)
        if name == "apply_patch":
            patch = given.get("command")
            if not isinstance(patch, str):
                raise ValueError("command (the patch) is missing or not text")
            change = file_change.patch_change(patch, payload.cwd)
            return _file_call(CODEX, "apply_patch", change, given, ("command",))
        found = _mcp_or_other(CODEX, payload, installed)
        if isinstance(found, NotchCall) and found.back == "same":
            return NotchCall(found.integration, found.tool, found.arguments, "none")
        return found
    except ValueError as exc:
        return AgentAsks(f"{name}'s input is not as Codex documents it: {exc}")


_EDIT_KEYS: Final = ("file_path", "old_string", "new_string", "replace_all")
"""Claude Code's FileEditInput; MultiEdit's is `file_path` and `edits`."""


_BASH_OWN: Final = frozenset({"cwd", "long_run"})
_FILE_OWN: Final = frozenset({"file_path", "written_as", "change", "diff", "notes"})
_WEB_FETCH_OWN: Final = frozenset({"site", "notes"})
"""The names each card shows Notch's own findings under: an agent's key may never take
one (it would read as Notch's words), present in this call or not."""


def _with_unknown(
    arguments: dict[str, Any],
    given: Mapping[str, Any],
    known: tuple[str, ...],
    own: frozenset[str],
) -> frozenset[str]:
    """Add the keys of `given` the card does not know to `arguments`, exactly as sent
    (the card lists them under "Also sends"); return `own`, the names of the card's own
    findings. Raises ValueError when an unknown key takes one of those names, or the
    unknown keys are too large to list whole."""
    unknown = {key: value for key, value in given.items() if key not in known}
    if not unknown:
        return own
    taken = sorted(own & frozenset(unknown))
    if taken:
        raise ValueError(f"it holds {taken[0]!r}, a name Notch's card uses for what it shows")
    size = len(json.dumps(unknown, ensure_ascii=False, default=str))
    if size > MAX_OTHER_INPUT_CHARS:
        raise ValueError(
            f"it carries {size:,} characters under keys Notch's card does not know "
            f"({', '.join(sorted(unknown)[:5])}), more than the card lists whole"
        )
    arguments.update(unknown)
    return own


def _agent_words(given: Mapping[str, Any], key: str) -> str | None:
    """The agent's own text under `key` (None when absent). Raises ValueError when it is
    not text or too long to show whole."""
    value = given.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key} is not text")
    if len(value) > MAX_AGENT_WORDS:
        raise ValueError(f"{key} is {len(value):,} characters, more than Notch shows whole")
    return value


def _flag(given: Mapping[str, Any], key: str) -> bool:
    value = given.get(key)
    if not isinstance(value, bool):
        raise ValueError(f"{key} is not true or false")
    return value


def _bash(
    integration: str, payload: HookPayload, known: tuple[str, ...], *, editable: bool
) -> Mapped:
    given = payload.tool_input
    command = given.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ValueError("command is missing or empty")
    if len(command) > MAX_COMMAND_CHARS:
        return AgentAsks(
            f"the command is {len(command):,} characters, more than Notch shows whole "
            f"({MAX_COMMAND_CHARS:,}); it was not sent to Notch"
        )
    arguments: dict[str, Any] = {"command": command, "cwd": payload.cwd or "(not given)"}
    description = _agent_words(given, "description")
    if description is not None:
        arguments["description"] = description
    if "timeout" in known and "timeout" in given:
        timeout = given["timeout"]
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not timeout >= 0
            or timeout != timeout  # NaN
        ):
            raise ValueError("timeout is not a number of milliseconds")
        arguments["timeout"] = timeout
        if timeout > DEFAULT_TIMEOUT_MS:
            arguments["long_run"] = _duration(timeout)
    for key in ("run_in_background", "dangerouslyDisableSandbox"):
        if key in known and key in given:
            arguments[key] = _flag(given, key)
    own = _with_unknown(arguments, given, known, _BASH_OWN)
    return NotchCall(integration, "Bash", arguments, "edits" if editable else "none", own)


def _duration(ms: float) -> str:
    """A time limit in words ("10 minutes", "90 seconds")."""
    seconds = ms / 1000
    if seconds >= 120 and seconds % 60 == 0:
        return f"{int(seconds // 60)} minutes"
    return f"{seconds:g} seconds"


def _file_call(
    integration: str,
    tool: str,
    change: file_change.FileChange,
    given: Mapping[str, Any],
    known: tuple[str, ...],
) -> Mapped:
    if change.partial:
        return AgentAsks(
            f"the change is longer than Notch shows whole ({file_change.MAX_DIFF_LINES:,} "
            f"lines or {file_change.MAX_DIFF_CHARS:,} characters)"
        )
    kept = {key: given[key] for key in known if key in given}
    arguments = change.arguments()
    # The card's `file_path` is the resolved path: the one the agent wrote is kept.
    own = _with_unknown(arguments, given, known, _FILE_OWN)
    return NotchCall(integration, tool, arguments, "none", own, kept)


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
    prompt = _agent_words(given, "prompt")
    if prompt is not None:
        arguments["prompt"] = prompt
    own = _with_unknown(arguments, given, ("url", "prompt"), _WEB_FETCH_OWN)
    return NotchCall(CLAUDE_CODE, "WebFetch", arguments, "none", own)


def _mcp_or_other(integration: str, payload: HookPayload, installed: Installed) -> Mapped:
    # The facts load the manifest model (pydantic, jsonschema): only for these tools, so
    # a Bash, Edit or Write call's hook starts without them.
    from notch_app.manifest.facts import listed_tool_facts

    mcp = payload.server_and_tool
    if mcp is not None:
        found = installed.find(*mcp)
        if found is not None:
            return NotchCall(found, mcp[1], dict(payload.tool_input), "same")
        # An MCP tool Notch has no manifest for: its name is all there is to go on, read
        # by the one rule `notch mcp`, validate and policy use (its facts' `acting`).
        verdict = listed_tool_facts({"name": mcp[1]}).acting
        if not verdict.asks:
            return NoCard(f"{mcp[1]} does not act ({verdict.why}); Notch does not ask about it")
    # Written for reading (card/input_text.py): what it acts on first (`table`, `to`),
    # then the bulk, a list of rows as a table with every column; every value there but a
    # secret's (by its name, the one rule: `api_token`, `password`), which reads as a mask
    # on the card, in the log and in the data file. The tool still gets it (`kept`).
    named = listed_tool_facts({"name": mcp[1] if mcp else payload.tool_name})
    lines = readable_input(named.masked(payload.tool_input, SECRET_SHOWN)).splitlines()
    text, partial = file_change.bounded(lines)
    if partial:
        return AgentAsks(f"its input is {len(lines):,} lines of JSON, more than Notch shows whole")
    arguments: dict[str, Any] = {"tool_name": mcp[1] if mcp else payload.tool_name, "input": text}
    if mcp is not None:
        arguments["server"] = mcp[0]
    return NotchCall(
        integration, "Other", arguments, "none", frozenset(arguments), dict(payload.tool_input)
    )

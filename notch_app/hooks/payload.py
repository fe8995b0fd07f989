"""The hook payload an agent writes on stdin: read, bounded and checked, never trusted.

Claude Code (PreToolUse) and Codex (PermissionRequest) send the same common fields,
snake_case: `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `tool_name`,
`tool_input`, and `tool_use_id` (Claude Code) or `turn_id` (Codex).
Claude Code: https://code.claude.com/docs/en/hooks ("Common input fields", "PreToolUse
input"). Codex: https://developers.openai.com/codex/hooks, and its generated schema
`codex-rs/hooks/schema/generated/permission-request.command.input.schema.json`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

MAX_PAYLOAD_BYTES: Final = 4 * 1024 * 1024
"""A payload past this is not read further: answered "ask", the agent's prompt decides."""
MAX_NAME_CHARS: Final = 200
"""Tool names, ids and event names longer than this are not names."""


class PayloadError(ValueError):
    """The payload cannot be read as a hook call; the message says what was wrong."""


@dataclass(frozen=True, slots=True)
class HookPayload:
    """One pending tool call as the agent described it (every field the agent's words)."""

    tool_name: str
    tool_input: dict[str, Any]
    session_id: str = ""
    tool_use_id: str = ""
    """Claude Code's id of this tool call; Codex's PermissionRequest has none."""
    turn_id: str = ""
    cwd: str = ""
    hook_event_name: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """The whole payload as read (for a digest when there is no tool-call id)."""

    @property
    def server_and_tool(self) -> tuple[str, str] | None:
        """("server", "tool") for an MCP tool named `mcp__server__tool`, else None."""
        if not self.tool_name.startswith("mcp__"):
            return None
        server, sep, tool = self.tool_name[5:].partition("__")
        return (server, tool) if sep and server and tool else None


def read_payload(data: bytes) -> HookPayload:
    """The payload in `data` (UTF-8 JSON). Raises PayloadError naming what is wrong: not
    JSON, not an object, too large, or no `tool_name` / `tool_input` object."""
    if len(data) > MAX_PAYLOAD_BYTES:
        raise PayloadError(f"the payload is over {MAX_PAYLOAD_BYTES // (1024 * 1024)} MiB")
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise PayloadError("the payload is not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise PayloadError(f"the payload is not JSON ({str(exc)[:120]})") from None
    if not isinstance(value, dict):
        raise PayloadError("the payload is not a JSON object {...}")
    tool_name = _name(value, "tool_name", required=True)
    tool_input = value.get("tool_input")
    if not isinstance(tool_input, dict):
        raise PayloadError("tool_input is missing or not an object")
    return HookPayload(
        tool_name=tool_name,
        tool_input=tool_input,
        session_id=_name(value, "session_id"),
        tool_use_id=_name(value, "tool_use_id"),
        turn_id=_name(value, "turn_id"),
        cwd=_text(value, "cwd"),
        hook_event_name=_name(value, "hook_event_name"),
        raw=value,
    )


def _name(value: Mapping[str, Any], key: str, *, required: bool = False) -> str:
    got = value.get(key)
    if got is None and not required:
        return ""
    if not isinstance(got, str) or not got.strip():
        raise PayloadError(f"{key} is missing or not text")
    if len(got) > MAX_NAME_CHARS or not got.isprintable():
        raise PayloadError(f"{key} is not a name (over {MAX_NAME_CHARS} characters or unprintable)")
    return got


def _text(value: Mapping[str, Any], key: str) -> str:
    got = value.get(key)
    if got is None:
        return ""
    if not isinstance(got, str):
        raise PayloadError(f"{key} is not text")
    return got

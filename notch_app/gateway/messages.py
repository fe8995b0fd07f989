"""The lines the gateway relays and what it keeps of them: JSON in and out, held calls and tasks, tool errors."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from notch_app.gateway.launch import ServerCommand
from notch_app.gateway.tools import GatewayTool

log = logging.getLogger(__name__)

REMEMBERED_CALLS: Final = 10_000
"""Answered request ids of one session the gateway keeps (with what they asked), so a
repeat is refused here. Past it the oldest are forgotten, and Notch itself still holds
the line: the callId is stable, so a repeat gets the stored decision, which the gateway
never runs twice (`already_decided`), or is refused for other arguments."""
WAITING: Final = "Waiting for your answer in Notch"
OWN_INIT_WAIT_S: Final = 30.0
"""How long a restarted server gets to answer the gateway's `initialize`."""
CHECK_QUIET_S: Final = 0.3
CHECK_BY_S: Final = 5.0
"""When the front is checked (in a thread, while lines are relayed): once the server has
answered `initialize` (the server's start is what the client waits for, and the check
would compete with it for the CPU) and the client has then sent nothing for
CHECK_QUIET_S (a first `tools/list` and read go on meanwhile: the check holds the
interpreter in stretches), at the latest CHECK_BY_S after `notch mcp` began serving, and
at once when a call needs it."""
GLANCE_MARK: Final = b"_voiceos_glance"
"""`manifest.glance.GLANCE_KEY`, as bytes: a result holding it is read for its glance (the
glance models load then, not at start: tests/core/test_gateway_tasks.py checks the two)."""
SECRET_SHOWN: Final = "•••••"
"""What a secret value reads as in what the model is told (`ToolFacts.masked`)."""
METHOD_NOT_FOUND: Final = -32601
INTERNAL_ERROR: Final = -32603
INVALID_REQUEST: Final = -32600
PARSE_ERROR: Final = -32700
HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


@dataclass(frozen=True, slots=True)
class Front:
    """What one `notch mcp` puts Notch in front of."""

    name: str
    """Shown to the client in errors, and in logs."""
    integration_id: str
    command: ServerCommand
    environment: Callable[[], dict[str, str]]
    """The server's environment on top of the MCP default; may raise (a missing secret:
    its message is the tool error)."""
    attachment: dict[str, Any]
    """`gateway.attach` params that tell `notch run` where the cards come from."""
    tools: dict[str, GatewayTool] | None = None
    """The manifest's tools; None for a bare server (its own `tools/list` is used). Before
    the folder is checked, the tools its plain JSON decides (`fronts.early_front`)."""
    tools_complete: bool = True
    """`tools` holds every tool (so `tools/list` can be answered from it)."""


def glance_blocks(result: Any) -> list[Any] | None:
    """The `_voiceos_glance.blocks` a tool result (MCP JSON) carries, in its structured
    content or the JSON of a text item (see `find_glance`); None without one."""
    if not isinstance(result, dict):
        return None
    from notch_app.manifest.glance import find_glance

    found = find_glance(result)
    blocks = (
        found.value.get("blocks") if found is not None and isinstance(found.value, dict) else None
    )
    return blocks if isinstance(blocks, list) else None


def tool_error(text: str) -> dict[str, Any]:
    """A tool result the model reads as a failure, with `text` as the reason."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def failure_text(result: dict[str, Any]) -> str:
    texts = [c.get("text", "") for c in result.get("content") or () if isinstance(c, dict)]
    return " ".join(t for t in texts if isinstance(t, str)).strip()[:2000]


def encode(message: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(message)
    except TypeError:  # a big int orjson refuses: the stdlib writes any JSON value
        return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()


def decode(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)  # big ints, NaN; raises ValueError for no JSON at all


@dataclass(slots=True)
class Asked:
    """What one request id of the session asked for, and the task answering it (None
    once it has answered: only that it was answered is kept)."""

    what: str
    """The tool and arguments, as canonical JSON."""
    task: asyncio.Task[dict[str, Any]] | None
    copies: int = 1
    """How many times the client sent it while open: each copy gets the answer."""
    asked_at: float = field(default_factory=time.monotonic)


@dataclass(slots=True)
class Forwarded:
    """A client request sent on to the server, whose answer the gateway looks at."""

    method: str
    tool: str | None = None
    answer: asyncio.Future[dict[str, Any]] | None = None
    """Set when the gateway itself waits for the answer (an approved call)."""


@dataclass(slots=True)
class HeldTask:
    """An acting call the client sent as a task (MCP 2025-11-25): the gateway's own task
    while the card waits, then the server's result."""

    task_id: str
    created: str
    ttl: Any
    work: asyncio.Task[dict[str, Any]]
    call_id: str = ""
    status: str = "working"
    message: str = "Waiting for your answer in Notch"
    updated: str = ""

    def document(self) -> dict[str, Any]:
        return {"taskId": self.task_id, "status": self.status, "statusMessage": self.message,
                "createdAt": self.created, "lastUpdatedAt": self.updated or self.created,
                "ttl": self.ttl, "pollInterval": 1000}  # fmt: skip


def now_text() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass(slots=True)
class Session:
    """What the client said at `initialize`, replayed to a server that restarted."""

    params: dict[str, Any] = field(default_factory=dict)
    initialized: bool = False
    client_name: str = "an MCP client"


def key_of(request_id: Any) -> tuple[str, Any]:
    """A request id as a dict key: 7 and "7" stay apart on the wire."""
    return (type(request_id).__name__, request_id)

"""What a callId is, and the one way a callId is made from an agent's own id of a call.

A callId keys a request: sent again with the same callId and token, a request joins its
open card or gets its stored decision, never a second card (see `ConfirmationService`).
So the callId of a call an agent names itself (an MCP request id, Claude Code's
`tool_use_id`, a LangChain or OpenAI Agents tool-call id) must be

- stable: the same call, named again, gets the same callId, so a repeat never asks or
  runs a second time;
- never another call's: the scope (whose ids these are: one `notch mcp` session, one
  coding agent's session, one connector's run) is part of it, and the parts are joined
  only when none of them can hold the separator, else hashed together, lengths and all;
- a callId Notch accepts: 1 to `MAX_CALL_ID_CHARS` printable characters.

A call the agent gives no id of its own (a Codex permission hook, a bare MCP session's
`call_tool`) is a new call each time: `fresh_call_id`, never an earlier call's answer.
The gateway, the hooks and the connectors all use `call_id_of`; nothing else derives one.
Qt-free and light (the hooks import it at every tool call).
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from typing import Final

MAX_CALL_ID_CHARS: Final = 128
"""The longest callId Notch accepts (the service checks it on every request)."""
SEPARATOR: Final = ":"
_PLAIN: Final = re.compile(r"[A-Za-z0-9_.@/+=-]+")
"""A part that is joined as it is: it cannot hold the separator, nor the `#` that marks
a hashed callId, so two different lists of parts never join to the same text."""
_DIGEST_CHARS: Final = 40
"""160 bits of SHA-256: no two calls of one person's lifetime share a hashed callId."""
_FALLBACK_SCOPE: Final = "call"


def call_id_of(scope: str, *own: str) -> str:
    """The callId of the call that `own` (the agent's own ids: its session, its id of
    the call) names within `scope` (whose ids they are: `mcp-<nonce>`, `claude-code`,
    a connector's session). The same parts give the same callId, different ones a
    different callId: `scope:part:part` when every part is plain (letters, digits,
    `_.@/+=-`) and it fits, else `scope:#<sha256 of the parts>`."""
    parts = (scope, *own)
    if all(_PLAIN.fullmatch(part) for part in parts):
        joined = SEPARATOR.join(parts)
        if len(joined) <= MAX_CALL_ID_CHARS:
            return joined
    # JSON of the list: unambiguous whatever the parts hold (separators, lone surrogates).
    encoded = json.dumps(parts, ensure_ascii=True).encode("ascii")
    digest = hashlib.sha256(encoded).hexdigest()[:_DIGEST_CHARS]
    room = MAX_CALL_ID_CHARS - _DIGEST_CHARS - 2
    head = scope if _PLAIN.fullmatch(scope) and len(scope) <= room else _FALLBACK_SCOPE
    return f"{head}{SEPARATOR}#{digest}"


def fresh_call_id(scope: str) -> str:
    """A new callId in `scope` for a call the agent gave no id of its own: a new call,
    which never picks up an earlier call's card or decision."""
    return call_id_of(scope, "new-" + uuid.uuid4().hex)

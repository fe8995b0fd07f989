"""Claude Code's `SessionEnd` hook: the agent's session ended, so what the person allowed
"for this session" in it ends too (`session.end`), and a later session asks again.

Claude Code runs SessionEnd hooks when a session ends (clear, logout, exit…) with the
common fields (`session_id`, `transcript_path`, `cwd`, `hook_event_name`) and `reason`;
it cannot be blocked and reads no decision (https://code.claude.com/docs/en/hooks,
"SessionEnd"). So the reply is always empty and exit 0; what happened goes to stderr,
which Claude Code shows in its debug output. Notch not running is no problem: the
allowances lived in that process and ended with it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from notch_app.hooks.answers import HookReply
from notch_app.hooks.payload import MAX_NAME_CHARS, MAX_PAYLOAD_BYTES
from notch_app.ipc.blocking import NotchClient
from notch_app.ipc.client import NotchError, NotchNotRunning

EVENT: Final = "SessionEnd"
END_WAIT_S: Final = 5.0
"""How long the hook waits for Notch: Claude Code waits for SessionEnd hooks as it quits."""


def session_ended(data: bytes) -> str | None:
    """The session a SessionEnd payload names; None when `data` is not one (then it is a
    tool call, or unreadable, for the permission hook to answer)."""
    if len(data) > MAX_PAYLOAD_BYTES:
        return None
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or value.get("hook_event_name") != EVENT:
        return None
    session = value.get("session_id")
    if (
        not isinstance(session, str)
        or not session.strip()
        or len(session) > MAX_NAME_CHARS
        or not session.isprintable()
    ):
        return ""  # a SessionEnd with no session to end
    return session


def end_session(session: str, socket_path: Path | None = None) -> HookReply:
    """Tell the running Notch that `session` ended. Never raises; always exit 0."""
    if not session:
        return HookReply("", "notch hook: SessionEnd without a session_id; nothing ended\n")
    try:
        with NotchClient(socket_path, reconnect_for=0.0) as client:
            ended = client.end_session(session, timeout=END_WAIT_S)
    except NotchNotRunning:
        return HookReply("", "")  # its allowances ended with it
    except (NotchError, OSError) as exc:
        return HookReply("", f"notch hook: could not end the session in Notch: {exc}\n")
    said = f"{ended} “for this session” allowance(s) ended" if ended else "nothing to end"
    return HookReply("", f"notch hook: session {session} ended: {said}\n")

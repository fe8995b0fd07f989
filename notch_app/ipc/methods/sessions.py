"""An agent's session: session.end, sent when the agent says its session ended."""

from __future__ import annotations

from pydantic import Field

from notch_app.ipc.methods.wire import Wire
from notch_app.runtime.allowances import MAX_SESSION_CHARS


class SessionEndParams(Wire):
    """The agent's session that ended (Claude Code's `SessionEnd` hook)."""

    session: str = Field(
        min_length=1,
        max_length=MAX_SESSION_CHARS,
        description="The session's name as the agent's requests gave it "
        "(`context.session`: Claude Code's `session_id`).",
    )


class SessionEndResult(Wire):
    ended: int = Field(
        description='How many "Allow for this session" choices of that session ended '
        "(0: none was made, or they had ended already)."
    )

"""The person's "Allow for this session" choices: what each covers, and whose session.

A session is the agent's own (issue 20, finding 5): a coding agent's hook names it with
the agent's `session_id` (in the request's `context.session`), so "Allow `npm test` in
~/code/app for this session" carries over to the next `npm test` of that session,
although each hook call is a process (and an asker) of its own. A socket client that
names no session has its asker's: the allowance ends when the client goes. What an
allowance covers is `card.scope_reach.Reach`: the command prefix in its folder, one exact
command, or the action. Codex's session leaves no trace Notch can see when it ends, so
an allowance also ends after IDLE_LIMIT_S without use, or when the agent says the
session ended (Claude Code's `SessionEnd` hook, `session.end`); all end when Notch stops
(they are never written to disk) or when the person removes one (Settings, the pill).

What a session's name cannot do: reach another integration or tool, loosen a Block or a
guard, or cover a call the reach does not (a risky command under a safe prefix asks).
Qt-free.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from notch_app.card.scope_reach import Reach, covers

IDLE_LIMIT_S: Final = 12 * 3600.0
"""An allowance unused this long has ended with its agent's session, as far as Notch
can tell."""
MAX_ALLOWANCES: Final = 256
MAX_SESSION_CHARS: Final = 200


def session_key(
    context: Mapping[str, Any] | None, owner: str | None, integration: str
) -> str | None:
    """Whose session a request is in: the agent's own (`context.session`, per
    integration), else its asker's (`owner`, the token's hash); None for neither."""
    named = context.get("session") if context is not None else None
    if (
        isinstance(named, str)
        and named.strip()
        and len(named) <= MAX_SESSION_CHARS
        and named.isprintable()
    ):
        return f"agent:{integration}:{named}"
    return f"asker:{owner}" if owner is not None else None


@dataclass(slots=True)
class Allowance:
    """One "Allow for this session": this action, as far as `reach`, in `session`."""

    id: str
    session: str
    integration: str
    tool: str
    title: str
    """The action as the person reads it ("Run a shell command")."""
    reach: Reach
    call_id: str
    """The approval that made it."""
    created: float
    used: float

    @property
    def label(self) -> str:
        """What it allows, in the card's words: "`npm test` in ~/code/app", "Send email"."""
        return self.reach.label if self.reach.kind != "action" else self.title

    @property
    def agent_session(self) -> str | None:
        """The agent's own session name, when the agent named one."""
        if not self.session.startswith("agent:"):
            return None
        return self.session.split(":", 2)[2]


class Allowances:
    """Every live allowance, oldest first."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._items: list[Allowance] = []
        self._ids = itertools.count(1)

    def add(
        self, session: str, integration: str, tool: str, title: str, reach: Reach, call_id: str
    ) -> Allowance:
        """Keep a new allowance (one the same already covers is refreshed instead)."""
        now = self._clock()
        for kept in self._items:
            if (kept.session, kept.integration, kept.tool, kept.reach) == (
                session, integration, tool, reach
            ):  # fmt: skip
                kept.used = now
                return kept
        allowance = Allowance(f"a{next(self._ids)}", session, integration, tool, title, reach,
                              call_id, now, now)  # fmt: skip
        self._items.append(allowance)
        del self._items[:-MAX_ALLOWANCES]
        return allowance

    def find(
        self, session: str | None, integration: str, tool: str, arguments: Mapping[str, Any]
    ) -> Allowance | None:
        """The allowance `arguments` for `integration`/`tool` in `session` fall under."""
        if session is None:
            return None
        self._expire()
        for allowance in self._items:
            if (allowance.session, allowance.integration, allowance.tool) != (
                session, integration, tool
            ):  # fmt: skip
                continue
            if covers(allowance.reach, arguments):
                allowance.used = self._clock()
                return allowance
        return None

    def end_session(self, session: str) -> list[Allowance]:
        """End every allowance of `session`; returns those ended."""
        ended = [a for a in self._items if a.session == session]
        self._items = [a for a in self._items if a.session != session]
        return ended

    def end_agent_session(self, name: str) -> list[Allowance]:
        """The agent said its session `name` ended (Claude Code's SessionEnd): end every
        allowance made in it, whichever integration it was for; returns those ended."""
        ended = [a for a in self._items if a.agent_session == name]
        self._items = [a for a in self._items if a.agent_session != name]
        return ended

    def forget(self, allowance_id: str) -> Allowance | None:
        """The person removed it (Settings, the pill): it covers nothing from now on."""
        for allowance in self._items:
            if allowance.id == allowance_id:
                self._items.remove(allowance)
                return allowance
        return None

    def made_by(self, call_id: str) -> Allowance | None:
        """The allowance the approval of `call_id` made, while it lives."""
        return next((a for a in self._items if a.call_id == call_id), None)

    def listed(self) -> list[Allowance]:
        """Every live allowance, oldest first."""
        self._expire()
        return list(self._items)

    def _expire(self) -> None:
        cutoff = self._clock() - IDLE_LIMIT_S
        self._items = [a for a in self._items if a.used >= cutoff]


__all__ = ["IDLE_LIMIT_S", "Allowance", "Allowances", "session_key"]

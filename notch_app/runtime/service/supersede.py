"""Which open card a call replaces (supersedes, an agent's update) and each process's share of cards."""

from __future__ import annotations

import logging

from notch_app.runtime.ownership import holds, owner_of
from notch_app.runtime.service.calls import (
    ServiceError,
    ToolCall,
    check_call_id,
)
from notch_app.runtime.service.ending import RequestEndings
from notch_app.runtime.service.open_request import (
    OpenRequest,
)

log = logging.getLogger("notch.service")


class Superseding(RequestEndings):
    """The open card a call takes the place of, and room for one more (a part of
    ConfirmationService)."""

    def _to_supersede(self, call: ToolCall, queued: int = 0) -> OpenRequest | None:
        """The open request `call.supersedes` names (None if it names none, or names a
        request of the same asker the person sent back for a change: the revision is the
        new card), once there is room for one more. Raises ServiceError(notOpen,
        overloaded, notYours)."""
        old: OpenRequest | None = None
        if call.supersedes is not None:
            check_call_id(call.supersedes, "supersedes")
            old = self._open.get(call.supersedes)
            owner = old.owner if old is not None else self.store.request_owner(call.supersedes)
            before = None if old is not None else self.store.decision(call.supersedes)
            if (old is not None or before is not None) and not holds(call.token, owner):
                raise ServiceError(
                    "notYours",
                    f"supersedes: callId {call.supersedes!r} belongs to another asker, so "
                    "this request cannot replace its card; only the client holding its token "
                    "can (send that token as this request's `token`)",
                    "supersedes",
                )
            revised = before is not None and before.reason == "revise"
            if old is not None and old.ending is not None:
                # Already being decided (an approve whose write is under way): superseding
                # it now would race its stored decision; it is decided, as below.
                raise ServiceError(
                    "notOpen",
                    f"callId {call.supersedes!r} was already decided ({old.ending.outcome}); "
                    "nothing to supersede",
                    "supersedes",
                )
            if old is None and not revised:
                raise ServiceError(
                    "notOpen",
                    f"callId {call.supersedes!r} was already decided ({before.outcome}); "
                    "nothing to supersede"
                    if before is not None
                    else f"no open request has callId {call.supersedes!r}; nothing to supersede",
                    "supersedes",
                )
        if len(self._open) + queued >= self._max_pending:
            raise ServiceError(
                "overloaded",
                f"{len(self._open)} requests are already waiting for the person; "
                "wait for some decisions, then ask again",
            )
        return old

    def _repeat_of(self, call: ToolCall) -> OpenRequest | None:
        """The open card, not in a batch and not being decided, that `call`'s asker (its
        token) has for the same tool: the newest one, or None. A card asked less than
        `same_turn_s` ago is not replaced: calls that arrive together are one model turn's
        parallel calls (each gets its card), not an update. The app's own calls (no token)
        never replace one another."""
        owner = owner_of(call.token)
        if owner is None:
            return None
        found: OpenRequest | None = None
        turn_began = self._clock() - self.same_turn_s
        for item in self._open.values():
            request = item.request
            if (
                item.owner == owner
                and item.ending is None
                and request.batch_id is None
                and request.created_at <= turn_began
                and request.integration_id == call.integration_id
                and request.tool_name == call.tool_name
            ):
                found = item
        return found

    def _check_share(self, call: ToolCall, old: OpenRequest | None, queued: int = 0) -> None:
        """Raises ServiceError(overloaded) when the process sending `call` already has
        `max_open_per_asker` requests waiting for the person (`queued` more of its batch
        are planned; a supersede takes its old card's place). So one agent, however many
        tokens or connections it uses, cannot bury another's card. The app's own requests
        and those of a process the platform cannot name are not counted."""
        process = call.process
        if process is None:
            return
        key = process.key
        mine = self._by_process.setdefault(key, set())
        mine.difference_update([c for c in mine if not self._asked_by(c, key)])
        replaced = old is not None and self._asked_by(old.request.call_id, key)
        waiting = len(mine) + queued - int(replaced)  # a supersede takes its old card's place
        if waiting >= self.max_open_per_asker:
            raise ServiceError(
                "overloaded",
                f"{process.label} already has {waiting} requests waiting for the person, the "
                f"most one process may have ({self.max_open_per_asker}); wait for some "
                "decisions, or withdraw some, then ask again",
            )
        mine.add(call.call_id)

    def _asked_by(self, call_id: str, key: str) -> bool:
        """True while `call_id` is open and was asked by the process `key`."""
        item = self._open.get(call_id)
        process = item.request.process if item is not None else None
        return process is not None and process.key == key

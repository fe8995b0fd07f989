"""Who is still there to run what the person approves: askers and their connections.

A request belongs to its asker (the hash of its token, see ownership.py), and an asker
is there while at least one connection that used its token is open. When the last one
closes, a grace period starts (the person's `askerGraceSeconds`, default 10 s): a
connection with the same token within it (a client reconnecting after a drop, an agent
restarting after a crash) keeps everything as it was; past it the asker is gone, and the
service withdraws its open cards ("the asking agent went away") and forgets what the
person allowed for its session. So nothing can be approved that no one will run.

Qt-free and single-threaded: called on the service's loop only.

Limits are counted per asking *process* (`AskingProcess`), not per token: a token is the
client's own choice, so one process could mint thousands and be thousands of askers. The
process is what the kernel says is on the other end of the socket (its pid, with its
start time so a reused pid is another process): a client cannot claim another's. A
process of the same user can still start more processes; the per-process limits then
make each one count once, and the server's room-making (ipc/server/admission.py) takes from the
process holding the most, so filling every place takes as many live processes as places.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

MAX_OPEN_PER_ASKER: Final = 32
"""Requests one asking process may have waiting for the person at once; more are refused
(`overloaded`) until some are decided, so one agent cannot bury another's card. Room for
a model turn of many calls (`confirm.batch`), far from a flood's hundreds."""


@dataclass(frozen=True, slots=True)
class AskingProcess:
    """The process on the other end of a connection, as the kernel reports it
    (`SO_PEERCRED`): never what the client says about itself."""

    pid: int
    started: int = 0
    """When it started (clock ticks after boot, /proc/PID/stat): tells a reused pid apart.
    0 where unknown."""
    name: str = ""
    """Its command name (/proc/PID/comm, e.g. "python3"): the process sets it itself, so it
    is shown beside the pid, never used to tell processes apart."""

    @property
    def key(self) -> str:
        """What limits are counted by: this process and no other, ever."""
        return f"{self.pid}:{self.started}"

    @property
    def label(self) -> str:
        """How the person reads it: "python3 (pid 4242)"."""
        return f"{self.name} (pid {self.pid})" if self.name else f"pid {self.pid}"


DEFAULT_GRACE_S: Final = 10.0
MIN_GRACE_S: Final = 0.05
"""A floor against a zero or negative setting (the person's book allows 1 s or more)."""
MAX_GRACE_S: Final = 3600.0


class Askers:
    """The live connections of each asker, and the grace timers of askers with none.

    `grace()` says the grace period now, in seconds (read at each last close, so a change
    in Settings applies to the next one); `gone(owner)` is called once an asker's grace
    ran out with no connection back."""

    def __init__(self, grace: Callable[[], float], gone: Callable[[str], None]) -> None:
        self._grace = grace
        self._gone = gone
        self._holders: dict[str, set[object]] = {}
        self._held: dict[object, set[str]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def here(self, owner: str, holder: object) -> None:
        """A connection (`holder`) used the token whose hash is `owner`: the asker is here,
        and any grace period running for it ends."""
        held = self._held.setdefault(holder, set())
        if owner in held:
            return
        held.add(owner)
        self._holders.setdefault(owner, set()).add(holder)
        timer = self._timers.pop(owner, None)
        if timer is not None:
            timer.cancel()

    def present(self, owner: str) -> bool:
        """True while a connection of `owner`'s is open."""
        return bool(self._holders.get(owner))

    def left(self, holder: object) -> None:
        """The connection `holder` closed: each asker it was the last connection of gets
        its grace period."""
        for owner in self._held.pop(holder, ()):
            holders = self._holders.get(owner)
            if holders is not None:
                holders.discard(holder)
                if not holders:
                    del self._holders[owner]
                    self.unheld(owner)

    def unheld(self, owner: str) -> None:
        """Start `owner`'s grace period unless a connection of its is open or one runs
        already (e.g. for requests recovered after a restart, whose askers have not
        come back yet)."""
        if self.present(owner) or owner in self._timers:
            return
        grace = self._grace()
        if not math.isfinite(grace):
            grace = DEFAULT_GRACE_S
        delay = min(max(grace, MIN_GRACE_S), MAX_GRACE_S)
        loop = asyncio.get_running_loop()
        self._timers[owner] = loop.call_later(delay, self._expired, owner)

    def close(self) -> None:
        """Stop every grace timer (Notch is stopping: requests stay stored)."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _expired(self, owner: str) -> None:
        self._timers.pop(owner, None)
        if not self.present(owner):
            self._gone(owner)

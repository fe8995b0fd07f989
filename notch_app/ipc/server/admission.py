"""Who gets a connection: a share per asking process, room made at the limit, silent ones swept."""

from __future__ import annotations

import asyncio
import logging

from notch_app.ipc import protocol as rpc
from notch_app.ipc.server.connection import Connection

log = logging.getLogger("notch.ipc")


class Admission:
    """The server's door (a part of NotchServer): connections admitted, counted against
    their asking process, made room for, and closed when silent or half-sent."""

    loop: asyncio.AbstractEventLoop
    max_connections: int
    max_connections_per_asker: int
    partial_line_timeout: float
    idle_timeout: float
    _connections: set[Connection]
    _by_process: dict[str, set[Connection]]
    _look_again_in: float
    _sweep: asyncio.Handle | None
    _sweep_at: float

    def _accepted(self, conn: Connection) -> None:
        key = conn.process_key
        mine = self._by_process.get(key, set()) if key is not None else set()
        if len(mine) >= self.max_connections_per_asker and not self._make_room_in(mine):
            who = conn.process.label if conn.process is not None else "this process"
            conn.send(rpc.error_response(None, rpc.RpcError(
                rpc.TOO_MANY_CONNECTIONS,
                f"{who} already has {len(mine)} connections to Notch, each with a request "
                f"open (at most {self.max_connections_per_asker} per process); await or "
                "withdraw some, or send more requests on one connection",
                {"perProcess": self.max_connections_per_asker},
            )))  # fmt: skip
            conn.close()
            return
        if len(self._connections) >= self.max_connections and not self._make_room(conn):
            conn.send(rpc.error_response(None, rpc.RpcError(
                rpc.TOO_MANY_CONNECTIONS,
                f"too many clients connected ({self.max_connections}), each with a request "
                "open; close some connections",
            )))  # fmt: skip
            conn.close()
            return
        self._connections.add(conn)
        if key is not None:
            self._by_process.setdefault(key, set()).add(conn)
        self._sweep_by(conn.last_heard + self.idle_timeout)

    def _make_room(self, newcomer: Connection) -> bool:
        """Close one connection so `newcomer` gets in: an idle one (no open request) from
        the process holding the most connections, the one heard from least recently; if
        none is idle, the least recently heard one of the process holding the most, as
        long as it holds more than one more than the newcomer's process (its requests stay
        open: its client reconnects and awaits them). So neither idle sockets nor open
        requests of some processes can lock out another agent. False otherwise."""
        held: dict[str | None, int] = {}
        for conn in self._connections:
            held[conn.process_key] = held.get(conn.process_key, 0) + 1
        idle = [conn for conn in self._connections if not conn.busy]
        if idle:
            victim = max(idle, key=lambda conn: (held[conn.process_key], -conn.last_heard))
            why = "this connection had no open request; reconnect when you next call"
            log.info("%d connections: closing an idle one to admit a new client", len(idle))
        else:
            # Unknown processes (no SO_PEERCRED) are not one process: never taken from.
            counted = [conn for conn in self._connections if conn.process_key is not None]
            if not counted or newcomer.process_key is None:
                return False
            victim = max(counted, key=lambda conn: (held[conn.process_key], -conn.last_heard))
            if held[victim.process_key] <= held.get(newcomer.process_key, 0) + 1:
                return False  # every process holds about as many as the newcomer's: fair
            why = (
                "your process holds more connections than any other; your open requests "
                "stay open: reconnect and await them"
            )
            log.info("%d connections: closing one of the busiest process's", len(counted))
        victim.send(rpc.error_response(None, rpc.RpcError(
            rpc.TOO_MANY_CONNECTIONS,
            f"closed to make room: {self.max_connections} clients are connected and {why}",
        )))  # fmt: skip
        victim.close()
        return True

    def _make_room_in(self, mine: set[Connection]) -> bool:
        """A process at its own connection limit connects again: close its idle connection
        heard from least recently (it is the same client). False if all have requests."""
        idle = [conn for conn in mine if not conn.busy]
        if not idle:
            return False
        victim = min(idle, key=lambda conn: conn.last_heard)
        victim.send(rpc.error_response(None, rpc.RpcError(
            rpc.TOO_MANY_CONNECTIONS,
            f"closed to make room: your process opened more than "
            f"{self.max_connections_per_asker} connections and this one had no open "
            "request; reconnect when you next call",
        )))  # fmt: skip
        victim.close()
        return True

    def _forget(self, conn: Connection) -> None:
        """`conn` closed: it no longer counts against its process."""
        key = conn.process_key
        mine = self._by_process.get(key) if key is not None else None
        if key is not None and mine is not None:
            mine.discard(conn)
            if not mine:
                del self._by_process[key]

    def _sweep_by(self, when: float) -> None:
        """Make sure a sweep runs by loop time `when`. Sweeps run at the connections'
        deadlines, not on a tick: a client connected and quiet wakes Notch once per
        `idle_timeout`, not every few seconds (an idle notch has no timer of its own)."""
        sweep = self._sweep
        if sweep is not None:
            if self._sweep_at <= when:
                return
            sweep.cancel()
        # Its time is kept here: qasync's loop (`notch run`) hands back plain Handles,
        # which have no `when()`.
        self._sweep_at = when
        self._sweep = self.loop.call_at(when, self._swept)

    def _swept(self) -> None:
        """Close connections holding an unfinished line past `partial_line_timeout`, and
        idle ones (no open request) silent past `idle_timeout`; then sleep until the
        nearest deadline of those left."""
        self._sweep = None
        now = self.loop.time()
        due: list[float] = []
        for conn in list(self._connections):
            began = conn.line_began
            if began is not None and now - began > self.partial_line_timeout and not conn.paused:
                # Even with a request open: a real client never leaves a line half-sent.
                log.info("closing a connection whose line stayed unfinished")
                conn.send(rpc.error_response(None, rpc.RpcError(
                    rpc.INVALID_REQUEST,
                    f"a line stayed unfinished for {self.partial_line_timeout:g} s; closing "
                    "the connection. End each message with a newline",
                )))  # fmt: skip
                conn.close()
                continue
            if began is not None:  # a paused one (not read from) is looked at again soon
                due.append(
                    now + self._look_again_in if conn.paused else began + self.partial_line_timeout
                )
            if conn.busy:
                # Idle time counts from when its last request ended (the connection
                # marks that itself); a person may take minutes to decide.
                conn.last_heard = now
                due.append(now + self.idle_timeout)
            elif now - conn.last_heard > self.idle_timeout:
                conn.close()
            else:
                due.append(conn.last_heard + self.idle_timeout)
        if due and self._connections:
            self._sweep_by(max(min(due), now + 0.001))

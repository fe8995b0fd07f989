"""The asyncio JSON-RPC server in front of the confirmation service.

No client can crash or stall it: every line is bounded (1 MiB; longer ones are answered
with an error and skipped without being buffered), parsing is bounded in depth, each
connection has a bounded number of requests in flight and a bounded write buffer (a
client that stops reading is disconnected), and handlers never block. Lines from all
clients are handled a few milliseconds at a time, round-robin, so a burst from one agent
neither starves the others nor stalls the loop. A client that disconnects mid-request
leaves its request open: the decision is stored for `confirm.get`.

Every message is checked once as it is parsed (`rpc.decode_request`): a lone surrogate or
NaN/±Infinity anywhere, or an id that is not a string, whole number or null, is refused
before any method runs. Connections cannot be hoarded: a line unfinished after 10 s or a
connection idle 5 min with no open request is closed, and at the connection limit an
idle one makes room for a new client.

A request belongs to its asker: the token sent with `confirm.request` (or made here when
none was) must come with every later call that acts on it or reads more than its bare
status; the service checks it (ownership.py) and refuses others with -32008.

No asking process can take the room of others (askers.py): each connection is counted
against the process the kernel says is on its other end, at most 32 per process (beyond
that its own idlest connection makes room, else the new one is refused); and at the
connection limit a newcomer makes room from the process holding the most connections,
idle ones first, then, while that process holds more than one more than the newcomer's,
its least recently heard one (its requests stay open for its reconnect).

One module a concern: `serving` (NotchServer: listening, lines handled round-robin),
`admission` (connections per process, room at the limit, sweeps), `connection` (one
client), `handlers` (each method), `replies` (waiting replies, errors) and `limits`.
"""

from __future__ import annotations

from notch_app.ipc.server.limits import (
    IDLE_TIMEOUT_S,
    LISTEN_BACKLOG,
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_PER_ASKER,
    MAX_IN_FLIGHT,
    MAX_WRITE_BUFFER,
    PARTIAL_LINE_TIMEOUT_S,
)
from notch_app.ipc.server.serving import NotchServer

__all__ = [
    "IDLE_TIMEOUT_S",
    "LISTEN_BACKLOG",
    "MAX_CONNECTIONS",
    "MAX_CONNECTIONS_PER_ASKER",
    "MAX_IN_FLIGHT",
    "MAX_WRITE_BUFFER",
    "PARTIAL_LINE_TIMEOUT_S",
    "NotchServer",
]

"""The server's bounds: connections, requests in flight, buffers and timeouts."""

from __future__ import annotations

from typing import Final

MAX_IN_FLIGHT: Final = 256
"""Requests one connection may have waiting at once (decisions being awaited)."""
MAX_WRITE_BUFFER: Final = 16 * 1024 * 1024
"""Unread bytes queued for one client before it is disconnected as not reading."""
MAX_CONNECTIONS: Final = 512
"""Connections at once. At the limit an idle one (no open request) is closed to admit a
new one, taken from the process holding the most connections, least recently heard."""
MAX_CONNECTIONS_PER_ASKER: Final = 32
"""Connections one asking process may hold (a client needs one; a pool, a few)."""
PARTIAL_LINE_TIMEOUT_S: Final = 10.0
"""A client writes a message in one go (a 1 MiB line takes milliseconds), so a line still
unfinished after this long is a slow-loris holding a buffer: the connection is closed."""
IDLE_TIMEOUT_S: Final = 300.0
"""A connection with no open request that sent nothing for this long is closed; the
clients reconnect on their next call, so an agent between tool calls loses nothing."""
LISTEN_BACKLOG: Final = 4096
"""Connects queued before `accept` (the kernel caps it at net.core.somaxconn, 4096 on
current Linux): a burst of agents starting at once waits in it instead of getting
EAGAIN (asyncio's default of 100 refused 1,663 of 2,000 non-blocking connects)."""
TRIM_AFTER_BYTES: Final = 256 * 1024
"""Give freed memory back to the system after a connection held at least this much."""
SLICE_S: Final = 0.004
"""Work handled per loop turn, across all connections, before yielding to the loop."""
READ_BYTES: Final = 64 * 1024
MAX_QUEUED_LINES: Final = 64
"""Lines read ahead from one client before its socket stops being read (backpressure)."""

ID_TYPES: Final = (str, int, type(None))
"""What a JSON-RPC id may be (a tuple: `str | int | None` builds a union on every call)."""

"""The service's bounds and fixed words: sizes, counts, times, and the lines it says."""

from __future__ import annotations

from typing import Final

MAX_CONTEXT_CHARS: Final = 4096
MAX_EXPIRES_IN_MS: Final = 30 * 24 * 3600 * 1000
MAX_PENDING: Final = 10_000
"""Open requests across all clients; beyond it new requests are refused (`overloaded`)."""
MAX_READS_KEPT: Final = 1024
"""Read-only calls remembered for the glances of their results (`read_answered`)."""
MAX_BATCH: Final = 256
"""Calls one `confirm.batch` asks about; the rest of a longer batch each get an error."""
SHOWN_REASON_CHARS: Final = 120
"""A withdraw's reason as stored and shown: one line, cut here."""
STORE_STOPPED: Final = "Store damaged: restart with notch run --reset-store"
"""The line the person reads on the notch once the store is damaged: one line at the
notch's width (the socket's error and the log say more)."""
ASKER_GONE: Final = "the asking agent went away"
"""Why a request is withdrawn when its asker's connections closed and none came back."""
SAME_TURN_S: Final = 1.0
"""A model's parallel tool calls of one turn reach Notch within milliseconds of each
other; an agent calling the same tool again to update it has waited for an answer first
(a "waiting for the person" status, a timeout): seconds. So a second call of the same
tool by the same asker replaces its open card only once that card is this old."""
RETRY_EXPIRY_AFTER_S: Final = 5.0
"""An expiry whose write failed (a full disk) is tried again this long after, not at once:
a due expiry re-armed with no delay would retry the failing write every loop turn."""
ROW_HOLD_S: Final = 0.1
"""How long a shown card's request row may wait for the card's first painted frame
(`shown`) before its commit starts anyway: a card behind another one, parked, or whose
overlay never reports it. Above the first frame's p99 on a calm machine (~30 ms), short
enough that its `confirmationRequired` is not noticeably late."""

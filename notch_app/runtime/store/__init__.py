"""Durable requests and decisions in SQLite under the data dir.

Two tables with two jobs:

* `requests` — the work: every acting request with its arguments (so an undecided one
  comes back after a crash) and, once decided, the final arguments to hand back to an
  executor that reconnects. Never shown to anyone.
* `decisions` — the log (`notch log`): one row per callId, ever (the primary key is what
  makes a decision exactly-once), with secret values already redacted.

Writes are batched (`write(ops)`: one transaction, `synchronous=FULL`, one fsync per
batch) on a writer thread, in the order they were queued. Each op runs in its own
savepoint: whatever one op raises rolls back that op alone, and any error ends the
transaction, so a bad request can never leave it open for the next writer. A decision is on disk before it
is sent. A request's card is shown before its row is written (the row waits for the
card's first frame: write_behind.py); a decision for it is stored only together with or
after that row (the decision op refuses a callId without an undecided stored request),
so a request whose write failed can never be decided.

Secret values (passwordField, `format: password`, `writeOnly`) never reach the file: both
tables hold `REDACTED` in their place; the paths withheld are kept, so a decision read
back says its secrets must be asked for again. Nor can they be found again from a digest
(a PIN's million values are tried in a second): a request's digest is of its arguments as
stored (secrets masked), and a decision's covers each secret keyed with a salt that only
the live decision carried (decision.py). Digests are RFC 8785; the stored JSON is plain
JSON that reads back to the same Python values.

Each request row keeps the SHA-256 of its asker's token (`owner`, see ownership.py),
never the token: after a restart only the asker can still await, read or withdraw it.

Where: `decision_store.py` (the class, its batches and reads), `writes.py` (the ops of a
batch), `masking.py` (what of the arguments is stored), `schema.py` (the tables, their
upgrades and the scrub at open), `errors.py`, `aside.py` (`--reset-store`).
"""

from notch_app.runtime.store.aside import ASIDE_SUFFIX, move_aside, reset_if_broken
from notch_app.runtime.store.decision_store import DecisionStore, LogEntry
from notch_app.runtime.store.errors import StoreDamaged, StoreError, is_damage
from notch_app.runtime.store.masking import SecretsOf
from notch_app.runtime.store.schema import DB_NAME, SCHEMA_VERSION
from notch_app.runtime.store.writes import BeforeCommit, NewDecision, NewRequest, WriteOp

__all__ = [
    "ASIDE_SUFFIX",
    "DB_NAME",
    "SCHEMA_VERSION",
    "BeforeCommit",
    "DecisionStore",
    "LogEntry",
    "NewDecision",
    "NewRequest",
    "SecretsOf",
    "StoreDamaged",
    "StoreError",
    "WriteOp",
    "is_damage",
    "move_aside",
    "reset_if_broken",
]

"""Durable requests and decisions in SQLite under the data dir.

Two tables with two jobs:

* `requests` — the work: every acting request with its arguments (so an undecided one
  comes back after a crash) and, once decided, the final arguments to hand back to an
  executor that reconnects. Never shown to anyone.
* `decisions` — the log (`notch log`): one row per callId, ever (the primary key is what
  makes a decision exactly-once), with secret values already redacted.

Writes are batched (`write(ops)`: one transaction, `synchronous=FULL`, one fsync per
batch) on a writer thread, in the order they were queued. A decision is on disk before it
is sent. A request's card is shown while its row is being written; a decision for it is
stored only together with or after that row (the decision op refuses a callId without an
undecided stored request), so a request whose write failed can never be decided.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

import platformdirs

from notch_app.runtime.decision import Decision, arguments_digest, canonical_json
from notch_app.runtime.presenter import ConfirmationRequest, DecidedBy, Outcome

SCHEMA_VERSION: Final = 1
DB_NAME: Final = "notch.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS requests (
    call_id TEXT PRIMARY KEY,
    integration TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    args_digest TEXT NOT NULL,
    context TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL,
    reason TEXT,
    decided INTEGER NOT NULL DEFAULT 0,
    final_arguments TEXT
);
CREATE INDEX IF NOT EXISTS requests_pending ON requests(decided) WHERE decided = 0;
CREATE TABLE IF NOT EXISTS decisions (
    call_id TEXT PRIMARY KEY,
    integration TEXT NOT NULL,
    tool TEXT NOT NULL,
    outcome TEXT NOT NULL,
    logged_arguments TEXT,
    digest TEXT,
    edited_paths TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    decided_at REAL NOT NULL,
    message TEXT,
    context TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS decisions_time ON decisions(decided_at);
"""


class StoreError(Exception):
    """The store cannot be opened or written; the message names the file and the fix."""


class _NoOpenRequest(Exception):
    """A decision for a callId whose request is not stored, or already decided."""


BeforeCommit = Callable[[Sequence["WriteOp"]], None]
"""Called on the writer thread with a batch's ops, after they are applied and before the
COMMIT. Raising sqlite3.Error rolls the whole batch back (as a failing disk would)."""


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """`NOTCH_DATA_DIR` if set, else the platform's app-data folder for "notch"."""
    env = os.environ if env is None else env
    override = env.get("NOTCH_DATA_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir("notch", appauthor=False))


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One row of `notch log`: a decision with secret values already redacted."""

    call_id: str
    integration_id: str
    tool_name: str
    outcome: Outcome
    arguments: dict[str, Any] | None
    edited_paths: tuple[str, ...]
    decided_by: DecidedBy
    decided_at: float
    message: str | None
    context: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "callId": self.call_id,
            "integration": self.integration_id,
            "tool": self.tool_name,
            "outcome": self.outcome,
            "arguments": self.arguments,
            "editedPaths": list(self.edited_paths),
            "decidedBy": self.decided_by,
            "decidedAt": self.decided_at,
            "message": self.message,
            "context": self.context,
        }


def _insert_request(db: sqlite3.Connection, request: ConfirmationRequest) -> None:
    db.execute(
        "INSERT INTO requests (call_id, integration, tool, arguments, args_digest,"
        " context, created_at, expires_at, reason) VALUES (?,?,?,?,?,?,?,?,?)",
        (
            request.call_id,
            request.integration_id,
            request.tool_name,
            canonical_json(request.arguments),
            arguments_digest(request.arguments),
            canonical_json(request.context),
            request.created_at,
            request.expires_at,
            request.reason,
        ),
    )


@dataclass(frozen=True, slots=True)
class NewDecision:
    """Record `decision` (once per callId, ever). `logged_arguments` are the redacted copy
    for the log; the real final arguments go to the requests table only. `request` is
    set for a decision made without an open request (the policy's autoApproved/blocked)."""

    decision: Decision
    logged_arguments: dict[str, Any] | None
    context: Mapping[str, Any]
    request: ConfirmationRequest | None = None

    def apply(self, db: sqlite3.Connection) -> None:
        if self.request is not None:
            _insert_request(db, self.request)
        d = self.decision
        # The request row must already be stored (earlier in this batch or before) and
        # undecided: a card is shown while its request is still being written, and a
        # request whose write failed must never end with a stored decision.
        marked = db.execute(
            "UPDATE requests SET decided = 1, final_arguments = ? WHERE call_id = ?"
            " AND decided = 0",
            (None if d.arguments is None else canonical_json(d.arguments), d.call_id),
        )
        if marked.rowcount != 1:
            raise _NoOpenRequest(d.call_id)
        db.execute(
            "INSERT INTO decisions (call_id, integration, tool, outcome, logged_arguments,"
            " digest, edited_paths, decided_by, decided_at, message, context)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                d.call_id,
                d.integration_id,
                d.tool_name,
                d.outcome,
                None if self.logged_arguments is None else canonical_json(self.logged_arguments),
                d.digest,
                json.dumps(list(d.edited_paths)),
                d.decided_by,
                d.decided_at,
                d.message,
                canonical_json(dict(self.context)),
            ),
        )


@dataclass(frozen=True, slots=True)
class NewRequest:
    """Store a pending request, and with it the decision ending the one it supersedes."""

    request: ConfirmationRequest
    superseded: NewDecision | None = None

    def apply(self, db: sqlite3.Connection) -> None:
        _insert_request(db, self.request)
        if self.superseded is not None:
            self.superseded.apply(db)


WriteOp = NewRequest | NewDecision


def _decided_call_id(op: WriteOp) -> str | None:
    """The callId of the stored request that `op` decides, if any."""
    if isinstance(op, NewDecision):
        return op.decision.call_id
    return None if op.superseded is None else op.superseded.decision.call_id


class DecisionStore:
    """The SQLite file `<data_dir>/notch.sqlite3`. One instance per running Notch."""

    def __init__(self, data_dir: Path, *, before_commit: BeforeCommit | None = None) -> None:
        """Open (creating if needed) the store. Raises StoreError if it cannot.

        `before_commit` is a seam for tests and benchmarks: a slow or failing disk.
        """
        self.path = data_dir / DB_NAME
        self.before_commit = before_commit
        try:
            data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            # Arguments may hold secrets: the file is the owner's only (WAL files follow it).
            fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
            os.close(fd)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=2000")
            version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: written by a newer Notch (store version {version}); "
                    "upgrade Notch or use another --data-dir"
                )
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            # Reads happen on the event loop's thread, writes on the writer thread (WAL
            # lets them overlap); each connection is only ever used by one thread at a time.
            self._read = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._read.execute("PRAGMA busy_timeout=2000")
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path}: cannot open the decision store ({exc}); move the file aside "
                "or start with another --data-dir"
            ) from None
        except OSError as exc:
            raise StoreError(
                f"{self.path}: cannot create the decision store ({exc.strerror}); "
                "check the folder's permissions or pass --data-dir"
            ) from None

    def close(self) -> None:
        self._db.close()
        self._read.close()

    # --- writes ----------------------------------------------------------------------

    def write(self, ops: Sequence[WriteOp]) -> list[StoreError | None]:
        """Apply `ops` in one transaction (one fsync for the batch: group commit), each
        in its own savepoint so one failing op (e.g. a callId already decided) does not
        undo the others. Returns one entry per op: None when it is durable on disk, else
        the StoreError. Safe to call from one writer thread while the loop thread reads.
        """
        results: list[StoreError | None] = []
        # Requests refused in this batch: a decision queued behind one must fail too, even
        # if a row with its callId exists (written by someone else).
        refused: set[str] = set()
        try:
            self._db.execute("BEGIN IMMEDIATE")
            for op in ops:
                self._db.execute("SAVEPOINT op")
                try:
                    decides = _decided_call_id(op)
                    if decides is not None and decides in refused:
                        raise _NoOpenRequest(decides)
                    op.apply(self._db)
                except sqlite3.IntegrityError:
                    self._db.execute("ROLLBACK TO op")
                    results.append(StoreError(f"{self.path}: that callId is already stored"))
                    if isinstance(op, NewRequest):
                        refused.add(op.request.call_id)
                except _NoOpenRequest as exc:
                    self._db.execute("ROLLBACK TO op")
                    results.append(
                        StoreError(
                            f"{self.path}: callId {exc.args[0]!r} has no undecided stored "
                            "request, so its decision was not stored"
                        )
                    )
                    if isinstance(op, NewRequest):
                        refused.add(op.request.call_id)
                else:
                    results.append(None)
                self._db.execute("RELEASE op")
            if self.before_commit is not None:
                self.before_commit(ops)
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            error = StoreError(
                f"{self.path}: cannot write the decision store ({exc}); "
                "check free disk space and permissions"
            )
            return [error for _ in ops]
        return results

    # --- reads ---------------------------------------------------------------------

    def pending(self) -> list[ConfirmationRequest]:
        """Undecided requests, oldest first (they come back as parked cards on start)."""
        rows = self._read.execute(
            "SELECT call_id, integration, tool, arguments, context, created_at, expires_at,"
            " reason FROM requests WHERE decided = 0 ORDER BY created_at, rowid"
        ).fetchall()
        return [
            ConfirmationRequest(
                call_id=r[0],
                integration_id=r[1],
                tool_name=r[2],
                arguments=json.loads(r[3]),
                context=json.loads(r[4]),
                created_at=r[5],
                expires_at=r[6],
                parked=True,
                reason=r[7],
            )
            for r in rows
        ]

    def decision(self, call_id: str) -> Decision | None:
        """The stored decision for `call_id`, with the real final arguments, or None."""
        row = self._read.execute(
            "SELECT d.outcome, d.integration, d.tool, r.final_arguments, d.edited_paths,"
            " d.digest, d.decided_by, d.decided_at, d.message FROM decisions d"
            " LEFT JOIN requests r ON r.call_id = d.call_id WHERE d.call_id = ?",
            (call_id,),
        ).fetchone()
        if row is None:
            return None
        return Decision(
            call_id=call_id,
            outcome=cast(Outcome, row[0]),
            integration_id=row[1],
            tool_name=row[2],
            arguments=None if row[3] is None else json.loads(row[3]),
            edited_paths=tuple(json.loads(row[4])),
            digest=row[5],
            decided_by=cast(DecidedBy, row[6]),
            decided_at=row[7],
            message=row[8],
        )

    def request_digest(self, call_id: str) -> tuple[str, str, str] | None:
        """(integration, tool, arguments digest) of a stored request, or None."""
        row = self._read.execute(
            "SELECT integration, tool, args_digest FROM requests WHERE call_id = ?", (call_id,)
        ).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def log(self, limit: int = 50) -> list[LogEntry]:
        """The newest `limit` decisions, oldest first, secrets redacted."""
        rows = self._read.execute(
            "SELECT call_id, integration, tool, outcome, logged_arguments, edited_paths,"
            " decided_by, decided_at, message, context FROM decisions"
            " ORDER BY decided_at DESC, rowid DESC LIMIT ?",
            (max(0, limit),),
        ).fetchall()
        return [
            LogEntry(
                call_id=r[0],
                integration_id=r[1],
                tool_name=r[2],
                outcome=cast(Outcome, r[3]),
                arguments=None if r[4] is None else json.loads(r[4]),
                edited_paths=tuple(json.loads(r[5])),
                decided_by=cast(DecidedBy, r[6]),
                decided_at=r[7],
                message=r[8],
                context=json.loads(r[9]),
            )
            for r in reversed(rows)
        ]

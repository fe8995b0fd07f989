"""Durable requests and decisions in SQLite under the data dir.

Two tables with two jobs:

* `requests` — the work: every acting request with its arguments (so an undecided one
  comes back after a crash) and, once decided, the final arguments to hand back to an
  executor that reconnects. Never shown to anyone.
* `decisions` — the log (`notch log`): one row per callId, ever (the primary key is what
  makes a decision exactly-once), with secret values already redacted.

Every write is committed with `synchronous=FULL` before the caller goes on: a decision
is on disk before it is sent, a request before its card is shown.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping
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


class DecisionStore:
    """The SQLite file `<data_dir>/notch.sqlite3`. One instance per running Notch."""

    def __init__(self, data_dir: Path) -> None:
        """Open (creating if needed) the store. Raises StoreError if it cannot."""
        self.path = data_dir / DB_NAME
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

    # --- writes (each one transaction, durable on return) --------------------------

    def add_request(self, request: ConfirmationRequest, superseded: Decision | None = None,
                    logged_superseded: dict[str, Any] | None = None) -> None:  # fmt: skip
        """Store a new pending request, and in the same transaction the decision ending the
        request it supersedes (if any). Raises StoreError on a write failure."""
        with self._transaction():
            self._db.execute(
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
            if superseded is not None:
                self._insert_decision(superseded, logged_superseded, {})

    def record_decision(
        self,
        decision: Decision,
        logged_arguments: dict[str, Any] | None,
        context: Mapping[str, Any],
        request: ConfirmationRequest | None = None,
    ) -> None:
        """Commit `decision` (once per callId). `logged_arguments` are the redacted copy
        for the log; the real final arguments go to the requests table only. Pass
        `request` for a decision made without a pending row (policy: autoApproved/blocked).
        Raises StoreError if the callId was already decided or the write fails.
        """
        with self._transaction():
            if request is not None:
                self._db.execute(
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
            self._insert_decision(decision, logged_arguments, context)

    def _insert_decision(
        self, decision: Decision, logged: dict[str, Any] | None, context: Mapping[str, Any]
    ) -> None:
        self._db.execute(
            "INSERT INTO decisions (call_id, integration, tool, outcome, logged_arguments,"
            " digest, edited_paths, decided_by, decided_at, message, context)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                decision.call_id,
                decision.integration_id,
                decision.tool_name,
                decision.outcome,
                None if logged is None else canonical_json(logged),
                decision.digest,
                json.dumps(list(decision.edited_paths)),
                decision.decided_by,
                decision.decided_at,
                decision.message,
                canonical_json(dict(context)),
            ),
        )
        self._db.execute(
            "UPDATE requests SET decided = 1, final_arguments = ? WHERE call_id = ?",
            (
                None if decision.arguments is None else canonical_json(decision.arguments),
                decision.call_id,
            ),
        )

    class _Tx:
        def __init__(self, db: sqlite3.Connection, path: Path) -> None:
            self.db = db
            self.path = path

        def __enter__(self) -> None:
            self.db.execute("BEGIN IMMEDIATE")

        def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
            if exc is None:
                try:
                    self.db.execute("COMMIT")
                    return
                except sqlite3.Error as err:
                    exc = err
            self.db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.IntegrityError):
                raise StoreError(f"{self.path}: that callId is already stored") from None
            if isinstance(exc, sqlite3.Error):
                raise StoreError(
                    f"{self.path}: cannot write the decision store ({exc}); "
                    "check free disk space and permissions"
                ) from None

    def _transaction(self) -> DecisionStore._Tx:
        return DecisionStore._Tx(self._db, self.path)

    # --- reads ---------------------------------------------------------------------

    def pending(self) -> list[ConfirmationRequest]:
        """Undecided requests, oldest first (they come back as parked cards on start)."""
        rows = self._db.execute(
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
        row = self._db.execute(
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
        row = self._db.execute(
            "SELECT integration, tool, args_digest FROM requests WHERE call_id = ?", (call_id,)
        ).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def log(self, limit: int = 50) -> list[LogEntry]:
        """The newest `limit` decisions, oldest first, secrets redacted."""
        rows = self._db.execute(
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

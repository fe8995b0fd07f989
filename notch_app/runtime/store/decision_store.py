"""`DecisionStore`: the SQLite file, written in batches on the writer thread and read on
the event loop's; and `LogEntry`, one row of `notch log`."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

from notch_app.runtime.decision import Decision, Reason
from notch_app.runtime.folders import FolderError, make_data_dir
from notch_app.runtime.presenter import ConfirmationRequest, DecidedBy, Outcome, Scope
from notch_app.runtime.redaction import without
from notch_app.runtime.store.errors import NoOpenRequest, StoreDamaged, StoreError, is_damage
from notch_app.runtime.store.masking import SecretsOf, no_secrets
from notch_app.runtime.store.schema import DB_NAME, prepare
from notch_app.runtime.store.writes import (
    BeforeCommit,
    NewRequest,
    WriteOp,
    decided_call_id,
)


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
    scope: Scope | None = None
    """Which scope approved it: once, session or always (None when nothing ran)."""
    for_model: str = ""
    feedback: str | None = None
    """The person's words with a decline (a revision: "make it shorter")."""
    reason: Reason | None = None
    words: str | None = None
    """The words the decision was given with (typed or said), as heard."""

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
            "scope": self.scope,
            "forModel": self.for_model,
            "feedback": self.feedback,
            "reason": self.reason,
            "words": self.words,
        }


SQLITE_HEADER: Final = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""


class DecisionStore:
    """The SQLite file `<data_dir>/notch.sqlite3`. One instance per running Notch."""

    def __init__(
        self,
        data_dir: Path,
        *,
        before_commit: BeforeCommit | None = None,
        secrets_of: SecretsOf | None = None,
    ) -> None:
        """Open (creating if needed) the store and check it is whole. Raises StoreError
        for any problem (a corrupt file, a newer Notch's store, no permission), naming the
        file and the fix.

        `before_commit` is a seam for tests and benchmarks: a slow or failing disk.
        `secrets_of` tells which argument values never reach the file (see SecretsOf);
        it can also be set later (the running Notch sets it from its catalog).
        """
        self.path = data_dir / DB_NAME
        self.before_commit = before_commit
        self.secrets_of: SecretsOf = secrets_of or no_secrets
        try:
            make_data_dir(data_dir)
            # Arguments may hold secrets: the file is the owner's only (WAL files follow it).
            fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
            os.close(fd)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._read: sqlite3.Connection | None = None
            prepare(self._db, self.path, self.secrets_of)
            # Reads happen on the event loop's thread, writes on the writer thread (WAL
            # lets them overlap); each connection is only ever used by one thread at a time.
            self._read = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._read.execute("PRAGMA busy_timeout=2000")
        except StoreError:
            self._close_quietly()
            raise
        except sqlite3.Error as exc:
            self._close_quietly()
            raise StoreDamaged(
                f"{self.path}: the decision store cannot be opened ({exc}); start "
                "`notch run --reset-store` to move it aside and begin an empty one (its "
                "undecided requests are dropped), or use another --data-dir"
            ) from None
        except FolderError as exc:
            raise StoreError(str(exc)) from None
        except OSError as exc:
            self._close_quietly()
            raise StoreError(
                f"{self.path}: cannot create the decision store ({exc.strerror or exc}); "
                "check the folder's permissions or pass --data-dir"
            ) from None

    def _close_quietly(self) -> None:
        for name in ("_db", "_read"):
            db = getattr(self, name, None)
            if db is not None:
                with contextlib.suppress(sqlite3.Error):
                    db.close()

    def close(self) -> None:
        self._db.close()
        if self._read is not None:
            self._read.close()

    # --- writes ----------------------------------------------------------------------

    def write(self, ops: Sequence[WriteOp]) -> list[StoreError | None]:
        """Apply `ops` in one transaction (one fsync for the batch: group commit), each
        in its own savepoint, so one failing op (a callId already decided, a value the
        file cannot hold) is rolled back alone and the others are committed. Returns one
        entry per op: None when it is durable on disk, else the StoreError. A failure of
        the transaction itself (disk full, I/O error) fails every op and rolls back all.
        Never leaves a transaction open. Safe to call from one writer thread while the
        loop thread reads.
        """
        db = self._db
        if db.in_transaction:  # never build on what an earlier failure left behind
            db.execute("ROLLBACK")
        results: list[StoreError | None] = []
        # Requests refused in this batch: a decision queued behind one must fail too, even
        # if a row with its callId exists (written by someone else).
        refused: set[str] = set()
        try:
            self._check_header()
            db.execute("BEGIN IMMEDIATE")
            for op in ops:
                db.execute("SAVEPOINT op")
                try:
                    decides = decided_call_id(op)
                    if decides is not None and decides in refused:
                        raise NoOpenRequest(decides)
                    op.apply(db, self.secrets_of)
                except Exception as exc:
                    if not db.in_transaction:
                        raise  # SQLite ended the whole transaction (e.g. disk full)
                    db.execute("ROLLBACK TO op")
                    results.append(self._op_error(op, exc))
                    if isinstance(op, NewRequest):
                        refused.add(op.request.call_id)
                else:
                    results.append(None)
                db.execute("RELEASE op")
            if self.before_commit is not None:
                self.before_commit(ops)
            db.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                if db.in_transaction:
                    db.execute("ROLLBACK")
            if not isinstance(exc, Exception):
                raise
            error = (
                StoreDamaged(f"{self.path}: the decision store is damaged ({exc})")
                if is_damage(exc)
                else StoreError(
                    f"{self.path}: cannot write the decision store ({exc}); "
                    "check free disk space and permissions"
                )
            )
            error.__cause__ = exc  # what failed (SQLITE_FULL…), for the words the person reads
            return [error for _ in ops]
        return results

    def _check_header(self) -> None:
        """Raise SQLite's own "not a database" error when the file's first bytes are no
        longer SQLite's header: something overwrote the file while Notch runs. SQLite
        itself may not read page 1 again for a long while (its cache and the WAL serve
        the pages), so without this look a write could succeed on a file no later start
        can open, and the person would learn it only then."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return  # gone or unreadable: SQLite's own write says so
        try:
            header = os.pread(fd, len(SQLITE_HEADER), 0)
        finally:
            os.close(fd)
        if header and header != SQLITE_HEADER:
            raise sqlite3.DatabaseError("file is not a database (its header was overwritten)")

    def _op_error(self, op: WriteOp, exc: Exception) -> StoreError:
        """Why `op` alone was not stored, in words."""
        if isinstance(exc, sqlite3.IntegrityError):
            return StoreError(f"{self.path}: that callId is already stored")
        if isinstance(exc, NoOpenRequest):
            return StoreError(
                f"{self.path}: callId {exc.args[0]!r} has no undecided stored "
                "request, so its decision was not stored"
            )
        call_id = op.request.call_id if isinstance(op, NewRequest) else op.decision.call_id
        if isinstance(exc, UnicodeError):
            why = "it holds text that is not valid Unicode (a lone surrogate)"
        else:
            why = str(exc)
        damaged = StoreDamaged if is_damage(exc) else StoreError
        error = damaged(f"{self.path}: callId {call_id!r} was not stored: {why}")
        error.__cause__ = exc
        return error

    # --- reads ---------------------------------------------------------------------

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of a read query. Raises StoreError (the file named) on any SQLite error."""
        assert self._read is not None
        try:
            return self._read.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            damaged = StoreDamaged if is_damage(exc) else StoreError
            error = damaged(
                f"{self.path}: cannot read the decision store ({exc}); if it is damaged, "
                "start `notch run --reset-store` to move it aside, or use another --data-dir"
            )
            error.__cause__ = exc  # what failed (SQLITE_CORRUPT…), for the words the person reads
            raise error  # noqa: B904 - the cause is set above

    @contextlib.contextmanager
    def _parsing(self) -> Iterator[None]:
        """Turn a stored row that does not parse (edited or damaged by hand) into StoreDamaged."""
        try:
            yield
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreDamaged(
                f"{self.path}: a stored row cannot be read ({exc}); start `notch run "
                "--reset-store` to move the store aside, or use another --data-dir"
            ) from None

    def pending(self) -> list[ConfirmationRequest]:
        """Undecided requests, oldest first (they come back as parked cards on start).
        Their secret values were never stored: those arguments are absent, for the
        person to type again. Raises StoreError."""
        rows = self._rows(
            "SELECT call_id, integration, tool, arguments, context, created_at, expires_at,"
            " reason, withheld FROM requests WHERE decided = 0 ORDER BY created_at, rowid"
        )
        with self._parsing():
            return [
                ConfirmationRequest(
                    call_id=r[0],
                    integration_id=r[1],
                    tool_name=r[2],
                    arguments=without(json.loads(r[3]), json.loads(r[8] or "[]")),
                    context=json.loads(r[4]),
                    created_at=r[5],
                    expires_at=r[6],
                    parked=True,
                    reason=r[7],
                )
                for r in rows
            ]

    def decision(self, call_id: str) -> Decision | None:
        """The stored decision for `call_id`, or None. Its arguments hold REDACTED where
        a secret was (listed in `secrets_withheld`); its digest is the one the live
        decision carried, secrets keyed with a salt that was never stored.
        Raises StoreError."""
        rows = self._rows(
            "SELECT d.outcome, d.integration, d.tool, r.final_arguments, d.edited_paths,"
            " d.digest, d.decided_by, d.decided_at, d.message, r.withheld, d.scope,"
            " d.for_model, d.feedback, d.reason, d.words FROM decisions d"
            " LEFT JOIN requests r ON r.call_id = d.call_id WHERE d.call_id = ?",
            (call_id,),
        )
        if not rows:
            return None
        row = rows[0]
        with self._parsing():
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
                secrets_withheld=tuple(json.loads(row[9])) if row[3] is not None and row[9] else (),
                scope=cast("Scope | None", row[10]),
                for_model=row[11] or "",
                feedback=row[12],
                reason=cast("Reason | None", row[13]),
                words=row[14],
            )

    def request_digest(self, call_id: str) -> tuple[str, str, str] | None:
        """(integration, tool, digest of its arguments as stored: secret values masked)
        of a stored request, or None. Raises StoreError."""
        rows = self._rows(
            "SELECT integration, tool, args_digest FROM requests WHERE call_id = ?", (call_id,)
        )
        return None if not rows else (rows[0][0], rows[0][1], rows[0][2])

    def request_owner(self, call_id: str) -> str | None:
        """The token hash of the stored request `call_id`'s asker; None when there is no
        such request or the app itself asked. Raises StoreError."""
        rows = self._rows("SELECT owner FROM requests WHERE call_id = ?", (call_id,))
        return None if not rows else cast("str | None", rows[0][0])

    def log(self, limit: int = 50) -> list[LogEntry]:
        """The newest `limit` decisions, oldest first, secrets redacted. Raises StoreError."""
        rows = self._rows(
            "SELECT call_id, integration, tool, outcome, logged_arguments, edited_paths,"
            " decided_by, decided_at, message, context, scope, for_model, feedback, reason,"
            " words FROM decisions"
            " ORDER BY decided_at DESC, rowid DESC LIMIT ?",
            (max(0, limit),),
        )
        with self._parsing():
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
                    scope=cast("Scope | None", r[10]),
                    for_model=r[11] or "",
                    feedback=r[12],
                    reason=cast("Reason | None", r[13]),
                    words=r[14],
                )
                for r in reversed(rows)
            ]

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
is sent. A request's card is shown while its row is being written; a decision for it is
stored only together with or after that row (the decision op refuses a callId without an
undecided stored request), so a request whose write failed can never be decided.

Secret values (passwordField, `format: password`, `writeOnly`) never reach the file: both
tables hold `REDACTED` in their place; the paths withheld are kept, so a decision read
back says its secrets must be asked for again. Nor can they be found again from a digest
(a PIN's million values are tried in a second): a request's digest is of its arguments as
stored (secrets masked), and a decision's covers each secret keyed with a salt that only
the live decision carried (decision.py). Digests are RFC 8785; the stored JSON is plain
JSON that reads back to the same Python values.

Each request row keeps the SHA-256 of its asker's token (`owner`, see ownership.py),
never the token: after a restart only the asker can still await, read or withdraw it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

from notch_app.manifest.tool_facts import ToolFacts
from notch_app.runtime.decision import Decision, Reason, arguments_digest
from notch_app.runtime.folders import FolderError, make_data_dir
from notch_app.runtime.folders import default_data_dir as default_data_dir
from notch_app.runtime.presenter import ConfirmationRequest, DecidedBy, Outcome, Scope
from notch_app.runtime.redaction import REDACTED, redact, redact_paths, without

SCHEMA_VERSION: Final = 7
"""2 added `withheld` (secret values never stored); 3 added `owner` (the asker's token
hash); 4 added the decision's `scope`, its sentence for the model and the person's words;
5 added the decline's `reason` and the `words` a decision was given with; 6 keeps no
digest over a secret value that could be brute-forced (older ones are masked at open)."""
DB_NAME: Final = "notch.sqlite3"
ASIDE_SUFFIX: Final = ".broken-"
"""`--reset-store` moves a store that cannot be opened to `notch.sqlite3.broken-<time>`."""

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
    final_arguments TEXT,
    withheld TEXT,
    owner TEXT
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
    context TEXT NOT NULL,
    scope TEXT,
    for_model TEXT,
    feedback TEXT,
    reason TEXT,
    words TEXT
);
CREATE INDEX IF NOT EXISTS decisions_time ON decisions(decided_at);
"""


class StoreError(Exception):
    """The store cannot be opened or written; the message names the file and the fix."""


class StoreDamaged(StoreError):
    """SQLite cannot read the file (corrupt, not a database): `--reset-store` moves it aside."""


_DAMAGED_CODES: Final = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB


def is_damage(exc: BaseException | None) -> bool:
    """True when `exc` (an SQLite error) says the file itself is damaged: corrupt pages or
    not a database. Such a store will not heal by trying again, unlike a full disk."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return (code & 0xFF) in _DAMAGED_CODES
    said = str(exc).lower()
    return "malformed" in said or "not a database" in said


class _NoOpenRequest(Exception):
    """A decision for a callId whose request is not stored, or already decided."""


BeforeCommit = Callable[[Sequence["WriteOp"]], None]
"""Called on the writer thread with a batch's ops, after they are applied and before the
COMMIT. Raising sqlite3.Error rolls the whole batch back (as a failing disk would)."""

SecretsOf = Callable[[str, str], ToolFacts | None]
"""(integration id, tool name) → the tool's facts, which say which argument values are
secret (`ToolFacts.secrets_in`); None when that tool is not installed (so which values
are secret is unknown)."""


def _no_secrets(_integration: str, _tool: str) -> ToolFacts | None:
    return None


def _to_json(value: Any) -> str:
    # Plain JSON (1250.0 stays a float when read back); never NaN, which is not JSON.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


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


def _kept(arguments: dict[str, Any], secrets: ToolFacts | None) -> tuple[str, str]:
    """(JSON of `arguments` with secret values REDACTED, JSON list of the paths withheld)."""
    shown, withheld = _masked(arguments, secrets)
    return _to_json(shown), _to_json(list(withheld))


def _masked(
    arguments: dict[str, Any], secrets: ToolFacts | None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """(`arguments` with secret values REDACTED, the paths withheld)."""
    withheld = secrets.secrets_in(arguments) if secrets is not None else ()
    return (redact_paths(arguments, withheld) if withheld else arguments), withheld


def _insert_request(
    db: sqlite3.Connection,
    request: ConfirmationRequest,
    secrets: ToolFacts | None,
    owner: str | None,
) -> None:
    shown, hidden = _masked(request.arguments, secrets)
    db.execute(
        "INSERT INTO requests (call_id, integration, tool, arguments, args_digest,"
        " context, created_at, expires_at, reason, withheld, owner)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            request.call_id,
            request.integration_id,
            request.tool_name,
            _to_json(shown),
            # Of what is stored: how a repeated callId is told apart, never a way back to
            # a secret (the service compares repeats the same way: secrets masked).
            arguments_digest(shown),
            _to_json(request.context),
            request.created_at,
            request.expires_at,
            request.reason,
            _to_json(list(hidden)),
            owner,
        ),
    )


@dataclass(frozen=True, slots=True)
class NewDecision:
    """Record `decision` (once per callId, ever). `logged_arguments` are the redacted copy
    for the log; the real final arguments go to the requests table only. `request` is
    set for a decision made without an open request (the policy's autoApproved/blocked),
    with `owner`, the hash of its asker's token (None when the app itself asked)."""

    decision: Decision
    logged_arguments: dict[str, Any] | None
    context: Mapping[str, Any]
    request: ConfirmationRequest | None = None
    owner: str | None = None

    def apply(self, db: sqlite3.Connection, secrets: SecretsOf) -> None:
        d = self.decision
        hidden = secrets(d.integration_id, d.tool_name)
        if self.request is not None:
            _insert_request(db, self.request, hidden, self.owner)
        final, withheld = (None, "[]") if d.arguments is None else _kept(d.arguments, hidden)
        # The request row must already be stored (earlier in this batch or before) and
        # undecided: a card is shown while its request is still being written, and a
        # request whose write failed must never end with a stored decision.
        marked = db.execute(
            "UPDATE requests SET decided = 1, final_arguments = ?, withheld = ?"
            " WHERE call_id = ? AND decided = 0",
            (final, withheld, d.call_id),
        )
        if marked.rowcount != 1:
            raise _NoOpenRequest(d.call_id)
        db.execute(
            "INSERT INTO decisions (call_id, integration, tool, outcome, logged_arguments,"
            " digest, edited_paths, decided_by, decided_at, message, context, scope,"
            " for_model, feedback, reason, words) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                d.call_id,
                d.integration_id,
                d.tool_name,
                d.outcome,
                None
                if self.logged_arguments is None
                else _to_json(
                    self.logged_arguments
                    if hidden is None
                    else redact(self.logged_arguments, hidden)
                ),
                d.digest,
                _to_json(list(d.edited_paths)),
                d.decided_by,
                d.decided_at,
                d.message,
                _to_json(dict(self.context)),
                d.scope,
                d.for_model,
                d.feedback,
                d.reason,
                d.words,
            ),
        )


@dataclass(frozen=True, slots=True)
class NewRequest:
    """Store a pending request, and with it the decision ending the one it supersedes.
    `owner` is the hash of its asker's token (None when the app itself asked)."""

    request: ConfirmationRequest
    superseded: NewDecision | None = None
    owner: str | None = None

    def apply(self, db: sqlite3.Connection, secrets: SecretsOf) -> None:
        r = self.request
        _insert_request(db, r, secrets(r.integration_id, r.tool_name), self.owner)
        if self.superseded is not None:
            self.superseded.apply(db, secrets)


WriteOp = NewRequest | NewDecision


def _decided_call_id(op: WriteOp) -> str | None:
    """The callId of the stored request that `op` decides, if any."""
    if isinstance(op, NewDecision):
        return op.decision.call_id
    return None if op.superseded is None else op.superseded.decision.call_id


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
        self.secrets_of: SecretsOf = secrets_of or _no_secrets
        try:
            make_data_dir(data_dir)
            # Arguments may hold secrets: the file is the owner's only (WAL files follow it).
            fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
            os.close(fd)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._read: sqlite3.Connection | None = None
            self._open()
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

    def _open(self) -> None:
        db = self._db
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA busy_timeout=2000")
        # A damaged page must stop Notch at start with a clear message, not surface
        # later as a lost decision (quick_check reads every page: ~30 ms for 15 MB).
        problems = [row[0] for row in db.execute("PRAGMA quick_check(3)").fetchall()]
        if problems != ["ok"]:
            raise sqlite3.DatabaseError("damaged: " + "; ".join(map(str, problems)))
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: written by a newer Notch (store version {version}); "
                "upgrade Notch or use another --data-dir"
            )
        # Content a write replaces or deletes is zeroed, not left in free space.
        db.execute("PRAGMA secure_delete=ON")
        scrub = self.secrets_of is not _no_secrets
        if version == SCHEMA_VERSION and not (
            scrub and db.execute("SELECT 1 FROM requests WHERE withheld IS NULL LIMIT 1").fetchone()
        ):
            return  # nothing to create, upgrade or scrub: no write (and no fsync) at open
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            columns = {row[1] for row in db.execute("PRAGMA table_info(requests)")}
            if "withheld" not in columns:
                # Store version 1 kept secret values in clear; its rows get NULL here, "not
                # scrubbed yet", until a start that knows the tools' secrets scrubs them.
                db.execute("ALTER TABLE requests ADD COLUMN withheld TEXT")
            if "owner" not in columns:
                # Requests stored before tokens have no owner: only the app can act on them.
                db.execute("ALTER TABLE requests ADD COLUMN owner TEXT")
            decided = {row[1] for row in db.execute("PRAGMA table_info(decisions)")}
            for added in ("scope", "for_model", "feedback", "reason", "words"):
                if added not in decided:
                    # Decisions stored before scopes: read back with none, and a sentence
                    # for the model made again from the decision.
                    db.execute(f"ALTER TABLE decisions ADD COLUMN {added} TEXT")
            db.execute(
                "CREATE INDEX IF NOT EXISTS requests_unscrubbed ON requests(call_id)"
                " WHERE withheld IS NULL"
            )
            if version < 7:
                # Rows stored before the one rule for secrets (tool_facts.py: through $ref,
                # array items and combinators, secret-sounding names) are scrubbed again.
                db.execute("UPDATE requests SET withheld = NULL")
            scrubbed = self._forget_secrets() if scrub else 0
            if version < 6:
                self._mask_digests()  # every row an older Notch wrote
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise
        if scrubbed or version < 7:  # scrubbed or masked pages over the old ones, WAL empty
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _mask_digests(self, call_ids: Sequence[str] | None = None) -> None:
        """Digests an older Notch kept of real secret values (SHA-256 of the arguments, PIN
        and all: its few digits could be found again by hashing every value beside the
        masked arguments) are replaced: a request's by the digest of what is stored of it,
        a decision's by none (its replay asks for the secrets again anyway). Only rows whose
        stored arguments hold REDACTED (of `call_ids`, when given). Inside `_open`'s
        transaction."""
        marked = f"%{REDACTED}%"
        rows = self._db.execute(
            "SELECT call_id, arguments, args_digest, final_arguments FROM requests"
            " WHERE arguments LIKE ? OR final_arguments LIKE ?",
            (marked, marked),
        ).fetchall()
        wanted = None if call_ids is None else set(call_ids)
        for call_id, arguments, had, final in rows:
            if wanted is not None and call_id not in wanted:
                continue
            masked = arguments_digest(json.loads(arguments))
            if masked != had:
                self._db.execute(
                    "UPDATE requests SET args_digest = ? WHERE call_id = ?", (masked, call_id)
                )
            if final is not None and REDACTED in final:
                self._db.execute("UPDATE decisions SET digest = NULL WHERE call_id = ?", (call_id,))

    def _forget_secrets(self) -> int:
        """Replace every secret value an older Notch stored in clear with REDACTED, as
        `secrets_of` knows the tools now; rows of tools not installed wait for a later
        start. Returns how many rows changed. Inside `_open`'s transaction."""
        rows = self._db.execute(
            "SELECT rowid, integration, tool, arguments, final_arguments, decided, call_id"
            " FROM requests WHERE withheld IS NULL"
        ).fetchall()
        changed: list[str] = []
        for rowid, integration, tool, arguments, final, decided, call_id in rows:
            secrets = self.secrets_of(integration, tool)
            if secrets is None:
                continue  # not installed now: scrubbed by a start that knows it
            kept_arguments, withheld = _kept(json.loads(arguments), secrets)
            kept_final = None
            if final is not None:
                kept_final, final_withheld = _kept(json.loads(final), secrets)
                withheld = final_withheld if decided else withheld
            self._db.execute(
                "UPDATE requests SET arguments = ?, final_arguments = ?, withheld = ?"
                " WHERE rowid = ?",
                (kept_arguments, kept_final, withheld, rowid),
            )
            logged = self._db.execute(
                "SELECT logged_arguments FROM decisions WHERE call_id = ?", (call_id,)
            ).fetchone()
            if logged is not None and logged[0] is not None:
                kept_logged, _ = _kept(json.loads(logged[0]), secrets)
                if kept_logged != logged[0]:
                    self._db.execute(
                        "UPDATE decisions SET logged_arguments = ? WHERE call_id = ?",
                        (kept_logged, call_id),
                    )
            changed.append(call_id)
        if changed:
            self._mask_digests(changed)
        return len(changed)

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
            db.execute("BEGIN IMMEDIATE")
            for op in ops:
                db.execute("SAVEPOINT op")
                try:
                    decides = _decided_call_id(op)
                    if decides is not None and decides in refused:
                        raise _NoOpenRequest(decides)
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

    def _op_error(self, op: WriteOp, exc: Exception) -> StoreError:
        """Why `op` alone was not stored, in words."""
        if isinstance(exc, sqlite3.IntegrityError):
            return StoreError(f"{self.path}: that callId is already stored")
        if isinstance(exc, _NoOpenRequest):
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


def move_aside(data_dir: Path, clock: Callable[[], float] = time.time) -> Path | None:
    """Move the store in `data_dir` (and its -wal/-shm files) to
    `notch.sqlite3.broken-<YYYYmmdd-HHMMSS>` so the next start makes a new, empty one.
    Returns the new name, or None when there was no store. Raises StoreError if it
    cannot be moved. Only for `notch run --reset-store`: the person asked for it."""
    path = data_dir / DB_NAME
    if not path.exists():
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(clock()))
    aside = path.with_name(f"{DB_NAME}{ASIDE_SUFFIX}{stamp}")
    try:
        for suffix in ("-wal", "-shm"):
            extra = path.with_name(DB_NAME + suffix)
            if extra.exists():
                os.replace(extra, aside.with_name(aside.name + suffix))
        os.replace(path, aside)
    except OSError as exc:
        raise StoreError(
            f"{path}: cannot move the decision store aside ({exc.strerror}); move it yourself"
        ) from None
    return aside


def reset_if_broken(data_dir: Path) -> Path | None:
    """For `--reset-store`: if the store in `data_dir` cannot be opened, move it aside and
    return where it went; a store that opens is left alone (None). Raises StoreError when
    the fault is not a damaged file (the folder is unsafe, a newer Notch's store) or it
    cannot be moved."""
    try:
        store = DecisionStore(data_dir)
        try:
            store.pending()  # what a start reads first: rows must parse too
        finally:
            store.close()
    except StoreDamaged:
        aside = move_aside(data_dir)
        DecisionStore(data_dir).close()  # the new, empty one must open, or say why
        return aside
    return None

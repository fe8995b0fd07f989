"""The file's tables and what opening it does: check every page, refuse a newer Notch's
store, create or upgrade the tables, and scrub what an older Notch kept of secrets."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from notch_app.runtime.decision import arguments_digest
from notch_app.runtime.redaction import REDACTED
from notch_app.runtime.store.errors import StoreError
from notch_app.runtime.store.masking import SecretsOf, kept, no_secrets

SCHEMA_VERSION: Final = 7
"""2 added `withheld` (secret values never stored); 3 added `owner` (the asker's token
hash); 4 added the decision's `scope`, its sentence for the model and the person's words;
5 added the decline's `reason` and the `words` a decision was given with; 6 keeps no
digest over a secret value that could be brute-forced (older ones are masked at open)."""
DB_NAME: Final = "notch.sqlite3"


SCHEMA = """
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


def prepare(db: sqlite3.Connection, path: Path, secrets_of: SecretsOf) -> None:
    """Check the file is whole and of a version this Notch reads; create, upgrade and
    scrub its tables where needed (no write at all when nothing is). Raises StoreError
    for a newer Notch's store, sqlite3.Error for a damaged one."""
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
            f"{path}: written by a newer Notch (store version {version}); "
            "upgrade Notch or use another --data-dir"
        )
    # Content a write replaces or deletes is zeroed, not left in free space.
    db.execute("PRAGMA secure_delete=ON")
    scrub = secrets_of is not no_secrets
    if version == SCHEMA_VERSION and not (
        scrub and db.execute("SELECT 1 FROM requests WHERE withheld IS NULL LIMIT 1").fetchone()
    ):
        return  # nothing to create, upgrade or scrub: no write (and no fsync) at open
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in SCHEMA.split(";"):
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
        scrubbed = forget_secrets(db, secrets_of) if scrub else 0
        if version < 6:
            mask_digests(db)  # every row an older Notch wrote
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
    if scrubbed or version < 7:  # scrubbed or masked pages over the old ones, WAL empty
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def mask_digests(db: sqlite3.Connection, call_ids: Sequence[str] | None = None) -> None:
    """Digests an older Notch kept of real secret values (SHA-256 of the arguments, PIN
    and all: its few digits could be found again by hashing every value beside the
    masked arguments) are replaced: a request's by the digest of what is stored of it,
    a decision's by none (its replay asks for the secrets again anyway). Only rows whose
    stored arguments hold REDACTED (of `call_ids`, when given). Inside `prepare`'s
    transaction."""
    marked = f"%{REDACTED}%"
    rows = db.execute(
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
            db.execute("UPDATE requests SET args_digest = ? WHERE call_id = ?", (masked, call_id))
        if final is not None and REDACTED in final:
            db.execute("UPDATE decisions SET digest = NULL WHERE call_id = ?", (call_id,))


def forget_secrets(db: sqlite3.Connection, secrets_of: SecretsOf) -> int:
    """Replace every secret value an older Notch stored in clear with REDACTED, as
    `secrets_of` knows the tools now; rows of tools not installed wait for a later
    start. Returns how many rows changed. Inside `_open`'s transaction."""
    rows = db.execute(
        "SELECT rowid, integration, tool, arguments, final_arguments, decided, call_id"
        " FROM requests WHERE withheld IS NULL"
    ).fetchall()
    changed: list[str] = []
    for rowid, integration, tool, arguments, final, decided, call_id in rows:
        secrets = secrets_of(integration, tool)
        if secrets is None:
            continue  # not installed now: scrubbed by a start that knows it
        kept_arguments, withheld = kept(json.loads(arguments), secrets)
        kept_final = None
        if final is not None:
            kept_final, final_withheld = kept(json.loads(final), secrets)
            withheld = final_withheld if decided else withheld
        db.execute(
            "UPDATE requests SET arguments = ?, final_arguments = ?, withheld = ? WHERE rowid = ?",
            (kept_arguments, kept_final, withheld, rowid),
        )
        logged = db.execute(
            "SELECT logged_arguments FROM decisions WHERE call_id = ?", (call_id,)
        ).fetchone()
        if logged is not None and logged[0] is not None:
            kept_logged, _ = kept(json.loads(logged[0]), secrets)
            if kept_logged != logged[0]:
                db.execute(
                    "UPDATE decisions SET logged_arguments = ? WHERE call_id = ?",
                    (kept_logged, call_id),
                )
        changed.append(call_id)
    if changed:
        mask_digests(db, changed)
    return len(changed)

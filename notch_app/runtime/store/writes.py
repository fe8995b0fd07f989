"""The writes a batch is made of: a new request, a decision (with the request it ends, for
one made without a card), each applied inside the batch's transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from notch_app.runtime.decision import Decision, arguments_digest
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.redaction import redact
from notch_app.runtime.store.errors import NoOpenRequest
from notch_app.runtime.store.masking import SecretsOf, kept, masked, to_json

if TYPE_CHECKING:  # the facts load pydantic and jsonschema; `notch log` reads without them
    from notch_app.manifest.facts import ToolFacts

BeforeCommit = Callable[[Sequence["WriteOp"]], None]
"""Called on the writer thread with a batch's ops, after they are applied and before the
COMMIT. Raising sqlite3.Error rolls the whole batch back (as a failing disk would)."""


def insert_request(
    db: sqlite3.Connection,
    request: ConfirmationRequest,
    secrets: ToolFacts | None,
    owner: str | None,
) -> None:
    shown, hidden = masked(request.arguments, secrets)
    db.execute(
        "INSERT INTO requests (call_id, integration, tool, arguments, args_digest,"
        " context, created_at, expires_at, reason, withheld, owner)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            request.call_id,
            request.integration_id,
            request.tool_name,
            to_json(shown),
            # Of what is stored: how a repeated callId is told apart, never a way back to
            # a secret (the service compares repeats the same way: secrets masked).
            arguments_digest(shown),
            to_json(request.context),
            request.created_at,
            request.expires_at,
            request.reason,
            to_json(list(hidden)),
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
            insert_request(db, self.request, hidden, self.owner)
        final, withheld = (None, "[]") if d.arguments is None else kept(d.arguments, hidden)
        # The request row must already be stored (earlier in this batch or before) and
        # undecided: a card is shown while its request is still being written, and a
        # request whose write failed must never end with a stored decision.
        marked = db.execute(
            "UPDATE requests SET decided = 1, final_arguments = ?, withheld = ?"
            " WHERE call_id = ? AND decided = 0",
            (final, withheld, d.call_id),
        )
        if marked.rowcount != 1:
            raise NoOpenRequest(d.call_id)
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
                else to_json(
                    self.logged_arguments
                    if hidden is None
                    else redact(self.logged_arguments, hidden)
                ),
                d.digest,
                to_json(list(d.edited_paths)),
                d.decided_by,
                d.decided_at,
                d.message,
                to_json(dict(self.context)),
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
        insert_request(db, r, secrets(r.integration_id, r.tool_name), self.owner)
        if self.superseded is not None:
            self.superseded.apply(db, secrets)


WriteOp = NewRequest | NewDecision


def decided_call_id(op: WriteOp) -> str | None:
    """The callId of the stored request that `op` decides, if any."""
    if isinstance(op, NewDecision):
        return op.decision.call_id
    return None if op.superseded is None else op.superseded.decision.call_id

"""One bad write never costs another request its approval (issue 9, finding 4).

A request whose `context` held a lone surrogate was answered `pending`, its store write
raised UnicodeEncodeError outside the savepoint handling and left the transaction open;
the person's next approval then failed with "cannot start a transaction within a
transaction" and the approved request stayed pending. Every op now runs in a savepoint
that rolls back on any error, and no failure leaves a transaction open.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient
from notch_app.runtime.decision import Decision, arguments_digest
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.store import DecisionStore, NewDecision, NewRequest, StoreError, WriteOp

MAIL = "com.example.mail"
POISON = {"note": "half a pair: \ud800"}  # a lone surrogate: no file can hold it as UTF-8


def request(call_id: str, context: dict[str, Any] | None = None) -> ConfirmationRequest:
    return ConfirmationRequest(
        call_id, MAIL, "send_email", {"to": f"{call_id}@example.com"}, context or {}, 1.0
    )


def approval(call_id: str) -> NewDecision:
    arguments = {"to": f"{call_id}@example.com"}
    decision = Decision(
        call_id, "approved", MAIL, "send_email", arguments, (), arguments_digest(arguments),
        "click", 2.0,
    )  # fmt: skip
    return NewDecision(decision, arguments, {})


@pytest.fixture
def store(tmp_path: Path) -> Any:
    opened = DecisionStore(tmp_path / "data")
    yield opened
    opened.close()


def test_a_request_the_file_cannot_hold_fails_alone_in_its_batch(store: DecisionStore) -> None:
    results = store.write([NewRequest(request("a")), NewRequest(request("bad", POISON)),
                           NewRequest(request("b"))])  # fmt: skip
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], StoreError)
    assert "'bad' was not stored" in str(results[1]) and "lone surrogate" in str(results[1])
    # The next batch (the person's approvals) commits: nothing was left open.
    assert store.write([approval("a"), approval("b")]) == [None, None]
    assert [r.call_id for r in store.pending()] == []
    a = store.decision("a")
    assert a is not None and a.outcome == "approved"
    assert store.decision("bad") is None and store.request_digest("bad") is None


def test_the_poison_alone_in_a_batch_leaves_no_transaction_open(store: DecisionStore) -> None:
    failed = store.write([NewRequest(request("bad", POISON))])
    assert isinstance(failed[0], StoreError)
    assert store.write([NewRequest(request("a"))]) == [None]
    assert store.write([approval("a")]) == [None]
    # A decision queued behind the refused request is refused too (no row to decide).
    again = store.write([NewRequest(request("bad2", POISON)), approval("bad2")])
    assert all(isinstance(e, StoreError) for e in again)


def test_an_sqlite_error_inside_one_op_rolls_back_that_op_only(tmp_path: Path) -> None:
    class Faulty(DecisionStore):
        """A store whose file refuses one callId with an error SQLite reports mid-op."""

        def __init__(self, data_dir: Path) -> None:
            super().__init__(data_dir)
            self._db.create_function("fault", 0, self._fault)
            self._db.execute(
                "CREATE TEMP TRIGGER fault BEFORE INSERT ON requests"
                " WHEN NEW.call_id = 'bad' BEGIN SELECT fault(); END"
            )

        @staticmethod
        def _fault() -> None:
            raise ValueError("the disk said no")

    store = Faulty(tmp_path / "data")
    try:
        results = store.write([NewRequest(request("a")), NewRequest(request("bad")),
                               NewRequest(request("b"))])  # fmt: skip
        assert results[0] is None and results[2] is None and isinstance(results[1], StoreError)
        assert store.write([approval("a"), approval("b")]) == [None, None]
    finally:
        store.close()


@pytest.mark.parametrize("fault", [sqlite3.OperationalError("disk I/O error"), RuntimeError("x")])
def test_a_failed_commit_fails_the_batch_and_the_next_batch_commits(
    tmp_path: Path, fault: Exception
) -> None:
    armed = [True]

    def disk(_ops: Sequence[WriteOp]) -> None:
        if armed[0]:
            armed[0] = False
            raise fault

    store = DecisionStore(tmp_path / "data", before_commit=disk)
    try:
        failed = store.write([NewRequest(request("a")), NewRequest(request("b"))])
        assert all(isinstance(e, StoreError) for e in failed)
        assert store.pending() == []  # nothing of the failed batch reached the file
        assert store.write([NewRequest(request("a"))]) == [None]
        assert store.write([approval("a")]) == [None]
    finally:
        store.close()


async def raw_request(path: Path, params: dict[str, Any]) -> dict[str, Any]:
    """confirm.request as any client could send it, escapes and all, without waiting."""
    reader, writer = await asyncio.open_unix_connection(str(path))
    try:
        line = {"jsonrpc": "2.0", "id": 1, "method": "confirm.request",
                "params": {**params, "wait": False}}  # fmt: skip
        writer.write(json.dumps(line).encode() + b"\n")  # "\ud800" travels as an escape
        await writer.drain()
        reply: dict[str, Any] = json.loads(await asyncio.wait_for(reader.readline(), 5))
        return reply
    finally:
        writer.close()


@pytest.mark.asyncio
async def test_a_poisoned_request_never_costs_another_its_approval(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        poisoned = await raw_request(notch.server.path, {
            "callId": "poison", "integration": MAIL, "tool": "send_email",
            "arguments": {"to": "eve@example.com"}, "context": POISON,
        })  # fmt: skip
        # Refused at once, or taken and then failed: either way it is not left pending.
        assert "error" in poisoned or poisoned["result"]["status"] == "pending"
        async with AsyncNotchClient(notch.server.path) as client:
            asked = asyncio.ensure_future(
                client.confirm(MAIL, "send_email", {"to": "sam@example.com"}, call_id="good")
            )
            shown = await cards.wait_for_cards(1)
            assert [r.call_id for r in shown] == ["good"]
            cards.approve("good")
            decision = await asyncio.wait_for(asked, 5)
        assert decision.outcome == "approved"
        assert decision.digest == arguments_digest({"to": "sam@example.com"})
        stored = notch.service.store.decision("good")
        assert stored is not None and stored.outcome == "approved"
        assert "good" not in [r.call_id for r in notch.service.store.pending()]

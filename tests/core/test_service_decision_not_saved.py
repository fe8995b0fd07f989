"""A decision that can't be stored isn't lost (issue 9, finding 5).

With the disk full, the person's yes (or no) cannot be committed. The agent must hear
nothing until a decision is durable, the request must stay open with its card, the card
must be told why in plain words, and the person's retry is stored once and sent once.
The faults come through the real DecisionStore: its `before_commit` seam raising what
SQLite raises for a full disk, or a store whose commit lands although it reports failing.
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.decision import Decision
from notch_app.runtime.scripted import ScriptedPresenter
from notch_app.runtime.service import ConfirmationService, ToolCall
from notch_app.runtime.store import DecisionStore, NewDecision, StoreError, WriteOp
from notch_app.runtime.write_behind import why_not_stored

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


class FullDisk:
    """The `before_commit` seam: while `full`, a batch holding a decision fails as SQLite
    fails on a full disk (the whole transaction rolls back)."""

    def __init__(self) -> None:
        self.full = False
        self.failed: list[str] = []
        self.refused = threading.Event()

    def __call__(self, ops: Sequence[WriteOp]) -> None:
        decisions = [op.decision for op in ops if isinstance(op, NewDecision)]
        if self.full and decisions:
            self.failed.extend(f"{d.call_id} {d.outcome}" for d in decisions)
            self.refused.set()
            raise sqlite3.OperationalError("database or disk is full")


@pytest.fixture
def data_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="notch-ns") as name:
        yield Path(name)


@asynccontextmanager
async def service_on(
    store: DecisionStore, catalog: Catalog
) -> AsyncIterator[tuple[ConfirmationService, ScriptedPresenter]]:
    service = ConfirmationService(catalog, store)
    cards = ScriptedPresenter(service)
    service.set_presenter(cards)
    await service.start()
    try:
        yield service, cards
    finally:
        service.close()


def heard_by(events: list[tuple[str, dict[str, Any]]]) -> Any:
    def listener(call_id: str, event: str, data: dict[str, Any]) -> None:
        events.append((event, data))

    return listener


def decided(events: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [data["outcome"] for event, data in events if event == "decided"]


@pytest.mark.asyncio
async def test_an_approval_the_full_disk_refuses_is_not_sent_and_a_retry_is_stored_once(
    data_dir: Path, mail_catalog: Catalog, loop_turns: Any
) -> None:
    disk = FullDisk()
    events: list[tuple[str, dict[str, Any]]] = []
    async with service_on(DecisionStore(data_dir, before_commit=disk), mail_catalog) as (
        service,
        cards,
    ):
        future = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}), heard_by(events))
        await service.drain()
        disk.full = True
        cards.approve("c1", {"to": "ann@example.com"}, ["to"])
        await service.drain()
        await loop_turns()

        assert disk.failed == ["c1 approved"]
        assert not future.done(), "the agent heard an approval that is not stored"
        assert decided(events) == []
        assert [r.call_id for r in service.open_requests] == ["c1"]
        # The card is told why, in the person's words, and is back to be decided again.
        assert cards.not_saved == [("c1", "the disk is full")]
        assert cards.saved == [] and list(cards.cards) == ["c1"]
        assert service.store.decision("c1") is None
        assert [r.call_id for r in service.store.pending()] == ["c1"]

        # Space is freed; the person presses Send again.
        disk.full = False
        cards.approve("c1", {"to": "ann@example.com"}, ["to"])
        decision = await asyncio.wait_for(future, 5)
        await loop_turns()
        assert (decision.outcome, decision.arguments) == ("approved", {"to": "ann@example.com"})
        assert decided(events) == ["approved"]
        assert cards.saved == [("c1", "approved")]
        assert [e.call_id for e in service.store.log()] == ["c1"]
        assert service.open_requests == [] and service.store.pending() == []


@pytest.mark.asyncio
async def test_a_decline_the_full_disk_refuses_says_so_too_and_can_be_given_again(
    data_dir: Path, mail_catalog: Catalog, loop_turns: Any
) -> None:
    disk = FullDisk()
    events: list[tuple[str, dict[str, Any]]] = []
    async with service_on(DecisionStore(data_dir, before_commit=disk), mail_catalog) as (
        service,
        cards,
    ):
        future = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}), heard_by(events))
        await service.drain()
        disk.full = True
        cards.approve("c1")
        await service.drain()
        cards.decline("c1")  # after the failed approval, the person says no instead
        await service.drain()
        await loop_turns()
        assert disk.failed == ["c1 approved", "c1 declined"]
        assert cards.not_saved == [("c1", "the disk is full")] * 2
        assert not future.done() and decided(events) == []

        disk.full = False
        cards.decline("c1")
        decision = await asyncio.wait_for(future, 5)
        assert decision.outcome == "declined" and decision.arguments is None
        assert decided(events) == ["declined"]
        assert [(e.call_id, e.outcome) for e in service.store.log()] == [("c1", "declined")]


@pytest.mark.asyncio
async def test_an_agent_waiting_on_the_socket_gets_no_reply_until_the_decision_is_stored(
    base: Path, running_notch: Any, loop_turns: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        disk = FullDisk()
        notch.service.store.before_commit = disk
        async with AsyncNotchClient(notch.server.path) as client:
            asked = asyncio.ensure_future(
                client.confirm(MAIL, "send_email", {"to": "ann"}, call_id="c1")
            )
            await cards.wait_for_cards(1)
            await notch.service.drain()
            disk.full = True
            cards.approve("c1")
            await notch.service.drain()
            # A full round trip on the same socket: a reply already sent would be here now.
            assert await client.integrations()
            await loop_turns()
            assert not asked.done(), "the agent was answered with an undurable decision"
            assert cards.not_saved == [("c1", "the disk is full")]

            disk.full = False
            cards.approve("c1")
            decision = await asyncio.wait_for(asked, 5)
            assert decision.outcome == "approved" and not decision.already_decided
            assert [e.call_id for e in notch.service.store.log()] == ["c1"]


class CommitThenFail(DecisionStore):
    """A disk whose COMMIT reaches the file but reports an error (an fsync that fails after
    the WAL frames were written): the write's outcome is uncertain. `lost_reads` makes the
    next read-backs fail too, as they might on the same sick disk."""

    uncertain_for: str | None = None
    lost_reads = 0

    def write(self, ops: Sequence[WriteOp]) -> list[StoreError | None]:
        results = super().write(ops)
        for i, op in enumerate(ops):
            if isinstance(op, NewDecision) and op.decision.call_id == self.uncertain_for:
                self.uncertain_for = None
                failed = StoreError(
                    f"{self.path}: cannot write the decision store (disk I/O error)"
                )
                failed.__cause__ = sqlite3.OperationalError("disk I/O error")
                results[i] = failed
        return results

    def decision(self, call_id: str) -> Decision | None:
        if self.lost_reads:
            self.lost_reads -= 1
            raise StoreError(f"{self.path}: cannot read the decision store (disk I/O error)")
        return super().decision(call_id)


@pytest.mark.asyncio
async def test_an_approval_stored_although_its_write_failed_is_sent_once_and_never_replaced(
    data_dir: Path, mail_catalog: Catalog, loop_turns: Any
) -> None:
    store = CommitThenFail(data_dir)
    events: list[tuple[str, dict[str, Any]]] = []
    async with service_on(store, mail_catalog) as (service, cards):
        future = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}), heard_by(events))
        await service.drain()
        store.uncertain_for = "c1"
        store.lost_reads = 1  # the read-back right after the failure cannot tell either
        cards.approve("c1", {"to": "ann@example.com"}, ["to"])
        await service.drain()
        await loop_turns()
        # As far as Notch can tell, nothing was stored: the person is told, nothing is sent.
        assert cards.not_saved == [("c1", "the disk reported an error while writing (I/O error)")]
        assert not future.done() and decided(events) == []

        # The person, told it failed, now declines. The store already holds the approval,
        # so the decline is refused, and the approval on disk is what the agent hears:
        # one decision for c1, never a second one, never one that differs from the file.
        cards.decline("c1")
        decision = await asyncio.wait_for(future, 5)
        await loop_turns()
        assert (decision.outcome, decision.arguments) == ("approved", {"to": "ann@example.com"})
        assert decided(events) == ["approved"]
        assert cards.saved == [("c1", "approved")]
        assert [(e.call_id, e.outcome) for e in service.store.log()] == [("c1", "approved")]
        stored = service.store.decision("c1")
        assert stored is not None and stored.digest == decision.digest


@pytest.mark.asyncio
async def test_an_uncertain_write_the_store_can_read_back_is_settled_at_once(
    data_dir: Path, mail_catalog: Catalog
) -> None:
    store = CommitThenFail(data_dir)
    async with service_on(store, mail_catalog) as (service, cards):
        future = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}))
        await service.drain()
        store.uncertain_for = "c1"
        cards.approve("c1")
        decision = await asyncio.wait_for(future, 5)
        assert decision.outcome == "approved"
        assert cards.not_saved == [] and cards.saved == [("c1", "approved")]


@pytest.mark.asyncio
async def test_an_expiry_the_full_disk_refuses_is_retried_later_not_every_loop_turn(
    data_dir: Path, mail_catalog: Catalog, loop_turns: Any
) -> None:
    disk = FullDisk()
    async with service_on(DecisionStore(data_dir, before_commit=disk), mail_catalog) as (
        service,
        cards,
    ):
        disk.full = True
        future = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}, expires_in_ms=1))
        assert await asyncio.to_thread(disk.refused.wait, 5), "the expiry never fired"
        for _ in range(10):
            await service.drain()
            await loop_turns()
        assert disk.failed == ["c1 expired"], "a failed expiry is retried in a tight loop"
        assert not future.done() and list(cards.cards) == ["c1"]


@pytest.mark.parametrize(
    ("cause", "reason"),
    [
        (sqlite3.OperationalError("database or disk is full"), "the disk is full"),
        (sqlite3.OperationalError("attempt to write a readonly database"), "read-only"),
        (sqlite3.OperationalError("disk I/O error"), "I/O error"),
        (OSError(28, "No space left on device"), "the disk is full"),
        (OSError(30, "Read-only file system"), "read-only"),
        (None, "the disk is full"),  # only the store's message, naming SQLite's words
    ],
)
def test_store_failures_are_told_in_plain_words(cause: Exception | None, reason: str) -> None:
    error = StoreError(
        "/x/notch.sqlite3: cannot write the decision store (database or disk is full)"
    )
    error.__cause__ = cause
    assert reason in why_not_stored(error)


def test_an_unknown_store_failure_is_told_in_its_own_words_bounded() -> None:
    error = StoreError("/x/notch.sqlite3: cannot write")
    error.__cause__ = RuntimeError("the writer thread  went\naway " + "x" * 500)
    said = why_not_stored(error)
    assert said.startswith("the writer thread went away x") and len(said) <= 160
    assert "\n" not in said

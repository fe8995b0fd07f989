"""A card is shown while its request is still being committed; decisions stay safe.

The service presents a card in the same loop turn the request arrives and writes the
request row in parallel (group commit on the writer thread). These tests hold or fail
that commit with the real DecisionStore's `before_commit` seam (a slow or broken disk)
and check what the person and the executor would notice.
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from notch_app.runtime.catalog import Catalog
from notch_app.runtime.decision import Decision
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.scripted import ScriptedPresenter
from notch_app.runtime.service import ConfirmationService, ServiceError, ToolCall
from notch_app.runtime.store import DecisionStore, NewDecision, NewRequest, WriteOp

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


class Disk:
    """The `before_commit` seam: holds or fails batches that store a given request."""

    def __init__(self) -> None:
        self.hold_for: str | None = None
        self.fail_for: str | None = None
        self.entered = threading.Event()
        self.release = threading.Event()
        self.batches: list[list[str]] = []

    def __call__(self, ops: Sequence[WriteOp]) -> None:
        names = [_describe(op) for op in ops]
        self.batches.append(names)
        stores = {op.request.call_id for op in ops if isinstance(op, NewRequest)}
        if self.hold_for in stores:
            self.entered.set()
            assert self.release.wait(10), "the test never released the commit"
        if self.fail_for in stores:
            raise sqlite3.OperationalError("disk I/O error")

    async def wait_until_committing(self) -> None:
        assert await asyncio.to_thread(self.entered.wait, 10)


def _describe(op: WriteOp) -> str:
    if isinstance(op, NewRequest):
        return f"request {op.request.call_id}"
    return f"decision {op.decision.call_id} {op.decision.outcome}"


@asynccontextmanager
async def service_on(
    data_dir: Path, disk: Disk, catalog: Catalog
) -> AsyncIterator[tuple[ConfirmationService, ScriptedPresenter]]:
    service = ConfirmationService(catalog, DecisionStore(data_dir, before_commit=disk))
    cards = ScriptedPresenter(service)
    service.set_presenter(cards)
    await service.start()
    try:
        yield service, cards
    finally:
        disk.release.set()
        service.close()


@pytest.fixture
def data_dir() -> Any:
    with tempfile.TemporaryDirectory(prefix="notch-wb") as name:
        yield Path(name)


def heard_by(events: list[str]) -> Any:
    def listener(call_id: str, event: str, data: dict[str, Any]) -> None:
        events.append(event)

    return listener


@pytest.mark.asyncio
async def test_the_card_is_shown_before_the_request_is_committed(
    data_dir: Path, mail_catalog: Catalog
) -> None:
    disk = Disk()
    disk.hold_for = "c1"
    async with service_on(data_dir, disk, mail_catalog) as (service, cards):
        service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}))
        # Same call, no loop turn yet: the card is up, the row is not written.
        assert [r.call_id for r in cards.presented] == ["c1"]
        await disk.wait_until_committing()
        assert service.store.pending() == []
        disk.release.set()
        await service.drain()
        assert [r.call_id for r in service.store.pending()] == ["c1"]


@pytest.mark.asyncio
async def test_a_person_deciding_before_the_commit_is_heard_after_it(
    data_dir: Path, mail_catalog: Catalog, reached: Any, loop_turns: Any
) -> None:
    disk = Disk()
    disk.hold_for = "c1"
    events: list[str] = []
    async with service_on(data_dir, disk, mail_catalog) as (service, cards):
        shown = reached(service, "shown", "c1")
        future = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}), heard_by(events))
        await disk.wait_until_committing()
        await asyncio.wait_for(
            shown.wait(), 5
        )  # the card's "shown" arrives while the row is written
        cards.approve("c1", {"to": "ann@example.com"})
        await loop_turns()
        assert not future.done(), "an approval was sent before anything was stored"
        assert events == [], "the client heard of a request that is not stored yet"

        disk.release.set()
        decision = await asyncio.wait_for(future, 5)
        assert decision.outcome == "approved"
        assert decision.arguments == {"to": "ann@example.com"}
        # The decision went to disk behind its request, never before or without it.
        flat = [name for batch in disk.batches for name in batch]
        assert flat.index("request c1") < flat.index("decision c1 approved")
        stored = service.store.decision("c1")
        assert stored is not None and stored.arguments == {"to": "ann@example.com"}
        assert service.store.pending() == []
        assert events == ["confirmationRequired", "shown", "decided"]


@pytest.mark.asyncio
async def test_a_request_that_cannot_be_stored_loses_its_card_and_is_never_approved(
    data_dir: Path,
    mail_catalog: Catalog,
) -> None:
    disk = Disk()
    disk.hold_for = disk.fail_for = "c1"
    events: list[str] = []
    async with service_on(data_dir, disk, mail_catalog) as (service, cards):
        future = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}), heard_by(events))
        assert "c1" in cards.cards
        await disk.wait_until_committing()
        cards.approve("c1")  # the person is quicker than the failing disk
        disk.release.set()

        with pytest.raises(ServiceError) as failed:
            await asyncio.wait_for(future, 5)
        assert failed.value.kind == "storage"
        assert "disk I/O error" in failed.value.message
        await service.drain()
        assert cards.dismissed == [("c1", "withdrawn")]
        assert service.open_requests == []
        assert events == []
        # The approval was queued behind the request and refused by the store.
        assert any("decision c1 approved" in batch for batch in disk.batches)
        assert service.store.decision("c1") is None
        assert service.store.request_digest("c1") is None
        with pytest.raises(ServiceError) as unknown:
            service.wait("c1")
        assert unknown.value.kind == "unknownCall"

    # Nothing comes back after a restart: it was never acknowledged.
    async with service_on(data_dir, Disk(), mail_catalog) as (service, cards):
        assert cards.presented == [] and service.open_requests == []


@pytest.mark.asyncio
async def test_a_later_request_with_the_same_call_id_works_after_a_failed_write(
    data_dir: Path,
    mail_catalog: Catalog,
    reached: Any,
) -> None:
    disk = Disk()
    disk.fail_for = "c1"
    async with service_on(data_dir, disk, mail_catalog) as (service, cards):
        with pytest.raises(ServiceError):
            await asyncio.wait_for(
                service.submit(ToolCall("c1", MAIL, "send_email", {"to": "a"})), 5
            )
        disk.fail_for = None
        shown = reached(service, "shown", "c1")
        again = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "a"}))
        await asyncio.wait_for(shown.wait(), 5)
        cards.approve("c1")
        decision: Decision = await asyncio.wait_for(again, 5)
        assert decision.outcome == "approved"
        assert [r.call_id for r in cards.presented] == ["c1", "c1"]


@pytest.mark.asyncio
async def test_a_supersede_that_cannot_be_stored_brings_the_old_card_back(
    data_dir: Path, mail_catalog: Catalog
) -> None:
    disk = Disk()
    async with service_on(data_dir, disk, mail_catalog) as (service, cards):
        old = service.submit(ToolCall("old", MAIL, "send_email", {"to": "ann"}))
        await service.drain()
        disk.fail_for = "new"
        new = service.submit(ToolCall("new", MAIL, "send_email", {"to": "bob"}, supersedes="old"))
        assert [(k, r.call_id) for k, r in cards.replaced] == [("old", "new")]
        with pytest.raises(ServiceError):
            await asyncio.wait_for(new, 5)
        assert ("new", "withdrawn") in cards.dismissed
        assert list(cards.cards) == ["old"]
        assert [r.call_id for r in service.open_requests] == ["old"]

        cards.approve("old")
        decision = await asyncio.wait_for(old, 5)
        assert decision.outcome == "approved", "the old request was not superseded"


def test_a_decision_for_a_refused_request_is_refused_in_the_same_batch(data_dir: Path) -> None:
    # Someone else's row already holds the callId: the request op fails, and an approval
    # queued behind it in the same transaction must not be stored against that row.
    store = DecisionStore(data_dir)
    try:
        theirs = ConfirmationRequest("c1", MAIL, "send_email", {"to": "them"})
        assert store.write([NewRequest(theirs)]) == [None]
        mine = ConfirmationRequest("c1", MAIL, "send_email", {"to": "me"})
        approval = Decision(
            "c1", "approved", MAIL, "send_email", {"to": "me"}, (), None, "click", 1
        )
        results = store.write([NewRequest(mine), NewDecision(approval, {"to": "me"}, {})])
        assert [r is not None for r in results] == [True, True]
        assert store.decision("c1") is None
        assert [r.arguments for r in store.pending()] == [{"to": "them"}]
    finally:
        store.close()

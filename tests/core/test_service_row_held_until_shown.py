"""A card's request row is committed after its first frame, never after its decision.

The service holds a shown card's request row until the overlay reports the card's first
painted frame (`shown`), so the row's commit does not compete with that paint for the
GIL; at most `row_hold_s` when `shown` never comes (a card behind another, parked, or an
overlay gone). These tests run the real service and DecisionStore, its `before_commit`
seam recording each batch, and check what an attacker or a crash could make of the
hold: a decision (the person's, the agent's withdraw, an expiry) before the first frame,
a card never shown, Notch stopped with a row held, a damaged store, and no presenter.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from notch_app.runtime.catalog import Catalog
from notch_app.runtime.decision import Decision
from notch_app.runtime.scripted import ScriptedPresenter
from notch_app.runtime.service import STORE_STOPPED, ConfirmationService, ServiceError, ToolCall
from notch_app.runtime.store import DecisionStore, NewRequest, WriteOp

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves
FOREVER = 60.0
"""A bound no test waits for: what is committed was committed for another reason."""


class Overlay:
    """The service as a ScriptedPresenter's sink, except for `shown`: the card's first
    frame is reported when the test says (`paint`), as an overlay reports it after its
    paint, or never."""

    def __init__(self, service: ConfirmationService) -> None:
        self.service = service
        self.painted: list[str] = []

    def shown(self, call_id: str) -> None:
        """What the presenter says on arrival: not told yet (the test paints)."""

    def paint(self, call_id: str) -> None:
        self.painted.append(call_id)
        self.service.shown(call_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.service, name)


class Disk:
    """The `before_commit` seam: records each batch, when, and which cards had been
    painted then; holds the batch storing `hold_for` until `release`."""

    def __init__(self) -> None:
        self.overlay: Overlay | None = None
        self.batches: list[list[str]] = []
        self.at: list[float] = []
        self.painted_then: list[list[str]] = []
        self.hold_for: str | None = None
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, ops: Sequence[WriteOp]) -> None:
        self.at.append(time.monotonic())
        self.painted_then.append(list(self.overlay.painted) if self.overlay else [])
        self.batches.append([_describe(op) for op in ops])
        stores = {op.request.call_id for op in ops if isinstance(op, NewRequest)}
        if self.hold_for in stores:
            self.entered.set()
            assert self.release.wait(10), "the test never released the commit"

    def first_batch_with(self, name: str) -> int:
        return next(i for i, batch in enumerate(self.batches) if name in batch)


def _describe(op: WriteOp) -> str:
    if isinstance(op, NewRequest):
        return f"request {op.request.call_id}"
    return f"decision {op.decision.call_id} {op.decision.outcome}"


@pytest.fixture
def data_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="notch-rh") as name:
        yield Path(name)


@asynccontextmanager
async def notch_on(
    data_dir: Path, disk: Disk, catalog: Catalog, *, overlay: bool = True, hold_s: float = FOREVER
) -> AsyncIterator[tuple[ConfirmationService, ScriptedPresenter, Overlay]]:
    service = ConfirmationService(catalog, DecisionStore(data_dir, before_commit=disk))
    service.row_hold_s = hold_s
    painter = Overlay(service)
    cards = ScriptedPresenter(painter)  # the service as its sink, but for `shown`
    disk.overlay = painter
    if overlay:
        service.set_presenter(cards)
    await service.start()
    try:
        yield service, cards, painter
    finally:
        disk.release.set()
        service.close()


class Heard:
    """A client's listener: the events it heard, in order, and a wait for them."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self._more = asyncio.Event()

    def __call__(self, call_id: str, event: str, data: dict[str, Any]) -> None:
        self.events.append(event)
        self._more.set()

    async def until(self, event: str, times: int = 1) -> None:
        """Wait until `event` has been heard `times` times. Raises TimeoutError."""
        async with asyncio.timeout(10):
            while self.events.count(event) < times:
                self._more.clear()
                await self._more.wait()


@pytest.mark.asyncio
async def test_the_row_is_committed_once_the_card_is_painted(
    data_dir: Path, mail_catalog: Catalog, loop_turns: Any
) -> None:
    disk = Disk()
    heard = Heard()
    async with notch_on(data_dir, disk, mail_catalog) as (service, cards, overlay):
        service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}), heard)
        assert list(cards.cards) == ["c1"]
        await loop_turns()
        assert heard.events == [], "the client heard of a request that is not stored"
        overlay.paint("c1")
        await heard.until("confirmationRequired")
        assert disk.batches == [["request c1"]]
        assert disk.painted_then == [["c1"]], "the row was committed before the paint"
        assert [r.call_id for r in service.store.pending()] == ["c1"]
        assert heard.events == ["confirmationRequired", "shown"]


@pytest.mark.asyncio
async def test_a_card_never_shown_has_its_row_committed_within_the_bound(
    data_dir: Path, mail_catalog: Catalog
) -> None:
    disk = Disk()
    heard = Heard()
    async with notch_on(data_dir, disk, mail_catalog, hold_s=0.3) as (service, cards, _):
        asked = time.monotonic()
        future = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}), heard)
        await heard.until("confirmationRequired")  # no `shown`: the bound let it go
        assert disk.batches == [["request c1"]] and disk.painted_then == [[]]
        assert disk.at[0] - asked >= 0.29, "committed before its bound, yet never shown"
        assert [r.call_id for r in service.store.pending()] == ["c1"]
        cards.approve("c1")
        assert (await asyncio.wait_for(future, 10)).outcome == "approved"


@pytest.mark.asyncio
async def test_without_a_presenter_nothing_waits_for_a_first_frame(
    data_dir: Path, mail_catalog: Catalog
) -> None:
    disk = Disk()
    heard = Heard()
    async with notch_on(data_dir, disk, mail_catalog, overlay=False) as (service, _, _):
        service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}), heard)
        await heard.until("confirmationRequired")  # a held row would wait FOREVER
        assert disk.batches == [["request c1"]]


def _end(how: str, service: ConfirmationService, cards: ScriptedPresenter) -> None:
    if how == "approved":
        cards.approve("c1", {"to": "ann@example.com"})
    elif how == "withdrawn":
        service.withdraw("c1", reason="the user closed the chat")
    # "expired": its expiry (1 ms) is the decision; nothing else would commit the row


@pytest.mark.asyncio
@pytest.mark.parametrize("how", ["approved", "withdrawn", "expired"])
async def test_a_decision_before_the_first_frame_is_stored_after_its_row_and_sent_after(
    data_dir: Path, mail_catalog: Catalog, how: str, loop_turns: Any
) -> None:
    disk = Disk()
    disk.hold_for = "c1"
    heard = Heard()
    async with notch_on(data_dir, disk, mail_catalog) as (service, cards, _):
        expires = 1 if how == "expired" else None
        call = ToolCall("c1", MAIL, "send_email", {"to": "ann"}, expires_in_ms=expires)
        future = service.submit(call, heard)
        _end(how, service, cards)
        # The decision made the held row go to disk, alone, ahead of it.
        assert await asyncio.to_thread(disk.entered.wait, 10)
        assert disk.batches == [["request c1"]]
        await loop_turns()
        assert not future.done(), "a decision was sent before its request was stored"
        assert heard.events == []

        disk.release.set()
        decision: Decision = await asyncio.wait_for(future, 10)
        assert decision.outcome == how
        assert disk.batches == [["request c1"], [f"decision c1 {how}"]]
        stored = service.store.decision("c1")
        assert stored is not None and stored.outcome == how
        assert heard.events == ["confirmationRequired", "decided"]
        assert service.store.pending() == []


@pytest.mark.asyncio
async def test_notch_stopped_with_a_row_held_brings_the_request_back(
    data_dir: Path, mail_catalog: Catalog, loop_turns: Any
) -> None:
    disk = Disk()
    async with notch_on(data_dir, disk, mail_catalog) as (service, cards, _):
        service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}))
        await loop_turns()
        assert disk.batches == [] and list(cards.cards) == ["c1"]
    # Stopped (the context closes the service) before the card was painted: the row was
    # committed on the way out, and the request comes back as a parked card.
    assert disk.batches == [["request c1"]]
    async with notch_on(data_dir, Disk(), mail_catalog) as (service, cards, _):
        assert [(r.call_id, r.parked) for r in cards.presented] == [("c1", True)]
        future = service.wait("c1")
        cards.approve("c1")
        assert (await asyncio.wait_for(future, 10)).outcome == "approved"


@pytest.mark.asyncio
async def test_a_batch_of_cards_is_committed_in_one_transaction_after_the_first_frame(
    data_dir: Path, mail_catalog: Catalog
) -> None:
    disk = Disk()
    heard = Heard()
    async with notch_on(data_dir, disk, mail_catalog) as (service, _, overlay):
        calls = [ToolCall(f"c{i}", MAIL, "send_email", {"to": f"p{i}"}) for i in range(3)]
        futures = service.submit_many(calls, heard)
        assert all(isinstance(f, asyncio.Future) for f in futures)
        overlay.paint("c0")  # only the first card is on screen
        await heard.until("confirmationRequired", 3)
        assert disk.batches == [["request c0", "request c1", "request c2"]]


@pytest.mark.asyncio
async def test_a_damaged_store_found_by_a_held_row_stops_notch_and_decides_nothing(
    data_dir: Path, mail_catalog: Catalog
) -> None:
    disk = Disk()
    async with notch_on(data_dir, disk, mail_catalog) as (service, cards, overlay):
        first = service.submit(ToolCall("c0", MAIL, "send_email", {"to": "ann"}))
        overlay.paint("c0")
        cards.approve("c0")
        assert (await asyncio.wait_for(first, 10)).outcome == "approved"
        future = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "bob"}))
        # The file is overwritten while the row waits for the card's first frame.
        store = data_dir / "notch.sqlite3"
        with open(store, "r+b") as damaged:
            damaged.write(os.urandom(8192))
        wal = data_dir / "notch.sqlite3-wal"
        if wal.exists():
            with open(wal, "r+b") as damaged:
                damaged.write(os.urandom(64))
        cards.approve("c1")  # the person is quicker than the paint
        with pytest.raises(ServiceError) as stopped:
            await asyncio.wait_for(future, 10)
        assert stopped.value.kind == "storage"
        assert "decision store is damaged" in stopped.value.message
        assert cards.stopped == [STORE_STOPPED] and service.open_requests == []
        assert ("c1", "withdrawn") in cards.dismissed
        assert ("c1", "approved") not in cards.saved

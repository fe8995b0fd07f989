"""The service's two seams: the presenter it shows cards with, and the store writes it
commits behind the loop (`runtime/write_behind.py`).

A presenter that raises in every call must not cost the agent its request or its
decision; a burst of writes is committed in a few batches, in the order it was queued.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest, Outcome, ResultGlance, RunningWork
from notch_app.runtime.service import ConfirmationService, ToolCall
from notch_app.runtime.store import DecisionStore, NewRequest, StoreError, WriteOp
from notch_app.runtime.write_behind import WriteBehind

MAIL = "com.example.mail"


class RaisingPresenter:
    """Implements `Presenter`; every call fails after noting what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def present(self, request: ConfirmationRequest) -> None:
        self.asked.append(f"present {request.call_id}")
        raise RuntimeError("present broke")

    def replace(self, old_call_id: str, request: ConfirmationRequest) -> None:
        self.asked.append(f"replace {old_call_id} {request.call_id}")
        raise RuntimeError("replace broke")

    def dismiss(self, call_id: str, outcome: Outcome, why: str | None = None) -> None:
        self.asked.append(f"dismiss {call_id} {outcome}")
        raise RuntimeError("dismiss broke")

    def glance(self, request: ConfirmationRequest, text: str) -> None:
        raise RuntimeError("glance broke")

    def show_result(self, glance: ResultGlance) -> None:
        self.asked.append("show_result")
        raise RuntimeError("show_result broke")

    def work_changed(self, running: tuple[RunningWork, ...]) -> None:
        self.asked.append("work_changed")
        raise RuntimeError("work_changed broke")

    def results_may_follow(self) -> None:
        self.asked.append("results_may_follow")
        raise RuntimeError("results_may_follow broke")

    def decision_saved(self, call_id: str, outcome: Outcome) -> None:
        self.asked.append(f"saved {call_id} {outcome}")
        raise RuntimeError("decision_saved broke")

    def decision_not_saved(self, call_id: str, reason: str) -> None:
        self.asked.append(f"not saved {call_id}")
        raise RuntimeError("decision_not_saved broke")


@pytest.mark.asyncio
async def test_a_presenter_that_raises_everywhere_loses_nothing(
    base: Path, mail_catalog: Catalog, caplog: pytest.LogCaptureFixture
) -> None:
    service = ConfirmationService(mail_catalog, DecisionStore(base / "data"))
    cards = RaisingPresenter()
    service.set_presenter(cards)
    await service.start()
    try:
        with caplog.at_level(logging.ERROR, logger="notch.service"):
            first = service.submit(ToolCall("c1", MAIL, "send_email", {"to": "ann"}))
            second = service.submit(
                ToolCall("c2", MAIL, "send_email", {"to": "bob"}, supersedes="c1")
            )
            service.decide("c2", True, {"to": "bob@example.com"}, ["to"], "click")
            superseded, approved = await asyncio.wait_for(asyncio.gather(first, second), 5)
            withdrawn = service.submit(ToolCall("c3", MAIL, "send_email", {"to": "cy"}))
            service.withdraw("c3")
            assert (await asyncio.wait_for(withdrawn, 5)).outcome == "withdrawn"
        # Every call reached the presenter, each failure was logged, and the agent heard
        # every decision exactly as if the cards had worked.
        assert cards.asked == ["present c1", "replace c1 c2", "saved c2 approved", "present c3",
                               "dismiss c3 withdrawn"]  # fmt: skip
        failed = [r.getMessage() for r in caplog.records]
        assert failed == ["presenter.present failed", "presenter.replace failed",
                          "presenter.decision_saved failed", "presenter.present failed",
                          "presenter.dismiss failed"]  # fmt: skip
        assert superseded.outcome == "superseded"
        assert (approved.outcome, approved.arguments) == ("approved", {"to": "bob@example.com"})
        assert service.open_requests == []
    finally:
        service.close()


class CountingStore(DecisionStore):
    """The real store, noting each batch the writer commits."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(data_dir)
        self.batches: list[list[str]] = []

    def write(self, ops: Sequence[WriteOp]) -> list[StoreError | None]:
        self.batches.append(
            [op.request.call_id if isinstance(op, NewRequest) else "decision" for op in ops]
        )
        return super().write(ops)


def _noting(
    heard: list[tuple[str, StoreError | None]], call_id: str
) -> Callable[[StoreError | None], None]:
    """A write's `written` callback: notes the call id and what the store said."""
    return lambda error: heard.append((call_id, error))


@pytest.mark.asyncio
async def test_a_burst_of_writes_is_committed_in_a_few_batches_in_order(
    base: Path, mail_catalog: Catalog
) -> None:
    store = CountingStore(base / "data")
    writes = WriteBehind(store)
    heard: list[tuple[str, StoreError | None]] = []
    requests = [
        ConfirmationRequest(f"r{i}", MAIL, "send_email", {"to": f"p{i}"}) for i in range(200)
    ]
    try:
        for request in requests:
            writes.write(NewRequest(request), _noting(heard, request.call_id))
        await asyncio.wait_for(writes.drain(), 10)
        assert heard == [(r.call_id, None) for r in requests]  # every one told, in order
        committed = [call_id for batch in store.batches for call_id in batch]
        assert committed == [r.call_id for r in requests]
        assert len(store.batches) <= 2, "a burst should cost a few fsyncs, not one each"
        assert [r.call_id for r in store.pending()] == [r.call_id for r in requests]
    finally:
        writes.close()
        store.close()

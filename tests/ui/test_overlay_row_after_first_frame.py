"""A card's request row is committed after the card's first frame, on the real notch.

The real service, store and overlay with the bundled mail card: the row's commit (its
Python on the store's writer thread) used to start in the loop turn the card's first
frame is painted in, competing with that paint for the GIL. The service now holds the
row until the overlay reports `shown` (after the first Paint). The store's
`before_commit` seam notes, at each commit, whether a card had been painted; the bound
for a card never shown is set out of reach, so only the overlay's `shown` can let the
row go.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.service import ConfirmationService, ToolCall
from notch_app.runtime.store import DecisionStore, NewRequest, WriteOp
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

MAIL = "dev.notch.examples.mail"


class FirstFrames(QObject):
    """Counts Paint events delivered to cards (the app's event filter)."""

    def __init__(self) -> None:
        super().__init__()
        self.card_paints = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and isinstance(watched, CardView):
            self.card_paints += 1
        return False


class Disk:
    """The `before_commit` seam: for each batch storing a request, how many card paints
    had been delivered when its commit started (read on the writer thread)."""

    def __init__(self, frames: FirstFrames) -> None:
        self.frames = frames
        self.paints_at_commit: list[tuple[str, int]] = []

    def __call__(self, ops: Sequence[WriteOp]) -> None:
        for op in ops:
            if isinstance(op, NewRequest):
                self.paints_at_commit.append((op.request.call_id, self.frames.card_paints))


@pytest.fixture
def data_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="notch-rf") as name:
        yield Path(name)


@pytest.mark.asyncio
async def test_the_request_row_is_committed_after_the_cards_first_frame(
    qtbot: Any, data_dir: Path, preview_args: Any
) -> None:
    frames = FirstFrames()
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(frames)
    disk = Disk(frames)
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems, problems
    service = ConfirmationService(catalog, DecisionStore(data_dir, before_commit=disk))
    service.row_hold_s = 60.0  # out of reach: only the overlay's `shown` lets the row go
    settings = OverlaySettings(expand_ms=60, done_ms=60, park_after_s=0)
    presenter = OverlayPresenter(service, ManifestCardFactory(catalog), settings)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    service.set_presenter(presenter)
    await service.start()
    heard: list[str] = []
    stored = asyncio.Event()

    def listener(_cid: str, event: str, _data: dict[str, Any]) -> None:
        heard.append(event)
        if event == "confirmationRequired":
            stored.set()

    try:
        args = preview_args("mail", "send_email")
        future = service.submit(ToolCall("m1", MAIL, "send_email", args), listener)
        await asyncio.wait_for(stored.wait(), 10)
        assert len(disk.paints_at_commit) == 1
        call_id, paints = disk.paints_at_commit[0]
        assert call_id == "m1"
        assert paints >= 1, "the row's commit started before the card's first frame"
        assert heard[:2] == ["confirmationRequired", "shown"]
        assert [r.call_id for r in service.store.pending()] == ["m1"]
        service.withdraw("m1")
        assert (await asyncio.wait_for(future, 10)).outcome == "withdrawn"
    finally:
        app.removeEventFilter(frames)
        service.close()

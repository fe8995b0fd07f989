"""A chord-approve racing a supersede leaves no unretrieved future (issue 18, finding 12).

The person presses Ctrl+Alt+Enter on a card; while that yes is being written (a slow
disk), the agent sends a new request that `supersedes` the same card. Before, the
supersede replaced the card, its own row was then refused by the store (the old request
was decided meanwhile), its card vanished and its future failed with nobody awaiting it:
asyncio logged "Future exception was never retrieved: ServiceError". Now the supersede is
refused at once (the card is already decided), the yes is sent, and nothing is logged.

The real notch window and presenter, the real service, store and socket; a stand-in for
the X11 chord source presses the chord (the grab itself: tests/e2e/test_keyboard_answer.py).
"""

from __future__ import annotations

import asyncio
import gc
import json
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.headless import start
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import DecisionSink
from notch_app.runtime.store import NewDecision, WriteOp
from notch_app.ui.keys import AnswerKeys
from notch_app.ui.keys.chords import AnswerRole
from notch_app.ui.notch_window import NotchWindow
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

FILES = "dev.notch.examples.files"
SETTINGS = OverlaySettings(expand_ms=40, done_ms=60_000, park_after_s=0)
TOKEN = "the-racing-agents-token-0001"


class Chords(AnswerKeys):
    """The chords, pressed by the test; they reach Notch only while it holds them."""

    def __init__(self) -> None:
        super().__init__()
        self.taken = False

    def grab(self) -> None:
        self.taken = True

    def release(self) -> None:
        self.taken = False

    @property
    def grabbed(self) -> frozenset[AnswerRole]:
        return frozenset({"approve", "decline"}) if self.taken else frozenset()

    def approve(self) -> None:
        if self.taken:
            self.approvePressed.emit()


class SlowDisk:
    """The store's `before_commit` seam: a batch holding a decision waits until released,
    as on a slow disk, so the yes is still being written when the supersede arrives."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.holding = threading.Event()

    def __call__(self, ops: Sequence[WriteOp]) -> None:
        if any(isinstance(op, NewDecision) for op in ops):
            self.holding.set()
            self.release.wait(10)


@pytest.fixture
def base() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="notch-r") as name:
        yield Path(name)


async def _line(reader: asyncio.StreamReader, request_id: int) -> dict[str, Any]:
    """The reply to `request_id` (events before it are skipped)."""
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(reader.readline(), 10))
        if message.get("id") == request_id:
            return message


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_supersede_racing_a_chord_approve_is_refused_and_nothing_is_left_unretrieved(
    qtbot: Any, base: Path, preview_args: Any
) -> None:
    loop = asyncio.get_running_loop()
    unhandled: list[dict[str, Any]] = []
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: unhandled.append(context))
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems, problems
    chords = Chords()
    disk = SlowDisk()

    def overlay(sink: DecisionSink) -> OverlayPresenter:
        window = NotchWindow(SETTINGS, answer_keys=chords)
        presenter = OverlayPresenter(sink, ManifestCardFactory(catalog), SETTINGS, window=window)
        qtbot.addWidget(presenter.window)
        qtbot.addWidget(presenter.side_notch)
        return presenter

    notch = await start(
        base / "s" / "notch.sock", base / "data", presenter=overlay, catalog=catalog
    )
    presenter = notch.presenter
    assert isinstance(presenter, OverlayPresenter)
    reader, writer = await asyncio.open_unix_connection(str(notch.server.path))

    def ask(request_id: int, call_id: str, **more: Any) -> None:
        params = {"callId": call_id, "integration": FILES, "tool": "delete_files",
                  "arguments": preview_args("files", "delete_files"), "token": TOKEN,
                  "wait": False, **more}  # fmt: skip
        line = {"jsonrpc": "2.0", "id": request_id, "method": "confirm.request", "params": params}
        writer.write(json.dumps(line).encode() + b"\n")

    try:
        ask(1, "first")
        assert (await _line(reader, 1))["result"]["status"] == "pending"
        await notch.service.drain()
        qtbot.waitUntil(lambda: presenter.armed, timeout=5000)
        notch.service.store.before_commit = disk
        chords.approve()  # the yes, being written...
        await loop.run_in_executor(None, disk.holding.wait, 10)
        ask(2, "second", supersedes="first")  # ...when the agent replaces the card
        refused = await _line(reader, 2)
        assert refused["error"]["data"]["field"] == "supersedes", refused
        assert "already decided (approved)" in refused["error"]["message"]
        disk.release.set()
        await notch.service.drain()
        decided = notch.service.store.decision("first")
        assert decided is not None and decided.outcome == "approved"
        assert decided.decided_by == "key"
        assert notch.service.store.decision("second") is None
        assert notch.service.open_requests == []
    finally:
        disk.release.set()
        writer.close()
        await notch.close()
    gc.collect()  # a failed future nobody awaited reports itself as it is collected
    loop.set_exception_handler(before)
    assert [c.get("message") for c in unhandled] == []

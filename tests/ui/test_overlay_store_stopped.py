"""A store damaged while Notch runs is said on the notch (issue 18, finding 12).

Before, nothing showed on screen: the card waited, every request failed with an internal
error. Now the open card goes and the notch keeps one line in its place, in Notch's own
words and the danger tone, until Notch is restarted. The real notch window and presenter,
the real service, store and socket; the database file is overwritten while it runs.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.headless import start
from notch_app.ipc import protocol as rpc
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import DecisionSink, ResultGlance
from notch_app.runtime.service import STORE_STOPPED
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

FILES = "dev.notch.examples.files"
SETTINGS = OverlaySettings(expand_ms=40, done_ms=300, park_after_s=0, glance_ms=500)


@pytest.fixture
def base() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="notch-d") as name:
        yield Path(name)


async def _event(reader: asyncio.StreamReader, event: str) -> None:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(reader.readline(), 10))
        if message.get("params", {}).get("event") == event:
            return


async def _replies(reader: asyncio.StreamReader, *ids: int) -> dict[int, dict[str, Any]]:
    """The replies to `ids`, in whatever order they come (events are skipped)."""
    got: dict[int, dict[str, Any]] = {}
    while len(got) < len(ids):
        message: dict[str, Any] = json.loads(await asyncio.wait_for(reader.readline(), 10))
        if message.get("id") in ids:
            got[message["id"]] = message
    return got


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_the_notch_says_notch_stopped_when_its_store_is_damaged_and_keeps_saying_it(
    qtbot: Any, base: Path, preview_args: Any
) -> None:
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems, problems

    def overlay(sink: DecisionSink) -> OverlayPresenter:
        presenter = OverlayPresenter(sink, ManifestCardFactory(catalog), SETTINGS)
        qtbot.addWidget(presenter.window)
        qtbot.addWidget(presenter.side_notch)
        return presenter

    notch = await start(
        base / "s" / "notch.sock", base / "data", presenter=overlay, catalog=catalog
    )
    presenter = notch.presenter
    assert isinstance(presenter, OverlayPresenter)
    reader, writer = await asyncio.open_unix_connection(str(notch.server.path))

    def ask(request_id: int, call_id: str) -> None:
        params = {"callId": call_id, "integration": FILES, "tool": "delete_files",
                  "arguments": preview_args("files", "delete_files")}  # fmt: skip
        line = {"jsonrpc": "2.0", "id": request_id, "method": "confirm.request", "params": params}
        writer.write(json.dumps(line).encode() + b"\n")

    try:
        ask(1, "first")
        await _event(reader, "confirmationRequired")  # stored, its card shown
        qtbot.waitUntil(lambda: isinstance(presenter.window.card, CardView), timeout=5000)
        with open(base / "data" / "notch.sqlite3", "r+b") as f:
            f.write(os.urandom(8192))
        ask(2, "second")
        replies = await _replies(reader, 1, 2)
        assert replies[2]["error"]["code"] == rpc.STORAGE_ERROR
        # The card's agent, waiting, hears it too.
        assert "notch run --reset-store" in replies[1]["error"]["message"]
        # The card went; the notch says why, in one line, and stays so.
        qtbot.waitUntil(lambda: presenter.window.look == "done", timeout=5000)
        assert presenter.on_screen is None and presenter.window.card is None
        note = presenter.window.findChild(QLabel, "notchNote")
        assert isinstance(note, QLabel) and note.toolTip() == STORE_STOPPED
        assert note.text() == STORE_STOPPED, "the whole line fits: never cut"
        # A tool's result line still shows; after its time, the notch says it again, not idle.
        presenter.show_result(ResultGlance(FILES, "delete_files", "Delete files", failure="x"))
        qtbot.waitUntil(lambda: note.toolTip() == "Delete files failed: x", timeout=5000)
        qtbot.waitUntil(lambda: note.toolTip() == STORE_STOPPED, timeout=5000)
        assert presenter.window.look == "done"
    finally:
        writer.close()
        await notch.close()

"""Words that keep the question open (issue 24 §5): a typed reply the classifier finds
unclear keeps the card open and asks once more; a second leaves it as it is, for a
click. The real notch window, card and presenter, the real service, store and socket,
and an agent waiting on the real client: nothing reaches it until the person decides."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.headless import start
from notch_app.ipc.client import AsyncNotchClient
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import DecisionSink
from notch_app.ui.card_view import UNCLEAR_ONCE, UNCLEAR_TWICE, CardView
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

MAIL = "dev.notch.examples.mail"
SETTINGS = OverlaySettings(expand_ms=0, done_ms=60_000, park_after_s=0)


@pytest.fixture
def base() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="notch-u") as name:
        yield Path(name)


def _type(qtbot: Any, card: CardView, text: str) -> None:
    field = card.reply_field
    if not field.is_open:
        qtbot.mouseClick(field.invitation, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(field.line, text)
    qtbot.keyClick(field.line, Qt.Key.Key_Return)


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_an_unclear_reply_asks_once_more_then_waits_for_a_click(
    qtbot: Any, base: Path, preview_args: Any, until: Any
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
    try:
        async with AsyncNotchClient(notch.server.path) as agent:
            asked = asyncio.ensure_future(
                agent.confirm(MAIL, "send_email", preview_args("mail", "send_email"), call_id="m1")
            )
            await until(lambda: presenter.armed, "the card up, in view and armed", 20)
            card = presenter.window.card
            assert isinstance(card, CardView)

            _type(qtbot, card, "hmm maybe")
            note = card.reply_field.note
            assert note.isVisibleTo(card) and note.text() == UNCLEAR_ONCE
            assert card.reply_field.is_open and card.reply_field.line.text() == ""
            await notch.service.drain()  # every decision queued so far is written
            assert not asked.done()
            assert [r.call_id for r in notch.service.open_requests] == ["m1"]

            _type(qtbot, card, "not sure")
            assert note.text() == UNCLEAR_TWICE
            assert not asked.done() and card.decision is None
            assert presenter.window.card is card  # the card as it was, for a click

            # A clear answer after that still works: words that say no decline.
            _type(qtbot, card, "no")
            decision = await asyncio.wait_for(asked, 10)
            assert decision.outcome == "declined"
            assert decision.words == "no"
    finally:
        await notch.close()

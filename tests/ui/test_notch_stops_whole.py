"""A Notch that stops leaves nothing behind on screen: a note's timer still running when
`NotchApp.stop` closed the notch would show the idle pill again a moment later (seen in
the widget tests: stopped notches came back and took the next test's pointer and focus)."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from pytestqt.qtbot import QtBot

from notch_app.app import NotchApp, NotchConfig
from notch_app.ipc.client import AsyncNotchClient
from notch_app.runtime.catalog import bundled_manifests_dir
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

MUSIC = "dev.notch.examples.music"


@pytest.mark.asyncio
async def test_a_note_on_screen_when_notch_stops_never_brings_the_notch_back(
    tmp_path: Path, qtbot: QtBot, until: Any
) -> None:
    socket_dir = Path(tempfile.mkdtemp(prefix="notch-s-", dir="/tmp"))  # short socket path
    config = NotchConfig(
        socket_dir / "s.sock",
        tmp_path / "data",
        settings=OverlaySettings(expand_ms=0, done_ms=60_000, park_after_s=0),
        tray=False,
    )
    notch = NotchApp(config, err=io.StringIO())
    await notch.start()
    presenter = notch.presenter
    assert isinstance(presenter, OverlayPresenter) and notch.server is not None
    preview = json.loads((bundled_manifests_dir() / "music" / "preview.json").read_text())
    args = preview["tools"]["publish_playlist"]["args"]
    try:
        async with AsyncNotchClient(notch.server.path) as agent:
            call_id, _ = await agent.submit(MUSIC, "publish_playlist", args)
            await until(lambda: presenter.armed, "the card to arm")
            view = presenter.window.card
            assert isinstance(view, CardView) and view.scope_choices is not None
            qtbot.mouseClick(view.scope_choices.buttons["session"], Qt.MouseButton.LeftButton)
            await agent.await_decision(call_id, timeout=10)
            await until(lambda: presenter.window.look == "done", "the approval's note")
            running = [t for t in presenter.findChildren(QTimer) if t.isActive()]
            assert running, "the note's timer runs while the note is on screen"
    finally:
        await notch.stop()
    assert not presenter.window.isVisible() and not presenter.side_notch.isVisible()
    still = [t.objectName() or repr(t) for t in presenter.findChildren(QTimer) if t.isActive()]
    assert still == [], f"timers left running after stop, each would reopen the notch: {still}"

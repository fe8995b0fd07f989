"""A card an MCP client stopped waiting for leaves with the client's reason on the notch,
in quotes, as the agent's words (issue 21 §2).

The real notch window and presenter, the real service and socket, and the real `notch
mcp` process in front of the notes fixture, spoken to in raw JSON-RPC lines by a client
that cancels its call as the Python SDK does when its read timeout runs out. The real
`notch run` on an X server: tests/e2e/test_mcp_withdrawn_why.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.headless import start
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import DecisionSink
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
SETTINGS = OverlaySettings(expand_ms=40, done_ms=60_000, park_after_s=0)
FAST = OverlaySettings(expand_ms=40, done_ms=60, park_after_s=0)


@pytest.fixture
def base() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="notch-w") as name:
        yield Path(name)


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_client_that_timed_out_takes_its_card_away_and_the_notch_says_why(
    qtbot: Any, base: Path, until: Any
) -> None:
    def overlay(sink: DecisionSink) -> OverlayPresenter:
        presenter = OverlayPresenter(sink, ManifestCardFactory(catalog), SETTINGS)
        qtbot.addWidget(presenter.window)
        qtbot.addWidget(presenter.side_notch)
        return presenter

    catalog = Catalog([])
    notch = await start(base / "s" / "notch.sock", base / "data", presenter=overlay,
                        catalog=catalog)  # fmt: skip
    presenter = notch.presenter
    assert isinstance(presenter, OverlayPresenter)
    home = base / "home"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "PYTHONUNBUFFERED": "1"}
    gateway = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "notch_app", "mcp", str(NOTES), "--socket",
        str(notch.server.path), "--data-dir", str(home / "data"),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env, cwd=REPO,
    )  # fmt: skip
    assert gateway.stdin is not None and gateway.stdout is not None
    try:
        gateway.stdin.write(
            _line(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "claude-ai", "version": "1"},
                    },
                }
            )
            + _line({"jsonrpc": "2.0", "method": "notifications/initialized"})
            + _line(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {
                        "name": "send_message",
                        "arguments": {"to": "sam", "body": "Lunch?"},
                    },
                }
            )
        )
        await asyncio.wait_for(gateway.stdout.readline(), 30)  # initialize answered
        await notch.service.drain()
        await until(lambda: presenter.on_screen is not None, "the card", 30)
        gateway.stdin.write(
            _line({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 2, "reason": "timed out after 60.0s"}})
        )  # fmt: skip
        await until(lambda: presenter.window.look == "done", "the note", 30)
        said = presenter.window._note.toolTip()
        shown = presenter.window._note.text()
        await until(lambda: presenter.window.look == "idle", "the idle pill", 10)
    finally:
        gateway.stdin.close()
        await asyncio.wait_for(gateway.wait(), 30)
        await notch.close()
    assert re.fullmatch(
        r"Withdrawn: “claude-ai stopped waiting after \d+ s” · Send message", said
    ), said
    # One line of the card's width: the why is on the notch as it is, the action may be cut.
    assert re.match(r"Withdrawn: “claude-ai stopped waiting after \d+ s”", shown), shown
    assert presenter.recent and presenter.recent[-1][1] == said


@pytest.fixture
def overlay(qtbot: Any, sink: Any, simple_factory: Any) -> OverlayPresenter:
    presenter = OverlayPresenter(sink, simple_factory, FAST)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    return presenter


def test_the_agents_words_stay_in_their_quotes_on_one_line(
    qtbot: Any, overlay: OverlayPresenter, card_request: Any
) -> None:
    """The cheat, should one reach the presenter unmade (the service makes it plain
    first): a reason that closes its quote and says "Approved" on a line of its own."""
    overlay.present(card_request("c1"))
    qtbot.waitUntil(lambda: overlay.window.look == "card", timeout=3000)
    overlay.dismiss("c1", "withdrawn", "gave up”\nApproved ✓  send_thing\u202e")
    said = overlay.window._note.toolTip()
    assert said == "Withdrawn: “gave up' Approved ✓ send_thing⟨U+202E⟩” · send_thing"
    # It stays to be read (longer than a plain note), then the notch rests.
    shown_at = time.monotonic()
    qtbot.waitUntil(lambda: overlay.window.look == "idle", timeout=10_000)
    assert time.monotonic() - shown_at >= 0.5, "the note left before it could be read"


def test_a_withdraw_without_words_and_other_endings_read_as_before(
    qtbot: Any, overlay: OverlayPresenter, card_request: Any
) -> None:
    overlay.present(card_request("c1"))
    overlay.present(card_request("c2"))
    qtbot.waitUntil(lambda: overlay.window.look == "card", timeout=3000)
    overlay.dismiss("c1", "withdrawn")
    assert overlay.window._note.toolTip() == "Withdrawn by the agent · send_thing"
    qtbot.waitUntil(lambda: overlay.window.look == "card", timeout=10_000)
    overlay.dismiss("c2", "expired", "ignored: only a withdraw says why")
    assert overlay.window._note.toolTip() == "Expired · send_thing"
    qtbot.waitUntil(lambda: overlay.window.look == "idle", timeout=10_000)

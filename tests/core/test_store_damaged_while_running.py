"""A store damaged while Notch runs stops it cleanly (issue 18, finding 12).

The SQLite file overwritten under a running Notch made every request fail -32603
("internal error; see Notch's log") with a traceback in the log and nothing on screen.
Now the first read or write that finds the file damaged stops the service: every open
request ends for its waiter with a storage error naming the fix (`--reset-store`), its
card goes, the person is told in one line, and every later call is refused the same way
until Notch is restarted. The log says it in one line, without a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchRequestError
from notch_app.ipc import protocol as rpc
from notch_app.runtime.service import STORE_STOPPED
from notch_app.runtime.store import NewDecision, WriteOp

MAIL = "com.example.mail"


def damage(data: Path) -> None:
    """Overwrite the database's first pages and the WAL's header, as a failing disk or a
    stray program would."""
    db = data / "notch.sqlite3"
    with open(db, "r+b") as f:
        f.write(os.urandom(8192))
    wal = data / "notch.sqlite3-wal"
    if wal.exists():
        with open(wal, "r+b") as f:
            f.write(os.urandom(64))


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_store_damaged_while_running_stops_notch_with_one_clear_message(
    base: Path, running_notch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with (
        running_notch(base) as (notch, cards),
        AsyncNotchClient(notch.server.path) as client,
    ):
        first = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "a"}))
        await cards.wait_for_cards(1)
        cards.approve(next(iter(cards.cards)))
        assert (await asyncio.wait_for(first, 5)).outcome == "approved"
        waiting = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "b"}))
        await cards.wait_for_cards(1)
        await notch.service.drain()

        damage(base / "data")
        with pytest.raises(NotchRequestError) as refused:
            await client.confirm(MAIL, "send_email", {"to": "c"})
        assert refused.value.code == rpc.STORAGE_ERROR
        assert "decision store is damaged" in refused.value.message
        assert "notch run --reset-store" in refused.value.message
        # The agent already waiting hears the same, and its card is gone.
        with pytest.raises(NotchRequestError) as ended:
            await asyncio.wait_for(waiting, 5)
        assert ended.value.code == rpc.STORAGE_ERROR
        assert cards.cards == {} and notch.service.open_requests == []
        assert cards.stopped == [STORE_STOPPED]
        # Every later call, whatever it is, is refused the same way until a restart.
        for method, params in (
            ("confirm.request", {"callId": "x", "integration": MAIL, "tool": "search_mail",
                                 "arguments": {}}),
            ("confirm.get", {"callId": "x"}),
        ):  # fmt: skip
            with pytest.raises(NotchRequestError) as again:
                await client.call(method, params)
            assert again.value.code == rpc.STORAGE_ERROR, method
    notch_lines = [r for r in caplog.records if r.name.startswith("notch")]
    assert not [r for r in notch_lines if r.exc_info], "no traceback in the log"
    said = [r.getMessage() for r in notch_lines if r.levelno >= logging.ERROR]
    assert sum("stopped taking requests" in line for line in said) == 1, said
    assert cards.stopped == [STORE_STOPPED], "the person is told once"


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_damaged_store_found_by_a_write_stops_notch_too(
    base: Path, running_notch: Any
) -> None:
    """The first thing that meets the damage is the person's decision being written (SQLite
    keeps pages it trusts in memory, so the failing disk is injected at the commit, as it
    would answer: SQLITE_CORRUPT)."""

    def corrupt_disk(ops: Sequence[WriteOp]) -> None:
        if any(isinstance(op, NewDecision) for op in ops):
            raise sqlite3.DatabaseError("database disk image is malformed")

    async with running_notch(base) as (notch, cards):
        reader, writer = await asyncio.open_unix_connection(str(notch.server.path))
        line = {"jsonrpc": "2.0", "id": 1, "method": "confirm.request",
                "params": {"callId": "w", "integration": MAIL, "tool": "send_email",
                           "arguments": {"to": "a"}}}  # fmt: skip
        writer.write(json.dumps(line).encode() + b"\n")
        await cards.wait_for_cards(1)
        await notch.service.drain()
        notch.service.store.before_commit = corrupt_disk
        cards.approve("w")
        while True:
            reply = json.loads(await asyncio.wait_for(reader.readline(), 10))
            if reply.get("id") == 1:
                break
        writer.close()
        assert notch.service.store.decision("w") is None, "nothing was stored, nothing sent"
    assert reply["error"]["code"] == rpc.STORAGE_ERROR
    assert "notch run --reset-store" in reply["error"]["message"]
    assert cards.stopped == [STORE_STOPPED] and cards.saved == []

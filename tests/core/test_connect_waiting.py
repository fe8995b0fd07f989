"""A connector tells its agent "waiting for the person" once a call outlasts a short
wait (issue 24 §4), over the real socket: a status instead of silence, once per call,
and never for a call answered quickly."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from notch_app.connect.verdict import CallIds, PendingCall, decide, decide_async
from notch_app.ipc.blocking import NotchClient

MAIL = "com.example.mail"


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_held_call_tells_the_agent_it_waits_and_a_quick_one_does_not(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        ids = CallIds()
        told: list[tuple[str, str]] = []
        told_once = asyncio.Event()

        def waiting(call: PendingCall, sentence: str) -> None:
            told.append((call.name, sentence))
            told_once.set()

        calls = [PendingCall(ids("w1"), "send_email", {"to": "sam"})]
        deciding = asyncio.ensure_future(
            decide_async(client, MAIL, calls, on_waiting=waiting, waiting_after=0.2)
        )
        await cards.wait_for_cards(1)
        await asyncio.wait_for(told_once.wait(), 10)
        assert told == [
            (
                "send_email",
                "Waiting for the person to confirm send_email in Notch. Nothing has run "
                "yet, so do not say it is done; the result comes when they answer.",
            )
        ]
        assert not deciding.done()  # still the person's to answer
        cards.approve(next(iter(cards.cards)))
        (verdict,) = await deciding
        assert verdict.runs and len(told) == 1  # told once, then the decision

        # A batch of two: each waiting call is told; a quick answer tells nothing.
        told.clear()
        told_once.clear()
        batch = [PendingCall(ids(f"b{i}"), "send_email", {"to": f"x{i}"}) for i in range(2)]
        deciding = asyncio.ensure_future(
            decide_async(client, MAIL, batch, on_waiting=waiting, waiting_after=0.2)
        )
        await cards.wait_for_cards(2)
        await asyncio.wait_for(told_once.wait(), 10)
        for call_id in list(cards.cards):
            cards.decline(call_id)
        assert [v.runs for v in await deciding] == [False, False]
        assert sorted(name for name, _ in told) == ["send_email", "send_email"]

        told.clear()
        quick = asyncio.ensure_future(
            decide_async(
                client, MAIL, [PendingCall(ids("q1"), "send_email", {"to": "kim"})],
                on_waiting=waiting, waiting_after=30,
            )
        )  # fmt: skip
        await cards.wait_for_cards(1)
        cards.approve(next(iter(cards.cards)))
        (verdict,) = await quick
        assert verdict.runs and told == []


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_the_blocking_decide_tells_the_agent_it_waits_too(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    async with notch_and_client(base) as (notch, cards, _client):
        ids = CallIds()
        told: list[tuple[str, str, str]] = []
        told_once = threading.Event()

        def waiting(call: PendingCall, sentence: str) -> None:
            told.append((call.name, sentence, threading.current_thread().name))
            told_once.set()

        with NotchClient(notch.server.path) as blocking:
            for batch in (["w1"], ["b1", "b2"]):  # one confirm, then a batch of two
                told.clear()
                told_once.clear()
                calls = [PendingCall(ids(i), "send_email", {"to": i}) for i in batch]
                deciding = asyncio.ensure_future(asyncio.to_thread(
                    decide, blocking, MAIL, calls, on_waiting=waiting, waiting_after=0.2
                ))  # fmt: skip
                await cards.wait_for_cards(len(batch))
                assert await asyncio.to_thread(told_once.wait, 10), "told while it waits"
                assert not deciding.done()  # still the person's to answer
                for call_id in list(cards.cards):
                    cards.approve(call_id)
                assert all(v.runs for v in await deciding)
                assert [name for name, _, _ in told] == ["send_email"] * len(batch)
                assert all(s.startswith("Waiting for the person to confirm") for _, s, _ in told)
                assert {t for _, _, t in told} == {"notch-waiting"}  # not the waiting thread

            # Answered before waiting_after: nothing is said.
            told.clear()
            quick = asyncio.ensure_future(asyncio.to_thread(
                decide, blocking, MAIL, [PendingCall(ids("q1"), "send_email", {"to": "kim"})],
                on_waiting=waiting, waiting_after=30,
            ))  # fmt: skip
            await cards.wait_for_cards(1)
            cards.approve(next(iter(cards.cards)))
            (verdict,) = await quick
            assert verdict.runs and told == []

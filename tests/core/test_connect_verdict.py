"""What every connector shares: one model turn asked together, each call with its own
verdict, timeouts that withdraw the card, and calls that never reach a card."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import NotchClient
from notch_app.connect.verdict import CallIds, PendingCall, decide, decide_async

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


def _call(call_id: str, to: Any = "a@example.com", name: str = "send_email") -> PendingCall:
    return PendingCall(call_id, name, {"to": to})


@pytest.mark.asyncio
async def test_an_unanswered_card_is_withdrawn_at_the_timeout_and_does_not_run(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        ids = CallIds()
        (verdict,) = await decide_async(client, MAIL, [_call(ids("1"))], timeout=0.2)
        assert cards.cards == {}  # the card went with the request
        assert cards.dismissed and cards.dismissed[-1][1] == "withdrawn"
    assert not verdict.runs and verdict.arguments is None
    assert "nothing ran" in verdict.for_model or "withdrawn" in verdict.for_model.lower()


@pytest.mark.asyncio
async def test_a_blocking_batch_shows_as_one_turn_and_keeps_order(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    async with notch_and_client(base) as (notch, cards, _client):
        ids = CallIds("run-1")
        calls = [
            _call(ids("a"), "a@example.com"),
            _call(ids("a"), "dup@example.com"),  # a repeated id in one turn
            _call(ids("b"), 7),  # arguments Notch refuses
            _call(ids("c"), name="delete_everything"),  # a tool Notch has not got
            _call(ids("d"), "d@example.com"),
        ]
        with NotchClient(notch.server.path) as blocking:
            asking = asyncio.create_task(asyncio.to_thread(decide, blocking, MAIL, calls))
            shown = await cards.wait_for_cards(2)
            assert [c.arguments["to"] for c in shown] == ["a@example.com", "d@example.com"]
            assert [(c.batch_index, c.batch_size) for c in shown] == [(0, 2), (1, 2)]  # "1 of 2"
            cards.decline(shown[0].call_id)
            cards.approve(shown[1].call_id)
            verdicts = await asyncio.wait_for(asking, 10)

    assert [v.call.call_id for v in verdicts] == [c.call_id for c in calls]
    assert [v.runs for v in verdicts] == [False, False, False, False, True]
    assert "declined" in verdicts[0].for_model
    assert "repeats a call id" in verdicts[1].for_model
    assert "arguments.to" in verdicts[2].for_model
    assert "delete_everything" in verdicts[3].for_model and "nothing ran" in verdicts[3].for_model
    assert verdicts[4].arguments == {"to": "d@example.com"} and not verdicts[4].edited


def test_call_ids_are_per_session_bounded_and_printable() -> None:
    one, two = CallIds(), CallIds()
    assert one("call_1") != two("call_1")
    assert CallIds("s")("call_1") == CallIds("s")("call_1") == "s:call_1"
    for hostile in ("x" * 10_000, "a\nb\x00", "\ud800"):
        call_id = CallIds("s")(hostile)
        assert len(call_id) <= 128 and call_id.isprintable() and call_id.startswith("s:#")

"""Batches (issue 14 §2): the tool calls of one model turn asked at once with
`confirm_many` / `confirm.batch`. Their cards arrive together as "1 of N"; each call gets
its own decision or its own error, in order, and one bad call never loses the others."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import (
    AsyncNotchClient,
    BatchCall,
    Decision,
    NotchClient,
    NotchRequestError,
    NotchUsageError,
)
from notch_app.ipc import protocol as rpc
from notch_app.runtime.service import MAX_BATCH

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves
ASKER = "batch-asker-token-0123456789abcdef"
THIEF = "batch-thief-token-0123456789abcdef"


def _mail(call_id: str, to: str = "sam@example.com") -> BatchCall:
    return BatchCall(MAIL, "send_email", {"to": to}, call_id=call_id)


@pytest.mark.asyncio
async def test_a_turn_of_three_calls_shows_one_of_three_and_answers_in_order(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        asking = asyncio.ensure_future(client.confirm_many([
            _mail("t1", "a@example.com"),
            BatchCall(MAIL, "search_mail", {"query": "invoices"}, call_id="t2"),
            _mail("t3", "b@example.com"),
            {"integration": MAIL, "tool": "send_email", "arguments": {"to": "c@example.com"},
             "callId": "t4"},
        ]))  # fmt: skip
        shown = await cards.wait_for_cards(3)
        assert [c.call_id for c in shown] == ["t1", "t3", "t4"], "the read-only call needs no card"
        assert len({c.batch_id for c in shown}) == 1 and shown[0].batch_id is not None
        assert [(c.batch_index, c.batch_size) for c in shown] == [(0, 3), (1, 3), (2, 3)]
        cards.decline("t3")
        cards.approve("t1", {"to": "sam@example.com"})
        cards.approve("t4")
        results = await asking
    assert all(isinstance(r, Decision) for r in results)
    outcomes = [(r.call_id, r.outcome) for r in results if isinstance(r, Decision)]
    assert outcomes == [("t1", "approved"), ("t2", "notRequired"), ("t3", "declined"),
                        ("t4", "approved")]  # fmt: skip
    first = results[0]
    assert isinstance(first, Decision) and first.arguments == {"to": "sam@example.com"}
    assert "`to` from a@example.com to sam@example.com" in first.for_model


@pytest.mark.asyncio
async def test_a_single_card_of_a_batch_is_not_shown_as_a_batch(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        asking = asyncio.ensure_future(
            client.confirm_many([_mail("only"), BatchCall(MAIL, "search_mail", call_id="r")])
        )
        (card,) = await cards.wait_for_cards(1)
        assert (card.batch_id, card.batch_index, card.batch_size) == (None, None, None)
        cards.approve("only")
        assert [getattr(r, "outcome", None) for r in await asking] == ["approved", "notRequired"]


@pytest.mark.asyncio
async def test_bad_calls_get_their_own_errors_and_the_good_ones_are_still_asked(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (notch, cards, client):
        params = {
            "token": client.token,
            "calls": [
                {"callId": "ok-1", "integration": MAIL, "tool": "send_email",
                 "arguments": {"to": "a@example.com"}},
                {"callId": "bad-int", "integration": "com.nowhere", "tool": "x", "arguments": {}},
                {"callId": "bad-tool", "integration": MAIL, "tool": "rm_rf", "arguments": {}},
                {"callId": "bad-args", "integration": MAIL, "tool": "send_email",
                 "arguments": {"to": 42}},
                "not a call",
                {"callId": "ok-1", "integration": MAIL, "tool": "send_email",
                 "arguments": {"to": "evil@example.com"}},
                {"callId": "extra", "integration": MAIL, "tool": "send_email",
                 "arguments": {"to": "a@example.com"}, "scope": "always"},
                {"callId": "ok-2", "integration": MAIL, "tool": "send_email",
                 "arguments": {"to": "b@example.com"}},
            ],
        }  # fmt: skip
        asking = asyncio.ensure_future(client.call("confirm.batch", params))
        shown = await cards.wait_for_cards(2)
        assert [c.call_id for c in shown] == ["ok-1", "ok-2"]
        assert shown[0].arguments == {"to": "a@example.com"}, "the duplicate never replaced it"
        assert [c.batch_size for c in shown] == [2, 2]
        cards.approve("ok-1")
        cards.approve("ok-2")
        reply = await asking
        assert reply["token"] == client.token
        results = reply["results"]
        assert [r.get("outcome") for r in results] == [
            "approved",
            None,
            None,
            None,
            None,
            None,
            None,
            "approved",
        ]
        errors = {i: r["error"] for i, r in enumerate(results) if "error" in r}
        assert errors[1]["field"] == "calls.1.integration" and "com.nowhere" in errors[1]["message"]
        assert errors[2]["field"] == "calls.2.tool" and "rm_rf" in errors[2]["message"]
        assert errors[3]["field"] == "calls.3.arguments.to"
        assert errors[4]["field"] == "calls.4" and results[4]["callId"] is None
        assert errors[5]["field"] == "calls.5.callId" and "twice" in errors[5]["message"]
        assert errors[6]["field"] == "calls.6.scope", "a call cannot carry a scope"
        assert all(e["code"] == rpc.INVALID_PARAMS for e in errors.values())
        assert notch.service.open_requests == []


@pytest.mark.asyncio
async def test_a_batch_of_ten_thousand_asks_the_first_256_and_refuses_each_other(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        calls = [BatchCall(MAIL, "search_mail", {"query": str(i)}, call_id=f"q{i}")
                 for i in range(10_000)]  # fmt: skip
        results = await client.confirm_many(calls)
    assert len(results) == 10_000
    assert all(isinstance(r, Decision) and r.outcome == "notRequired" for r in results[:MAX_BATCH])
    refused = results[MAX_BATCH:]
    assert all(isinstance(r, NotchRequestError) and r.field == f"calls.{MAX_BATCH + i}"
               for i, r in enumerate(refused))  # fmt: skip
    assert "at most 256" in str(refused[0])
    assert cards.presented == []


@pytest.mark.asyncio
async def test_another_client_cannot_await_withdraw_or_repeat_a_batch_member(
    base: Path, notch_and_client: Any
) -> None:
    async with (
        notch_and_client(base, token=ASKER) as (notch, cards, asker),
        AsyncNotchClient(notch.server.path, token=THIEF) as thief,
    ):
        asking = asyncio.ensure_future(asker.confirm_many([_mail("m1"), _mail("m2")]))
        await cards.wait_for_cards(2)
        for attempt in (
            thief.await_decision("m1", timeout=2),
            thief.withdraw("m2"),
            thief.get("m1"),
            thief.confirm_many([_mail("m1")]),
        ):
            try:
                outcome = await attempt
            except NotchRequestError as refused:
                assert refused.code == rpc.NOT_YOURS
            else:  # a batch answers per call
                assert isinstance(outcome, list) and isinstance(outcome[0], NotchRequestError)
                assert outcome[0].code == rpc.NOT_YOURS
        assert sorted(cards.cards) == ["m1", "m2"] and cards.dismissed == []
        cards.approve("m1")
        cards.decline("m2")
        results = await asking
    assert [getattr(r, "outcome", None) for r in results] == ["approved", "declined"]


@pytest.mark.asyncio
async def test_the_blocking_client_asks_a_batch_and_refuses_a_call_without_a_tool(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base, rule=lambda request: (True, None)) as (notch, cards):
        with NotchClient(notch.server.path) as client:
            results = await asyncio.to_thread(client.confirm_many, [_mail("b1"), _mail("b2")])
            assert [getattr(r, "outcome", None) for r in results] == ["approved", "approved"]
            with pytest.raises(NotchUsageError):
                client.confirm_many([{"integration": MAIL, "arguments": {}}])
            with pytest.raises(NotchUsageError):
                client.confirm_many([])
        assert {c.batch_size for c in cards.presented} == {2}

"""A second call of the same tool by the same asker while its card is open replaces that
card ("Updated by the agent", the change named), over the real socket; parallel calls
of one turn, a batch, and another asker never replace anything."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from notch_app.ipc.client import AsyncNotchClient
from notch_app.runtime.service import SAME_TURN_S

MAIL = "com.example.mail"


async def _open_for(notch: Any, call_id: str, seconds: float, until: Any) -> None:
    """Wait until `call_id`'s card has been open `seconds` (the turn it came in is over:
    time is the state)."""

    def aged() -> bool:
        found = [r for r in notch.service.open_requests if r.call_id == call_id]
        return bool(found) and time.time() - found[0].created_at >= seconds

    await until(aged, f"{call_id}'s card to be open {seconds} s")


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_later_call_of_the_same_tool_replaces_the_open_card(
    base: Path, notch_and_client: Callable[..., Any], until: Any
) -> None:
    async with notch_and_client(base) as (notch, cards, client):
        first = asyncio.ensure_future(
            client.confirm(MAIL, "send_email", {"to": "sam", "subject": "Hi"}, call_id="one")
        )
        await cards.wait_for_cards(1)
        await _open_for(notch, "one", SAME_TURN_S, until)
        second = asyncio.ensure_future(
            client.confirm(MAIL, "send_email", {"to": "kim", "subject": "Hi"}, call_id="two")
        )
        replaced = await first
        # The model is told the first will not run.
        assert replaced.outcome == "superseded"
        assert "replaced by a newer request" in replaced.for_model
        # The new card stands in the old one's place and says what the agent changed.
        await cards.wait_for(lambda: "two" in cards.cards)
        assert list(cards.cards) == ["two"]
        assert cards.replaced[-1][0] == "one"
        assert cards.cards["two"].reason == "Updated by the agent: to sam → kim."
        cards.approve("two")
        assert (await second).outcome == "approved"


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_parallel_calls_a_batch_and_another_asker_each_keep_their_card(
    base: Path, notch_and_client: Callable[..., Any], until: Any
) -> None:
    async with notch_and_client(base) as (notch, cards, client):
        # One turn's parallel calls arrive together: each gets its own card.
        both = [
            asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": to}, call_id=to))
            for to in ("ann", "bob")
        ]
        await cards.wait_for_cards(2)
        assert set(cards.cards) == {"ann", "bob"} and cards.replaced == []

        # Another agent calling the same tool never replaces this agent's card.
        async with AsyncNotchClient(notch.server.path) as other:
            await _open_for(notch, "bob", SAME_TURN_S, until)
            theirs = asyncio.ensure_future(
                other.confirm(MAIL, "send_email", {"to": "eve"}, call_id="eve")
            )
            await cards.wait_for_cards(3)
            assert cards.replaced == [] and set(cards.cards) == {"ann", "bob", "eve"}
            cards.decline("eve")
            assert (await theirs).outcome == "declined"
        for call_id in ("ann", "bob"):
            cards.decline(call_id)
        assert [d.outcome for d in await asyncio.gather(*both)] == ["declined", "declined"]

        # A batch's cards are the agent's own "do all of these": a later single call of
        # the same tool does not replace one of them.
        batch = asyncio.ensure_future(
            client.confirm_many(
                [
                    {"integration": MAIL, "tool": "send_email", "arguments": {"to": "x"},
                     "callId": "x"},
                    {"integration": MAIL, "tool": "send_email", "arguments": {"to": "y"},
                     "callId": "y"},
                ]
            )
        )  # fmt: skip
        await cards.wait_for(lambda: {"x", "y"} <= set(cards.cards))
        await _open_for(notch, "y", SAME_TURN_S, until)
        single = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "z"}, call_id="z"))
        await cards.wait_for(lambda: "z" in cards.cards)
        assert {"x", "y", "z"} <= set(cards.cards) and cards.replaced == []
        assert cards.cards["z"].reason is None
        for call_id in ("x", "y", "z"):
            cards.decline(call_id)
        await batch
        await single


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_replacing_card_never_shows_a_secret_value(
    base: Path, notch_and_client: Callable[..., Any], until: Any
) -> None:
    async with notch_and_client(base) as (notch, cards, client):
        args = {"user": {"name": "kim", "password": "hunter2"}}
        first = asyncio.ensure_future(client.confirm(MAIL, "connect_account", args, call_id="c1"))
        await cards.wait_for_cards(1)
        await _open_for(notch, "c1", SAME_TURN_S, until)
        changed = {"user": {"name": "kim", "password": "letmein"}}
        second = asyncio.ensure_future(
            client.confirm(MAIL, "connect_account", changed, call_id="c2")
        )
        assert (await first).outcome == "superseded"
        await cards.wait_for(lambda: "c2" in cards.cards)
        note = cards.cards["c2"].reason or ""
        assert note == "Updated by the agent: user.password changed."
        assert "hunter2" not in note and "letmein" not in note
        cards.decline("c2")
        await second

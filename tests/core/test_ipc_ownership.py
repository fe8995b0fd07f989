"""Requests belong to their asker (issue 9, finding 3): another client on the socket —
a second agent, or a hostile one — can neither await, withdraw, supersede, repeat nor
read more than the bare status of a request it did not make; the asker, reconnecting
with its own token, can."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchRequestError
from notch_app.ipc import protocol as rpc

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves
ASKER = "asker-token-0123456789abcdefghij"
THIEF = "thief-token-0123456789abcdefghij"


@contextlib.asynccontextmanager
async def _asked_and_a_thief(
    base: Path, notch_and_client: Any
) -> AsyncIterator[tuple[Any, AsyncNotchClient, AsyncNotchClient]]:
    """(cards, asker, thief): the asker's request "pay-1" on screen, and a second client
    with a token of its own."""
    async with (
        notch_and_client(base, token=ASKER) as (notch, cards, asker),
        AsyncNotchClient(notch.server.path, token=THIEF) as thief,
    ):
        await asker.submit(MAIL, "send_email", {"to": "sam@example.com"}, call_id="pay-1")
        await cards.wait_for_cards(1)
        yield cards, asker, thief


@pytest.mark.asyncio
async def test_another_client_cannot_withdraw_await_or_read_a_request(
    base: Path, notch_and_client: Any
) -> None:
    async with _asked_and_a_thief(base, notch_and_client) as (cards, asker, thief):
        for attempt in (
            thief.withdraw("pay-1"),
            thief.get("pay-1"),
            thief.await_decision("pay-1", timeout=5),
        ):
            with pytest.raises(NotchRequestError) as refused:
                await attempt
            assert refused.value.code == rpc.NOT_YOURS
        # Only the bare status, which says nothing of the arguments or the decision.
        assert await thief.status("pay-1") == "pending"
        assert list(cards.cards) == ["pay-1"] and cards.dismissed == [], "the card is still up"
        cards.approve("pay-1")
        decision = await asker.await_decision("pay-1", timeout=10)
        assert decision.outcome == "approved"
        with pytest.raises(NotchRequestError) as refused:
            await thief.get("pay-1")
        assert refused.value.code == rpc.NOT_YOURS
        assert await thief.status("pay-1") == "decided"


@pytest.mark.asyncio
async def test_another_client_cannot_supersede_or_repeat_a_request(
    base: Path, notch_and_client: Any
) -> None:
    async with _asked_and_a_thief(base, notch_and_client) as (cards, _asker, thief):
        with pytest.raises(NotchRequestError) as refused:
            await thief.submit(
                MAIL, "send_email", {"to": "attacker@evil.example"}, supersedes="pay-1"
            )
        assert refused.value.code == rpc.NOT_YOURS
        with pytest.raises(NotchRequestError) as refused:
            await thief.submit(MAIL, "send_email", {"to": "sam@example.com"}, call_id="pay-1")
        assert refused.value.code == rpc.NOT_YOURS
        assert cards.replaced == []
        (card,) = cards.cards.values()
        assert card.call_id == "pay-1" and card.arguments["to"] == "sam@example.com"


@pytest.mark.asyncio
async def test_the_asker_reconnecting_with_its_token_keeps_its_request(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base, token=ASKER) as (notch, cards, asker):
        await asker.submit(MAIL, "send_email", {"to": "sam@example.com"}, call_id="pay-1")
        await cards.wait_for_cards(1)
        async with AsyncNotchClient(notch.server.path, token=ASKER) as again:
            decided = asyncio.ensure_future(again.await_decision("pay-1", timeout=10))
            # Its await is accepted (no -32008) before the person decides.
            assert await again.status("pay-1") == "pending" and not decided.done()
            cards.approve("pay-1")
            assert (await decided).outcome == "approved"

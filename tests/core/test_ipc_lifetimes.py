"""Lifetimes (issue 14 §3): a request belongs to its asking connection. When the asker's
last connection closes and it does not come back within the grace period, its cards
are withdrawn ("the asking agent went away"), so nothing can be approved that no one
will run; coming back with the same token within the grace keeps everything."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchTimeout
from notch_app.runtime.service import ASKER_GONE

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves
ASKER = "lifetime-asker-token-0123456789ab"
OTHER = "lifetime-other-token-0123456789ab"
GRACE_S = 0.3


@pytest.mark.asyncio
async def test_an_asker_that_goes_away_has_its_card_withdrawn_after_the_grace(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        notch.service.asker_grace = GRACE_S
        async with AsyncNotchClient(notch.server.path, token=ASKER) as asker:
            await asker.submit(MAIL, "send_email", {"to": "sam@example.com"}, call_id="gone-1")
            await cards.wait_for_cards(1)
        # The card stays for the grace period, then goes: nobody would run it.
        assert "gone-1" in cards.cards
        await cards.wait_for(lambda: ("gone-1", "withdrawn") in cards.dismissed)
        async with AsyncNotchClient(notch.server.path, token=ASKER) as back_too_late:
            decision = await back_too_late.get("gone-1")
        assert decision is not None
        assert (decision.outcome, decision.decided_by, decision.message) == (
            "withdrawn",
            "service",
            ASKER_GONE,
        )
        assert "went away" in decision.for_model


@pytest.mark.asyncio
async def test_reconnecting_with_the_token_within_the_grace_keeps_the_card(
    base: Path, running_notch: Any, loop_turns: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        notch.service.asker_grace = GRACE_S
        async with AsyncNotchClient(notch.server.path, token=ASKER) as asker:
            await asker.submit(MAIL, "send_email", {"to": "sam@example.com"}, call_id="kept-1")
            await cards.wait_for_cards(1)
        async with AsyncNotchClient(notch.server.path, token=ASKER) as again:
            waiting = asyncio.ensure_future(again.await_decision("kept-1"))
            # Longer than the grace, with the asker back: the card is still there.
            ended = asyncio.ensure_future(
                cards.wait_for(lambda: bool(cards.dismissed), timeout=GRACE_S * 4)
            )
            with pytest.raises(TimeoutError):
                await ended
            assert "kept-1" in cards.cards
            cards.approve("kept-1")
            assert (await waiting).outcome == "approved"


@pytest.mark.asyncio
async def test_another_tokens_connection_does_not_keep_a_gone_askers_card(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        notch.service.asker_grace = GRACE_S
        async with AsyncNotchClient(notch.server.path, token=OTHER) as other:
            async with AsyncNotchClient(notch.server.path, token=ASKER) as asker:
                await asker.submit(MAIL, "send_email", {"to": "a@example.com"}, call_id="a-1")
                await other.submit(MAIL, "send_email", {"to": "b@example.com"}, call_id="o-1")
                await cards.wait_for_cards(2)
            # A stranger pretending to be about a-1 does not keep it alive.
            assert await other.status("a-1") == "pending"
            await cards.wait_for(lambda: ("a-1", "withdrawn") in cards.dismissed)
            assert list(cards.cards) == ["o-1"], "the other asker is still here"


@pytest.mark.asyncio
async def test_a_disconnect_racing_a_decision_never_decides_twice(
    base: Path, running_notch: Any, loop_turns: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        notch.service.asker_grace = 0.05
        async with AsyncNotchClient(notch.server.path, token=ASKER) as asker:
            await asker.submit(MAIL, "send_email", {"to": "a@example.com"}, call_id="race-1")
            await cards.wait_for_cards(1)
        # The person clicks just as the grace runs out: one of the two ends it, once.
        cards.approve("race-1")
        await notch.service.drain()
        await loop_turns()  # let a due grace timer fire, if it is due
        await notch.service.drain()
        async with AsyncNotchClient(notch.server.path, token=ASKER) as back:
            decision = await back.get("race-1")
        assert decision is not None and decision.outcome == "approved"
        rows = [e for e in notch.service.store.log() if e.call_id == "race-1"]
        assert [r.outcome for r in rows] == ["approved"]
        assert ("race-1", "withdrawn") not in cards.dismissed


@pytest.mark.asyncio
async def test_a_timeout_in_confirm_withdraws_the_card_before_raising(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        with pytest.raises(NotchTimeout) as gave_up:
            await client.confirm(MAIL, "send_email", {"to": "a@example.com"}, call_id="late",
                                 timeout=0.3)  # fmt: skip
        assert isinstance(gave_up.value, TimeoutError)
        assert gave_up.value.decision is not None
        assert gave_up.value.decision.outcome == "withdrawn"
        assert ("late", "withdrawn") in cards.dismissed
        with pytest.raises(NotchTimeout):
            await client.confirm_many(
                [{"integration": MAIL, "tool": "send_email", "arguments": {"to": "b@x.com"},
                  "callId": "late-b"}],
                timeout=0.3,
            )  # fmt: skip
        assert ("late-b", "withdrawn") in cards.dismissed

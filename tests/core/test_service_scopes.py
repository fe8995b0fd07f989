"""Scoped approvals (issue 14 §4), the service's side: "Allow for this session" lets
later calls to the same action from the same asker run without a card (autoApproved,
scope "session", the glance still shown) until that asker goes away; "Always allow"
turns the action's Asks first off exactly as Settings does. A Block or a guard that
trips always wins; another token never inherits an allowance; nothing on the socket
can set a scope."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchRequestError
from notch_app.ipc import protocol as rpc
from notch_app.manifest.model import Manifest, Tool
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.policy_book import OverGuard, PersonPolicy, PolicyBook

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves
PAY = "com.example.pay"
ASKER = "scope-asker-token-0123456789abcdef"
OTHER = "scope-other-token-0123456789abcdef"


@pytest.mark.asyncio
async def test_allow_for_this_session_runs_later_calls_of_that_asker_without_a_card(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        async with (
            AsyncNotchClient(notch.server.path, token=ASKER) as asker,
            AsyncNotchClient(notch.server.path, token=OTHER) as other,
        ):
            first = asyncio.ensure_future(
                asker.confirm(MAIL, "send_email", {"to": "a@example.com"}, call_id="s1")
            )
            await cards.wait_for_cards(1)
            cards.approve("s1", scope="session")
            approved = await first
            assert (approved.outcome, approved.scope) == ("approved", "session")
            assert "for the rest of this session" in approved.for_model

            again = await asker.confirm(MAIL, "send_email", {"to": "b@example.com"}, call_id="s2")
            assert (again.outcome, again.scope, again.decided_by) == (
                "autoApproved",
                "session",
                "policy",
            )
            assert again.arguments == {"to": "b@example.com"} and again.runs
            assert [r.call_id for r, _ in cards.glances] == ["s2"], "the glance still shows"
            assert cards.presented[-1].call_id == "s1", "no card for s2"

            # Another action of the same asker still asks; another asker still asks.
            other_action = asyncio.ensure_future(asker.confirm(
                MAIL, "connect_account", {"user": {"name": "sam"}}, call_id="s3"
            ))  # fmt: skip
            stranger = asyncio.ensure_future(
                other.confirm(MAIL, "send_email", {"to": "c@example.com"}, call_id="o1")
            )
            shown = await cards.wait_for_cards(2)
            assert sorted(c.call_id for c in shown) == ["o1", "s3"]
            cards.decline("s3")
            cards.decline("o1")
            assert (await other_action).outcome == "declined"
            assert (await stranger).outcome == "declined"
        log = {e.call_id: e for e in notch.service.store.log()}
        assert (log["s1"].scope, log["s2"].scope, log["o1"].scope) == ("session", "session", None)


@pytest.mark.asyncio
async def test_a_session_allowance_ends_when_its_asker_goes_away(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        notch.service.asker_grace = 0.2
        async with AsyncNotchClient(notch.server.path, token=ASKER) as asker:
            first = asyncio.ensure_future(
                asker.confirm(MAIL, "send_email", {"to": "a@example.com"}, call_id="e1")
            )
            await cards.wait_for_cards(1)
            cards.approve("e1", scope="session")
            await first
            await asker.submit(MAIL, "connect_account", {"user": {"name": "sam"}}, call_id="e9")
            await cards.wait_for(lambda: "e9" in cards.cards)
        # The asker went away: once its grace ran out its open card was withdrawn, and
        # its session (with what the person allowed for it) ended at the same moment.
        await cards.wait_for(lambda: ("e9", "withdrawn") in cards.dismissed)
        async with AsyncNotchClient(notch.server.path, token=ASKER) as back:
            later = asyncio.ensure_future(
                back.confirm(MAIL, "send_email", {"to": "b@example.com"}, call_id="e2")
            )
            await cards.wait_for(lambda: "e2" in cards.cards)
            cards.decline("e2")
            assert (await later).outcome == "declined", "the session ended: it asks again"


@pytest.mark.asyncio
async def test_block_and_a_tripped_guard_beat_a_session_allowance(
    base: Path, running_notch: Any, pay_manifest: Callable[..., Manifest],
    pay_tool: Callable[[Manifest], Tool],
) -> None:  # fmt: skip
    manifest = pay_manifest()
    tool = pay_tool(manifest)
    book = PolicyBook(base / "settings" / "notch-settings.json")
    async with running_notch(base, catalog=Catalog([manifest])) as (notch, cards):
        notch.service.policy = PersonPolicy(book)
        async with AsyncNotchClient(notch.server.path, token=ASKER) as asker:
            first = asyncio.ensure_future(
                asker.confirm(PAY, "pay_invoice", {"amount": 5, "payee": "Ann"}, call_id="p1")
            )
            await cards.wait_for_cards(1)
            cards.approve("p1", scope="session")
            assert (await first).scope == "session"
            small = await asker.confirm(PAY, "pay_invoice", {"amount": 6, "payee": "Ann"},
                                        call_id="p2")  # fmt: skip
            assert (small.outcome, small.scope) == ("autoApproved", "session")

            # A guard the person set trips: the card shows in spite of the allowance.
            book.set_asks_first(manifest, tool, False)
            book.add_guard(manifest, tool, OverGuard(argument="amount", limit=100))
            big = asyncio.ensure_future(
                asker.confirm(PAY, "pay_invoice", {"amount": 500, "payee": "Ann"}, call_id="p3")
            )
            (card,) = await cards.wait_for_cards(1)
            assert card.call_id == "p3" and card.reason and "amount" in card.reason
            cards.decline("p3")
            assert (await big).outcome == "declined"

            # Blocked: never runs, allowance or not.
            book.block(manifest, tool)
            blocked = await asker.confirm(PAY, "pay_invoice", {"amount": 1, "payee": "Ann"},
                                          call_id="p4")  # fmt: skip
            assert (blocked.outcome, blocked.runs, blocked.scope) == ("blocked", False, None)
            assert blocked.for_model.startswith("Blocked in the person's settings")


@pytest.mark.asyncio
async def test_always_allow_turns_asks_first_off_as_settings_does(
    base: Path, running_notch: Any, pay_manifest: Callable[..., Manifest],
    pay_tool: Callable[[Manifest], Tool],
) -> None:  # fmt: skip
    manifest = pay_manifest()
    tool = pay_tool(manifest)
    book = PolicyBook(base / "settings" / "notch-settings.json")
    async with running_notch(base, catalog=Catalog([manifest])) as (notch, cards):
        notch.service.policy = PersonPolicy(book)
        async with AsyncNotchClient(notch.server.path, token=ASKER) as asker:
            first = asyncio.ensure_future(
                asker.confirm(PAY, "pay_invoice", {"amount": 5, "payee": "Ann"}, call_id="a1")
            )
            await cards.wait_for_cards(1)
            cards.approve("a1", scope="always")
            approved = await first
            assert (approved.outcome, approved.scope) == ("approved", "always")
            assert not book.state(manifest, tool).asks_first, "exactly as in Settings"
        # Any asker now: it runs without a card, recorded as the "always" scope.
        async with AsyncNotchClient(notch.server.path, token=OTHER) as other:
            later = await other.confirm(PAY, "pay_invoice", {"amount": 7, "payee": "Bo"},
                                        call_id="a2")  # fmt: skip
        assert (later.outcome, later.scope) == ("autoApproved", "always")
        assert PolicyBook(book.path).state(manifest, tool).asks_first is False, "on disk"


@pytest.mark.asyncio
async def test_always_without_a_settings_book_is_recorded_as_once(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        asking = asyncio.ensure_future(
            client.confirm(MAIL, "send_email", {"to": "a@example.com"}, call_id="n1")
        )
        await cards.wait_for_cards(1)
        cards.approve("n1", scope="always")
        decision = await asking
        assert (decision.outcome, decision.scope) == ("approved", "once")


@pytest.mark.asyncio
async def test_nothing_on_the_socket_can_set_a_scope_or_decide(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        sent = {"callId": "x1", "token": client.token, "integration": MAIL, "tool": "send_email",
                "arguments": {"to": "a@example.com"}}  # fmt: skip
        for method, params in (
            ("confirm.request", {**sent, "scope": "always"}),
            ("confirm.request", {**sent, "allowForSession": True}),
            ("confirm.batch", {"calls": [sent], "scope": "session", "token": client.token}),
            ("confirm.await", {"callId": "x1", "token": client.token, "scope": "session"}),
        ):
            with pytest.raises(NotchRequestError) as refused:
                await client.call(method, params)
            assert refused.value.code == rpc.INVALID_PARAMS, method
        for method in ("decide", "confirm.decide", "policy.set", "scope.allow"):
            with pytest.raises(NotchRequestError) as refused:
                await client.call(method, {"callId": "x1", "approved": True, "scope": "always"})
            assert refused.value.code == rpc.METHOD_NOT_FOUND
        assert cards.presented == []

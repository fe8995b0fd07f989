"""The confirmation service over the real socket with the real client."""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, ConfirmationEvent, NotchRequestError
from notch_app.runtime.decision import arguments_digest

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves
AGENT = "one-agents-token-kept-across-runs"
"""An executor's own token: the same agent after a reconnect or a restart of Notch."""


@pytest.mark.asyncio
async def test_three_calls_in_one_step_are_decided_out_of_order_each_by_its_own_call_id(
    base: Path,
    notch_and_client: Any,
) -> None:
    async with notch_and_client(base) as (_, cards, client):
        asks = [
            asyncio.ensure_future(
                client.confirm(MAIL, "send_email", {"to": who}, call_id=f"call-{who}")
            )
            for who in ("ann", "bob", "cy")
        ]
        open_cards = await cards.wait_for_cards(3)
        assert [c.call_id for c in open_cards] == ["call-ann", "call-bob", "call-cy"]
        cards.approve("call-cy", {"to": "cy@example.com", "subject": "hi"})
        cards.decline("call-ann")
        cards.approve("call-bob")
        ann, bob, cy = await asyncio.gather(*asks)

        assert (ann.outcome, ann.arguments, ann.runs) == ("declined", None, False)
        assert bob.outcome == "approved" and bob.arguments == {"to": "bob"}
        assert bob.edited_paths == ()
        assert cy.outcome == "approved"
        assert cy.arguments == {"to": "cy@example.com", "subject": "hi"}
        assert cy.edited_paths == ("subject", "to")
        assert cy.digest == arguments_digest(cy.arguments)
        assert cy.digest.startswith("sha256:")
        assert cy.decided_by == "click"


@pytest.mark.asyncio
async def test_the_requesting_client_hears_required_shown_parked_restored_decided(
    base: Path, notch_and_client: Any
) -> None:
    events: list[str] = []
    arrived: dict[str, asyncio.Event] = defaultdict(asyncio.Event)

    def heard(event: ConfirmationEvent) -> None:
        events.append(event.event)
        arrived[event.event].set()

    async with notch_and_client(base) as (_, cards, client):
        ask = asyncio.ensure_future(
            client.confirm(MAIL, "send_email", {"to": "sam"}, call_id="c1", on_event=heard)
        )
        await cards.wait_for_cards(1)
        await asyncio.wait_for(arrived["shown"].wait(), 5)
        cards.park("c1")
        cards.restore("c1")
        cards.approve("c1")
        assert (await ask).outcome == "approved"
        await asyncio.wait_for(arrived["decided"].wait(), 5)
    assert events == ["confirmationRequired", "shown", "parked", "restored", "decided"]


@pytest.mark.asyncio
async def test_read_only_tool_answers_not_required_at_once_without_a_card(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_, cards, client):
        decision = await client.confirm(MAIL, "search_mail", {"query": "invoices"})
        assert decision.outcome == "notRequired" and decision.runs
        assert decision.arguments == {"query": "invoices"}
        assert cards.presented == []


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("integration", "tool", "arguments", "field", "words"),
    [
        ("com.nope", "send_email", {"to": "x"}, "integration", ["com.nope", MAIL]),
        (MAIL, "send_fax", {"to": "x"}, "tool", ["send_fax", "send_email", "search_mail"]),
        (MAIL, "send_email", {"to": 5}, "arguments.to", ["must be text"]),
        (MAIL, "send_email", {"subject": "hi"}, "arguments.to", ["required"]),
    ],
)
async def test_unknown_names_and_bad_arguments_are_refused_before_any_card(
    base: Path, integration: str, tool: str, arguments: dict[str, object], field: str,
    words: list[str], notch_and_client: Any,
) -> None:  # fmt: skip
    async with notch_and_client(base) as (_, cards, client):
        with pytest.raises(NotchRequestError) as caught:
            await client.confirm(integration, tool, arguments)
        assert caught.value.code == -32602
        assert caught.value.field == field
        for word in words:
            assert word in caught.value.message
        assert cards.presented == []


@pytest.mark.asyncio
async def test_supersede_replaces_the_open_card_in_place_and_ends_the_old_one(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_, cards, client):
        first = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "a"}, call_id="a1"))
        other = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "z"}, call_id="z1"))
        await cards.wait_for_cards(2)
        second = asyncio.ensure_future(
            client.confirm(MAIL, "send_email", {"to": "sam"}, call_id="a2", supersedes="a1")
        )
        old = await first
        assert old.outcome == "superseded" and old.arguments is None
        assert "a2" in (old.message or "")
        assert cards.replaced[0][0] == "a1"
        assert list(cards.cards) == ["a2", "z1"]  # same place in the queue
        cards.approve("a2")
        assert (await second).arguments == {"to": "sam"}
        # Superseding a decided call is refused, naming what happened to it.
        with pytest.raises(NotchRequestError) as caught:
            await client.confirm(MAIL, "send_email", {"to": "b"}, supersedes="a2")
        assert caught.value.field == "supersedes" and "approved" in caught.value.message
        cards.decline("z1")
        assert (await other).outcome == "declined"


@pytest.mark.asyncio
async def test_withdraw_removes_the_card_and_a_late_withdraw_returns_the_decision(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_, cards, client):
        ask = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "a"}, call_id="w1"))
        await cards.wait_for_cards(1)
        withdrawn = await client.withdraw("w1")
        assert withdrawn.outcome == "withdrawn"
        assert (await ask).outcome == "withdrawn"
        assert cards.dismissed == [("w1", "withdrawn")] and cards.cards == {}
        cards.approve("w1")  # a click racing the withdraw changes nothing
        again = await client.withdraw("w1")
        assert again.outcome == "withdrawn" and again.already_decided
        with pytest.raises(NotchRequestError) as caught:
            await client.withdraw("never-sent")
        assert caught.value.code == -32001


@pytest.mark.asyncio
async def test_a_request_left_undecided_past_expires_in_ends_expired(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_, cards, client):
        decision = await client.confirm(
            MAIL, "send_email", {"to": "a"}, call_id="e1", expires_in=0.2, timeout=5
        )
        assert decision.outcome == "expired" and decision.decided_by == "timeout"
        assert cards.dismissed == [("e1", "expired")]


@pytest.mark.asyncio
async def test_a_repeated_call_id_never_shows_a_second_card_nor_approves_twice(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (notch, cards, client):
        one = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "a"}, call_id="r1"))
        two = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "a"}, call_id="r1"))
        await cards.wait_for_cards(1)
        # Notch handles a connection's lines in order: once this is answered, the second
        # request has reached it too.
        assert await client.get("r1") is None
        assert len(cards.presented) == 1
        cards.approve("r1")
        first, second = await one, await two
        assert first.outcome == second.outcome == "approved"
        third = await client.confirm(MAIL, "send_email", {"to": "a"}, call_id="r1")
        assert third.outcome == "approved" and third.already_decided
        assert third.digest == first.digest
        assert len(cards.presented) == 1
        assert [e.call_id for e in notch.service.store.log()] == ["r1"]
        # The same id for a different call is refused, not answered with that approval.
        with pytest.raises(NotchRequestError) as caught:
            await client.confirm(MAIL, "send_email", {"to": "mallory"}, call_id="r1")
        assert caught.value.code == -32002 and caught.value.field == "callId"


@pytest.mark.asyncio
async def test_a_client_that_disconnects_mid_request_leaves_it_open_for_a_later_get(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        reader, writer = await asyncio.open_unix_connection(str(notch.server.path))
        request = {
            "jsonrpc": "2.0", "id": 1, "method": "confirm.request",
            "params": {"callId": "d1", "integration": MAIL, "tool": "send_email",
                       "arguments": {"to": "sam"}, "token": AGENT},
        }  # fmt: skip
        writer.write(json.dumps(request).encode() + b"\n")
        await cards.wait_for_cards(1)
        writer.write_eof()  # the client hangs up…
        await asyncio.wait_for(reader.read(), 5)
        assert reader.at_eof()  # …and Notch has let the connection go
        writer.close()
        async with AsyncNotchClient(notch.server.path, token=AGENT) as client:
            assert await client.get("d1") is None  # still pending
            cards.approve("d1", {"to": "sam@example.com"})
            await client.await_decision("d1", timeout=5)  # stored, then answered
            later = await client.get("d1")
            assert later is not None and later.outcome == "approved"
            assert later.arguments == {"to": "sam@example.com"}


@pytest.mark.asyncio
async def test_a_restart_brings_back_undecided_requests_parked_and_keeps_decided_ones(
    base: Path,
    notch_and_client: Any,
) -> None:
    async with notch_and_client(base, AGENT) as (notch, cards, client):
        await client.submit(MAIL, "send_email", {"to": "a"}, call_id="p1")
        await client.submit(MAIL, "send_email", {"to": "b"}, call_id="p2")
        await client.submit(MAIL, "send_email", {"to": "c"}, call_id="p3", expires_in=0.3)
        expired_by = time.time() + 0.3  # Notch set p3's deadline before it answered
        await cards.wait_for_cards(3)
        cards.approve("p1", {"to": "a@example.com"})

    # p3's deadline passes while Notch is stopped: wait until that moment, not a guess.
    await asyncio.sleep(max(0.0, expired_by - time.time()))
    async with notch_and_client(base, AGENT) as (notch, cards, client):
        assert [(c.call_id, c.parked) for c in cards.presented] == [("p2", True)]
        stored = await client.get("p1")
        assert stored is not None and stored.outcome == "approved" and stored.already_decided
        assert stored.arguments == {"to": "a@example.com"}
        expired = await client.get("p3")
        assert expired is not None and expired.outcome == "expired"
        # The executor re-sends its request: the same card, not a second one.
        again = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "b"}, call_id="p2"))
        assert await client.get("p2") is None  # answered after the re-sent request reached Notch
        assert len(cards.presented) == 1
        cards.approve("p2")
        assert (await again).outcome == "approved"
        assert sorted(e.call_id for e in notch.service.store.log()) == ["p1", "p2", "p3"]


@pytest.mark.asyncio
async def test_integrations_list_names_tools_and_which_ones_ask(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, _), AsyncNotchClient(notch.server.path) as client:
        (mail,) = await client.integrations()
        assert mail["id"] == MAIL and mail["publisher"] == "Example Inc."
        asks = {t["name"]: t["confirms"] for t in mail["tools"]}
        assert asks == {"send_email": True, "connect_account": True, "search_mail": False}

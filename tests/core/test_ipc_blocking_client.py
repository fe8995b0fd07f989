"""The blocking `NotchClient` over the real socket: a plain socket, shared by threads.

Notch runs on the test's event loop; the blocking calls run in worker threads
(`asyncio.to_thread`), as an executor's threads would.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import (
    ConfirmationEvent,
    NotchClient,
    NotchConnectionLost,
    NotchError,
    NotchNotRunning,
    NotchRequestError,
    NotchTimeout,
)
from notch_app.headless import start
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.scripted import ScriptedPresenter

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


@pytest.mark.asyncio
async def test_read_only_answers_at_once_and_bad_arguments_name_the_field(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        with NotchClient(notch.server.path) as client:
            decision = await asyncio.to_thread(
                client.confirm, MAIL, "search_mail", {"query": "invoices"}
            )
            assert decision.outcome == "notRequired"
            assert decision.arguments == {"query": "invoices"}
            with pytest.raises(NotchRequestError) as refused:
                await asyncio.to_thread(client.confirm, MAIL, "send_email", {"to": 7})
            assert refused.value.field == "arguments.to"
            tools = await asyncio.to_thread(client.integrations)
            assert [t["name"] for t in tools[0]["tools"]] == [
                "send_email", "connect_account", "search_mail",
            ]  # fmt: skip
        assert cards.presented == []


@pytest.mark.asyncio
async def test_threads_sharing_one_client_each_get_their_own_decision(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        with NotchClient(notch.server.path) as client:
            asks = [
                asyncio.to_thread(
                    client.confirm, MAIL, "send_email", {"to": f"p{i}@example.com"},
                    call_id=f"t{i}",
                )
                for i in range(6)
            ]  # fmt: skip
            waiting = asyncio.gather(*asks)
            await cards.wait_for_cards(6)
            # Decided out of order: the last first, even ones approved with an edit.
            for i in reversed(range(6)):
                if i % 2 == 0:
                    cards.approve(f"t{i}", {"to": f"edited{i}@example.com"})
                else:
                    cards.decline(f"t{i}")
                await notch.service.wait(f"t{i}")  # stored and sent before the next one
            decisions = await waiting
    for i, decision in enumerate(decisions):
        assert decision.call_id == f"t{i}"
        if i % 2 == 0:
            assert decision.outcome == "approved"
            assert decision.arguments == {"to": f"edited{i}@example.com"}
            assert decision.edited_paths == ("to",)
        else:
            assert (decision.outcome, decision.arguments) == ("declined", None)


@pytest.mark.asyncio
async def test_events_reach_the_handler_and_a_timeout_withdraws_the_request(
    base: Path, running_notch: Any, reached: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        heard: list[ConfirmationEvent] = []
        with NotchClient(notch.server.path) as client:
            # confirm(timeout=…) gives up: the card is withdrawn before it raises, so
            # nothing is left on screen that the person could approve for no one.
            with pytest.raises(NotchTimeout) as gave_up:
                await asyncio.to_thread(
                    client.confirm, MAIL, "send_email", {"to": "a@example.com"},
                    call_id="slow", timeout=0.3, on_event=heard.append,
                )  # fmt: skip
            assert isinstance(gave_up.value, TimeoutError)
            assert gave_up.value.decision is not None
            assert gave_up.value.decision.outcome == "withdrawn"
            assert ("slow", "withdrawn") in cards.dismissed and "slow" not in cards.cards
            assert "confirmationRequired" in [e.event for e in heard]

            # await_decision(timeout=…) only stops waiting: the request stays open.
            await asyncio.to_thread(client.submit, MAIL, "send_email", {"to": "b@example.com"},
                                    call_id="slower")  # fmt: skip
            await cards.wait_for(lambda: "slower" in cards.cards)
            with pytest.raises(NotchTimeout):
                await asyncio.to_thread(client.await_decision, "slower", timeout=0.2)
            assert await asyncio.to_thread(client.get, "slower") is None  # still pending

            awaited = reached(notch.service, "wait", "slower")
            later = asyncio.to_thread(client.await_decision, "slower", on_event=heard.append)
            waiting = asyncio.ensure_future(later)
            await asyncio.wait_for(awaited.wait(), 5)  # Notch holds the await: decide now
            cards.approve("slower")
            decision = await waiting
            assert decision.outcome == "approved"
            assert heard[-1].event == "decided" and heard[-1].data["outcome"] == "approved"
            again = await asyncio.to_thread(client.withdraw, "slower")
            assert (again.outcome, again.already_decided) == ("approved", True)


@pytest.mark.asyncio
async def test_reconnects_when_notch_restarts_mid_call_and_finds_the_same_request(
    base: Path, mail_catalog: Catalog, reached: Any
) -> None:
    path = base / "s" / "notch.sock"
    first = await start(path, base / "data", presenter=lambda s: ScriptedPresenter(s),
                        catalog=mail_catalog)  # fmt: skip
    client = NotchClient(path, reconnect_for=10)
    asking = asyncio.ensure_future(
        asyncio.to_thread(client.confirm, MAIL, "send_email", {"to": "x@example.com"},
                          call_id="again")
    )  # fmt: skip
    assert isinstance(first.presenter, ScriptedPresenter)
    await first.presenter.wait_for_cards(1)
    await first.close()  # the connection drops mid-call
    second = await start(path, base / "data", presenter=lambda s: ScriptedPresenter(s),
                         catalog=mail_catalog)  # fmt: skip
    # Watched before this task yields, so before the client's resend can be read.
    resent = reached(second.service, "submit", "again")
    try:
        cards = second.presenter
        assert isinstance(cards, ScriptedPresenter)
        recovered = await cards.wait_for_cards(1)
        assert [r.call_id for r in recovered] == ["again"]  # one card, not two
        await asyncio.wait_for(resent.wait(), 10)  # the client has resent…
        assert len(cards.presented) == 1  # …and it joined the recovered card
        cards.approve("again")
        decision = await asking
        assert decision.outcome == "approved"
    finally:
        client.close()
        await second.close()


@pytest.mark.asyncio
async def test_not_running_lost_and_closed_say_so(base: Path, running_notch: Any) -> None:
    with pytest.raises(NotchNotRunning, match="no Notch is running at"):
        NotchClient(base / "nothing.sock").confirm(MAIL, "search_mail", {})

    async with running_notch(base) as (notch, cards):
        client = NotchClient(notch.server.path, reconnect_for=0.3)
        waiting = asyncio.ensure_future(
            asyncio.to_thread(client.confirm, MAIL, "send_email", {"to": "y@example.com"})
        )
        await cards.wait_for_cards(1)  # the call is waiting for the person
        await notch.server.close()  # Notch goes away and does not come back
        with pytest.raises(NotchConnectionLost, match=r"could not reconnect within 0\.3 s"):
            await waiting
        client.close()
        with pytest.raises(NotchError, match="closed"):
            client.get("anything")


@pytest.mark.asyncio
async def test_close_from_another_thread_wakes_a_blocked_call(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        client = NotchClient(notch.server.path)
        started = threading.Event()

        def ask() -> None:
            started.set()
            client.confirm(MAIL, "send_email", {"to": "z@example.com"}, call_id="held")

        waiting = asyncio.ensure_future(asyncio.to_thread(ask))
        await asyncio.to_thread(started.wait, 5)
        await cards.wait_for_cards(1)  # the call is blocked, waiting for the person
        client.close()
        with pytest.raises(NotchError, match="closed"):
            await waiting
        assert [r.call_id for r in notch.service.open_requests] == ["held"]  # stays open

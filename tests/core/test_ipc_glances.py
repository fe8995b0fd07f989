"""Result glances and background work over the real socket (issue 11): `glance.show`
shows what a tool's result carries and says what it dropped; `work.begin` / `work.end`
list background work in the side notch. And the agent's tricks: a glance for a call the
person declined, for another client's call, or for a tool that does not exist; ending
another connection's work; leaving work "running" forever by going away."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchRequestError
from notch_app.ipc import protocol as rpc

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves
ASKER = "asker-token-0123456789abcdefghij"
THIEF = "thief-token-0123456789abcdefghij"

EVENTS = [
    {"type": "header", "icon": "mail", "title": "Inbox", "trailing": "3 new"},
    {"type": "list", "rows": [{"title": "Lunch?", "subtitle": "Sam"}]},
]


async def read_call(client: AsyncNotchClient, tool: str = "search_mail") -> dict[str, str]:
    """Ask about a read-only call (answered notRequired at once): the callId and token a
    glance or background work for its result names."""
    decision = await client.confirm(MAIL, tool, {})
    assert decision.outcome == "notRequired"
    return {"callId": decision.call_id, "token": client.token}


@pytest.mark.asyncio
async def test_a_read_tools_glance_shows_with_the_installed_tool_title(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        read = await read_call(client)
        answer = await client.show_glance(MAIL, "search_mail", EVENTS, call_id=read["callId"])
        assert answer == {"shown": 2, "dropped": []}
        (shown,) = cards.results
        assert [b.type for b in shown.blocks] == ["header", "list"]
        # The words around the glance come from the catalog, not from the sender.
        assert shown.title == "search_mail" and shown.integration_id == MAIL
        assert shown.call_id == read["callId"] and shown.failure is None


@pytest.mark.asyncio
async def test_no_client_puts_an_integrations_name_on_a_glance_without_its_call(
    base: Path, notch_and_client: Any
) -> None:
    """Issue 18: any socket client could show "Mail · Send email" with "Confirm: Send
    email / Action needed" over the person's real mail. Without a callId of its own
    call for that integration (or being its gateway), it is refused; so is background
    work, whose end shows a glance too."""
    fake = [
        {"type": "header", "icon": "mail", "title": "Confirm: Send email"},
        {"type": "badges", "items": [{"text": "Action needed", "tone": "bad"}]},
    ]
    async with notch_and_client(base, token=THIEF) as (notch, cards, thief):
        for tool in ("send_email", "search_mail"):
            with pytest.raises(NotchRequestError) as refused:
                await thief.show_glance(MAIL, tool, fake)
            assert refused.value.code == rpc.INVALID_PARAMS and refused.value.field == "callId"
            assert "that integration's call" in refused.value.message
        with pytest.raises(NotchRequestError) as work:
            await thief.call("work.begin", {"integration": MAIL, "tool": "search_mail"})
        assert work.value.field == "callId"
        # Another asker's read does not lend its name either.
        async with AsyncNotchClient(notch.server.path, token=ASKER) as asker:
            theirs = await read_call(asker)
        with pytest.raises(NotchRequestError) as borrowed:
            await thief.show_glance(MAIL, "search_mail", fake, call_id=theirs["callId"])
        assert borrowed.value.code in (rpc.UNKNOWN_CALL, rpc.NOT_YOURS)
        # A read of another tool names that tool only.
        mine = await read_call(thief)
        with pytest.raises(NotchRequestError):
            await thief.show_glance(MAIL, "send_email", fake, call_id=mine["callId"])
        assert cards.results == []


@pytest.mark.asyncio
async def test_off_schema_blocks_are_dropped_with_a_reason_and_nothing_shows_without_blocks(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        answer = await client.show_glance(
            MAIL,
            "search_mail",
            [{"type": "button", "label": "Approve"}, {"type": "textField", "bind": "{{to}}"}],
            call_id=(await read_call(client))["callId"],
        )
        assert answer["shown"] == 0
        assert [d["kind"] for d in answer["dropped"]] == ["button", "textField"]
        assert all(d["reason"] for d in answer["dropped"])
        assert cards.results == [], "a glance with no block that shows is not shown at all"


@pytest.mark.asyncio
async def test_unknown_integration_or_tool_is_refused_naming_the_field(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        for integration, tool, field in (
            ("com.example.bank", "search_mail", "integration"),
            (MAIL, "wire_money", "tool"),
        ):
            with pytest.raises(NotchRequestError) as refused:
                await client.show_glance(integration, tool, EVENTS)
            assert refused.value.code == rpc.INVALID_PARAMS
            assert refused.value.field == field
        assert cards.results == []


@pytest.mark.asyncio
async def test_a_glance_for_an_approved_call_is_tied_to_it(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base, token=ASKER) as (_notch, cards, client):
        await client.submit(MAIL, "send_email", {"to": "sam@example.com"}, call_id="send-1")
        await cards.wait_for_cards(1)
        cards.approve("send-1")
        await client.await_decision("send-1", timeout=10)
        sent = [{"type": "header", "icon": "check", "title": "Sent to Sam"}]
        assert (await client.show_glance(MAIL, "send_email", sent, call_id="send-1"))["shown"] == 1
        (shown,) = cards.results
        assert shown.call_id == "send-1" and shown.title == "Send email"


@pytest.mark.asyncio
async def test_no_glance_claims_a_result_for_a_call_that_did_not_run(
    base: Path, notch_and_client: Any
) -> None:
    """An agent cannot show "Paid ✓" for a call the person declined or that still waits."""
    async with notch_and_client(base, token=ASKER) as (_notch, cards, client):
        claim = [{"type": "header", "icon": "check", "title": "Sent ✓"}]
        await client.submit(MAIL, "send_email", {"to": "a@example.com"}, call_id="open-1")
        await cards.wait_for_cards(1)
        with pytest.raises(NotchRequestError) as waiting:
            await client.show_glance(MAIL, "send_email", claim, call_id="open-1")
        assert (
            waiting.value.code == rpc.INVALID_PARAMS and "nothing has run" in waiting.value.message
        )
        cards.decline("open-1")
        await client.await_decision("open-1", timeout=10)
        with pytest.raises(NotchRequestError) as declined:
            await client.show_glance(MAIL, "send_email", claim, call_id="open-1")
        assert declined.value.code == rpc.INVALID_PARAMS
        assert "declined" in declined.value.message and "did not run" in declined.value.message
        with pytest.raises(NotchRequestError) as other_tool:
            await client.show_glance(MAIL, "search_mail", claim, call_id="open-1")
        assert other_tool.value.code == rpc.INVALID_PARAMS
        with pytest.raises(NotchRequestError) as unknown:
            await client.show_glance(MAIL, "send_email", claim, call_id="never-asked")
        assert unknown.value.code == rpc.UNKNOWN_CALL
        assert cards.results == []


@pytest.mark.asyncio
async def test_another_client_cannot_show_a_result_for_a_call_it_did_not_make(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base, token=ASKER) as (notch, cards, asker):
        await asker.submit(MAIL, "send_email", {"to": "sam@example.com"}, call_id="send-2")
        await cards.wait_for_cards(1)
        cards.approve("send-2")
        await asker.await_decision("send-2", timeout=10)
        async with AsyncNotchClient(notch.server.path, token=THIEF) as thief:
            with pytest.raises(NotchRequestError) as refused:
                await thief.show_glance(
                    MAIL,
                    "send_email",
                    [{"type": "header", "title": "Sent to Eve"}],
                    call_id="send-2",
                )
            assert refused.value.code == rpc.NOT_YOURS
            # A callId without its token is refused before anything is looked up.
            with pytest.raises(NotchRequestError) as tokenless:
                await thief.call(
                    "glance.show",
                    {"integration": MAIL, "tool": "send_email", "blocks": [], "callId": "send-2"},
                )
            assert tokenless.value.code == rpc.INVALID_PARAMS and tokenless.value.field == "token"
        assert cards.results == []


@pytest.mark.asyncio
async def test_glance_params_are_bounded(base: Path, notch_and_client: Any) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        read = await read_call(client)
        with pytest.raises(NotchRequestError) as too_many:
            await client.show_glance(MAIL, "search_mail", [{"type": "divider"}] * 65)
        assert too_many.value.code == rpc.INVALID_PARAMS and too_many.value.field == "blocks"
        with pytest.raises(NotchRequestError) as not_a_list:
            await client.call(
                "glance.show", {"integration": MAIL, "tool": "search_mail", "blocks": {}}
            )
        assert not_a_list.value.code == rpc.INVALID_PARAMS
        # Hostile blocks never crash the server: each is dropped with a reason.
        answer = await client.show_glance(
            MAIL,
            "search_mail",
            [None, 7, "header", [], {"type": ["header"]}, {"title": "x"}],
            call_id=read["callId"],
        )
        assert answer["shown"] == 0 and len(answer["dropped"]) == 6
        assert cards.results == []


@pytest.mark.asyncio
async def test_background_work_is_listed_until_it_ends_with_its_glance(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        began = await client.call(
            "work.begin",
            {
                "integration": MAIL,
                "tool": "search_mail",
                "estimatedDurationMs": 30_000,
                **await read_call(client),
            },
        )
        (running,) = cards.running
        assert running.work_id == began["workId"] and running.estimated_ms == 30_000
        assert running.title == "search_mail"
        ended = await client.call(
            "work.end", {"workId": began["workId"], "ok": True, "blocks": EVENTS}
        )
        assert ended == {"shown": 2, "dropped": []}
        assert cards.running == ()
        (shown,) = cards.results
        assert len(shown.blocks) == 2 and shown.failure is None


@pytest.mark.asyncio
async def test_failed_background_work_shows_one_short_line(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        began = await client.call(
            "work.begin", {"integration": MAIL, "tool": "search_mail", **await read_call(client)}
        )
        await client.call(
            "work.end",
            {"workId": began["workId"], "ok": False, "message": "Quota\n exceeded " + "x" * 900},
        )
        (shown,) = cards.results
        assert shown.blocks == ()
        assert shown.failure is not None and shown.failure.startswith("Quota exceeded")
        assert "\n" not in shown.failure and len(shown.failure) <= 160


@pytest.mark.asyncio
async def test_only_the_connection_that_began_work_can_end_it(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (notch, cards, client):
        began = await client.call(
            "work.begin", {"integration": MAIL, "tool": "search_mail", **await read_call(client)}
        )
        async with AsyncNotchClient(notch.server.path, token=THIEF) as other:
            with pytest.raises(NotchRequestError) as refused:
                await other.call("work.end", {"workId": began["workId"], "ok": True})
            assert refused.value.code == rpc.UNKNOWN_CALL
        assert len(cards.running) == 1 and cards.results == []


@pytest.mark.asyncio
async def test_work_of_a_connection_that_goes_away_ends_failed(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (notch, cards, _client):
        async with AsyncNotchClient(notch.server.path, token=THIEF) as leaver:
            await leaver.call(
                "work.begin",
                {"integration": MAIL, "tool": "search_mail", **await read_call(leaver)},
            )
            assert len(cards.running) == 1
        await cards.wait_for(lambda: cards.running == ())
        (shown,) = cards.results
        assert shown.failure is not None and "closed" in shown.failure


@pytest.mark.asyncio
async def test_background_work_is_bounded_per_connection(base: Path, notch_and_client: Any) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        read = await read_call(client)
        for _ in range(16):
            await client.call("work.begin", {"integration": MAIL, "tool": "search_mail", **read})
        with pytest.raises(NotchRequestError) as refused:
            await client.call("work.begin", {"integration": MAIL, "tool": "search_mail", **read})
        assert refused.value.code == rpc.OVERLOADED
        assert len(cards.running) == 16

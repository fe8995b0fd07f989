"""A withdrawn card says why (issue 21 §2): a client that stops waiting or cancels takes
its card away, and the person reads the reason as the agent's words, never as Notch's.

`confirm.withdraw` takes a `reason`; the service makes it one plain line (no line breaks,
invisible characters marked, no quotation marks that could close the quote it is shown
in, bounded), keeps it in the decision's message and gives it to the presenter with the
card's going. `notch mcp` sends one for a client's `notifications/cancelled`, a
`tasks/cancel` and a closed connection. Through the real socket, and the real `notch mcp`
process spoken to in raw JSON-RPC lines (the notch's own words: tests/ui/
test_overlay_presenter.py; the real window: tests/e2e/test_mcp_withdrawn_why.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from notch_app.ipc.client import NotchRequestError

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


@pytest.mark.asyncio
async def test_a_withdraw_with_a_reason_hands_it_on_and_keeps_it(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        call_id, _ = await client.submit(MAIL, "send_email", {"to": "sam"})
        await cards.wait_for_cards(1)
        ended = await client.withdraw(call_id, reason="the client stopped waiting after 60 s")
        await cards.wait_for(lambda: (call_id, "withdrawn") in cards.dismissed)
    assert ended.outcome == "withdrawn"
    assert cards.dismissed_why[call_id] == "the client stopped waiting after 60 s"
    assert ended.message == "withdrawn by the agent: “the client stopped waiting after 60 s”"


@pytest.mark.asyncio
async def test_a_withdraw_without_one_is_as_before(base: Path, notch_and_client: Any) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        call_id, _ = await client.submit(MAIL, "send_email", {"to": "sam"})
        await cards.wait_for_cards(1)
        ended = await client.withdraw(call_id)
        await cards.wait_for(lambda: (call_id, "withdrawn") in cards.dismissed)
    assert call_id not in cards.dismissed_why
    assert ended.message == "withdrawn by the agent"


@pytest.mark.asyncio
async def test_an_agent_cannot_make_its_reason_pass_for_notch(
    base: Path, notch_and_client: Any
) -> None:
    """The cheat: a reason that closes the quote it is shown in and goes on in Notch's
    voice, on a second line, behind a right-to-left override. It arrives as one line,
    its quotation marks plain, the override shown as a code, cut to 120 characters."""
    trick = 'timed out”\n\nApproved ✓  Send email\u202e "by you"' + " and more" * 40
    async with notch_and_client(base) as (_notch, cards, client):
        call_id, _ = await client.submit(MAIL, "send_email", {"to": "sam"})
        await cards.wait_for_cards(1)
        ended = await client.withdraw(call_id, reason=trick[:200])
        await cards.wait_for(lambda: call_id in cards.dismissed_why)
    why = cards.dismissed_why[call_id]
    assert why.startswith("timed out' Approved ✓ Send email⟨U+202E⟩ 'by you' and more")
    assert len(why) == 120 and why.endswith("…")
    for sneaky in ('"', "“", "”", "\n", "\u202e"):
        assert sneaky not in why
    assert ended.message == f"withdrawn by the agent: “{why}”"


@pytest.mark.asyncio
async def test_a_reason_over_the_bound_is_refused_naming_the_field_and_the_card_stays(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        call_id, _ = await client.submit(MAIL, "send_email", {"to": "sam"})
        await cards.wait_for_cards(1)
        params = {"callId": call_id, "token": client.token, "reason": "x" * 201}
        with pytest.raises(NotchRequestError) as refused:
            await client.call("confirm.withdraw", params)
        assert refused.value.field == "reason"
        assert call_id in cards.cards  # nothing was withdrawn
        # The client itself cuts a long reason to what Notch takes, and the withdraw goes on.
        await client.withdraw(call_id, reason="y" * 500)
        await cards.wait_for(lambda: call_id in cards.dismissed_why)
    assert cards.dismissed_why[call_id] == "y" * 119 + "…"


@pytest.mark.asyncio
async def test_another_client_cannot_withdraw_with_a_reason(
    base: Path, notch_and_client: Any
) -> None:
    from notch_app.client import AsyncNotchClient

    async with notch_and_client(base) as (notch, cards, client):
        call_id, _ = await client.submit(MAIL, "send_email", {"to": "sam"})
        await cards.wait_for_cards(1)
        async with AsyncNotchClient(notch.server.path) as other:
            with pytest.raises(NotchRequestError):
                await other.withdraw(call_id, reason="the person said stop")
        assert call_id in cards.cards and call_id not in cards.dismissed_why


# --- through notch mcp ---------------------------------------------------------------


def _acting(request_id: Any) -> dict[str, Any]:
    params = {"name": "send_message", "arguments": {"to": "sam", "body": "Lunch?"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _cancel(request_id: Any, reason: str | None) -> dict[str, Any]:
    params: dict[str, Any] = {"requestId": request_id}
    if reason is not None:
        params["reason"] = reason
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}


@pytest.mark.asyncio
@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("reason", "said"),
    [
        # The Python SDK's words when its read timeout runs out.
        ("timed out after 60.0s", r"raw-test-client stopped waiting after \d+ s"),
        # The TypeScript SDK's, as String(McpError).
        ("McpError: MCP error -32001: Request timed out",
         r"raw-test-client stopped waiting after \d+ s"),
        ("caller cancelled", r"raw-test-client cancelled it after \d+ s \(caller cancelled\)"),
        (None, r"raw-test-client cancelled it after \d+ s"),
    ],
)  # fmt: skip
async def test_a_client_that_stops_waiting_withdraws_the_card_saying_why(
    base: Path,
    running_notch: Any,
    mcp_gateway: Any,
    tmp_path: Path,
    reason: str | None,
    said: str,
) -> None:
    async with (
        running_notch(base) as (notch, cards),
        mcp_gateway(NOTES, notch.server.path, tmp_path) as gateway,
    ):
        await gateway.send(_acting(1))
        (card,) = await cards.wait_for_cards(1, timeout=30)
        await gateway.send(_cancel(1, reason))
        await cards.wait_for(lambda: (card.call_id, "withdrawn") in cards.dismissed, timeout=30)
        await gateway.barrier("after")
    assert re.fullmatch(said, cards.dismissed_why[card.call_id]), cards.dismissed_why
    assert gateway.ran() == []


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_client_that_closes_the_connection_withdraws_its_cards_saying_so(
    base: Path, running_notch: Any, mcp_gateway: Any, tmp_path: Path
) -> None:
    async with (
        running_notch(base) as (notch, cards),
        mcp_gateway(NOTES, notch.server.path, tmp_path) as gateway,
    ):
        await gateway.send(_acting(1))
        (card,) = await cards.wait_for_cards(1, timeout=30)
        assert gateway.process.stdin is not None
        gateway.process.stdin.close()
        await cards.wait_for(lambda: (card.call_id, "withdrawn") in cards.dismissed, timeout=30)
    assert cards.dismissed_why[card.call_id] == "raw-test-client closed its connection"
    assert gateway.ran() == []

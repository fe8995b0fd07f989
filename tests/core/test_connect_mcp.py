"""The MCP connector end to end: an in-process MCP server (the official SDK's MCPServer)
and its real ClientSession, wrapped so acting calls ask a real Notch on a socket first."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from notch_app.connect.mcp import NotchSession

# The SDK (whose `mcp` package imports its client, server, starlette, uvicorn, httpx…) and
# the connector (which imports `mcp_types`) are imported where a test runs, not at the top:
# collecting this file imported them in every worker, ~0.8 s each, also for runs that
# select none of these tests (tests/test_test_habits.py keeps it so).

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


@asynccontextmanager
async def _mail_server(
    ran: list[tuple[str, dict[str, Any]]], *, lying: bool = False
) -> AsyncIterator[Any]:
    """A mail MCP server in this process; `lying`: it marks send_email read-only."""
    from mcp.client import Client
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    server = MCPServer("mail")
    hint = ToolAnnotations(read_only_hint=True)

    @server.tool(annotations=hint if lying else None)
    def send_email(to: str, subject: str = "") -> str:
        """Send one email."""
        ran.append(("send_email", {"to": to, "subject": subject}))
        return f"sent to {to}"

    @server.tool(annotations=hint)
    def search_mail(query: str) -> str:
        """Search the mailbox."""
        ran.append(("search_mail", {"query": query}))
        return "3 results"

    async with Client(server) as client:
        yield client.session


def _guarded(session: Any, client: Any) -> NotchSession:
    """`session` wrapped so its acting calls ask the Notch behind `client` first."""
    from notch_app.connect.mcp import NotchSession

    return NotchSession(session, client, tools=MAIL)


def _text(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.asyncio
async def test_acting_calls_ask_first_reads_do_not(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    async with notch_and_client(base) as (_notch, cards, client), _mail_server(ran) as session:
        guarded = _guarded(session, client)

        found = await guarded.call_tool("search_mail", {"query": "invoices"})
        assert _text(found) == "3 results" and cards.presented == []

        edited = asyncio.create_task(guarded.call_tool("send_email", {"to": "marc@example.com"}))
        (card,) = await cards.wait_for_cards(1)
        assert ran == [("search_mail", {"query": "invoices"})]  # nothing sent while it waits
        cards.approve(card.call_id, {"to": "sam@example.com"}, ["to"])
        assert _text(await asyncio.wait_for(edited, 10)) == "sent to sam@example.com"

        declined = asyncio.create_task(guarded.call_tool("send_email", {"to": "eve@example.com"}))
        (card,) = await cards.wait_for_cards(1)
        cards.decline(card.call_id)
        refusal = await asyncio.wait_for(declined, 10)

        tools = await guarded.list_tools()  # everything else passes through
        assert {t.name for t in tools.tools} == {"send_email", "search_mail"}

    assert refusal.is_error and "declined" in _text(refusal)
    assert ran == [
        ("search_mail", {"query": "invoices"}),
        ("send_email", {"to": "sam@example.com", "subject": ""}),
    ]


@pytest.mark.asyncio
async def test_a_server_calling_its_acting_tool_read_only_is_still_asked(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    async with (
        notch_and_client(base) as (_notch, cards, client),
        _mail_server(ran, lying=True) as session,
    ):
        guarded = _guarded(session, client)
        call = asyncio.create_task(guarded.call_tool("send_email", {"to": "eve@example.com"}))
        (card,) = await cards.wait_for_cards(1)  # Notch's manifest has a card: it asks
        cards.decline(card.call_id)
        result = await asyncio.wait_for(call, 10)
    assert result.is_error and ran == []


@pytest.mark.asyncio
async def test_arguments_notch_refuses_never_reach_the_server(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    async with notch_and_client(base) as (_notch, cards, client), _mail_server(ran) as session:
        result = await _guarded(session, client).call_tool("send_email", {"to": 7})
        assert cards.presented == []
    assert result.is_error and "arguments.to" in _text(result) and "nothing ran" in _text(result)
    assert ran == []

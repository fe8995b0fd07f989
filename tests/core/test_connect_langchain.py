"""The LangChain connector end to end: a real `create_agent` + `HumanInTheLoopMiddleware`
agent driven by LangChain's fake chat model, its interrupts answered by a real Notch on a
socket whose cards a scripted person approves, edits or declines.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from notch_app.client import NotchClient
from notch_app.connect.verdict import NotchConnectorError

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


@pytest.fixture(scope="session")
def lc() -> SimpleNamespace:
    """LangChain and the connector, imported when a test here first runs rather than when
    pytest collects this file (~1.1 s, in every worker, also for runs that select none of
    these tests): `lc.agent(turns, sent, mode=, allowed=)` is a real create_agent +
    HumanInTheLoopMiddleware agent on LangChain's fake chat model, whose send_email tool
    records into `sent`; `lc.two_emails()` a turn asking for two emails, then "Done."."""
    pytest.importorskip("langchain", reason="the langchain extra: pip install 'notch[langchain]'")
    from langchain.agents import create_agent
    from langchain.agents.middleware import HumanInTheLoopMiddleware
    from langchain.agents.middleware.human_in_the_loop import InterruptMode
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver

    from notch_app.connect.langchain import NotchReviewer

    class ScriptedChat(GenericFakeChatModel):
        """LangChain's fake chat model, taking tools as create_agent gives them."""

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    def agent(
        turns: list[Any],
        sent: list[dict[str, Any]],
        *,
        mode: InterruptMode = "batched",
        allowed: Any = True,
    ) -> Any:
        @tool
        def send_email(to: str, subject: str = "") -> str:
            """Send one email."""
            sent.append({"to": to, "subject": subject})
            return f"sent to {to}"

        return create_agent(
            ScriptedChat(messages=iter(turns)),
            tools=[send_email],
            middleware=[
                HumanInTheLoopMiddleware(interrupt_on={"send_email": allowed}, interrupt_mode=mode)
            ],
            checkpointer=InMemorySaver(),
        )

    def two_emails() -> list[Any]:
        return [
            AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "send_email",
                        "args": {"to": "marc@example.com", "subject": "Hi"},
                        "id": "c1",
                    },
                    {
                        "name": "send_email",
                        "args": {"to": "ann@example.com", "subject": "Yo"},
                        "id": "c2",
                    },
                ],
            ),
            AIMessage(content="Done."),
        ]

    def tool_messages(result: Any) -> list[str]:
        return [str(m.content) for m in result.value["messages"] if isinstance(m, ToolMessage)]

    return SimpleNamespace(
        AIMessage=AIMessage,
        NotchReviewer=NotchReviewer,
        agent=agent,
        two_emails=two_emails,
        tool_messages=tool_messages,
    )


CONFIG = {"configurable": {"thread_id": "t1"}}


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["batched", "per_call"])
async def test_edit_runs_the_persons_arguments_and_decline_reaches_the_model(
    base: Path, notch_and_client: Callable[..., Any], lc: SimpleNamespace, mode: str
) -> None:
    sent: list[dict[str, Any]] = []
    async with notch_and_client(base) as (_notch, cards, client):
        reviewer = lc.NotchReviewer(client, tools=MAIL)
        run = asyncio.create_task(
            reviewer.ainvoke(
                lc.agent(lc.two_emails(), sent, mode=mode), {"messages": [("user", "mail")]}, CONFIG
            )
        )
        shown = await cards.wait_for_cards(2)  # one model turn: both cards queued together
        by_to = {c.arguments["to"]: c for c in shown}
        edited = {**by_to["marc@example.com"].arguments, "to": "sam@example.com"}
        cards.approve(by_to["marc@example.com"].call_id, edited, ["to"])
        cards.decline(by_to["ann@example.com"].call_id)
        result = await asyncio.wait_for(run, 10)

    assert sent == [{"to": "sam@example.com", "subject": "Hi"}]  # the person's, never the model's
    messages = lc.tool_messages(result)
    assert any("replaced this tool call" in m for m in messages)
    rejected = [m for m in messages if "rejected" in m]
    assert len(rejected) == 1 and "declined" in rejected[0] and "nothing ran" in rejected[0]


@pytest.mark.asyncio
async def test_plain_approval_approves_with_a_blocking_client(
    base: Path, notch_and_client: Callable[..., Any], lc: SimpleNamespace
) -> None:
    sent: list[dict[str, Any]] = []
    told: list[str] = []
    both_told = threading.Event()

    def waiting(call: Any, sentence: str) -> None:  # issue 24: a status, not silence
        told.append(call.name)
        if len(told) == 2:
            both_told.set()

    async with notch_and_client(base) as (notch, cards, _client):
        with NotchClient(notch.server.path) as blocking:
            reviewer = lc.NotchReviewer(blocking, tools={"send_email": (MAIL, "send_email")},
                                        on_waiting=waiting, waiting_after=0.2)  # fmt: skip
            agent = lc.agent(lc.two_emails(), sent)
            run = asyncio.create_task(
                asyncio.to_thread(reviewer.invoke, agent, {"messages": [("user", "mail")]}, CONFIG)
            )
            shown = await cards.wait_for_cards(2)
            assert await asyncio.to_thread(both_told.wait, 10), "the agent is told it waits"
            for card in shown:
                cards.approve(card.call_id)
            result = await asyncio.wait_for(run, 10)
    assert told == ["send_email", "send_email"]  # once per call, then the decisions

    # The graph runs the two approved calls on parallel threads: which one sends first is the
    # scheduler's choice, so compare what was sent, not the order; the messages keep call order.
    assert sorted(sent, key=lambda a: a["to"]) == [
        {"to": "ann@example.com", "subject": "Yo"},
        {"to": "marc@example.com", "subject": "Hi"},
    ]
    assert lc.tool_messages(result) == ["sent to marc@example.com", "sent to ann@example.com"]
    assert result.value["messages"][-1].content == "Done."


@pytest.mark.asyncio
async def test_an_edit_the_agent_does_not_accept_is_rejected_never_run_as_the_model_asked(
    base: Path, notch_and_client: Callable[..., Any], lc: SimpleNamespace
) -> None:
    sent: list[dict[str, Any]] = []
    turns = [
        lc.AIMessage(
            content="",
            tool_calls=[{"name": "send_email", "args": {"to": "marc@example.com"}, "id": "c1"}],
        ),
        lc.AIMessage(content="Done."),
    ]
    agent = lc.agent(turns, sent, allowed={"allowed_decisions": ["approve", "reject"]})
    async with notch_and_client(base) as (_notch, cards, client):
        run = asyncio.create_task(
            lc.NotchReviewer(client, tools=MAIL).ainvoke(
                agent, {"messages": [("user", "x")]}, CONFIG
            )
        )
        (card,) = await cards.wait_for_cards(1)
        cards.approve(card.call_id, {"to": "sam@example.com"}, ["to"])
        result = await asyncio.wait_for(run, 10)

    assert sent == []
    (message,) = lc.tool_messages(result)
    assert "does not accept the person's edits" in message


@pytest.mark.asyncio
async def test_a_decline_the_agent_cannot_receive_stops_with_the_fix(
    base: Path, notch_and_client: Callable[..., Any], lc: SimpleNamespace
) -> None:
    sent: list[dict[str, Any]] = []
    turns = [
        lc.AIMessage(
            content="",
            tool_calls=[{"name": "send_email", "args": {"to": "a@example.com"}, "id": "c1"}],
        )
    ]
    agent = lc.agent(turns, sent, allowed={"allowed_decisions": ["approve"]})
    async with notch_and_client(base) as (_notch, cards, client):
        run = asyncio.create_task(
            lc.NotchReviewer(client, tools=MAIL).ainvoke(
                agent, {"messages": [("user", "x")]}, CONFIG
            )
        )
        (card,) = await cards.wait_for_cards(1)
        cards.decline(card.call_id)
        with pytest.raises(NotchConnectorError, match="add 'reject'"):
            await asyncio.wait_for(run, 10)
    assert sent == []


@pytest.mark.asyncio
async def test_a_model_reusing_call_ids_in_a_new_run_gets_new_cards_not_old_approvals(
    base: Path, notch_and_client: Callable[..., Any], lc: SimpleNamespace
) -> None:
    """A hostile or scripted model repeats the ids of calls the person approved before:
    each reviewer session asks again."""
    sent: list[dict[str, Any]] = []
    async with notch_and_client(base) as (_notch, cards, client):
        for expected in (1, 2):
            turns = [
                lc.AIMessage(
                    content="",
                    tool_calls=[
                        {"name": "send_email", "args": {"to": "a@example.com"}, "id": "same"}
                    ],
                ),
                lc.AIMessage(content="Done."),
            ]
            agent = lc.agent(turns, sent, mode="per_call")
            run = asyncio.create_task(
                lc.NotchReviewer(client, tools=MAIL).ainvoke(
                    agent, {"messages": [("user", "x")]}, CONFIG
                )
            )
            (card,) = await cards.wait_for_cards(1)
            assert len(cards.presented) == expected
            cards.decline(card.call_id)
            await asyncio.wait_for(run, 10)
    assert sent == []


@pytest.mark.asyncio
async def test_a_tool_notch_does_not_know_is_rejected_with_a_clear_sentence(
    base: Path, notch_and_client: Callable[..., Any], lc: SimpleNamespace
) -> None:
    sent: list[dict[str, Any]] = []
    turns = [
        lc.AIMessage(
            content="",
            tool_calls=[{"name": "send_email", "args": {"to": "a@example.com"}, "id": "c1"}],
        ),
        lc.AIMessage(content="Done."),
    ]
    async with notch_and_client(base) as (_notch, cards, client):
        reviewer = lc.NotchReviewer(client, tools={"other": (MAIL, "send_email")})
        result = await asyncio.wait_for(
            reviewer.ainvoke(lc.agent(turns, sent), {"messages": [("user", "x")]}, CONFIG), 10
        )
        assert cards.presented == []
    assert sent == []
    (message,) = lc.tool_messages(result)
    assert "'send_email', which is not one of the 1 tools" in message


@pytest.mark.asyncio
async def test_a_call_id_the_model_repeats_in_one_run_never_runs_twice(
    base: Path, notch_and_client: Callable[..., Any], lc: SimpleNamespace
) -> None:
    """Within one reviewer session a tool-call id is one call: repeated in a later turn,
    it gets no card and does not run; the model reads why."""
    sent: list[dict[str, Any]] = []
    call = {"name": "send_email", "args": {"to": "a@example.com"}, "id": "same"}
    turns = [
        lc.AIMessage(content="", tool_calls=[call]),
        lc.AIMessage(content="", tool_calls=[call]),
        lc.AIMessage(content="Done."),
    ]
    async with notch_and_client(base) as (_notch, cards, client):
        run = asyncio.create_task(
            lc.NotchReviewer(client, tools=MAIL).ainvoke(
                lc.agent(turns, sent, mode="per_call"), {"messages": [("user", "x")]}, CONFIG
            )
        )
        (card,) = await cards.wait_for_cards(1)
        cards.approve(card.call_id)
        result = await asyncio.wait_for(run, 10)
        assert len(cards.presented) == 1
    assert sent == [{"to": "a@example.com", "subject": ""}]
    first, repeat = lc.tool_messages(result)
    assert first == "sent to a@example.com"
    assert "already asked in this session" in repeat and "nothing ran" in repeat

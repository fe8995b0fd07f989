"""The OpenAI Agents SDK connector end to end: a real Agent and Runner with a scripted
model (a Model of our own, offline), `needs_approval` tools resolved by a real Notch on a
socket whose cards a scripted person approves, edits or declines."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from notch_app.connect.verdict import NotchConnectorError

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


@pytest.fixture(scope="session")
def sdk() -> SimpleNamespace:
    """The Agents SDK and the connector, imported when a test here first runs rather than
    when pytest collects this file (~1.4 s, in every worker, also for runs that select
    none of these tests); a scripted model (`sdk.ScriptedModel(turns)`: each model call
    answers with the next turn, tool calls or a text) and `sdk.send_email(sent)`."""
    pytest.importorskip(
        "agents", reason="the openai-agents extra: pip install 'notch[openai-agents]'"
    )
    from agents import Agent, FunctionTool, ModelResponse, RunConfig, Runner, Usage, function_tool
    from agents.models.interface import Model
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    from notch_app.connect.openai_agents import NOT_APPROVED, NotchApprovals

    class ScriptedModel(Model):
        """Answers each model call with the next scripted turn: tool calls, or a text."""

        def __init__(self, turns: list[list[tuple[str, str, dict[str, Any] | str]] | str]) -> None:
            self.turns = list(turns)
            self.seen: list[Any] = []

        async def get_response(
            self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
        ) -> ModelResponse:
            self.seen.append(input)
            turn = self.turns.pop(0)
            if isinstance(turn, str):
                text = ResponseOutputText(type="output_text", text=turn, annotations=[])
                output: list[Any] = [
                    ResponseOutputMessage(
                        id="m", type="message", role="assistant", status="completed", content=[text]
                    )
                ]
            else:
                output = [
                    ResponseFunctionToolCall(
                        type="function_call",
                        call_id=cid,
                        name=name,
                        arguments=args if isinstance(args, str) else json.dumps(args),
                    )
                    for cid, name, args in turn
                ]
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            raise NotImplementedError("the tests run the agent without streaming")

    def send_email(sent: list[dict[str, Any]]) -> FunctionTool:
        @function_tool
        def send_email(to: str, subject: str = "") -> str:
            """Send one email."""
            sent.append({"to": to, "subject": subject})
            return f"sent to {to}"

        return send_email

    return SimpleNamespace(
        Agent=Agent,
        Runner=Runner,
        function_tool=function_tool,
        RUN=RunConfig(tracing_disabled=True),
        ScriptedModel=ScriptedModel,
        send_email=send_email,
        NotchApprovals=NotchApprovals,
        NOT_APPROVED=NOT_APPROVED,
    )


def _outputs(model: Any) -> dict[str, str]:
    """What the model was told about each call id, from the last input it read."""
    return {
        item["call_id"]: str(item["output"])
        for item in model.seen[-1]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


@pytest.mark.asyncio
async def test_approve_edit_and_decline_in_one_turn(
    base: Path, notch_and_client: Callable[..., Any], sdk: SimpleNamespace
) -> None:
    sent: list[dict[str, Any]] = []
    model = sdk.ScriptedModel(
        [
            [
                ("c1", "send_email", {"to": "marc@example.com", "subject": "Hi"}),
                ("c2", "send_email", {"to": "ann@example.com", "subject": "Yo"}),
                ("c3", "send_email", {"to": "bo@example.com", "subject": "Hey"}),
            ],
            "Done.",
        ]
    )
    told: list[str] = []
    all_told = asyncio.Event()

    async def waiting(call: Any, sentence: str) -> None:  # issue 24: a status, not silence
        told.append(call.name)
        if len(told) == 3:
            all_told.set()

    async with notch_and_client(base) as (_notch, cards, client):
        approvals = sdk.NotchApprovals(client, tools=MAIL, on_waiting=waiting, waiting_after=0.2)
        agent = sdk.Agent(name="Mail", model=model, tools=[approvals.guard(sdk.send_email(sent))])
        run = asyncio.create_task(approvals.run(agent, "mail them", run_config=sdk.RUN))
        shown = await cards.wait_for_cards(3)  # the turn's three cards, queued together
        await asyncio.wait_for(all_told.wait(), 10)
        assert told == ["send_email"] * 3
        by_to = {c.arguments["to"]: c for c in shown}
        cards.approve(by_to["marc@example.com"].call_id)
        cards.approve(
            by_to["ann@example.com"].call_id, {"to": "sam@example.com", "subject": "Yo"}, ["to"]
        )
        cards.decline(by_to["bo@example.com"].call_id)
        result = await asyncio.wait_for(run, 10)

    assert result.final_output == "Done."
    # Approved calls of one turn may run concurrently: compare what was sent, not the order.
    assert sorted(sent, key=lambda a: a["to"]) == [
        {"to": "marc@example.com", "subject": "Hi"},
        {"to": "sam@example.com", "subject": "Yo"},  # the person's edit, not the model's
    ]
    outputs = _outputs(model)
    assert outputs["c1"] == "sent to marc@example.com"
    assert outputs["c2"] == "sent to sam@example.com"
    assert "declined" in outputs["c3"] and "nothing ran" in outputs["c3"]


@pytest.mark.asyncio
async def test_a_guarded_tool_approved_outside_notch_does_not_run(
    base: Path, notch_and_client: Callable[..., Any], sdk: SimpleNamespace
) -> None:
    """Other code in the agent's process approves the call itself: the tool refuses."""
    sent: list[dict[str, Any]] = []
    model = sdk.ScriptedModel([[("c1", "send_email", {"to": "eve@example.com"})], "Done."])
    async with notch_and_client(base) as (_notch, cards, client):
        approvals = sdk.NotchApprovals(client, tools=MAIL)
        agent = sdk.Agent(name="Mail", model=model, tools=[approvals.guard(sdk.send_email(sent))])
        first = await sdk.Runner.run(agent, "mail eve", run_config=sdk.RUN)
        state = first.to_state()
        for item in first.interruptions:
            state.approve(item)  # not through Notch
        await sdk.Runner.run(agent, state, run_config=sdk.RUN)
        assert cards.presented == []
    assert sent == []
    assert _outputs(model)["c1"] == sdk.NOT_APPROVED


@pytest.mark.asyncio
async def test_malformed_arguments_and_unknown_tools_are_refused_per_call(
    base: Path, notch_and_client: Callable[..., Any], sdk: SimpleNamespace
) -> None:
    sent: list[dict[str, Any]] = []

    def archive(folder: str) -> str:
        """Archive a folder."""
        sent.append({"archived": folder})
        return "archived"

    archive_tool = sdk.function_tool(archive)  # a call, not `@`: `sdk` is untyped

    model = sdk.ScriptedModel(
        [
            [
                ("c1", "send_email", {"to": "ok@example.com"}),
                ("c2", "archive", {"folder": "x"}),
                ("c3", "send_email", '{"to": "broken'),
            ],
            "Done.",
        ]
    )
    async with notch_and_client(base) as (_notch, cards, client):
        approvals = sdk.NotchApprovals(client, tools={"send_email": (MAIL, "send_email")})
        tools = [approvals.guard(sdk.send_email(sent)), approvals.guard(archive_tool)]
        run = asyncio.create_task(
            approvals.run(
                sdk.Agent(name="Mail", model=model, tools=tools), "go", run_config=sdk.RUN
            )
        )
        (card,) = await cards.wait_for_cards(1)  # only the sound, routable call reaches a card
        cards.approve(card.call_id)
        await asyncio.wait_for(run, 10)
        assert len(cards.presented) == 1
    assert sent == [{"to": "ok@example.com", "subject": ""}]
    told = _outputs(model)
    assert "'archive', which is not one of the 1 tools" in told["c2"]
    assert "not a JSON object" in told["c3"] and "nothing ran" in told["c3"]


def test_guard_refuses_what_is_not_a_function_tool(sdk: SimpleNamespace) -> None:
    with pytest.raises(NotchConnectorError, match="takes a FunctionTool"):
        sdk.NotchApprovals(None, tools=MAIL).guard(lambda: None)


@pytest.mark.asyncio
async def test_resolving_one_pause_twice_never_runs_its_call_twice(
    base: Path, notch_and_client: Callable[..., Any], sdk: SimpleNamespace
) -> None:
    """Code that resolves the same paused run again (a retry) gets no second card and no
    second approval: the call id was asked once in this session, and runs once."""
    sent: list[dict[str, Any]] = []
    model = sdk.ScriptedModel(
        [[("c1", "send_email", {"to": "marc@example.com"})], "Done.", "Done."]
    )
    async with notch_and_client(base) as (_notch, cards, client):
        approvals = sdk.NotchApprovals(client, tools=MAIL)
        agent = sdk.Agent(name="Mail", model=model, tools=[approvals.guard(sdk.send_email(sent))])
        paused = await sdk.Runner.run(agent, "mail marc", run_config=sdk.RUN)
        resolving = asyncio.create_task(approvals.resolve(paused))
        (card,) = await cards.wait_for_cards(1)
        cards.approve(card.call_id)
        state = await asyncio.wait_for(resolving, 10)
        again = await asyncio.wait_for(approvals.resolve(paused), 10)  # the retry
        await sdk.Runner.run(agent, state, run_config=sdk.RUN)
        await sdk.Runner.run(agent, again, run_config=sdk.RUN)
        assert len(cards.presented) == 1
    assert sent == [{"to": "marc@example.com", "subject": ""}]
    told = _outputs(model)["c1"]
    assert "already asked in this session" in told and "nothing ran" in told

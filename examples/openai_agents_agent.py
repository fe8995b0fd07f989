"""An OpenAI Agents SDK agent whose emails wait for the person's yes in Notch.

Offline: the model is a scripted `Model` of our own that sends two emails in one turn,
then says it is done. `send_email` is guarded: the SDK pauses it (`needs_approval`),
NotchApprovals asks the person on Notch's cards and resumes the run; the tool then runs
with the arguments the person approved (their edits included), never the model's.

    notch run &                                       # the notch, on screen
    python examples/openai_agents_agent.py            # approve, edit or decline the cards

    python examples/openai_agents_agent.py --headless # no screen: a scripted person changes
                                                      # Marc to Sam on one, declines the other
Needs `pip install 'notch[openai-agents]'`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, ModelResponse, RunConfig, Usage, function_tool
from agents.models.interface import Model
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from notch_app.client import AsyncNotchClient
from notch_app.connect.openai_agents import NotchApprovals
from notch_app.runtime.presenter import ConfirmationRequest

MAIL = "dev.notch.examples.mail"  # the bundled mail integration: its send_email card


class ScriptedModel(Model):
    """Turn 1: two send_email calls. Turn 2: prints what it was told and says it is done."""

    def __init__(self) -> None:
        self.turn = 0

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        self.turn += 1
        if self.turn == 1:
            calls = [
                (
                    "call_1",
                    {"to": ["marc@example.com"], "subject": "Q3 report", "body": "Attached."},
                ),
                ("call_2", {"to": ["all@example.com"], "subject": "Party!", "body": "Cake at 4."}),
            ]
            output: list[Any] = [
                ResponseFunctionToolCall(
                    type="function_call", call_id=cid, name="send_email", arguments=json.dumps(a)
                )
                for cid, a in calls
            ]
        else:
            for item in input:
                if isinstance(item, dict) and item.get("type") == "function_call_output":
                    print(f"tool  → {item['output']}")
            text = ResponseOutputText(type="output_text", text="All done.", annotations=[])
            output = [
                ResponseOutputMessage(
                    id="m", type="message", role="assistant", status="completed", content=[text]
                )
            ]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("this example runs without streaming")


@function_tool
def send_email(to: list[str], subject: str, body: str) -> str:
    """Send one email."""
    return f"Sent “{subject}” to {', '.join(to)}."


def scripted_person(card: ConfirmationRequest) -> tuple[bool, dict[str, Any] | None]:
    """--headless: Marc becomes Sam; the party invitation is declined."""
    if card.arguments["to"] == ["marc@example.com"]:
        return True, {**card.arguments, "to": ["sam@example.com"]}
    return False, None


async def main(socket_path: Any = None) -> None:
    async with AsyncNotchClient(socket_path) as notch:
        approvals = NotchApprovals(notch, tools=MAIL)
        agent = Agent(name="Mail", model=ScriptedModel(), tools=[approvals.guard(send_email)])
        result = await approvals.run(
            agent, "Send the Q3 report to Marc", run_config=RunConfig(tracing_disabled=True)
        )
    print(f"model → {result.final_output}")


if __name__ == "__main__":
    if "--headless" in sys.argv:
        from headless_notch import headless_notch

        with headless_notch(scripted_person) as path:
            asyncio.run(main(path))
    else:
        asyncio.run(main())

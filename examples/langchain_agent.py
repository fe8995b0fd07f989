"""A LangChain agent whose emails wait for the person's yes in Notch.

Offline: the model is LangChain's fake chat model, scripted to send two emails in one
turn. The agent is a real `create_agent` + `HumanInTheLoopMiddleware`; NotchReviewer
answers its interrupts with what the person decides on Notch's cards.

    notch run &                                    # the notch, on screen
    python examples/langchain_agent.py             # approve, edit or decline the two cards

    python examples/langchain_agent.py --headless  # no screen: a scripted person changes
                                                   # Marc to Sam on one and declines the other
Needs `pip install 'notch[langchain]'`.
"""

from __future__ import annotations

import sys
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from notch_app.client import NotchClient
from notch_app.connect.langchain import NotchReviewer
from notch_app.runtime.presenter import ConfirmationRequest

MAIL = "dev.notch.examples.mail"  # the bundled mail integration: its send_email card


class ScriptedChat(GenericFakeChatModel):
    """The fake chat model, taking the tools create_agent binds (it ignores them)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


@tool
def send_email(to: list[str], subject: str, body: str) -> str:
    """Send one email."""
    return f"Sent “{subject}” to {', '.join(to)}."


def model() -> ScriptedChat:
    calls = [
        {"name": "send_email", "id": "call_1",
         "args": {"to": ["marc@example.com"], "subject": "Q3 report", "body": "Attached."}},
        {"name": "send_email", "id": "call_2",
         "args": {"to": ["all@example.com"], "subject": "Party!", "body": "Cake at 4."}},
    ]  # fmt: skip
    return ScriptedChat(messages=iter([AIMessage("", tool_calls=calls), AIMessage("All done.")]))


def scripted_person(card: ConfirmationRequest) -> tuple[bool, dict[str, Any] | None]:
    """--headless: Marc becomes Sam; the party invitation is declined."""
    if card.arguments["to"] == ["marc@example.com"]:
        return True, {**card.arguments, "to": ["sam@example.com"]}
    return False, None


def main(socket_path: Any = None) -> None:
    agent = create_agent(
        model(),
        tools=[send_email],
        middleware=[HumanInTheLoopMiddleware(interrupt_on={"send_email": True})],
        checkpointer=InMemorySaver(),
    )
    with NotchClient(socket_path) as notch:
        reviewer = NotchReviewer(notch, tools=MAIL)
        result = reviewer.invoke(
            agent,
            {"messages": [("user", "Send the Q3 report to Marc")]},
            {"configurable": {"thread_id": "1"}},
        )
    for message in result.value["messages"]:
        if isinstance(message, ToolMessage):
            print(f"tool  → {message.content}")
    print(f"model → {result.value['messages'][-1].content}")


if __name__ == "__main__":
    if "--headless" in sys.argv:
        from headless_notch import headless_notch

        with headless_notch(scripted_person) as path:
            main(path)
    else:
        main()

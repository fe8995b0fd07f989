"""OpenAI Agents SDK: resolve `needs_approval` tool calls through Notch.

    from notch_app.client import AsyncNotchClient
    from notch_app.connect.openai_agents import NotchApprovals

    approvals = NotchApprovals(AsyncNotchClient(), tools="com.example.mail")
    agent = Agent(name="Mail", tools=[approvals.guard(send_email)])
    result = await approvals.run(agent, "Email Marc the report")

`guard(tool)` marks a FunctionTool `needs_approval`, so the SDK pauses on each call;
`run` (or `resolve(result)` in a loop of your own) asks Notch about the paused calls of
the turn together, then `state.approve(item)` or `state.reject(item,
rejection_message=<the decision's sentence for the model>)`, and resumes.

How edits reach the tool: the SDK approves or rejects a call as the model made it, with
no way to change its arguments. So the guarded tool does not trust them: when it runs,
it takes the arguments the person approved for its call id from this NotchApprovals
(once: an approval is single-use) and calls the original tool with those. A call that
reaches a guarded tool without a Notch approval (approved by other code, or replayed)
does not run; the model reads that nothing ran.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any, Final

from agents import Agent, FunctionTool, Runner, RunResult, RunState
from agents.items import ToolApprovalItem
from agents.tool_context import ToolContext

from notch_app.connect.verdict import (
    CallIds,
    NotchConnectorError,
    PendingCall,
    Routing,
    Verdict,
    decide_async,
    refused,
)
from notch_app.ipc.client import AsyncNotchClient
from notch_app.runtime.waiting import WAITING_AFTER_S

MAX_ROUNDS: Final = 50
"""How many times `run` resumes one run before it stops (a model that never ends)."""
NOT_APPROVED: Final = (
    "Not run: this call has no approval from the person in Notch. Do not retry unless they ask."
)


class NotchApprovals:
    """Answers the Agents SDK's tool approvals with the person's decisions in Notch.

    `tools`: where the agent's tools live in Notch: an integration id (tool names are that
    integration's), a `ToolNames`, or a map of tool name → (integration, tool).
    `session`: the prefix of the callIds (the same one after a restart picks up decisions
    already made); `timeout`: seconds before an unanswered card is withdrawn and its call
    rejected; `on_waiting(call, sentence)`: told once for each call still undecided after
    `waiting_after` seconds, with what the model may read meanwhile ("Waiting for the
    person to confirm … Nothing has run yet"; awaited when it returns an awaitable)."""

    def __init__(
        self,
        client: AsyncNotchClient,
        tools: Routing,
        *,
        session: str | None = None,
        timeout: float | None = None,
        on_waiting: Callable[[PendingCall, str], Any] | None = None,
        waiting_after: float = WAITING_AFTER_S,
    ) -> None:
        self.client = client
        self.tools = tools
        self.call_ids = CallIds(session)
        self.timeout = timeout
        self.on_waiting, self.waiting_after = on_waiting, waiting_after
        self._approved: dict[str, tuple[str, dict[str, Any]]] = {}
        """SDK call id → (tool name, the person's arguments), until the tool runs."""

    def guard(self, tool: FunctionTool) -> FunctionTool:
        """A copy of `tool` that needs approval and runs only with the arguments the person
        approved in Notch for its call. Raises NotchConnectorError for anything but a
        FunctionTool."""
        if not isinstance(tool, FunctionTool):
            raise NotchConnectorError(
                f"guard() takes a FunctionTool (from @function_tool), not {type(tool).__name__}"
            )
        inner = tool.on_invoke_tool
        name = tool.name

        async def run_approved(ctx: ToolContext[Any], model_arguments: str) -> Any:
            approved = self._approved.pop(ctx.tool_call_id, None)
            if approved is None or approved[0] != name:
                return NOT_APPROVED
            return await inner(ctx, json.dumps(approved[1]))

        return dataclasses.replace(tool, needs_approval=True, on_invoke_tool=run_approved)

    async def resolve(self, result: RunResult) -> RunState[Any]:
        """The run state after asking Notch about `result.interruptions` (one model turn,
        asked together): each approved (its arguments kept for the guarded tool) or
        rejected with the decision's sentence. Raises NotchError when Notch cannot be
        asked: then nothing is approved."""
        state: RunState[Any] = result.to_state()
        items = list(result.interruptions)
        verdicts = await self._verdicts(items)
        for item, verdict in zip(items, verdicts, strict=True):
            if verdict.runs and verdict.arguments is not None and item.call_id:
                self._approved[item.call_id] = (verdict.call.name, verdict.arguments)
                state.approve(item)
            else:
                state.reject(item, rejection_message=verdict.for_model)
        return state

    async def run(self, agent: Agent[Any], input: Any, **kwargs: Any) -> RunResult:
        """`Runner.run(agent, input, **kwargs)`, resumed through Notch until it ends without
        a pending approval. Raises NotchConnectorError after MAX_ROUNDS resumes."""
        result = await Runner.run(agent, input, **kwargs)
        for _ in range(MAX_ROUNDS):
            if not result.interruptions:
                return result
            result = await Runner.run(agent, await self.resolve(result), **kwargs)
        raise NotchConnectorError(
            f"the agent was still waiting for approvals after {MAX_ROUNDS} resumes"
        )

    async def _verdicts(self, items: Sequence[ToolApprovalItem]) -> list[Verdict]:
        """A verdict per item: malformed calls refused here, the rest asked together."""
        asked: list[PendingCall] = []
        out: list[Verdict | None] = []
        for item in items:
            call = PendingCall(self.call_ids(item.call_id or id(item)), str(item.name), {})
            arguments = _arguments(item.arguments)
            if arguments is None:
                out.append(refused(call, "its arguments are not a JSON object"))
            elif not item.call_id:
                out.append(refused(call, "the model gave it no call id"))
            else:
                asked.append(dataclasses.replace(call, arguments=arguments))
                out.append(None)
        answers = iter(
            await decide_async(
                self.client,
                self.tools,
                asked,
                timeout=self.timeout,
                session=self.call_ids,
                on_waiting=self.on_waiting,
                waiting_after=self.waiting_after,
            )
        )
        return [v if v is not None else next(answers) for v in out]


def _arguments(raw: str | None) -> dict[str, Any] | None:
    try:
        parsed = json.loads(raw) if raw else {}
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None

"""LangChain / LangGraph: answer `HumanInTheLoopMiddleware` interrupts through Notch.

    from notch_app.client import NotchClient
    from notch_app.connect.langchain import NotchReviewer

    reviewer = NotchReviewer(NotchClient(), tools="com.example.mail")
    result = reviewer.invoke(agent, {"messages": [...]}, {"configurable": {"thread_id": "1"}})

`agent` is built with `create_agent(..., middleware=[HumanInTheLoopMiddleware(...)],
checkpointer=...)`. Each interrupt's action requests become Notch cards (one model turn
asked together), and the person's answers go back as the middleware's decisions: an
approval → `approve`; an approval with edited fields → `edit` with the person's
arguments; a decline, block or expiry → `reject` with the decision's sentence for the
model. Both interrupt modes are answered: `batched` (one `HITLRequest` per turn) and
`per_call` (one `tool_approval` per call). To drive the loop yourself, pass
`reviewer.resume(result.interrupts)` to `agent.invoke`.

A decision the tool's `allowed_decisions` cannot carry is never turned into a run: an
edit where only approve/reject are allowed is sent as a reject saying so, and a tool
that does not allow `reject` is refused with NotchConnectorError (nothing is resumed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from langgraph.types import Command, Interrupt

from notch_app.connect.verdict import (
    CallIds,
    NotchConnectorError,
    PendingCall,
    Routing,
    Verdict,
    decide,
    decide_async,
)
from notch_app.ipc.blocking import NotchClient
from notch_app.ipc.client import AsyncNotchClient
from notch_app.runtime.waiting import WAITING_AFTER_S

ALL_DECISIONS: Final = frozenset({"approve", "edit", "reject", "respond"})
MAX_ROUNDS: Final = 50
"""How many times `invoke` resumes one run before it stops (a model that never ends)."""


class NotchReviewer:
    """Answers HumanInTheLoopMiddleware interrupts with the person's decisions in Notch.

    `client` is a NotchClient (for `resume` / `invoke`) or an AsyncNotchClient (for
    `aresume` / `ainvoke`). `tools`: where the agent's tools live in Notch: an
    integration id (tool names are that integration's), a `ToolNames`, or a map of tool
    name → (integration, tool). `session`: the prefix of the callIds (pass the same one
    after a restart to pick up decisions already made); `timeout`: seconds before an
    unanswered card is withdrawn and its call rejected; `on_waiting(call, sentence)`:
    told once for each call still undecided after `waiting_after` seconds, with what the
    model may read meanwhile ("Waiting for the person to confirm … Nothing has run yet").
    With a NotchClient it is called from a helper thread while `resume` waits."""

    def __init__(
        self,
        client: NotchClient | AsyncNotchClient,
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

    # --- one resume ---------------------------------------------------------------------

    def resume(self, interrupts: Iterable[Interrupt]) -> Command[Any]:
        """The `Command(resume=...)` answering `interrupts` (from `result.interrupts`).
        Blocks until the person has answered every call. Raises NotchConnectorError for
        an interrupt that is not the middleware's, NotchError when Notch cannot be asked."""
        if not isinstance(self.client, NotchClient):
            raise NotchConnectorError(
                "resume() needs a NotchClient; with an AsyncNotchClient use aresume()"
            )
        asked = _Asked(list(interrupts), self.call_ids)
        verdicts = decide(
            self.client, self.tools, asked.calls, timeout=self.timeout, session=self.call_ids,
            on_waiting=self.on_waiting, waiting_after=self.waiting_after,
        )  # fmt: skip
        return asked.command(verdicts)

    async def aresume(self, interrupts: Iterable[Interrupt]) -> Command[Any]:
        """`resume` with an AsyncNotchClient."""
        if not isinstance(self.client, AsyncNotchClient):
            raise NotchConnectorError(
                "aresume() needs an AsyncNotchClient; with a NotchClient use resume()"
            )
        asked = _Asked(list(interrupts), self.call_ids)
        verdicts = await decide_async(
            self.client, self.tools, asked.calls, timeout=self.timeout, session=self.call_ids,
            on_waiting=self.on_waiting, waiting_after=self.waiting_after,
        )  # fmt: skip
        return asked.command(verdicts)

    # --- a whole run ----------------------------------------------------------------------

    def invoke(self, agent: Any, input: Any, config: Mapping[str, Any], **kwargs: Any) -> Any:
        """`agent.invoke(input, config, version="v2")`, resumed through Notch until it ends
        without an interrupt; returns that last result (a GraphOutput: `.value`).
        Raises NotchConnectorError after MAX_ROUNDS resumes."""
        result = agent.invoke(input, config, version="v2", **kwargs)
        for _ in range(MAX_ROUNDS):
            if not result.interrupts:
                return result
            result = agent.invoke(self.resume(result.interrupts), config, version="v2", **kwargs)
        raise NotchConnectorError(f"the agent was still interrupted after {MAX_ROUNDS} resumes")

    async def ainvoke(
        self, agent: Any, input: Any, config: Mapping[str, Any], **kwargs: Any
    ) -> Any:
        """`invoke` with `agent.ainvoke` and an AsyncNotchClient."""
        result = await agent.ainvoke(input, config, version="v2", **kwargs)
        for _ in range(MAX_ROUNDS):
            if not result.interrupts:
                return result
            command = await self.aresume(result.interrupts)
            result = await agent.ainvoke(command, config, version="v2", **kwargs)
        raise NotchConnectorError(f"the agent was still interrupted after {MAX_ROUNDS} resumes")


class _Asked:
    """The interrupts of one pause as Notch calls, and the way back to their answers."""

    def __init__(self, interrupts: Sequence[Interrupt], call_ids: CallIds) -> None:
        self.interrupts = interrupts
        self.calls: list[PendingCall] = []
        self.allowed: list[frozenset[str]] = []
        self.shape: list[tuple[Interrupt, bool, int]] = []
        """Per interrupt: (itself, batched?, how many calls)."""
        for it in interrupts:
            value = it.value
            if isinstance(value, Mapping) and isinstance(value.get("action_requests"), list):
                configs = value.get("review_configs") or []
                for index, action in enumerate(value["action_requests"]):
                    self._add(call_ids(f"{it.id}/{index}"), action, _allowed_of(configs, index))
                self.shape.append((it, True, len(value["action_requests"])))
            elif isinstance(value, Mapping) and value.get("type") == "tool_approval":
                framework_id = value.get("tool_call_id") or it.id
                self._add(call_ids(framework_id), value, _allowed_in_schema(it.response_schema))
                self.shape.append((it, False, 1))
            else:
                raise NotchConnectorError(
                    f"interrupt {it.id!r} is not a HumanInTheLoopMiddleware request (its value "
                    "has neither action_requests nor type 'tool_approval'); answer it yourself"
                )

    def _add(self, call_id: str, action: Any, allowed: frozenset[str]) -> None:
        name = action.get("name") if isinstance(action, Mapping) else None
        args = action.get("args") if isinstance(action, Mapping) else None
        self.calls.append(PendingCall(call_id, str(name), args if isinstance(args, dict) else {}))
        self.allowed.append(allowed)

    def command(self, verdicts: Sequence[Verdict]) -> Command[Any]:
        answers = [_decision(v, allowed) for v, allowed in zip(verdicts, self.allowed, strict=True)]
        resume: dict[str, Any] = {}
        start = 0
        for it, batched, count in self.shape:
            mine = answers[start : start + count]
            start += count
            resume[it.id] = {"decisions": mine} if batched else mine[0]
        return Command(resume=resume)


def _decision(verdict: Verdict, allowed: frozenset[str]) -> dict[str, Any]:
    """The middleware's decision for one verdict, within what the tool allows."""
    name = verdict.call.name
    if verdict.runs and verdict.arguments is not None:
        if verdict.edited and "edit" in allowed:
            return {"type": "edit", "edited_action": {"name": name, "args": verdict.arguments}}
        if not verdict.edited and "approve" in allowed:
            return {"type": "approve"}
        if not verdict.edited and "edit" in allowed:
            return {"type": "edit", "edited_action": {"name": name, "args": verdict.arguments}}
        message = (
            f"{verdict.for_model} But this agent does not accept the person's edits for "
            f"`{name}`, so it was not run."
        )
    else:
        message = verdict.for_model
    if "reject" not in allowed:
        raise NotchConnectorError(
            f"the person's answer for `{name}` cannot be sent: its interrupt_on allows only "
            f"{sorted(allowed)}; add 'reject' to its allowed_decisions so a decline can reach "
            "the agent"
        )
    return {"type": "reject", "message": message}


def _allowed_of(configs: Any, index: int) -> frozenset[str]:
    config = configs[index] if isinstance(configs, list) and index < len(configs) else None
    allowed = config.get("allowed_decisions") if isinstance(config, Mapping) else None
    return frozenset(map(str, allowed)) if isinstance(allowed, list) else ALL_DECISIONS


def _allowed_in_schema(schema: Any) -> frozenset[str]:
    """The decision types a per-call interrupt's `response_schema` allows: its
    discriminator's mapping, or the `type` constant of a one-decision schema; all of
    them when it says nothing readable (LangGraph still checks the answer)."""
    if not isinstance(schema, Mapping):
        return ALL_DECISIONS
    mapping = schema.get("discriminator", {})
    mapping = mapping.get("mapping") if isinstance(mapping, Mapping) else None
    if isinstance(mapping, Mapping):
        found = {str(key) for key in mapping}
    else:
        properties = schema.get("properties")
        kind = properties.get("type") if isinstance(properties, Mapping) else None
        found = {kind["const"]} if isinstance(kind, Mapping) and "const" in kind else set()
    return frozenset(found & ALL_DECISIONS) or ALL_DECISIONS

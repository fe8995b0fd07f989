"""Connector overhead per call over the bare client, measured in the same run (issue 14).

A Notch runs in a child process (service + socket, a scripted person who approves every
card as it arrives). Here, one AsyncNotchClient asks about the same tool call two ways,
interleaved call by call so both see the same machine:

- bare: `client.confirm(integration, tool, arguments)` (what a hand-written bridge does);
- each connector's asking path for one call of a model turn:
  - verdict: `decide_async` (routing, the verdict, the sentence for the model);
  - langchain: `NotchReviewer.aresume([interrupt])` for a batched HITLRequest, up to the
    `Command(resume=...)` the agent is resumed with;
  - openai-agents: `NotchApprovals` resolving one ToolApprovalItem (the verdicts, and
    the approved arguments kept for the guarded tool);
  - mcp: `NotchSession.call_tool` on a session that answers at once, vs `confirm` + the
    same session call.

Two tools: an acting one (a card, approved; the store writes the decision) and a
read-only one (`notRequired`, no card: the smallest round trip, so the largest ratio).
Target: connector p50 ≤ 1.2× the bare p50 for each connector, on the acting tool: the
connectors ask Notch only about acting calls (LangChain's interrupt_on tools, the SDK's
needs_approval tools; NotchSession calls read-only tools directly). The read-only rows
show the fixed cost of the connector's own Python on the smallest round trip there is.
Exit status 1 if missed.

    .venv/bin/python benchmarks/bench_connect.py [--calls 400]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import mcp_types as types

from notch_app.client import AsyncNotchClient
from notch_app.connect.mcp import NotchSession
from notch_app.connect.verdict import CallIds, PendingCall, decide_async

TARGET = 1.2
ID = "com.example.bench"
MANIFEST = {
    "schemaVersion": 1, "id": ID, "version": "1", "name": "Bench",
    "tools": [
        {"name": "search_notes", "annotations": {"readOnlyHint": True},
         "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}},
        {"name": "send_note",
         "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}},
                         "required": ["to"]},
         "confirmation": {"schemaVersion": 1, "root": {"type": "card", "title": "Send",
             "children": [{"type": "textField", "bind": "{{to}}", "label": "To"}],
             "footer": [{"type": "actions", "items": [{"label": "Cancel", "role": "cancel"},
                                                      {"label": "Send", "role": "confirm"}]}]}}},
    ],
}  # fmt: skip


# --- the child: a Notch whose scripted person approves everything ----------------------


async def serve(socket_path: Path, data: Path) -> None:
    from notch_app.headless import start
    from notch_app.manifest.model import Manifest
    from notch_app.runtime.catalog import Catalog
    from notch_app.runtime.scripted import ScriptedPresenter

    notch = await start(
        socket_path,
        data,
        presenter=lambda sink: ScriptedPresenter(sink, lambda card: (True, None)),
        catalog=Catalog([Manifest.model_validate(MANIFEST)]),
    )
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until EOF
    await notch.close()


# --- the measured paths ------------------------------------------------------------------


class AnsweringSession:
    """An MCP session whose server answers at once (the server's own time is not Notch's)."""

    result = types.CallToolResult(content=[types.TextContent(text="ok")])

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        return self.result

    async def list_tools(self) -> Any:
        return types.ListToolsResult(tools=[])


def paths(client: AsyncNotchClient, tool: str) -> dict[str, Callable[[], Awaitable[Any]]]:
    arguments = {"to": "sam@example.com"} if tool == "send_note" else {"query": "q"}
    ids = CallIds()
    counter = itertools.count()
    session = AnsweringSession()
    out: dict[str, Callable[[], Awaitable[Any]]] = {}

    async def bare() -> Any:
        return await client.confirm(ID, tool, arguments, call_id=uuid.uuid4().hex)

    async def verdict() -> Any:
        call = PendingCall(ids(str(next(counter))), tool, dict(arguments))
        return await decide_async(client, ID, [call])

    async def bare_mcp() -> Any:
        decision = await client.confirm(ID, tool, arguments, call_id=uuid.uuid4().hex)
        return await session.call_tool(tool, decision.arguments)

    guarded = NotchSession(session, client, ID)  # type: ignore[arg-type]

    async def mcp() -> Any:
        return await guarded.call_tool(tool, arguments)

    out.update(bare=bare, verdict=verdict, bare_mcp=bare_mcp, mcp=mcp)
    try:
        from langgraph.types import Interrupt

        from notch_app.connect.langchain import NotchReviewer

        reviewer = NotchReviewer(client, ID)

        async def langchain() -> Any:
            value = {
                "action_requests": [{"name": tool, "args": dict(arguments), "description": ""}],
                "review_configs": [
                    {"action_name": tool, "allowed_decisions": ["approve", "edit", "reject"]}
                ],
            }
            return await reviewer.aresume([Interrupt(value=value, id=uuid.uuid4().hex)])

        out["langchain"] = langchain
    except ImportError:
        pass
    try:
        from agents import Agent
        from agents.items import ToolApprovalItem
        from openai.types.responses import ResponseFunctionToolCall

        from notch_app.connect.openai_agents import NotchApprovals

        approvals = NotchApprovals(client, ID)
        agent = Agent(name="bench")
        import json

        raw = json.dumps(arguments)

        # The SDK makes the approval items before the connector sees them: made ahead here.
        items = iter(
            [
                ToolApprovalItem(
                    agent=agent,
                    raw_item=ResponseFunctionToolCall(
                        type="function_call", call_id=uuid.uuid4().hex, name=tool, arguments=raw
                    ),
                )
                for _ in range(100_000)
            ]
        )

        async def openai_agents() -> Any:
            item = next(items)
            call_id = item.call_id or ""
            verdicts = await approvals._verdicts([item])  # what resolve() asks, before RunState
            approvals._approved[call_id] = (tool, verdicts[0].arguments or {})
            return verdicts

        out["openai_agents"] = openai_agents
    except ImportError:
        pass
    return out


async def measure(socket_path: Path, calls: int) -> bool:
    met = True  # judged on acting calls: the only ones a connector asks Notch about
    async with AsyncNotchClient(socket_path) as client:
        for tool in ("send_note", "search_notes"):
            measured = paths(client, tool)
            times: dict[str, list[float]] = {name: [] for name in measured}
            for run in measured.values():  # warm each path (imports, first card)
                for _ in range(20):
                    await run()
            for _ in range(calls):
                for name, run in measured.items():
                    start = time.perf_counter()
                    await run()
                    times[name].append(time.perf_counter() - start)
            p50 = {name: statistics.median(t) * 1e6 for name, t in times.items()}
            kind = "acting, approved" if tool == "send_note" else "read-only, notRequired"
            print(f"\n{tool} ({kind}), {calls} calls each, interleaved; p50 µs:")
            print(f"  bare confirm           {p50['bare']:8.0f}")
            for name in ("verdict", "langchain", "openai_agents"):
                if name in p50:
                    ratio = p50[name] / p50["bare"]
                    met &= ratio <= TARGET or tool != "send_note"
                    print(f"  {name:<22} {p50[name]:8.0f}   {ratio:.3f}× bare")
            ratio = p50["mcp"] / p50["bare_mcp"]
            met &= ratio <= TARGET or tool != "send_note"
            print(f"  bare confirm + MCP     {p50['bare_mcp']:8.0f}")
            print(f"  mcp (NotchSession)     {p50['mcp']:8.0f}   {ratio:.3f}× bare + MCP")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve, args.serve.parent.parent / "data"))
        return 0
    with tempfile.TemporaryDirectory(prefix="notch-bc") as folder:
        socket_path = Path(folder) / "s" / "notch.sock"
        child = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(socket_path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert child.stdout is not None and child.stdout.readline().strip() == "ready"
            met = asyncio.run(measure(socket_path, args.calls))
        finally:
            assert child.stdin is not None
            child.stdin.close()
            child.wait(10)
    print(f"\ntarget: each connector ≤ {TARGET}× the bare client — {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())

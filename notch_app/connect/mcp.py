"""MCP: an in-process `ClientSession` whose `call_tool` asks Notch first.

    from notch_app.client import AsyncNotchClient
    from notch_app.connect.mcp import NotchSession

    guarded = NotchSession(session, AsyncNotchClient(), tools="com.example.mail")
    result = await guarded.call_tool("send_email", {"to": "marc@example.com"})

For an agent that holds its own MCP session (rather than going through `notch mcp`):
a tool the server marks read-only (`readOnlyHint`, and not `destructiveHint`) and Notch
shows no card for is called at once; any other is asked about on a Notch card and, if the person approves, called
with the decision's arguments (their edits included). When nothing runs the result is
`isError` with the decision's sentence for the model, as a refused MCP call would be.
Everything else (`list_tools`, resources, ...) passes straight to the session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import mcp_types as types

from notch_app.connect.tools import UnknownToolName
from notch_app.connect.verdict import (
    CallIds,
    PendingCall,
    Route,
    Routing,
    decide_async,
    route_of,
)
from notch_app.ipc.client import AsyncNotchClient
from notch_app.runtime.call_ids import fresh_call_id
from notch_app.runtime.waiting import WAITING_AFTER_S


class ToolSession(Protocol):
    """What NotchSession needs of an MCP session (`ClientSession`, `mcp.client.Client`)."""

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> Any: ...

    async def list_tools(self) -> Any: ...


class NotchSession:
    """`session` with `call_tool` asking the person first (see the module's docstring).

    `tools`: where the server's tools live in Notch (an integration id, a ToolNames, or a
    map); `session_id`: the prefix of the callIds; `timeout`: seconds before an unanswered
    card is withdrawn and the call refused; `on_waiting(call, sentence)`: told once when
    a call is still undecided after `waiting_after` seconds (as `decide_async`)."""

    def __init__(
        self,
        session: ToolSession,
        client: AsyncNotchClient,
        tools: Routing,
        *,
        session_id: str | None = None,
        timeout: float | None = None,
        on_waiting: Callable[[PendingCall, str], Any] | None = None,
        waiting_after: float = WAITING_AFTER_S,
    ) -> None:
        self.session = session
        self.client = client
        self.tools = tools
        self.call_ids = CallIds(session_id)
        self.timeout = timeout
        self.on_waiting, self.waiting_after = on_waiting, waiting_after
        self._reads: frozenset[str] | None = None

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any
    ) -> types.CallToolResult:
        """Call `name`: at once when the server marks it read-only, else only after the
        person approves it in Notch, with the approved arguments. Raises NotchError when
        Notch cannot be asked (nothing was called)."""
        if name in await self._read_only():
            return await self.session.call_tool(name, arguments, **kwargs)  # type: ignore[no-any-return]
        # An MCP session names no call: each call_tool is a new call, with a new callId.
        call = PendingCall(fresh_call_id(self.call_ids.session), name, dict(arguments or {}))
        (verdict,) = await decide_async(
            self.client, self.tools, [call], timeout=self.timeout, session=self.call_ids,
            on_waiting=self.on_waiting, waiting_after=self.waiting_after,
        )  # fmt: skip
        if not verdict.runs or verdict.arguments is None:
            return types.CallToolResult(
                content=[types.TextContent(text=verdict.for_model)], is_error=True
            )
        return await self.session.call_tool(name, verdict.arguments, **kwargs)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)

    async def _read_only(self) -> frozenset[str]:
        """The tools called without asking, found once (a tool the server adds later is
        asked about, never waved through): the server's read-only ones, less any Notch
        shows a card for (the manifest decides, not the server's hints)."""
        if self._reads is None:
            listed = await self.session.list_tools()
            hinted = {
                tool.name
                for tool in getattr(listed, "tools", [])
                if (hints := tool.annotations) is not None
                and hints.read_only_hint is True
                and not hints.destructive_hint
            }
            carded = _carded(await self.client.integrations())
            route = route_of(self.tools)
            self._reads = frozenset(n for n in hinted if _route(route, n) not in carded)
        return self._reads


def _carded(integrations: list[dict[str, Any]]) -> set[tuple[str, str] | None]:
    """(integration, tool) of every tool Notch shows a card for."""
    return {
        (str(i.get("id")), str(t.get("name")))
        for i in integrations
        for t in i.get("tools") or []
        if isinstance(t, dict) and t.get("confirms")
    }


def _route(route: Route, name: str) -> tuple[str, str] | None:
    try:
        return route.resolve(name)
    except UnknownToolName:
        return None

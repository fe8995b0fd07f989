"""The gateway's MCP server: `tools/list` and `tools/call`, built on the SDK's lowlevel
`Server` over stdio.

A read-only call is forwarded at once. An acting call is asked about first, then
forwarded with the arguments of the person's decision, never the model's. One request id,
one call, one run: its callId is this session's nonce + the request id
(`call_id_of`), and the gateway keeps what each request id of the session asked for. The
same id sent again while its call is open joins it (one card, every request answered
with the one result); once it has answered, the id is refused as a duplicate; with
another tool or other arguments it is refused at once. Every way a call can fail to run
is an `isError` tool result with a plain sentence, never a protocol error; a client's
`notifications/cancelled` withdraws the card.

What comes back is passed to the client unchanged. When it carries a glance
(`_voiceos_glance` in its structured content, or in a JSON text item), Notch shows it
(`glance.show`, tied to the approved callId). A tool the manifest runs in the background
(`execution.mode: "background"`) is listed in the side notch while it runs (`work.begin`
/ `work.end`): its glance, or a short failure line, shows when it ends.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import signal
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from notch_app import __version__
from notch_app.gateway import sentences
from notch_app.gateway.asking import DEFAULT_TIMEOUT_S, Confirmations
from notch_app.gateway.tools import GatewayTool, from_server, tool_document
from notch_app.gateway.wrapped import ServerCommand, ServerGone, WrappedServer
from notch_app.ipc.client import WITHDRAW_WAIT_S
from notch_app.manifest.glance import GLANCE_KEY
from notch_app.manifest.glance_result import find_glance
from notch_app.runtime.call_ids import call_id_of
from notch_app.runtime.decision import canonical_json

log = logging.getLogger(__name__)

REMEMBERED_CALLS: Final = 10_000
"""Answered request ids of one session the gateway keeps (with what they asked), so a
repeat is refused here. Past it the oldest are forgotten, and Notch itself still holds
the line: the callId is stable, so a repeat gets the stored decision, which the gateway
never runs twice (`already_decided`), or is refused for other arguments."""


@dataclass(frozen=True, slots=True)
class Front:
    """What one `notch mcp` puts Notch in front of."""

    name: str
    """Shown to the client as the server's name, and in logs."""
    integration_id: str
    command: ServerCommand
    environment: Callable[[], dict[str, str]]
    """The server's environment on top of the MCP default; may raise (a missing secret:
    its message is the tool error)."""
    attachment: dict[str, Any]
    """`gateway.attach` params that tell `notch run` where the cards come from."""
    tools: dict[str, GatewayTool] | None = None
    """The manifest's tools; None for a bare server (its own `tools/list` is used)."""


def glance_blocks(result: types.CallToolResult) -> list[Any] | None:
    """The `_voiceos_glance.blocks` a tool result carries (in its structured content or
    the JSON of a text item; see `find_glance`); None without one."""
    structured = result.structured_content
    if not (isinstance(structured, dict) and GLANCE_KEY in structured) and not any(
        GLANCE_KEY in text
        for text in (getattr(item, "text", "") for item in result.content)
        if isinstance(text, str)
    ):
        return None  # the common case costs one substring search, no copy of the result
    found = find_glance(result.model_dump(by_alias=True, mode="json", exclude_none=True))
    blocks = (
        found.value.get("blocks") if found is not None and isinstance(found.value, dict) else None
    )
    return blocks if isinstance(blocks, list) else None


def _failure_text(result: types.CallToolResult) -> str:
    texts = [getattr(item, "text", "") for item in result.content]
    return " ".join(t for t in texts if isinstance(t, str)).strip()[:2000]


def tool_error(text: str) -> types.CallToolResult:
    """A tool result the model reads as a failure, with `text` as the reason."""
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


@dataclass(frozen=True, slots=True)
class _Asked:
    """What one request id of the session asked for, and the task answering it (None
    once it has answered: the result is not kept, only that it was answered)."""

    what: str
    """The tool and arguments, as canonical JSON."""
    task: asyncio.Task[types.CallToolResult] | None


class Gateway:
    """Serves one MCP client on behalf of `front`; asks Notch at `socket_path`, waiting
    at most `timeout` seconds for the person on each acting call.

    One Gateway serves one MCP session: `notch mcp` speaks stdio, one client per
    process, so the session nonce of the callIds is the Gateway's own. (The SDK makes a
    new session object per request, so it cannot be keyed on that.)"""

    def __init__(
        self, front: Front, socket_path: Path | None = None, timeout: float = DEFAULT_TIMEOUT_S
    ) -> None:
        self.front = front
        self.confirmations = Confirmations(
            socket_path, front.integration_id, front.attachment, timeout
        )
        self.wrapped: WrappedServer
        self._tools = front.tools
        self._listing = anyio.Lock()
        self._calls: OrderedDict[str, _Asked] = OrderedDict()
        self._scope = f"mcp-{secrets.token_hex(8)}"
        """This session's part of every callId: a request id of another session (or of
        an earlier run of `notch mcp`) never names one of this session's calls."""
        self.server: Server[Any] = Server(
            f"notch-mcp:{front.name}",
            version=__version__,
            instructions=(
                "Acting tools ask the person on screen first (Notch) and run with the "
                "arguments they approved; a refusal comes back as a tool error."
            ),
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )

    async def serve_stdio(self) -> None:
        """Serve MCP on this process's stdin/stdout until the client closes them. SIGTERM
        or SIGHUP ends the process as the signal would, once the cards of its open calls
        are withdrawn (within WITHDRAW_WAIT_S): not left for the person to approve."""
        async with anyio.create_task_group() as group:
            self.wrapped = WrappedServer(self.front.command, self.front.environment, group)
            group.start_soon(self._warm_up)
            group.start_soon(self._stop_on_signal)
            async with stdio_server() as (read, write):
                await self.server.run(read, write, self.server.create_initialization_options())
            group.cancel_scope.cancel()
        await self.confirmations.close()

    async def _stop_on_signal(self) -> None:
        """On SIGTERM or SIGHUP: withdraw the cards of the calls still open (all within
        WITHDRAW_WAIT_S), then end the process by that signal. (Cancelling the server
        would not do: its stdin reader is a thread blocked in a read until the client
        writes or closes.)"""
        stops = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
        with anyio.open_signal_receiver(*stops) as signals:
            number = await anext(signals)
        with anyio.move_on_after(WITHDRAW_WAIT_S):
            async with anyio.create_task_group() as group:
                for call_id, asked in list(self._calls.items()):
                    if asked.task is not None:
                        group.start_soon(self.confirmations.withdraw, call_id)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)

    async def _warm_up(self) -> None:
        """Start the wrapped server now, so the first call does not wait for it; a
        failure here (a missing secret) is reported on the first call instead."""
        try:
            await self.wrapped.session()
        except Exception as exc:
            log.warning("notch mcp: %s: %s", self.front.name, exc)

    # --- tools/list ------------------------------------------------------------------

    async def tools(self) -> dict[str, GatewayTool]:
        """The tools offered: the manifest's, or the bare server's own list (asked once).
        Raises ServerGone (or what the environment raised) for a bare server that
        cannot be started."""
        if self._tools is not None:
            return self._tools
        async with self._listing:
            if self._tools is None:
                listed = await self.wrapped.list_tools()
                # Notch generates the cards from these (gateway.attach); never from a card
                self.confirmations.attachment["tools"] = [tool_document(t) for t in listed]
                self._tools = from_server(listed)
            return self._tools

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        try:
            tools = await self.tools()
        except Exception as exc:  # a bare server that cannot start: nothing to list
            raise MCPError(types.INTERNAL_ERROR, f"{self.front.name}: {exc}") from None
        return types.ListToolsResult(tools=[tool.listed for tool in tools.values()])

    # --- tools/call ------------------------------------------------------------------

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            tools = await self.tools()
        except Exception as exc:
            return tool_error(f"{self.front.name} could not be started: {exc}")
        tool = tools.get(params.name)
        arguments = dict(params.arguments or {})
        if tool is None:
            names = ", ".join(sorted(tools)) or "none"
            return tool_error(
                f"There is no tool named {params.name!r} here; the tools are {names}."
            )
        if tool.reads:
            return await self.forward(tool, arguments)
        call_id = call_id_of(self._scope, str(ctx.request_id))
        try:
            what = canonical_json({"tool": tool.name, "arguments": arguments})
        except ValueError as exc:
            return tool_error(f"The arguments cannot be checked ({exc}); nothing was run.")
        known = self._calls.get(call_id)
        if known is not None and known.what != what:
            return tool_error(
                f"Request id {ctx.request_id!r} was already used in this session for "
                "another call; a request id names one call. Nothing was run: send this "
                "call with a new request id."
            )
        if known is not None and (known.task is None or known.task.done()):
            return tool_error(
                f"Request id {ctx.request_id!r} was already answered in this session: this "
                f"is a duplicate of that call, and “{tool.title}” runs at most once, so "
                "nothing was run again. To do it again, send a new request id."
            )
        task: asyncio.Task[types.CallToolResult] | None
        if known is None:
            context = {"agent": self._client_name(ctx), "via": f"notch mcp · {self.front.name}"}
            task = asyncio.ensure_future(self._ask_then_forward(call_id, tool, arguments, context))
            asked = _Asked(what, task)
            self._remember(call_id, asked)
            task.add_done_callback(lambda _: self._answered(call_id, asked))
        else:
            task = known.task  # a repeat while the call is open joins it: one card, one run
        assert task is not None  # an answered one was refused above
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.done():  # notifications/cancelled: take the card away
                with anyio.CancelScope(shield=True):
                    await self.confirmations.withdraw(call_id)
            raise

    async def _ask_then_forward(
        self, call_id: str, tool: GatewayTool, arguments: dict[str, Any], context: dict[str, Any]
    ) -> types.CallToolResult:
        answer = await self.confirmations.ask(call_id, tool.name, arguments, context)
        if answer.not_running:
            return tool_error(sentences.notch_not_running(tool.title, tool.name))
        decision = answer.decision
        if decision is None:
            return tool_error(f"{answer.problem}; {sentences.nothing_done(tool.name)}.")
        if not decision.runs:
            return tool_error(
                sentences.refusal(decision.outcome, tool.title, tool.name, decision.for_model)
            )
        if decision.outcome == "notRequired" and tool.acts:
            return tool_error(
                f"Notch has no card for “{tool.title}”, so the person cannot confirm it; "
                f"{sentences.nothing_done(tool.name)}."
            )
        if decision.already_decided:
            return tool_error(
                f"“{tool.title}” was already decided for this request id and runs at most "
                "once; send a new request to do it again."
            )
        result = await self.forward(tool, dict(decision.arguments or {}), call_id)
        if decision.edited_paths and not result.is_error:
            ran = json.dumps(decision.arguments, ensure_ascii=False, sort_keys=True)
            result.content.append(
                types.TextContent(
                    text=f"The person changed {', '.join(decision.edited_paths)} before "
                    f"approving; it ran with {ran}."
                )
            )
        return result

    async def forward(
        self, tool: GatewayTool, arguments: dict[str, Any], call_id: str | None = None
    ) -> types.CallToolResult:
        """Run the call on the wrapped server (listed as running in the side notch while
        it does, for a background tool); show its glance; return its result as it sent
        it, or a tool error when the server is gone or cannot start."""
        work_id = (
            await self.confirmations.begin_work(tool.name, call_id) if tool.background else None
        )
        result = await self._run(tool, arguments)
        blocks = glance_blocks(result)
        if work_id is not None:
            failure = _failure_text(result) if result.is_error else None
            ended = await self.confirmations.end_work(
                work_id, ok=not result.is_error, message=failure, blocks=blocks
            )
            if ended:
                return result
        if blocks is not None and not result.is_error:
            await self.confirmations.show_glance(tool.name, blocks, call_id)
        return result

    async def _run(self, tool: GatewayTool, arguments: dict[str, Any]) -> types.CallToolResult:
        try:
            return await self.wrapped.call(tool.name, arguments)
        except ServerGone as exc:
            return tool_error(
                f"{exc}. It may or may not have finished “{tool.title}”; the next call "
                "starts the server again."
            )
        except Exception as exc:  # the environment's own error: a missing secret
            return tool_error(str(exc))

    def _remember(self, call_id: str, asked: _Asked) -> None:
        """Keep what `call_id` asked; forget the oldest answered ones past
        REMEMBERED_CALLS (open ones are never forgotten: they hold a card)."""
        self._calls[call_id] = asked
        extra = len(self._calls) - REMEMBERED_CALLS
        if extra > 0:
            for old in [k for k, v in self._calls.items() if v.task is None][:extra]:
                del self._calls[old]

    def _answered(self, call_id: str, asked: _Asked) -> None:
        """`call_id`'s call has answered: keep only what it asked (a repeat is refused)."""
        if self._calls.get(call_id) is asked:
            self._calls[call_id] = _Asked(asked.what, None)

    # --- who is asking ---------------------------------------------------------------

    @staticmethod
    def _client_name(ctx: ServerRequestContext[Any]) -> str:
        client = ctx.session.client_params
        if client is not None and client.client_info.name:
            return str(client.client_info.name)[:80]
        return "an MCP client"

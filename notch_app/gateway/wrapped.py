"""The integration's own MCP server, started and spoken to with the official SDK's client.

One process at a time. It starts on first use (or `start()`), with cwd = the folder and
the environment an MCP client gives a server (the SDK's `get_default_environment`: PATH,
HOME, ...) plus what `environment()` adds (the manifest's `runtime.env`, the person's
preference values and secrets). A process that dies mid-call fails that call with
`ServerGone`; the next call starts a fresh one.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

log = logging.getLogger(__name__)


class ServerGone(Exception):
    """The wrapped server could not be started, or stopped while answering."""


@dataclass(frozen=True, slots=True)
class ServerCommand:
    """How to start the wrapped server: `command args...` in `cwd`."""

    command: str
    args: tuple[str, ...] = ()
    cwd: Path | None = None

    def __str__(self) -> str:
        return " ".join((self.command, *self.args))


@dataclass(slots=True)
class _Running:
    session: ClientSession
    stop: anyio.Event = field(default_factory=anyio.Event)
    tools: list[types.Tool] | None = None


class WrappedServer:
    """The server behind the gateway. `environment()` is called at each start and may
    raise (a missing secret): that start fails with the exception itself, and the next
    call tries again, so a secret set meanwhile is picked up without a restart."""

    def __init__(
        self,
        command: ServerCommand,
        environment: Callable[[], dict[str, str]],
        task_group: anyio.abc.TaskGroup,
    ) -> None:
        self.command = command
        self.environment = environment
        self._group = task_group
        self._running: _Running | None = None
        self._starting = anyio.Lock()
        self.starts = 0
        """How many times a process was started (a test sees a restart)."""

    async def session(self) -> _Running:
        """The running server, started now if need be. Raises ServerGone when it cannot
        start, or whatever `environment()` raised."""
        async with self._starting:
            if self._running is not None:
                return self._running
            env = self.environment()  # may raise MissingSecret: nothing is started
            started: list[_Running | BaseException] = []
            ready = anyio.Event()
            self._group.start_soon(self._serve, env, started, ready)
            await ready.wait()
            outcome = started[0]
            if isinstance(outcome, BaseException):
                raise ServerGone(f"could not start `{self.command}`: {outcome}") from None
            self._running = outcome
            self.starts += 1
            return outcome

    async def _serve(
        self, env: dict[str, str], started: list[_Running | BaseException], ready: anyio.Event
    ) -> None:
        params = StdioServerParameters(
            command=self.command.command,
            args=list(self.command.args),
            env=env,
            cwd=self.command.cwd,
        )
        running: _Running | None = None
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(stdio_client(params, sys.stderr))
                session = await stack.enter_async_context(ClientSession(read, write))
                with anyio.fail_after(30):
                    await session.initialize()
                running = _Running(session)
                started.append(running)
                ready.set()
                await running.stop.wait()
        except Exception as exc:  # a start that fails, or a process that went away
            if not ready.is_set():
                started.append(exc)
                ready.set()
            else:
                log.info("the wrapped server `%s` stopped: %s", self.command, exc)
        finally:
            if not ready.is_set():
                started.append(ServerGone("it exited at once"))
                ready.set()
            if running is not None and self._running is running:
                self._running = None

    def _lost(self, running: _Running) -> None:
        if self._running is running:
            self._running = None
        running.stop.set()

    async def list_tools(self) -> list[types.Tool]:
        """Every tool the server lists (all pages). Raises ServerGone."""
        running = await self.session()
        if running.tools is not None:
            return running.tools
        tools: list[types.Tool] = []
        cursor: str | None = None
        try:
            while True:
                page = await running.session.list_tools(
                    params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
                )
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
        except MCPError as exc:
            self._gone_if_closed(running, exc)
            raise ServerGone(f"`{self.command}` did not list its tools: {exc}") from None
        running.tools = tools
        return tools

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """The server's result for one call, as it sent it. Raises ServerGone when the
        server cannot be started or stops before it answers."""
        running = await self.session()
        try:
            result = await running.session.call_tool(name, arguments)
        except MCPError as exc:
            if self._gone_if_closed(running, exc):
                raise ServerGone(f"`{self.command}` stopped while running {name}") from None
            # A protocol error from the server (unknown tool, bad params): its words.
            return types.CallToolResult(
                content=[types.TextContent(text=f"The server refused {name}: {exc}")],
                is_error=True,
            )
        assert isinstance(result, types.CallToolResult)  # input-required is not allowed
        return result

    def _gone_if_closed(self, running: _Running, exc: MCPError) -> bool:
        if exc.code == CONNECTION_CLOSED:
            self._lost(running)
            return True
        return False

    async def close(self) -> None:
        """Stop the server (the SDK closes its stdin, then terminates it)."""
        if self._running is not None:
            self._lost(self._running)

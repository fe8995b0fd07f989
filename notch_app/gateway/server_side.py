"""The integration's own server: started, restarted, sent lines, and an approved call forwarded to it."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from notch_app.gateway.launch import ServerGone
from notch_app.gateway.messages import (
    GLANCE_MARK,
    INTERNAL_ERROR,
    OWN_INIT_WAIT_S,
    Forwarded,
    encode,
    failure_text,
    glance_blocks,
    key_of,
    tool_error,
)
from notch_app.gateway.relay import Relay
from notch_app.gateway.tools import GatewayTool
from notch_app.gateway.wrapped import WrappedServer

log = logging.getLogger(__name__)


class ServerSide(Relay):
    """The wrapped server, as the gateway's other parts use it (a part of Gateway)."""

    async def _start_server(self) -> bool:
        """Start the server if it is not running; replay the client's `initialize` to a
        server that restarted. False (the reason in `_start_problem`) when it cannot."""
        assert self._starting is not None
        async with self._starting:
            if self._usable:
                return True
            try:
                await self.wrapped.start()
                if self._session.initialized:
                    await self._own_request("initialize", self._session.params, OWN_INIT_WAIT_S)
                    self.wrapped.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
            except Exception as exc:  # a missing secret, a command not found, no answer
                self._start_problem = exc
                if self._session.initialized or self.wrapped.starts > 1:
                    log.warning("%s: %s", self.front.name, exc)
                return False
            self._start_problem = None
            self._usable = self.wrapped.alive
            return self._usable

    async def _own_request(
        self, method: str, params: dict[str, Any], timeout: float
    ) -> dict[str, Any]:
        """Ask the server something on the gateway's own account (an id of its own).
        Raises ServerGone (no answer, or an error answer)."""
        self._own_ids += 1
        request_id = f"{self._scope}-{self._own_ids}"
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._own[request_id] = answer
        try:
            message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            self.wrapped.send(encode(message))
            reply = await asyncio.wait_for(answer, timeout)
        except TimeoutError:
            raise ServerGone(f"`{self.front.command}` did not answer {method}") from None
        finally:
            self._own.pop(request_id, None)
        if "error" in reply:
            raise ServerGone(f"`{self.front.command}` refused {method}: {reply['error']}")
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    def _server_exited(self, wrapped: WrappedServer) -> None:
        """Every request still with the server fails: a tool call as a tool error the
        model reads, anything else as a JSON-RPC error."""
        self._usable = False
        gone = f"`{self.front.command}` stopped before it answered"
        for request_id, forwarded in list(self._forwarded.items()):
            del self._forwarded[request_id]
            if forwarded.answer is not None:
                if not forwarded.answer.done():
                    forwarded.answer.set_exception(ServerGone(gone))
            elif forwarded.method == "tools/call":
                self._reply(request_id[1], tool_error(self._gone_sentence(forwarded.tool)))
            else:
                self._error(request_id[1], INTERNAL_ERROR, gone)
        for own in self._own.values():
            if not own.done():
                own.set_exception(ServerGone(gone))

    def _gone_sentence(self, tool_name: str | None) -> str:
        name = tool_name or "the call"
        title = name
        if self._tools is not None and tool_name in self._tools:
            title = self._tools[tool_name].title
        return (
            f"`{self.front.command}` stopped while running {name}. It may or may not have "
            f"finished “{title}”; the next call starts the server again."
        )

    async def _send_to_server(self, line: bytes, request_id: Any, forwarded: Forwarded) -> bool:
        """Send a client request on, starting the server first if need be. False when
        it cannot run (the client was answered)."""
        if not self._usable and not await self._start_server():
            self._cannot_start(request_id, forwarded)
            return False
        self._forwarded[key_of(request_id)] = forwarded
        try:
            self.wrapped.send(line)
        except ServerGone:
            self._forwarded.pop(key_of(request_id), None)
            self._cannot_start(request_id, forwarded)
            return False
        return True

    def _cannot_start(self, request_id: Any, forwarded: Forwarded) -> None:
        problem = self._start_problem or ServerGone(f"`{self.front.command}` is not running")
        if forwarded.answer is not None:
            if not forwarded.answer.done():
                forwarded.answer.set_exception(problem)
        elif forwarded.method == "tools/call":
            self._reply(request_id, tool_error(self._start_sentence(problem)))
        else:
            self._error(request_id, INTERNAL_ERROR, f"{self.front.name}: {problem}")

    def _start_sentence(self, problem: BaseException) -> str:
        if isinstance(problem, ServerGone):
            return f"{self.front.name} could not be started: {problem}"
        return str(problem)  # the environment's own sentence: a missing secret

    async def forward(
        self,
        tool: GatewayTool,
        request_id: Any,
        params: dict[str, Any],
        arguments: dict[str, Any],
        call_id: str | None = None,
    ) -> dict[str, Any]:
        """Run the call on the server with `arguments` (the client's request otherwise as
        it came: its progress token too), listed as running in the side notch while it
        does for a background tool; show its glance; its result, or a tool error."""
        work_id = (
            await self.confirmations.begin_work(tool.name, call_id) if tool.background else None
        )
        result = await self._run(tool, request_id, params, arguments)
        blocks = glance_blocks(result) if GLANCE_MARK in encode(result) else None
        if work_id is not None:
            failure = failure_text(result) if result.get("isError") else None
            ended = await self.confirmations.end_work(
                work_id, ok=not result.get("isError"), message=failure, blocks=blocks
            )
            if ended:
                return result
        if blocks is not None and not result.get("isError"):
            await self.confirmations.show_glance(tool.name, blocks, call_id)
        return result

    async def _run(
        self, tool: GatewayTool, request_id: Any, params: dict[str, Any], arguments: dict[str, Any]
    ) -> dict[str, Any]:
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {**params, "arguments": arguments}}  # fmt: skip
        forwarded = Forwarded("tools/call", tool.name, answer)
        await self._send_to_server(encode(message), request_id, forwarded)
        try:
            reply = await answer
        except ServerGone as exc:
            if "stopped" in str(exc):
                return tool_error(self._gone_sentence(tool.name))
            return tool_error(self._start_sentence(exc))
        except Exception as exc:  # the environment's own error: a missing secret
            return tool_error(str(exc))
        if "error" in reply:  # a protocol error from the server: its words
            error = reply["error"]
            said = error.get("message") if isinstance(error, dict) else error
            return tool_error(f"The server refused {tool.name}: {said}")
        result = reply.get("result")
        return (
            result
            if isinstance(result, dict)
            else tool_error(f"The server sent no result for {tool.name}")
        )

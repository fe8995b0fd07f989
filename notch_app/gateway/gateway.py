"""The gateway: JSON-RPC lines relayed between the MCP client (this process's stdin and
stdout) and the integration's own server (`wrapped`), held back only for a yes.

Everything passes both ways unchanged, as the bytes that came: progress, logging,
`list_changed`, prompts, resources (list, read, templates, subscribe), completion,
`ping`, tasks, the server's requests to the client (sampling, elicitation, roots) and the
client's answers. The server's `initialize` answer is the client's, so the client is
offered exactly the capabilities the server has. What the gateway reads:

- `tools/list`: a folder's manifest answers it (`tools.from_manifest`); a bare server's
  own answer is passed on (descriptions of acting tools say they ask), and remembered.
- `tools/call` of a tool that does not act is forwarded as it came (a read never needs
  Notch). An acting one is held: the person decides in `notch run` (`asking`), while
  the client is sent `notifications/progress` ("Waiting for your answer in Notch") if it
  gave a progress token; then it is forwarded with the decision's arguments, never the
  model's, and its result passed back (with a line saying what the person changed).
  One request id, one call, one run (`call_id_of`): a repeat while open joins it, after
  its answer is refused, with other arguments is refused at once.
- `notifications/cancelled` for a held call withdraws its card.
- A bare server's `notifications/tools/list_changed` makes the gateway read the list
  again (Notch is told the new tools); a tool once seen as acting keeps asking.
- `server/discover` (the stateless protocol's probe) is answered "method not found", so
  a client falls back to `initialize`: the gateway speaks the handshake protocols
  (2024-11-05 to 2025-11-25), whose results it can write itself.

The client's first messages are relayed before the front is checked (`fronts`): while
the manifest is checked and the Notch client loads, in a thread once the server has
answered `initialize`, only a read the one rule decides from the manifest's plain JSON
passes (and `tools/list`, when every tool could be read so); every other call waits for
the check, and a check that fails ends `notch mcp` (`refused`).

Every way an acting call can fail to run is an `isError` tool result with a plain
sentence, never a protocol error. A result's glance (`_voiceos_glance`) shows in the
notch; a background tool is listed in the side notch while it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import sys
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from notch_app import __version__
from notch_app.gateway.held_calls import HeldCalls
from notch_app.gateway.launch import DEFAULT_TIMEOUT_S, PROGRESS_EVERY_S, ServerGone
from notch_app.gateway.messages import (
    CHECK_BY_S,
    GLANCE_MARK,
    HANDSHAKE_VERSIONS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    Asked,
    Forwarded,
    Front,
    HeldTask,
    Session,
    decode,
    key_of,
)
from notch_app.gateway.wrapped import WrappedServer
from notch_app.runtime.call_ids import call_id_of

if TYPE_CHECKING:  # the Notch client loads after the first relays (the front's check)
    from notch_app.gateway.asking import Confirmations

log = logging.getLogger(__name__)


class Gateway(HeldCalls):
    """Serves one MCP client on behalf of `front`; asks Notch at `socket_path`, waiting
    at most `timeout` seconds for the person on each acting call. With `checking`, `front`
    is what was read before the check (`fronts.early_front`) and `checking()` returns the
    checked one, or raises FrontError (see the module's docstring).

    One Gateway serves one MCP session: `notch mcp` speaks stdio, one client per
    process, so the session nonce of the callIds is the Gateway's own."""

    def __init__(
        self,
        front: Front,
        socket_path: Path | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        *,
        progress_every: float = PROGRESS_EVERY_S,
        checking: Callable[[], Front] | None = None,
    ) -> None:
        self.front = front
        self._socket_path, self._timeout = socket_path, timeout
        self._attachment = dict(front.attachment)
        self._confirmations: Confirmations | None = None
        self._folder = front.tools is not None
        self._checking = checking
        """Checks the front (blocking, in a thread); None: `front` is checked already."""
        self._checked: asyncio.Future[Front] | None = None
        self._check_begun = False
        self.refused: str | None = None
        """Why the front's check failed (`notch mcp` then stops, exit status 2)."""
        self._reader: asyncio.StreamReader | None = None
        self._last_line = 0.0
        """When the client last sent a line (the loop's clock)."""
        self.progress_every = progress_every
        self.wrapped = WrappedServer(front.command, front.environment, self._from_server,
                                     self._server_exited)  # fmt: skip
        self._tools = front.tools
        self._once_acting: set[str] = set()
        self._raw_tools: dict[str, dict[str, Any]] = {}
        self._listing: asyncio.Lock | None = None
        self._calls: OrderedDict[str, Asked] = OrderedDict()
        self._forwarded: dict[Any, Forwarded] = {}
        self._own: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._own_ids = 0
        self._session = Session()
        self._scope = f"mcp-{secrets.token_hex(8)}"
        """This session's part of every callId and of the gateway's own request ids."""
        self._write: Callable[[bytes], None] = lambda line: None
        self._start_problem: BaseException | None = None
        self._starting: asyncio.Lock | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._usable = False
        """The server runs and knows the session (its initialize answered or replayed)."""
        self._held_lines: list[bytes] | None = []
        self._held_tasks: dict[str, HeldTask] = {}
        """What the client sent before its initialize went on, kept in order."""
        self._withdraw_why: dict[str, str] = {}
        """Why a held call is being withdrawn (its callId's), said with its card's going."""

    # --- the two pipes -----------------------------------------------------------------

    async def serve_stdio(self) -> None:
        """Serve MCP on this process's stdin/stdout until the client closes stdin.
        SIGTERM or SIGHUP ends the process as the signal would, once the cards of its
        open calls are withdrawn (within WITHDRAW_WAIT_S)."""
        loop = asyncio.get_running_loop()
        self._listing, self._starting = asyncio.Lock(), asyncio.Lock()
        self._checked = loop.create_future()
        if self._checking is None:
            self._checked.set_result(self.front)
        check_by = loop.call_later(CHECK_BY_S, self._begin_check)
        self._spawn(self._start_server())  # the server starts while the client starts
        for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if number is not None:
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(number, self._spawn_stop, number)
        out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
        transport, _ = await loop.connect_write_pipe(asyncio.Protocol, out)
        self._write = lambda line: transport.write(line + b"\n")
        reader = self._reader = await _stdin_reader(loop)
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as end:
                    line = end.partial
                    if line.strip():
                        self._from_client(line.strip())
                    break
                except asyncio.LimitOverrunError:
                    log.warning("the client sent a line over the limit; stopping")
                    break
                line = line.strip()
                if line:
                    self._from_client(line)
        finally:
            check_by.cancel()
            await self._withdraw_open(f"{self._session.client_name} closed its connection")
            await self.wrapped.close()
            if self._confirmations is not None:
                await self._confirmations.close()
            transport.close()

    def _from_server(self, line: bytes) -> None:
        """One line the server wrote: an answer the gateway waits for is taken; all else
        goes to the client as it came."""
        try:
            message = decode(line)
        except ValueError:
            log.info("the server wrote a line that is not JSON; passed on")
            self._write(line)
            return
        if not isinstance(message, dict):
            self._write(line)
            return
        if "method" not in message:  # an answer
            request_id = message.get("id")
            own = self._own.get(request_id) if isinstance(request_id, str) else None
            if own is not None:
                if not own.done():
                    own.set_result(message)
                return
            forwarded = self._forwarded.pop(key_of(request_id), None)
            if forwarded is not None:
                if forwarded.answer is not None:
                    if not forwarded.answer.done():
                        forwarded.answer.set_result(message)
                    return
                if forwarded.method == "tools/call" and GLANCE_MARK in line:
                    self._spawn(self._show_glance(forwarded.tool or "", message.get("result")))
                elif forwarded.method == "tools/list" and not self._folder:
                    line = self._learn_tools(message, line)
                elif forwarded.method == "initialize":
                    self._write(line)
                    self._check_when_quiet(answered=True)  # the server has started
                    return
        elif message["method"] == "notifications/tools/list_changed" and not self._folder:
            self._spawn(self._relist())
        self._write(line)

    # --- the client ------------------------------------------------------------------

    def _from_client(self, line: bytes) -> None:
        self._last_line = asyncio.get_running_loop().time()
        try:
            message = decode(line)
        except ValueError:
            self._error(None, PARSE_ERROR, "Parse error: the line is not JSON")
            return
        if not isinstance(message, dict):
            self._error(None, INVALID_REQUEST, "Invalid request: notch mcp takes one JSON-RPC "
                        "message per line (batches were removed from MCP in 2025-06-18)")  # fmt: skip
            return
        method = message.get("method")
        if self._held_lines is not None and method != "initialize":
            self._held_lines.append(line)  # nothing overtakes the client's initialize
            return
        if not isinstance(method, str):  # the client's answer to a server request
            self._pass_on(line)
            return
        if "id" not in message:
            self._notification(method, message, line)
            return
        request_id = message["id"]
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "tools/call":
            tool = self._tools.get(params.get("name")) if self._tools is not None else None  # type: ignore[arg-type]
            if tool is not None and tool.reads and not tool.background and self._usable:
                # The hot path: a read goes on as it came, without a task of its own.
                self._forwarded[key_of(request_id)] = Forwarded("tools/call", tool.name)
                try:
                    self.wrapped.send(line)
                    return
                except ServerGone:
                    del self._forwarded[key_of(request_id)]
            self._spawn(self._tool_call(request_id, params, line))
        elif method == "tools/list" and self._folder:
            if self.front.tools_complete:  # every tool read, or checked
                self._list_tools(request_id)
            else:
                self._spawn(self._list_tools_when_checked(request_id))
        elif method == "initialize":
            self._spawn(self._initialize(request_id, params, line))
        elif method.startswith("tasks/") and params.get("taskId") in self._held_tasks:
            self._spawn(self._own_task(method, request_id, self._held_tasks[params["taskId"]]))
        elif method == "server/discover":
            self._error(request_id, METHOD_NOT_FOUND, "Method not found: notch mcp speaks "
                        "the initialize handshake")  # fmt: skip
        else:
            self._spawn(self._send_to_server(line, request_id, Forwarded(method)))

    def _pass_on(self, line: bytes) -> None:
        """A notification or an answer for the server, sent now, in order; dropped when
        no server runs (it would not know the request, or the session, it is about)."""
        if self._usable:
            with contextlib.suppress(ServerGone):
                self.wrapped.send(line)

    def _notification(self, method: str, message: dict[str, Any], line: bytes) -> None:
        if method == "notifications/cancelled":
            params = message.get("params")
            params = params if isinstance(params, dict) else {}
            cancelled = params.get("requestId")
            call_id = call_id_of(self._scope, str(cancelled))
            held = self._calls.get(call_id)
            on_card = key_of(cancelled) not in self._forwarded
            if held is not None and held.task is not None and not held.task.done() and on_card:
                self._withdraw_why[call_id] = self._cancelled(params.get("reason"), held)
                held.task.cancel()
                return
        elif method == "notifications/initialized":
            self._session.initialized = True
        self._pass_on(line)

    async def _initialize(self, request_id: Any, params: dict[str, Any], line: bytes) -> None:
        self._session.params = params
        info = params.get("clientInfo")
        if isinstance(info, dict) and isinstance(info.get("name"), str) and info["name"]:
            self._session.client_name = info["name"][:80]
        if await self._start_server():
            await self._send_to_server(line, request_id, Forwarded("initialize"))
        else:
            # No server (a missing secret): the gateway answers, so the client can list
            # the tools and read why a call cannot run; the next call tries again.
            version = params.get("protocolVersion")
            self._reply(request_id, {
                "protocolVersion": version if version in HANDSHAKE_VERSIONS else "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": f"notch-mcp:{self.front.name}", "version": __version__},
            })  # fmt: skip
            self._check_when_quiet(answered=True)
        held, self._held_lines = self._held_lines or [], None
        for later in held:
            self._from_client(later)


async def _stdin_reader(loop: asyncio.AbstractEventLoop) -> asyncio.StreamReader:
    """This process's stdin as a StreamReader: a pipe or socket directly; anything else
    (a file) through a thread."""
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    stdin = os.fdopen(os.dup(sys.stdin.fileno()), "rb", buffering=0)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    except ValueError:  # a regular file: asyncio cannot watch it

        def pump() -> None:
            while chunk := stdin.read(65536):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
            loop.call_soon_threadsafe(reader.feed_eof)

        loop.run_in_executor(None, pump)
    return reader


__all__ = ["Front", "Gateway"]

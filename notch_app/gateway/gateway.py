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
import json
import logging
import os
import secrets
import signal
import sys
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

from notch_app import __version__
from notch_app.gateway import sentences
from notch_app.gateway.launch import DEFAULT_TIMEOUT_S, PROGRESS_EVERY_S, ServerCommand, ServerGone
from notch_app.gateway.tools import GatewayTool, from_server
from notch_app.gateway.wrapped import WrappedServer
from notch_app.manifest.canonical_json import canonical_json
from notch_app.runtime.call_ids import call_id_of

if TYPE_CHECKING:  # the Notch client loads after the first relays (the front's check)
    from notch_app.gateway.asking import Confirmations

log = logging.getLogger(__name__)

REMEMBERED_CALLS: Final = 10_000
"""Answered request ids of one session the gateway keeps (with what they asked), so a
repeat is refused here. Past it the oldest are forgotten, and Notch itself still holds
the line: the callId is stable, so a repeat gets the stored decision, which the gateway
never runs twice (`already_decided`), or is refused for other arguments."""
WAITING: Final = "Waiting for your answer in Notch"
OWN_INIT_WAIT_S: Final = 30.0
"""How long a restarted server gets to answer the gateway's `initialize`."""
CHECK_QUIET_S: Final = 0.3
CHECK_BY_S: Final = 5.0
"""When the front is checked (in a thread, while lines are relayed): once the server has
answered `initialize` (the server's start is what the client waits for, and the check
would compete with it for the CPU) and the client has then sent nothing for
CHECK_QUIET_S (a first `tools/list` and read go on meanwhile: the check holds the
interpreter in stretches), at the latest CHECK_BY_S after `notch mcp` began serving, and
at once when a call needs it."""
_GLANCE_MARK: Final = b"_voiceos_glance"
"""`manifest.glance.GLANCE_KEY`, as bytes: a result holding it is read for its glance (the
glance models load then, not at start: tests/core/test_gateway_tasks.py checks the two)."""
SECRET_SHOWN: Final = "•••••"
"""What a secret value reads as in what the model is told (`ToolFacts.masked`)."""
_METHOD_NOT_FOUND: Final = -32601
_INTERNAL_ERROR: Final = -32603
_INVALID_REQUEST: Final = -32600
_PARSE_ERROR: Final = -32700
_HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


@dataclass(frozen=True, slots=True)
class Front:
    """What one `notch mcp` puts Notch in front of."""

    name: str
    """Shown to the client in errors, and in logs."""
    integration_id: str
    command: ServerCommand
    environment: Callable[[], dict[str, str]]
    """The server's environment on top of the MCP default; may raise (a missing secret:
    its message is the tool error)."""
    attachment: dict[str, Any]
    """`gateway.attach` params that tell `notch run` where the cards come from."""
    tools: dict[str, GatewayTool] | None = None
    """The manifest's tools; None for a bare server (its own `tools/list` is used). Before
    the folder is checked, the tools its plain JSON decides (`fronts.early_front`)."""
    tools_complete: bool = True
    """`tools` holds every tool (so `tools/list` can be answered from it)."""


def glance_blocks(result: Any) -> list[Any] | None:
    """The `_voiceos_glance.blocks` a tool result (MCP JSON) carries, in its structured
    content or the JSON of a text item (see `find_glance`); None without one."""
    if not isinstance(result, dict):
        return None
    from notch_app.manifest.glance import find_glance

    found = find_glance(result)
    blocks = (
        found.value.get("blocks") if found is not None and isinstance(found.value, dict) else None
    )
    return blocks if isinstance(blocks, list) else None


def tool_error(text: str) -> dict[str, Any]:
    """A tool result the model reads as a failure, with `text` as the reason."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _failure_text(result: dict[str, Any]) -> str:
    texts = [c.get("text", "") for c in result.get("content") or () if isinstance(c, dict)]
    return " ".join(t for t in texts if isinstance(t, str)).strip()[:2000]


def _encode(message: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(message)
    except TypeError:  # a big int orjson refuses: the stdlib writes any JSON value
        return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()


def _decode(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)  # big ints, NaN; raises ValueError for no JSON at all


@dataclass(slots=True)
class _Asked:
    """What one request id of the session asked for, and the task answering it (None
    once it has answered: only that it was answered is kept)."""

    what: str
    """The tool and arguments, as canonical JSON."""
    task: asyncio.Task[dict[str, Any]] | None
    copies: int = 1
    """How many times the client sent it while open: each copy gets the answer."""
    asked_at: float = field(default_factory=time.monotonic)


@dataclass(slots=True)
class _Forwarded:
    """A client request sent on to the server, whose answer the gateway looks at."""

    method: str
    tool: str | None = None
    answer: asyncio.Future[dict[str, Any]] | None = None
    """Set when the gateway itself waits for the answer (an approved call)."""


@dataclass(slots=True)
class _HeldTask:
    """An acting call the client sent as a task (MCP 2025-11-25): the gateway's own task
    while the card waits, then the server's result."""

    task_id: str
    created: str
    ttl: Any
    work: asyncio.Task[dict[str, Any]]
    call_id: str = ""
    status: str = "working"
    message: str = "Waiting for your answer in Notch"
    updated: str = ""

    def document(self) -> dict[str, Any]:
        return {"taskId": self.task_id, "status": self.status, "statusMessage": self.message,
                "createdAt": self.created, "lastUpdatedAt": self.updated or self.created,
                "ttl": self.ttl, "pollInterval": 1000}  # fmt: skip


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass(slots=True)
class _Session:
    """What the client said at `initialize`, replayed to a server that restarted."""

    params: dict[str, Any] = field(default_factory=dict)
    initialized: bool = False
    client_name: str = "an MCP client"


class Gateway:
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
        self._calls: OrderedDict[str, _Asked] = OrderedDict()
        self._forwarded: dict[Any, _Forwarded] = {}
        self._own: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._own_ids = 0
        self._session = _Session()
        self._scope = f"mcp-{secrets.token_hex(8)}"
        """This session's part of every callId and of the gateway's own request ids."""
        self._write: Callable[[bytes], None] = lambda line: None
        self._start_problem: BaseException | None = None
        self._starting: asyncio.Lock | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._usable = False
        """The server runs and knows the session (its initialize answered or replayed)."""
        self._held_lines: list[bytes] | None = []
        self._held_tasks: dict[str, _HeldTask] = {}
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

    @property
    def confirmations(self) -> Confirmations:
        """The questions to Notch, made when first needed: always after the front's check
        (`checked()`), which gives the integration its id."""
        if self._confirmations is None:
            from notch_app.gateway.asking import Confirmations

            self._confirmations = Confirmations(
                self._socket_path, self.front.integration_id, self._attachment, self._timeout
            )
        return self._confirmations

    async def checked(self) -> Front:
        """The checked front, once it is. Raises what the check raised (FrontError)."""
        assert self._checked is not None
        self._begin_check()
        return await asyncio.shield(self._checked)

    def _begin_check(self) -> None:
        """Check the front in a thread (once); then use it, or stop (`refused`)."""
        if self._check_begun or self._checking is None:
            return
        self._check_begun = True
        checking = self._checking
        assert self._checked is not None

        def check() -> Front:
            front = checking()
            import notch_app.gateway.asking  # noqa: F401  (the first acting call's client)

            return front

        work = asyncio.get_running_loop().run_in_executor(None, check)
        work.add_done_callback(self._check_done)

    def _check_done(self, work: asyncio.Future[Front]) -> None:
        assert self._checked is not None
        if work.cancelled():
            return
        error = work.exception()
        if error is not None:
            self._refuse(error)
            return
        front = work.result()
        early = self._tools if self._folder else None
        self.front = front
        self.wrapped.command, self.wrapped.environment = front.command, front.environment
        learned = self._attachment.get("tools")
        self._attachment = dict(front.attachment)
        if learned is not None:
            self._attachment["tools"] = learned
        if self._folder:
            self._tools = front.tools
            for name, tool in (early or {}).items():
                now = (front.tools or {}).get(name)
                if tool.reads and (now is None or not now.reads):  # never: the same rule
                    log.warning("%s: passed as a read before the check, which says it asks",
                                name)  # fmt: skip
        self._checked.set_result(front)

    def _check_when_quiet(self, *, answered: bool = False) -> None:
        """Begin the check once the client has sent nothing for CHECK_QUIET_S (counted
        from now too when its `initialize` was just `answered`: its next lines follow)."""
        loop = asyncio.get_running_loop()
        if answered:
            self._last_line = loop.time()
        quiet = loop.time() - self._last_line
        if quiet >= CHECK_QUIET_S:
            self._begin_check()
        elif not self._check_begun:
            loop.call_later(CHECK_QUIET_S - quiet, self._check_when_quiet)

    def _refuse(self, error: BaseException) -> None:
        """The front's check failed: say why, and stop serving (exit status 2)."""
        assert self._checked is not None
        self.refused = str(error) or type(error).__name__
        if not isinstance(error, ValueError):  # not a FrontError: a fault of the check
            log.error("checking %s failed", self.front.name, exc_info=error)
        print(f"notch mcp: {self.refused}", file=sys.stderr, flush=True)
        self._checked.set_exception(error)
        self._checked.exception()  # retrieved: waiters get it through shield()
        if self._reader is not None:
            self._reader.feed_eof()

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _spawn_stop(self, number: int) -> None:
        self._spawn(self._stop_on_signal(number))

    async def _stop_on_signal(self, number: int) -> None:
        await self._withdraw_open(f"notch mcp was stopped ({signal.Signals(number).name})")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.wrapped.close(), 1.0)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)

    async def _withdraw_open(self, why: str) -> None:
        """Take away the cards of the calls still open, all within WITHDRAW_WAIT_S."""
        open_calls = [cid for cid, asked in self._calls.items() if asked.task is not None]
        if open_calls:
            from notch_app.ipc.client import WITHDRAW_WAIT_S

            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    asyncio.gather(*(self.confirmations.withdraw(c, why) for c in open_calls)),
                    WITHDRAW_WAIT_S,
                )

    def _reply(self, request_id: Any, result: dict[str, Any]) -> None:
        self._write(_encode({"jsonrpc": "2.0", "id": request_id, "result": result}))

    def _error(self, request_id: Any, code: int, message: str) -> None:
        error = {"code": code, "message": message}
        self._write(_encode({"jsonrpc": "2.0", "id": request_id, "error": error}))

    # --- the server --------------------------------------------------------------------

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
            self.wrapped.send(_encode(message))
            reply = await asyncio.wait_for(answer, timeout)
        except TimeoutError:
            raise ServerGone(f"`{self.front.command}` did not answer {method}") from None
        finally:
            self._own.pop(request_id, None)
        if "error" in reply:
            raise ServerGone(f"`{self.front.command}` refused {method}: {reply['error']}")
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    def _from_server(self, line: bytes) -> None:
        """One line the server wrote: an answer the gateway waits for is taken; all else
        goes to the client as it came."""
        try:
            message = _decode(line)
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
            forwarded = self._forwarded.pop(_key(request_id), None)
            if forwarded is not None:
                if forwarded.answer is not None:
                    if not forwarded.answer.done():
                        forwarded.answer.set_result(message)
                    return
                if forwarded.method == "tools/call" and _GLANCE_MARK in line:
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
                self._error(request_id[1], _INTERNAL_ERROR, gone)
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

    async def _send_to_server(self, line: bytes, request_id: Any, forwarded: _Forwarded) -> bool:
        """Send a client request on, starting the server first if need be. False when
        it cannot run (the client was answered)."""
        if not self._usable and not await self._start_server():
            self._cannot_start(request_id, forwarded)
            return False
        self._forwarded[_key(request_id)] = forwarded
        try:
            self.wrapped.send(line)
        except ServerGone:
            self._forwarded.pop(_key(request_id), None)
            self._cannot_start(request_id, forwarded)
            return False
        return True

    def _cannot_start(self, request_id: Any, forwarded: _Forwarded) -> None:
        problem = self._start_problem or ServerGone(f"`{self.front.command}` is not running")
        if forwarded.answer is not None:
            if not forwarded.answer.done():
                forwarded.answer.set_exception(problem)
        elif forwarded.method == "tools/call":
            self._reply(request_id, tool_error(self._start_sentence(problem)))
        else:
            self._error(request_id, _INTERNAL_ERROR, f"{self.front.name}: {problem}")

    def _start_sentence(self, problem: BaseException) -> str:
        if isinstance(problem, ServerGone):
            return f"{self.front.name} could not be started: {problem}"
        return str(problem)  # the environment's own sentence: a missing secret

    # --- the client ------------------------------------------------------------------

    def _from_client(self, line: bytes) -> None:
        self._last_line = asyncio.get_running_loop().time()
        try:
            message = _decode(line)
        except ValueError:
            self._error(None, _PARSE_ERROR, "Parse error: the line is not JSON")
            return
        if not isinstance(message, dict):
            self._error(None, _INVALID_REQUEST, "Invalid request: notch mcp takes one JSON-RPC "
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
                self._forwarded[_key(request_id)] = _Forwarded("tools/call", tool.name)
                try:
                    self.wrapped.send(line)
                    return
                except ServerGone:
                    del self._forwarded[_key(request_id)]
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
            self._error(request_id, _METHOD_NOT_FOUND, "Method not found: notch mcp speaks "
                        "the initialize handshake")  # fmt: skip
        else:
            self._spawn(self._send_to_server(line, request_id, _Forwarded(method)))

    def _list_tools(self, request_id: Any) -> None:
        self._reply(request_id, {"tools": [t.listed for t in (self._tools or {}).values()]})

    async def _list_tools_when_checked(self, request_id: Any) -> None:
        try:
            await self.checked()
        except Exception as exc:
            self._error(request_id, _INTERNAL_ERROR, f"{self.front.name}: {exc}")
            return
        self._list_tools(request_id)

    def _waited(self, call_id: str) -> int:
        asked = self._calls.get(call_id)
        return round(time.monotonic() - asked.asked_at) if asked is not None else 0

    def _cancelled(self, said: Any, asked: _Asked) -> str:
        """Why the client's `notifications/cancelled` withdraws a card, in words the person
        reads (quoted as the agent's, by Notch), the gist first (the notch shows one line):
        who stopped waiting and after how long, then the client's own reason when it is
        not a timeout ("claude-ai stopped waiting after 60 s")."""
        client = self._session.client_name
        waited = round(time.monotonic() - asked.asked_at)
        reason = " ".join(said.split())[:100] if isinstance(said, str) else ""
        if "timed out" in reason.lower() or "timeout" in reason.lower():
            return f"{client} stopped waiting after {waited} s"
        return f"{client} cancelled it after {waited} s" + (f" ({reason})" if reason else "")

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
            on_card = _key(cancelled) not in self._forwarded
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
            await self._send_to_server(line, request_id, _Forwarded("initialize"))
        else:
            # No server (a missing secret): the gateway answers, so the client can list
            # the tools and read why a call cannot run; the next call tries again.
            version = params.get("protocolVersion")
            self._reply(request_id, {
                "protocolVersion": version if version in _HANDSHAKE_VERSIONS else "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": f"notch-mcp:{self.front.name}", "version": __version__},
            })  # fmt: skip
            self._check_when_quiet(answered=True)
        held, self._held_lines = self._held_lines or [], None
        for later in held:
            self._from_client(later)

    # --- tools ---------------------------------------------------------------------

    async def tools(self) -> dict[str, GatewayTool]:
        """The tools offered: the manifest's, or the bare server's own list (read once,
        and again after it says the list changed). Raises ServerGone (or what the
        environment raised) for a bare server that cannot be started."""
        await self.checked()
        if self._tools is not None:
            return self._tools
        assert self._listing is not None
        async with self._listing:
            if self._tools is None:
                if not self._usable and not await self._start_server():
                    raise self._start_problem or ServerGone("not running")
                listed: list[Any] = []
                cursor: Any = None
                for _page in range(100):
                    params = {"cursor": cursor} if cursor else {}
                    page = await self._own_request("tools/list", params, OWN_INIT_WAIT_S)
                    listed.extend(page.get("tools") or ())
                    cursor = page.get("nextCursor")
                    if not cursor:
                        break
                self._know([t for t in listed if isinstance(t, dict)])
            assert self._tools is not None
            return self._tools

    def _know(self, listed: list[dict[str, Any]], *, whole: bool = True) -> dict[str, GatewayTool]:
        """A bare server's tools, as it listed them (`whole`: all of them; else one page
        of its answer to the client). Notch generates their cards from these very
        documents, so it is told again only when one changed (an "Always allow" is
        bound to the card). Returns the tools of `listed`."""
        fresh = from_server(listed, self._once_acting)
        self._once_acting.update(name for name, t in fresh.items() if t.acts)
        raw = {} if whole else dict(self._raw_tools)
        raw.update((str(t["name"]), t) for t in listed if isinstance(t.get("name"), str))
        known = {} if whole or self._tools is None else dict(self._tools)
        known.update(fresh)
        self._tools = known
        if raw != self._raw_tools:
            self._raw_tools = raw
            self._attachment["tools"] = list(raw.values())
            if self._confirmations is not None:
                self._confirmations.attachment["tools"] = list(raw.values())
                self._confirmations.reattach()
        return fresh

    def _learn_tools(self, message: dict[str, Any], line: bytes) -> bytes:
        """A bare server's answer to the client's `tools/list`: remembered (one page at a
        time is enough to decide those tools), and passed on with acting tools' words."""
        result = message.get("result")
        page = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(page, list):
            return line
        fresh = self._know([t for t in page if isinstance(t, dict)], whole=False)
        assert isinstance(result, dict)
        return _encode(
            {**message, "result": {**result, "tools": [t.listed for t in fresh.values()]}}
        )

    async def _relist(self) -> None:
        """The bare server's tools changed: read them again before the next call."""
        self._tools = None
        try:
            await self.tools()
        except Exception as exc:
            log.warning("%s: could not read its new tool list: %s", self.front.name, exc)

    async def _tool_call(self, request_id: Any, params: dict[str, Any], line: bytes) -> None:
        name = params.get("name")
        known = self._tools.get(name) if self._tools is not None and isinstance(name, str) else None
        if known is not None and known.reads and not known.background:
            # A read goes on as it came, before the front's check too (the same rule).
            await self._send_to_server(line, request_id, _Forwarded("tools/call", known.name))
            return
        try:
            tools = await self.tools()
        except Exception as exc:
            self._reply(request_id, tool_error(self._start_sentence(exc)))
            return
        tool = tools.get(name) if isinstance(name, str) else None
        if tool is None:
            names = ", ".join(sorted(tools)) or "none"
            self._reply(request_id, tool_error(
                f"There is no tool named {name!r} here; the tools are {names}."
            ))  # fmt: skip
            return
        if tool.reads and not tool.background:  # the fast path: the line as it came
            await self._send_to_server(line, request_id, _Forwarded("tools/call", tool.name))
            return
        raw = params.get("arguments")
        arguments = dict(raw) if isinstance(raw, dict) else {}
        if tool.reads:
            result = await self.forward(tool, request_id, params, arguments)
            self._reply(request_id, result)
            return
        await self._acting_call(request_id, params, tool, arguments)

    async def _acting_call(
        self, request_id: Any, params: dict[str, Any], tool: GatewayTool, arguments: dict[str, Any]
    ) -> None:
        call_id = call_id_of(self._scope, str(request_id))
        try:
            what = canonical_json({"tool": tool.name, "arguments": arguments})
        except ValueError as exc:
            self._reply(request_id, tool_error(
                f"The arguments cannot be checked ({exc}); nothing was run."
            ))  # fmt: skip
            return
        known = self._calls.get(call_id)
        if known is not None and known.what != what:
            self._reply(request_id, tool_error(
                f"Request id {request_id!r} was already used in this session for another "
                "call; a request id names one call. Nothing was run: send this call with a "
                "new request id."
            ))  # fmt: skip
            return
        if known is not None and (known.task is None or known.task.done()):
            self._reply(request_id, tool_error(
                f"Request id {request_id!r} was already answered in this session: this is a "
                f"duplicate of that call, and “{tool.title}” runs at most once, so nothing "
                "was run again. To do it again, send a new request id."
            ))  # fmt: skip
            return
        if known is not None:  # a repeat while the call is open joins it: one card, one run
            known.copies += 1
            return
        context = {"agent": self._session.client_name, "via": f"notch mcp · {self.front.name}"}
        if isinstance(params.get("task"), dict):
            self._start_task(call_id, what, request_id, params, tool, arguments, context)
            return
        task = asyncio.ensure_future(
            self._ask_then_forward(call_id, request_id, params, tool, arguments, context)
        )
        asked = _Asked(what, task)
        self._remember(call_id, asked)
        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:
            self._answered(call_id, asked)
            return  # withdrawn (the card taken away): a cancelled request gets no answer
        except Exception as exc:  # never a protocol error: one sentence the model reads
            log.exception("notch mcp: %s failed", tool.name)
            result = tool_error(f"{exc}; {sentences.nothing_done(tool.name)}.")
        for _ in range(asked.copies):
            self._reply(request_id, result)
        self._answered(call_id, asked)

    async def _ask_then_forward(
        self,
        call_id: str,
        request_id: Any,
        params: dict[str, Any],
        tool: GatewayTool,
        arguments: dict[str, Any],
        context: dict[str, Any],
    ) -> dict[str, Any]:
        progress = self._keep_alive(params)
        try:
            answer = await self.confirmations.ask(call_id, tool.name, arguments, context)
        except asyncio.CancelledError:
            why = self._withdraw_why.pop(call_id, None)
            await asyncio.shield(self.confirmations.withdraw(call_id, why))
            raise
        finally:
            if progress is not None:
                progress.cancel()
        if answer.not_running:
            return tool_error(sentences.notch_not_running(tool.title, tool.name, answer.problem))
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
        ran = dict(decision.arguments or {})
        result = await self.forward(tool, request_id, params, ran, call_id)
        if decision.edited_paths and not result.get("isError"):
            # The live decision carries secret values (to run with); the model never reads them.
            told = tool.facts().masked(ran, SECRET_SHOWN)
            shown = json.dumps(told, ensure_ascii=False, sort_keys=True)
            content = list(result.get("content") or [])
            content.append({"type": "text", "text": f"The person changed "
                            f"{', '.join(decision.edited_paths)} before approving; it ran "
                            f"with {shown}."})  # fmt: skip
            result = {**result, "content": content}
        return result

    def _start_task(
        self,
        call_id: str,
        what: str,
        request_id: Any,
        params: dict[str, Any],
        tool: GatewayTool,
        arguments: dict[str, Any],
        context: dict[str, Any],
    ) -> None:
        """An acting call sent as a task: answered at once with a task of the gateway's
        own (`working` while the card waits), run once the person says yes; the client
        polls it with tasks/get and tasks/result, or cancels it (the card is withdrawn)."""
        self._own_ids += 1
        task_id = f"{self._scope}-task-{self._own_ids}"
        plain = {k: v for k, v in params.items() if k != "task"}
        work = asyncio.ensure_future(
            self._ask_then_forward(call_id, task_id, plain, tool, arguments, context)
        )
        held = _HeldTask(task_id, _now(), params["task"].get("ttl"), work, call_id)
        self._held_tasks[task_id] = held
        asked = _Asked(what, work)
        self._remember(call_id, asked)

        def ended(done: asyncio.Task[dict[str, Any]]) -> None:
            self._answered(call_id, asked)
            held.updated = _now()
            if done.cancelled():
                held.status, held.message = "cancelled", "Withdrawn before the person decided"
            elif done.exception() is not None:
                held.status, held.message = "failed", str(done.exception())
            else:
                held.status, held.message = "completed", "Done"
            self._write(_encode({"jsonrpc": "2.0", "method": "notifications/tasks/status",
                                 "params": held.document()}))  # fmt: skip

        work.add_done_callback(ended)
        self._reply(request_id, {"task": held.document()})

    async def _own_task(self, method: str, request_id: Any, held: _HeldTask) -> None:
        """tasks/get, tasks/result or tasks/cancel for a task of the gateway's own."""
        if method == "tasks/cancel":
            if not held.work.done():
                self._withdraw_why[held.call_id] = (
                    f"{self._session.client_name} cancelled the task "
                    f"after {self._waited(held.call_id)} s"
                )
                held.work.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await held.work
            self._reply(request_id, held.document())
        elif method == "tasks/result":
            try:
                result = await asyncio.shield(held.work)
            except asyncio.CancelledError:
                self._error(request_id, _INVALID_REQUEST, f"Task {held.task_id} was cancelled")
                return
            except Exception as exc:
                result = tool_error(str(exc))
            meta = {"io.modelcontextprotocol/related-task": {"taskId": held.task_id}}
            self._reply(request_id, {**result, "_meta": {**result.get("_meta", {}), **meta}})
        elif method == "tasks/get":
            self._reply(request_id, held.document())
        else:
            self._error(request_id, _METHOD_NOT_FOUND, f"Method not found: {method}")

    def _keep_alive(self, params: dict[str, Any]) -> asyncio.Task[None] | None:
        """While the person decides: `notifications/progress` every `progress_every`
        seconds, when the client gave a progress token (the TypeScript SDK resets its
        request timeout on each, with `resetTimeoutOnProgress`)."""
        meta = params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        if not isinstance(token, str | int) or isinstance(token, bool):
            return None

        async def tick() -> None:
            started = time.monotonic()
            while True:
                await asyncio.sleep(self.progress_every)
                waited = round(time.monotonic() - started)
                self._write(_encode({"jsonrpc": "2.0", "method": "notifications/progress",
                                     "params": {"progressToken": token, "progress": waited,
                                                "message": WAITING}}))  # fmt: skip

        return asyncio.ensure_future(tick())

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
        blocks = glance_blocks(result) if _GLANCE_MARK in _encode(result) else None
        if work_id is not None:
            failure = _failure_text(result) if result.get("isError") else None
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
        forwarded = _Forwarded("tools/call", tool.name, answer)
        await self._send_to_server(_encode(message), request_id, forwarded)
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

    async def _show_glance(self, tool: str, result: Any) -> None:
        try:
            await self.checked()  # the integration's id, and its client
        except Exception:
            return
        blocks = glance_blocks(result)
        if blocks is not None and not (isinstance(result, dict) and result.get("isError")):
            await self.confirmations.show_glance(tool, blocks, None)

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
        self._withdraw_why.pop(call_id, None)
        if self._calls.get(call_id) is asked:
            self._calls[call_id] = _Asked(asked.what, None)


def _key(request_id: Any) -> tuple[str, Any]:
    """A request id as a dict key: 7 and "7" stay apart on the wire."""
    return (type(request_id).__name__, request_id)


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

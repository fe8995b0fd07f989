"""Fixtures for the service and IPC tests: a mail integration built in memory, and a Notch
(service + real Unix socket) running in-process with a scripted presenter.

The mail integration's id is "com.example.mail"; modules that name it in test data keep
it as their own `MAIL` constant (a parametrize list cannot ask for a fixture).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import selectors
import socket
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient
from notch_app.headless import RunningNotch, start
from notch_app.manifest.model import Manifest, Tool
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.scripted import Rule, ScriptedPresenter

MAIL = "com.example.mail"


def _card(title: str, children: list[dict[str, Any]], confirm: str) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "root": {
            "type": "card",
            "title": title,
            "children": children,
            "footer": [
                {
                    "type": "actions",
                    "items": [
                        {"label": "Cancel", "role": "cancel"},
                        {"label": confirm, "role": "confirm"},
                    ],
                }
            ],
        },
    }


MAIL_MANIFEST: dict[str, Any] = {
    "schemaVersion": 1,
    "id": MAIL,
    "version": "1.0.0",
    "name": "Example Mail",
    "summary": "Send and search mail.",
    "publisher": {"id": "example", "name": "Example Inc."},
    "tools": [
        {
            "name": "send_email",
            "title": "Send email",
            "description": "Send one email.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "to": {"type": "string", "minLength": 1},
                    "subject": {"type": "string"},
                    "body": {"type": "string"},
                },
                "required": ["to"],
            },
            "confirmation": _card(
                "Send email",
                [
                    {"type": "textField", "bind": "{{to}}", "label": "To", "required": True},
                    {"type": "textField", "bind": "{{subject}}", "label": "Subject"},
                ],
                "Send",
            ),
        },
        {
            "name": "connect_account",
            "description": "Sign in to a mail account.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "user": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "password": {"type": "string"}},
                    }
                },
            },
            "confirmation": _card(
                "Connect account",
                [
                    {"type": "textField", "bind": "{{user.name}}", "label": "User"},
                    {"type": "passwordField", "bind": "{{user.password}}", "label": "Password"},
                ],
                "Connect",
            ),
        },
        {
            "name": "search_mail",
            "description": "Search the mailbox.",
            "annotations": {"readOnlyHint": True},
            "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    ],
}


def _mail_catalog() -> Catalog:
    return Catalog([Manifest.model_validate(MAIL_MANIFEST)])


@pytest.fixture
def mail_catalog() -> Catalog:
    """A catalog holding only the mail integration: send_email and connect_account ask
    first, search_mail is read-only."""
    return _mail_catalog()


@pytest.fixture
def base() -> Iterator[Path]:
    """A short temporary folder: Unix socket paths must stay under ~100 bytes, and
    pytest's tmp_path can be longer."""
    with tempfile.TemporaryDirectory(prefix="notch-t") as name:
        yield Path(name)


RunningNotchFactory = Callable[..., contextlib.AbstractAsyncContextManager[
    tuple[RunningNotch, ScriptedPresenter]
]]  # fmt: skip


@contextlib.asynccontextmanager
async def _running_notch(
    base: Path, rule: Rule | None = None, catalog: Catalog | None = None
) -> AsyncIterator[tuple[RunningNotch, ScriptedPresenter]]:
    notch = await start(
        base / "s" / "notch.sock",
        base / "data",
        presenter=lambda sink: ScriptedPresenter(sink, rule),
        catalog=catalog or _mail_catalog(),
    )
    presenter = notch.presenter
    assert isinstance(presenter, ScriptedPresenter)
    try:
        yield notch, presenter
    finally:
        await notch.close()


@pytest.fixture
def running_notch() -> RunningNotchFactory:
    """`async with running_notch(base, rule=None, catalog=None) as (notch, cards)`: a Notch
    on `base/s/notch.sock` with its data in `base/data`, cards answered by `cards` (a
    ScriptedPresenter following `rule`, else by the test's own calls)."""
    return _running_notch


@contextlib.asynccontextmanager
async def _notch_and_client(
    base: Path, token: str | None = None
) -> AsyncIterator[tuple[RunningNotch, ScriptedPresenter, AsyncNotchClient]]:
    async with (
        _running_notch(base) as (notch, cards),
        AsyncNotchClient(notch.server.path, token=token) as client,
    ):
        yield notch, cards, client


@pytest.fixture
def notch_and_client() -> Callable[
    [Path], contextlib.AbstractAsyncContextManager[
        tuple[RunningNotch, ScriptedPresenter, AsyncNotchClient]
    ]
]:  # fmt: skip
    """`async with notch_and_client(base, token=None) as (notch, cards, client)`:
    `running_notch(base)` with an `AsyncNotchClient` connected to it (asking with `token`,
    else a fresh one: pass the same token to be the same agent across a restart)."""
    return _notch_and_client


# --- a payments integration for the person's policy -------------------------------------


def _view(title: str, *binds: str) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "root": {
            "type": "card",
            "title": title,
            "children": [{"type": "textField", "bind": f"{{{{{b}}}}}", "label": b} for b in binds],
            "footer": [
                {
                    "type": "actions",
                    "items": [
                        {"label": "Cancel", "role": "cancel"},
                        {"label": title, "role": "confirm"},
                    ],
                }
            ],
        },
    }


def _pay_manifest(view_title: str = "Pay") -> Manifest:
    return Manifest.model_validate(
        {
            "schemaVersion": 1,
            "id": "com.example.pay",
            "version": "1.0.0",
            "name": "Pay",
            "tools": [
                {
                    "name": "pay_invoice",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "amount": {"type": "number"},
                            "payee": {"type": "string"},
                            "payment": {
                                "type": "object",
                                "properties": {"total": {"type": "number"}},
                            },
                            "recipients": {"type": "array", "items": {"type": "string"}},
                            "lines": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {"cost": {"type": "number"}},
                                },
                            },
                        },
                    },
                    "confirmation": _view(view_title, "payee"),
                },
                {
                    "name": "list_invoices",
                    "inputSchema": {"type": "object", "properties": {}},
                },
            ],
        }
    )


def _pay_tool(m: Manifest) -> Tool:
    tool = m.tool("pay_invoice")
    assert tool is not None
    return tool


@pytest.fixture(scope="session")
def pay_manifest() -> Callable[..., Manifest]:
    """`pay_manifest(view_title="Pay")`: an integration with pay_invoice (amount, payee,
    payment.total, recipients, lines[].cost; a card titled `view_title`) and the
    read-only list_invoices."""
    return _pay_manifest


@pytest.fixture(scope="session")
def pay_tool() -> Callable[[Manifest], Tool]:
    """`pay_tool(manifest)`: its pay_invoice tool."""
    return _pay_tool


# --- waiting for a request to reach a part of Notch --------------------------------------


@pytest.fixture
def reached(monkeypatch: pytest.MonkeyPatch) -> Callable[[Any, str, str], asyncio.Event]:
    """`reached(obj, method, call_id)`: an asyncio.Event set once `obj.<method>` has been
    called for `call_id` (a ToolCall, or a callId, as its first argument) — e.g. the
    service's `submit`, `wait` or `shown`. Set it up before the call can happen."""

    def watch(obj: Any, method: str, call_id: str) -> asyncio.Event:
        event = asyncio.Event()
        real = getattr(obj, method)

        def spy(first: Any, *args: Any, **kwargs: Any) -> Any:
            result = real(first, *args, **kwargs)
            if getattr(first, "call_id", first) == call_id:
                event.set()
            return result

        monkeypatch.setattr(obj, method, spy)
        return event

    return watch


async def _loop_turns(count: int = 5) -> None:
    for _ in range(count):
        await asyncio.sleep(0)  # a turn of the loop, not a wait: no time passes


@pytest.fixture
def loop_turns() -> Callable[..., Awaitable[None]]:
    """`await loop_turns()`: let the callbacks already scheduled on the loop run (a few
    turns, no time passes) — before checking that something did NOT happen."""
    return _loop_turns


# --- a Notch that stalls ---------------------------------------------------------------


class StalledNotch:
    """What a frozen Notch looks like to its clients: a socket (in a 0700 folder of this
    user's, so clients trust it) that accepts and reads, and never answers ("silent"),
    or answers half of a reply line, with no newline, and then nothing ("half").
    `methods` lists the JSON-RPC methods received, in order."""

    def __init__(self, folder: Path, how: str) -> None:
        assert how in ("silent", "half")
        self.how = how
        self.path = folder / "notch.sock"
        self.methods: list[str] = []
        self._heard = threading.Condition()
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.path))
        self._listener.listen(64)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="stalled-notch", daemon=True)
        self._thread.start()

    def wait_for(self, method: str, timeout: float = 20.0) -> None:
        """Block until a client has sent `method` (fails the test after `timeout`)."""
        with self._heard:
            if not self._heard.wait_for(lambda: method in self.methods, timeout):
                raise AssertionError(f"no client sent {method} (heard {self.methods})")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._listener.close()

    def _serve(self) -> None:
        chooser = selectors.DefaultSelector()
        chooser.register(self._listener, selectors.EVENT_READ)
        pending: dict[socket.socket, bytes] = {}
        while not self._stop.is_set():
            for key, _ in chooser.select(0.05):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if sock is self._listener:
                    conn, _ = sock.accept()
                    chooser.register(conn, selectors.EVENT_READ)
                    pending[conn] = b""
                    continue
                try:
                    data = sock.recv(1 << 16)
                except OSError:
                    data = b""
                if not data:
                    chooser.unregister(sock)
                    pending.pop(sock, None)
                    sock.close()
                    continue
                *lines, pending[sock] = (pending[sock] + data).split(b"\n")
                for line in lines:
                    self._heard_line(sock, line)
        for sock in pending:
            sock.close()

    def _heard_line(self, sock: socket.socket, line: bytes) -> None:
        message = json.loads(line)
        with self._heard:
            self.methods.append(str(message.get("method")))
            self._heard.notify_all()
        if self.how == "half" and "id" in message:
            head = json.dumps({"jsonrpc": "2.0", "id": message["id"]})[:-1]
            with contextlib.suppress(OSError):
                sock.sendall(head.encode() + b', "result": {"callId": "')


@pytest.fixture
def stalled_notch() -> Iterator[Callable[[str], StalledNotch]]:
    """`stalled_notch("silent" | "half")`: a started StalledNotch (stopped after the
    test); its socket is `.path`."""
    started: list[tuple[StalledNotch, tempfile.TemporaryDirectory[str]]] = []

    def start(how: str) -> StalledNotch:
        folder = tempfile.TemporaryDirectory(prefix="notch-z")
        os.chmod(folder.name, 0o700)
        notch = StalledNotch(Path(folder.name), how)
        started.append((notch, folder))
        return notch

    yield start
    for notch, folder in started:
        notch.close()
        folder.cleanup()


# --- notch mcp, spoken to line by line --------------------------------------------------


class RawGateway:
    """`notch mcp` as a real process, spoken to in raw JSON-RPC lines: what a client
    that repeats request ids sends (the SDK's own client never does). The wrapped notes
    server logs each call it runs to `home/notes-calls.jsonl` (`ran()`)."""

    def __init__(self, process: asyncio.subprocess.Process, home: Path) -> None:
        self.process = process
        self.home = home
        self.replies: list[dict[str, Any]] = []
        self._arrived = asyncio.Condition()
        self._reader = asyncio.ensure_future(self._read())

    async def send(self, *messages: dict[str, Any]) -> None:
        """Write `messages` at once (one write: the gateway reads them back to back)."""
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        await self.process.stdin.drain()

    async def replies_to(self, request_id: Any, count: int = 1) -> list[dict[str, Any]]:
        """The first `count` replies with id `request_id` (waits up to 30 s for them)."""
        async with asyncio.timeout(30), self._arrived:
            await self._arrived.wait_for(
                lambda: len([r for r in self.replies if r.get("id") == request_id]) >= count
            )
        return [r for r in self.replies if r.get("id") == request_id][:count]

    async def call_tool(self, request_id: Any, name: str, arguments: dict[str, Any]) -> Any:
        """Send one tools/call and return its reply (the newest with that id)."""
        before = len([r for r in self.replies if r.get("id") == request_id])
        await self.send(self.tool_call(request_id, name, arguments))
        return (await self.replies_to(request_id, before + 1))[-1]

    @staticmethod
    def tool_call(request_id: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A `tools/call` request line, for `send`."""
        params = {"name": name, "arguments": arguments}
        return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}

    async def barrier(self, request_id: Any) -> None:
        """A ping, answered after everything sent before it has reached the gateway's
        handlers (the SDK starts them in the order the lines came)."""
        await self.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
        await self.replies_to(request_id)

    def ran(self) -> list[dict[str, Any]]:
        """What the wrapped server ran, in order."""
        log = self.home / "notes-calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines() if line]

    async def _read(self) -> None:
        assert self.process.stdout is not None
        async for line in self.process.stdout:
            message = json.loads(line)
            if "id" in message and "method" not in message:
                async with self._arrived:
                    self.replies.append(message)
                    self._arrived.notify_all()


@contextlib.asynccontextmanager
async def _mcp_gateway(
    folder: Path, socket_path: Path, home: Path, *flags: str
) -> AsyncIterator[RawGateway]:
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PYTHONUNBUFFERED": "1",
        "XDG_CONFIG_HOME": str(home / "config"),
    }
    with (home / "gateway.log").open("ab") as errlog:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "notch_app", "mcp", str(folder), "--socket", str(socket_path),
            "--data-dir", str(home / "data"), *flags,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=errlog,
            env=env, limit=4 * 1024 * 1024,
        )  # fmt: skip
    gateway = RawGateway(process, home)
    try:
        await gateway.send(
            {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "raw-test-client", "version": "1"},
            }},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        )  # fmt: skip
        await gateway.replies_to("init")
        yield gateway
    finally:
        if process.returncode is None:
            assert process.stdin is not None
            process.stdin.close()  # an MCP client ends a stdio server so
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()
        gateway._reader.cancel()


@pytest.fixture
def mcp_gateway() -> Callable[..., contextlib.AbstractAsyncContextManager[RawGateway]]:
    """`async with mcp_gateway(folder, socket_path, home, *flags) as gateway`: `notch mcp
    FOLDER --socket SOCKET_PATH` as a real process (HOME = `home`), initialized, spoken to
    in raw JSON-RPC (a RawGateway)."""
    return _mcp_gateway

"""The integration's own MCP server: a child process spoken to in JSON-RPC lines.

The gateway relays lines between the MCP client and this process (`gateway.py`): no
SDK client sits in between, so nothing is validated or re-encoded on the way (a read
costs one more pipe hop, not a second SDK). One process at a time; it starts at once
(`start()`: the first call does not wait for it) with cwd = the folder and the
environment an MCP client gives a server (HOME, LOGNAME, PATH, SHELL, TERM, USER, as the
SDK's `get_default_environment`) plus what `environment()` adds (the manifest's
`runtime.env`, the person's preference values and secrets). A process that exits is
reported to `on_exit`; the next call starts a fresh one. How a process is started
(`spawn`) is `launch`'s: it starts the first one before asyncio is even imported.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
from collections.abc import Callable
from concurrent.futures import Future
from typing import Final

from notch_app.gateway.launch import ServerCommand, ServerGone, spawn, stop_unused

__all__ = ["LINE_LIMIT", "STOP_WAIT_S", "ServerCommand", "ServerGone", "WrappedServer", "spawn"]

log = logging.getLogger(__name__)

LINE_LIMIT: Final = 64 * 1024 * 1024
"""Longest line read from the server (a tool result with images runs to megabytes)."""
STOP_WAIT_S: Final = 2.0
"""How long a server gets to exit after its stdin closes, before it is terminated."""


class WrappedServer:
    """The server behind the gateway. `on_line(line)` gets every line it writes (one
    JSON-RPC message each, newline stripped); `on_exit(server)` runs once it is gone.
    `environment()` is called at each start and may raise (a missing secret): that start
    fails with the exception itself, and the next one tries again, so a secret set
    meanwhile is picked up without a restart."""

    def __init__(
        self,
        command: ServerCommand,
        environment: Callable[[], dict[str, str]],
        on_line: Callable[[bytes], None],
        on_exit: Callable[[WrappedServer], None],
    ) -> None:
        self.command = command
        self.environment = environment
        self._on_line = on_line
        self._on_exit = on_exit
        self._process: subprocess.Popen[bytes] | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._reader: asyncio.Task[None] | None = None
        self._adopted: Future[subprocess.Popen[bytes]] | None = None
        self.starts = 0
        """How many times a process was started (a test sees a restart)."""

    def adopt(self, process: Future[subprocess.Popen[bytes]]) -> None:
        """Use `process`, started already (`spawn`) or being started, as the first server:
        the first `start()` waits for it, and fails with its exception."""
        self._adopted = process

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    async def start(self) -> None:
        """Start a process (if none runs). Raises ServerGone when it cannot start, or
        whatever `environment()` raised."""
        if self.alive:
            return
        adopted, self._adopted = self._adopted, None
        if adopted is not None:
            process = await asyncio.wrap_future(adopted)
        else:
            process = spawn(self.command, self.environment())
        assert process.stdin is not None and process.stdout is not None
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=LINE_LIMIT)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), process.stdout)
        self._stdin, _ = await loop.connect_write_pipe(asyncio.Protocol, process.stdin)
        self._process = process
        self.starts += 1
        self._reader = asyncio.ensure_future(self._read(process, reader))

    def send(self, line: bytes) -> None:
        """Write one message (`line` without its newline). Raises ServerGone when no
        process runs."""
        stdin = self._stdin
        if self._process is None or stdin is None or stdin.is_closing():
            raise ServerGone(f"`{self.command}` is not running")
        stdin.write(line + b"\n")

    async def _read(self, process: subprocess.Popen[bytes], stdout: asyncio.StreamReader) -> None:
        try:
            while True:
                try:
                    line = await stdout.readuntil(b"\n")
                except asyncio.IncompleteReadError:
                    break
                except asyncio.LimitOverrunError:
                    log.warning("`%s` wrote a line over %d bytes; stopped it", self.command,
                                LINE_LIMIT)  # fmt: skip
                    break
                line = line.rstrip(b"\r\n")
                if line:
                    self._on_line(line)
        except (ConnectionError, OSError) as exc:
            log.info("reading `%s` failed: %s", self.command, exc)
        finally:
            await self._stop(process)
            if self._process is process:
                self._process = None
                self._stdin = None
                self._on_exit(self)

    async def _stop(self, process: subprocess.Popen[bytes]) -> None:
        """Close its stdin, give it STOP_WAIT_S to exit, then terminate it."""
        if self._process is process and self._stdin is not None:
            self._stdin.close()
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.run_in_executor(None, process.wait), STOP_WAIT_S)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            await loop.run_in_executor(None, process.wait)

    async def close(self) -> None:
        """Stop the server (as `_stop`), and a started one never adopted."""
        if self._adopted is not None:
            self._adopted.add_done_callback(stop_unused)
            self._adopted = None
        process = self._process
        if process is None:
            return
        await self._stop(process)
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._reader, STOP_WAIT_S)

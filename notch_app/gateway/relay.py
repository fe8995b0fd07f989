"""The gateway's state and its plainest moves: replies, spawned work, withdrawals, the front's check."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from notch_app.gateway.messages import (
    CHECK_QUIET_S,
    Asked,
    Forwarded,
    Front,
    HeldTask,
    Session,
    encode,
)
from notch_app.gateway.tools import GatewayTool
from notch_app.gateway.wrapped import WrappedServer

if TYPE_CHECKING:  # the Notch client loads after the first relays (the front's check)
    from notch_app.gateway.asking import Confirmations

log = logging.getLogger(__name__)


class Relay:
    """What every part of the gateway holds (set by `Gateway.__init__`), replies and
    errors to the client, spawned work, and the front's check (see the gateway module)."""

    front: Front
    refused: str | None
    progress_every: float
    wrapped: WrappedServer
    _socket_path: Path | None
    _timeout: float
    _attachment: dict[str, Any]
    _confirmations: Confirmations | None
    _folder: bool
    _checking: Callable[[], Front] | None
    _checked: asyncio.Future[Front] | None
    _check_begun: bool
    _reader: asyncio.StreamReader | None
    _last_line: float
    _tools: dict[str, GatewayTool] | None
    _once_acting: set[str]
    _raw_tools: dict[str, dict[str, Any]]
    _listing: asyncio.Lock | None
    _calls: OrderedDict[str, Asked]
    _forwarded: dict[Any, Forwarded]
    _own: dict[str, asyncio.Future[dict[str, Any]]]
    _own_ids: int
    _session: Session
    _scope: str
    _write: Callable[[bytes], None]
    _start_problem: BaseException | None
    _starting: asyncio.Lock | None
    _tasks: set[asyncio.Task[Any]]
    _usable: bool
    _held_lines: list[bytes] | None
    _held_tasks: dict[str, HeldTask]
    _withdraw_why: dict[str, str]

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
        self._write(encode({"jsonrpc": "2.0", "id": request_id, "result": result}))

    def _error(self, request_id: Any, code: int, message: str) -> None:
        error = {"code": code, "message": message}
        self._write(encode({"jsonrpc": "2.0", "id": request_id, "error": error}))

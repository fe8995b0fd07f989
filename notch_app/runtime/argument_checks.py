"""Checking a call's arguments off the event loop, before the service plans it.

The loop answers every client of `notch run`; one request's inputSchema check must never
hold it. Arguments the fast path (`argument_fast_path.surely_valid`) clears are checked
inline (microseconds); the rest go to one worker thread, where `argument_problems` runs
under its time budget (1 s, patterns in linear time, RE2 releases the GIL while it
matches). The socket server awaits `ahead()` before it submits the calls; `taken()` then
hands the service the verdict for those very call objects, so nothing is checked twice.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from notch_app.manifest.model import Tool
from notch_app.manifest.schema import ArgumentProblem, argument_problems, surely_valid

_MAX_HELD: Final = 4096

Asked = tuple[object, Tool, Mapping[str, Any]]
"""One call to check: the call object (the key), its tool, its arguments."""


class ArgumentChecks:
    """Verdicts on calls' arguments, computed ahead in a worker thread."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._held: dict[int, tuple[object, Tool, list[ArgumentProblem]]] = {}

    def ahead(self, asked: Sequence[Asked]) -> asyncio.Future[None] | None:
        """Check `asked` (on the worker for any the fast path does not clear); None when
        all were cleared at once. The future ends when every verdict is held."""
        slow: list[Asked] = []
        for call, tool, arguments in asked:
            if surely_valid(tool, arguments):
                self._hold(call, tool, [])
            else:
                slow.append((call, tool, arguments))
        if not slow:
            return None
        job = self._worker().submit(_check_all, slow)
        checked = asyncio.wrap_future(job)
        out: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def held(done: asyncio.Future[list[tuple[object, Tool, list[ArgumentProblem]]]]) -> None:
            if not done.cancelled() and done.exception() is None:
                for call, tool, problems in done.result():
                    self._hold(call, tool, problems)
            if not out.done():
                out.set_result(None)  # a check that failed is not held: it runs inline

        checked.add_done_callback(held)
        return out

    def taken(self, call: object, tool: Tool) -> list[ArgumentProblem] | None:
        """The verdict held for `call` against `tool` (and forgotten), or None."""
        with self._lock:
            held = self._held.pop(id(call), None)
        if held is None or held[0] is not call or held[1] is not tool:
            return None
        return held[2]

    def close(self) -> None:
        """Stop the worker; a check it is running ends within its time budget."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _hold(self, call: object, tool: Tool, problems: list[ArgumentProblem]) -> None:
        with self._lock:
            if len(self._held) >= _MAX_HELD:  # calls never submitted: forget, never grow
                self._held.clear()
            self._held[id(call)] = (call, tool, problems)  # holds `call`: its id stays its own

    def _worker(self) -> ThreadPoolExecutor:
        if self._pool is None:
            # One thread: a hostile request's check costs one core at most, never the loop.
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="notch-argument-check")
        return self._pool


def _check_all(slow: list[Asked]) -> list[tuple[object, Tool, list[ArgumentProblem]]]:
    return [(call, tool, argument_problems(tool, arguments)) for call, tool, arguments in slow]

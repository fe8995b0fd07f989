"""While a call waits for the person: the status an agent that can take one is told
("waiting for the person") once a short wait has passed, instead of silence.

The voice-confirm seed: while the question is open, the model's context shows "Waiting
for the caller to confirm: …", and the model must not claim success. `notch mcp` sends
its own progress notifications (gateway); a connector hands this to `on_waiting`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
from collections.abc import Callable
from typing import Any, Final, TypeVar

WAITING_AFTER_S: Final = 2.0
"""A decision faster than this is no wait worth saying; past it, the agent is told."""

_T = TypeVar("_T")


def waiting_sentence(title: str, read_back: str | None = None) -> str:
    """What the model reads while the person has not answered: that nothing ran yet."""
    asked = f": “{read_back}”" if read_back else f" {title}"
    return (
        f"Waiting for the person to confirm{asked} in Notch. Nothing has run yet, so do not "
        "say it is done; the result comes when they answer."
    )


async def told_while_waiting(
    task: asyncio.Future[_T], tell: Callable[[], Any], after: float = WAITING_AFTER_S
) -> _T:
    """`task`'s result; if it is not done within `after` seconds, `tell()` once (awaited
    when it returns an awaitable; never an error: a status is a courtesy) and keep
    waiting. Cancelling this wait never cancels `task`."""
    try:
        return await asyncio.wait_for(asyncio.shield(task), after)
    except TimeoutError:
        if task.done():  # the task's own TimeoutError, not the wait's
            return task.result()
    with contextlib.suppress(Exception):
        told = tell()
        if inspect.isawaitable(told):
            await asyncio.wait_for(told, after)
    return await asyncio.shield(task)


def told_while_blocked(
    work: Callable[[], _T], tell: Callable[[], Any], after: float = WAITING_AFTER_S
) -> _T:
    """`work()` (a blocking wait for the person) in this thread; if it has not returned
    within `after` seconds, `tell()` once from a helper thread (never an error: a status
    is a courtesy; an awaitable it returns is not awaited, there is no loop to run it).
    Returns or raises what `work()` does."""
    done = threading.Event()

    def watch() -> None:
        if not done.wait(after):
            with contextlib.suppress(Exception):
                tell()

    watcher = threading.Thread(target=watch, name="notch-waiting", daemon=True)
    watcher.start()
    try:
        return work()
    finally:
        done.set()

"""A Notch without a screen for the examples' `--headless` runs: the service and its
socket in a background thread, with the bundled integrations and a scripted person who
answers each card by a rule. With a screen, run `notch run` instead and answer yourself.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from notch_app.bundled import bundled_folder
from notch_app.headless import RunningNotch, start
from notch_app.runtime.scripted import Rule, ScriptedPresenter


@contextlib.contextmanager
def headless_notch(rule: Rule) -> Iterator[Path]:
    """Run a Notch whose cards `rule` answers; yields its socket path."""
    ready = threading.Event()
    stop: asyncio.Event | None = None
    loop: asyncio.AbstractEventLoop | None = None
    with tempfile.TemporaryDirectory(prefix="notch-ex") as folder:
        socket_path = Path(folder) / "s" / "notch.sock"

        async def serve() -> None:
            nonlocal stop, loop
            loop, stop = asyncio.get_running_loop(), asyncio.Event()
            notch: RunningNotch = await start(
                socket_path,
                Path(folder) / "data",
                [bundled_folder("manifests")],
                presenter=lambda sink: ScriptedPresenter(sink, rule),
            )
            ready.set()
            try:
                await stop.wait()
            finally:
                await notch.close()

        thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
        thread.start()
        ready.wait(30)
        try:
            yield socket_path
        finally:
            if loop is not None and stop is not None:
                loop.call_soon_threadsafe(stop.set)
            thread.join(10)

"""The socket server's connection timeouts on qasync's loop, the loop `notch run` serves
on: its timer handles are not asyncio's (no `when()`), and a second client connecting
or a line left half-sent while a sweep is pending once raised inside the server."""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from notch_app.headless import start
from notch_app.ipc.server import NotchServer
from notch_app.runtime.catalog import Catalog

INFO = b'{"jsonrpc": "2.0", "id": 1, "method": "server.info"}\n'


@pytest.fixture
def base() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="notch-q") as name:  # short: a socket path
        yield Path(name)


@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_deadlines_hold_for_several_clients_on_the_qt_loop(base: Path) -> None:
    loop = asyncio.get_running_loop()
    assert type(loop).__module__.startswith("qasync")  # the loop `notch run` uses
    errors: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    notch = await start(base / "s" / "notch.sock", base / "data", catalog=Catalog({}))
    server = NotchServer(notch.service, base / "t" / "notch.sock",
                         partial_line_timeout=0.3, idle_timeout=60)  # fmt: skip
    await server.start()
    try:
        talker_reader, talker = await asyncio.open_unix_connection(str(server.path))
        talker.write(INFO)
        assert b'"notch"' in await asyncio.wait_for(talker_reader.readline(), 5)
        # A second client while the first one's sweep is pending, then a half-sent line.
        loris_reader, loris = await asyncio.open_unix_connection(str(server.path))
        loris.write(b'{"jsonrpc": "2.0", "id": 2, "method": "server.info"')
        began = time.monotonic()
        said = await asyncio.wait_for(loris_reader.read(), 10)
        assert b"a line stayed unfinished for 0.3 s" in said
        assert time.monotonic() - began >= 0.3
        assert not talker.is_closing()  # the quiet one stays until its own deadline
        talker.write(INFO)
        assert b'"notch"' in await asyncio.wait_for(talker_reader.readline(), 5)
        assert errors == []
        talker.close()
    finally:
        await server.close()
        await notch.close()

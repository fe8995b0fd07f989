"""Connections can't be used to hold Notch's memory or lock agents out: unfinished lines
and idle connections are closed, freed buffers go back to the system, idle sockets give
way to a new agent, and a burst of connects waits in the backlog."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchClient
from notch_app.headless import RunningNotch
from notch_app.ipc.server import MAX_CONNECTIONS_PER_ASKER, NotchServer

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves
INFO = b'{"jsonrpc": "2.0", "id": 1, "method": "server.info"}\n'


@contextlib.asynccontextmanager
async def second_server(notch: RunningNotch, base: Path, **limits: Any) -> AsyncIterator[Path]:
    """Another socket onto the same service, with test-sized `limits`."""
    server = NotchServer(notch.service, base / "t" / "notch.sock", **limits)
    await server.start()
    try:
        yield server.path
    finally:
        await server.close()


async def until_closed(reader: asyncio.StreamReader, within: float = 10) -> bytes:
    """Everything the server sent until it closed the connection."""
    return await asyncio.wait_for(reader.read(), within)


@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_a_line_left_unfinished_is_closed_and_a_whole_one_is_not(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, _), second_server(
        notch, base, partial_line_timeout=0.3, idle_timeout=60
    ) as path:  # fmt: skip
        loris_reader, loris = await asyncio.open_unix_connection(str(path))
        _, talker = await asyncio.open_unix_connection(str(path))
        began = time.monotonic()
        loris.write(b'{"jsonrpc": "2.0", "id": 1, "method": "server.info", "params": {"x": "')
        loris.write(b"y" * 500_000)  # held, never ended
        talker.write(INFO)
        said = await until_closed(loris_reader)
        assert time.monotonic() - began >= 0.3
        assert b"a line stayed unfinished for 0.3 s" in said
        assert not talker.is_closing()
        talker.close()


@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_an_open_request_does_not_shield_a_line_left_unfinished(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards), second_server(
        notch, base, partial_line_timeout=0.3, idle_timeout=60
    ) as path:  # fmt: skip
        reader, writer = await asyncio.open_unix_connection(str(path))
        ask = {"callId": "held", "integration": MAIL, "tool": "send_email",
               "arguments": {"to": "sam"}}  # fmt: skip
        writer.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "confirm.request",
                                 "params": ask}).encode() + b"\n")  # fmt: skip
        await cards.wait_for_cards(1)
        writer.write(b'{"jsonrpc": "2.0", "id": 2, "method": "server.info"')  # never ended
        assert b"a line stayed unfinished" in await until_closed(reader)
        # The request itself stays open for the person (and any reconnecting agent).
        assert [r.call_id for r in notch.service.open_requests] == ["held"]


@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_an_idle_connection_is_closed_but_one_awaiting_a_decision_is_not(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards), second_server(
        notch, base, partial_line_timeout=60, idle_timeout=0.3
    ) as path:  # fmt: skip
        idle_reader, idle = await asyncio.open_unix_connection(str(path))
        idle.write(INFO)
        async with AsyncNotchClient(path, reconnect_for=0) as client:
            asked = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "sam"}))
            await cards.wait_for_cards(1)
            link = client._link
            said = await until_closed(idle_reader)  # the idle one is closed...
            assert json.loads(said.splitlines()[0])["result"]["name"] == "notch"
            # ...while the one waiting for the person was kept, far past the idle timeout.
            assert link is not None and link.alive
            cards.approve(next(iter(cards.cards)))
            decision = await asyncio.wait_for(asked, 5)
            assert decision.outcome == "approved" and client._link is link


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_512_idle_sockets_of_one_process_do_not_lock_out_a_new_agent(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, _):
        path = notch.server.path
        hogs = [await asyncio.open_unix_connection(str(path)) for _ in range(512)]
        try:
            hogs[-1][1].write(INFO)
            assert b'"notch"' in await asyncio.wait_for(hogs[-1][0].readline(), 5)
            # One process holds at most 32: each connect past them closed its own idlest.
            assert len(notch.server._connections) == MAX_CONNECTIONS_PER_ASKER
            said = await until_closed(hogs[0][0])
            assert b"closed to make room" in said and b"more than 32 connections" in said
            async with AsyncNotchClient(path, reconnect_for=0) as client:
                decision = await client.confirm(MAIL, "search_mail", {"query": "x"})
            assert decision.outcome == "notRequired"
        finally:
            for _, writer in hogs:
                writer.close()


HOLD_ONE = """
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print("connected", flush=True)
sys.stdin.readline()  # idle until told
s.setblocking(False)
try:
    print("closed" if s.recv(1 << 16) == b"" else "open", flush=True)
except BlockingIOError:
    print("open", flush=True)
"""


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_room_is_made_from_the_process_holding_the_most_connections(
    base: Path, running_notch: Any
) -> None:
    async with (
        running_notch(base) as (notch, _),
        second_server(notch, base, max_connections=8) as path,
    ):
        # Another agent's idle connection is the oldest of all...
        other = await asyncio.create_subprocess_exec(
            sys.executable, "-c", HOLD_ONE, str(path),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert other.stdin is not None and other.stdout is not None
        assert await asyncio.wait_for(other.stdout.readline(), 10) == b"connected\n"
        # ...then one process takes every other slot, idle too.
        hogs = [await asyncio.open_unix_connection(str(path)) for _ in range(7)]
        hogs[-1][1].write(INFO)
        await asyncio.wait_for(hogs[-1][0].readline(), 5)
        async with AsyncNotchClient(path, reconnect_for=0) as client:
            assert (await client.confirm(MAIL, "search_mail", {})).outcome == "notRequired"
        # The hog process lost its oldest socket; the other agent kept its one.
        assert b"closed to make room" in await until_closed(hogs[0][0])
        other.stdin.write(b"go\n")
        assert await asyncio.wait_for(other.stdout.readline(), 10) == b"open\n"
        await other.wait()
        for _, writer in hogs:
            writer.close()


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_at_the_limit_connections_with_open_requests_are_never_closed_for_room(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards), second_server(
        notch, base, max_connections=2
    ) as path:  # fmt: skip
        clients = [AsyncNotchClient(path, reconnect_for=0) for _ in range(2)]
        asked = [
            asyncio.ensure_future(c.confirm(MAIL, "send_email", {"to": f"{n}"}, call_id=f"c{n}"))
            for n, c in enumerate(clients)
        ]
        await cards.wait_for_cards(2)
        reader, writer = await asyncio.open_unix_connection(str(path))
        refused = json.loads(await until_closed(reader))
        assert refused["error"]["code"] == -32007
        writer.close()
        for call_id in ("c0", "c1"):
            cards.approve(call_id)
        assert [d.outcome for d in await asyncio.gather(*asked)] == ["approved", "approved"]
        for c in clients:
            await c.close()


def test_a_burst_of_2000_connects_waits_in_the_backlog(base: Path, poll_until: Any) -> None:
    """Measured with the real server in its own process, its loop busy elsewhere: every
    non-blocking connect lands in the listen backlog (was 337 of 2,000 with asyncio's
    default backlog of 100)."""
    with notch_process(base, poll_until) as (path, _):
        refused = 0
        sockets = []
        try:
            for _ in range(2000):
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.setblocking(False)
                code = sock.connect_ex(str(path))
                if code in (errno.EAGAIN, errno.EWOULDBLOCK):
                    refused += 1
                else:
                    assert code == 0, os.strerror(code)
                sockets.append(sock)
        finally:
            for sock in sockets:
                sock.close()
    print(f"burst: {2000 - refused} of 2000 connects accepted into the backlog")
    assert refused <= 20


SERVE = """
import asyncio, sys
from pathlib import Path
from notch_app.headless import start

async def main():
    notch = await start(Path(sys.argv[1]), Path(sys.argv[2]))
    # The attacks here come from the test's one process: its share is not what is tested.
    notch.server.max_connections_per_asker = 10_000
    try:
        await asyncio.Event().wait()
    finally:
        await notch.close()

asyncio.run(main())
"""


@contextlib.contextmanager
def notch_process(base: Path, poll_until: Any) -> Any:
    """A real Notch (no integrations, no presenter) in its own process."""
    path = base / "p" / "notch.sock"
    server = subprocess.Popen([sys.executable, "-c", SERVE, str(path), str(base / "data")])
    try:

        def answers() -> bool:
            assert server.poll() is None, "Notch ended before it answered"
            with socket.socket(socket.AF_UNIX) as probe, contextlib.suppress(OSError):
                probe.connect(str(path))
                probe.sendall(INFO)
                return b'"notch"' in probe.recv(4096)
            return False

        poll_until(answers, "Notch to answer on its socket", 30)
        yield path, server.pid
    finally:
        server.terminate()
        server.wait(10)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def until_rss(pid: int, done: Any, poll_until: Any, within: float = 20) -> float:
    """The server's RSS once `done(rss)` (/proc has no event: polled, with a deadline)."""
    seen: list[float] = []

    def reached() -> bool:
        seen.append(rss_mib(pid))
        return bool(done(seen[-1]))

    try:
        poll_until(reached, "the server's RSS", within)
    except AssertionError:
        raise AssertionError(f"RSS stayed at {seen[-1]:.1f} MiB") from None
    return seen[-1]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc/PID/status")
@pytest.mark.timeout(120)
def test_memory_held_by_200_unfinished_megabyte_lines_is_given_back(
    base: Path, poll_until: Any
) -> None:
    with notch_process(base, poll_until) as (path, pid):
        baseline = rss_mib(pid)
        attackers = []
        try:
            for _ in range(200):
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(str(path))
                sock.sendall(b'{"x": "' + b"a" * (1_000_000 - 7))  # 1 MB, no newline
                attackers.append(sock)
            peak = until_rss(pid, lambda rss: rss > baseline + 150, poll_until)
        finally:
            for sock in attackers:
                sock.close()
        after = until_rss(pid, lambda rss: rss <= baseline + 10, poll_until)
    print(f"RSS: baseline {baseline:.1f} MiB, peak {peak:.1f}, after close {after:.1f}")
    assert after <= baseline + 10


@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_clients_closed_as_idle_just_reconnect_on_their_next_call(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, _), second_server(
        notch, base, partial_line_timeout=60, idle_timeout=0.2
    ) as path:  # fmt: skip
        blocking = NotchClient(path, reconnect_for=5)
        async with AsyncNotchClient(path, reconnect_for=5) as client:
            await client.integrations()
            await asyncio.to_thread(blocking.integrations)
            first = client._link
            reader, _ = await asyncio.open_unix_connection(str(path))  # a witness, idle too
            await until_closed(reader)  # the sweep that closed it closed the others
            assert (await client.confirm(MAIL, "search_mail", {})).outcome == "notRequired"
            assert client._link is not first  # a new connection
            decision = await asyncio.to_thread(blocking.confirm, MAIL, "search_mail", {})
            assert decision.outcome == "notRequired"
        blocking.close()


@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_a_quiet_client_connected_does_not_wake_notch_on_a_tick(
    base: Path, running_notch: Any
) -> None:
    """An agent stays connected between tool calls for hours: Notch wakes for its
    connections only at a deadline (an unfinished line's, an idle one's), not on a tick
    of a few per timeout. The deadlines still hold (the tests above)."""
    sweeps: list[float] = []

    class Counted(NotchServer):
        def _swept(self) -> None:
            sweeps.append(self.loop.time())
            super()._swept()

    async with running_notch(base) as (notch, _):
        server = Counted(notch.service, base / "t" / "notch.sock",
                         partial_line_timeout=0.2, idle_timeout=60)  # fmt: skip
        await server.start()
        try:
            reader, writer = await asyncio.open_unix_connection(str(server.path))
            writer.write(INFO)
            assert b'"notch"' in await asyncio.wait_for(reader.readline(), 5)
            # An observation window of several old ticks (0.05 s each): none may come.
            await asyncio.sleep(0.6)
            assert sweeps == []
            assert not writer.is_closing()
            writer.write(b'{"jsonrpc": "2.0", "id": 2, "method": "server.info"')  # unfinished
            began = time.monotonic()
            assert b"a line stayed unfinished" in await until_closed(reader)
            assert 0.2 <= time.monotonic() - began < 5 and len(sweeps) <= 2
        finally:
            await server.close()

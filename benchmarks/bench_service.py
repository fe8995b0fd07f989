"""Service benchmarks, each a ratio or a bound measured in the same run.

1. A `notRequired` round trip through `notch_app.client`, against echo servers over the
   same kind of Unix socket (all servers in child processes, all clients here, ten
   interleaved rounds), each client against its own kind of echo client:
   - `AsyncNotchClient` vs an asyncio client, `NotchClient` (blocking) vs a blocking
     socket client;
   - two echo servers: the asyncio documentation's streams echo (the issue's "bare
     asyncio echo"; the target), and a lean protocol echo (one kept read buffer, no
     task) with a matching lean async client, to show what Notch costs over the
     leanest possible asyncio round trip.
   Target: p50 within 2x of the streams echo, for each client.
2. 1,000 requests queued at once from another process: the longest event-loop stall in
   the service's loop (a 1 ms heartbeat task), memory (tracemalloc peak, RSS), and every
   request decided as the scripted person decided it. Target: stall < 50 ms.
3. Idle: timer wakeups of the service's loop while nothing is pending.

    .venv/bin/python benchmarks/bench_service.py [--round-trips 3000] [--flood 1000]
    .venv/bin/python benchmarks/bench_service.py --stages          # where a round trip goes
    .venv/bin/python benchmarks/bench_service.py --profile sync    # cProfile (or async)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from notch_app.client import AsyncNotchClient, NotchClient
from notch_app.headless import start
from notch_app.manifest.model import Manifest
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.scripted import ScriptedPresenter

MANIFEST = {
    "schemaVersion": 1, "id": "com.example.bench", "version": "1", "name": "Bench",
    "tools": [
        {"name": "search_notes", "annotations": {"readOnlyHint": True},
         "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}},
        {"name": "send_note",
         "inputSchema": {"type": "object", "properties": {"to": {"type": "string"},
                                                          "n": {"type": "integer"}},
                         "required": ["to"]},
         "confirmation": {"schemaVersion": 1, "root": {"type": "card", "title": "Send",
             "children": [{"type": "textField", "bind": "{{to}}", "label": "To"}],
             "footer": [{"type": "actions", "items": [{"label": "Cancel", "role": "cancel"},
                                                      {"label": "Send", "role": "confirm"}]}]}}},
    ],
}  # fmt: skip
ID = "com.example.bench"


def catalog() -> Catalog:
    return Catalog([Manifest.model_validate(MANIFEST)])


# --- child processes -----------------------------------------------------------------


class EchoProtocol(asyncio.BufferedProtocol):
    """The bare echo: bytes back as they come, read into one kept buffer (as Notch's
    server reads), so the baseline is the leanest asyncio can do, not a slow strawman."""

    def __init__(self) -> None:
        self.inbox = memoryview(bytearray(64 * 1024))
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.inbox

    def buffer_updated(self, nbytes: int) -> None:
        assert self.transport is not None
        self.transport.write(bytes(self.inbox[:nbytes]))


class CannedProtocol(EchoProtocol):
    """`--stages`: answers every line at once with a fixed notRequired decision (its id
    copied), so a client's round trip against it is the client's own cost plus the
    leanest asyncio server: what the clients cost, apart from Notch's server."""

    def buffer_updated(self, nbytes: int) -> None:
        assert self.transport is not None
        found = re.search(rb'"id":(\d+)', self.inbox[:nbytes])
        self.transport.write(CANNED_REPLY % (found.group(1) if found else b"1"))


CANNED_REPLY = (
    b'{"jsonrpc":"2.0","id":%s,"result":{"callId":"x","outcome":"notRequired","arguments":'
    b'{"query":"q"},"integration":"com.example.bench","tool":"search_notes","editedPaths":[],'
    b'"digest":"sha256:cf11c31927352aeaa5b9ef86ce8f95a954bcd8e6a415f8cd3922101d92dba903",'
    b'"decidedBy":"service","decidedAt":1796123399.0178924}}\n'
)


STAMPS: list[tuple[str, int]] = []
"""Step stamps (`--stages`): (step, time.perf_counter_ns()), a clock shared by processes."""


def stamp_loop(out: str) -> None:
    """In a child server (`--stamps FILE`): stamp the selector waking up and each socket
    write, and write the stamps to `out` on SIGTERM (then exit)."""
    import asyncio.selector_events as events

    ns = time.perf_counter_ns
    loop = asyncio.get_running_loop()
    selector = loop._selector  # type: ignore[attr-defined]
    select = selector.select
    write = events._SelectorSocketTransport.write  # type: ignore[attr-defined]

    def stamped_select(timeout: float | None = None) -> Any:
        got = select(timeout)
        STAMPS.append(("woke", ns()))
        return got

    def stamped_write(self: Any, data: Any) -> None:
        STAMPS.append(("write", ns()))
        write(self, data)
        STAMPS.append(("written", ns()))

    def dump() -> None:
        Path(out).write_text(json.dumps(STAMPS))
        os._exit(0)

    selector.select = stamped_select
    events._SelectorSocketTransport.write = stamped_write  # type: ignore[attr-defined]
    loop.add_signal_handler(15, dump)


async def serve_echo(
    path: str, lean: bool, stamps: str | None = None, canned: bool = False
) -> None:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while line := await reader.readline():
            if stamps:
                STAMPS.append(("read", time.perf_counter_ns()))
            writer.write(line)

    if stamps:
        stamp_loop(stamps)

    if lean or canned:
        protocol = CannedProtocol if canned else EchoProtocol
        server = await asyncio.get_running_loop().create_unix_server(protocol, path=path)
    else:  # the asyncio documentation's echo: streams, one task per connection
        server = await asyncio.start_unix_server(echo, path=path)
    print("ready", flush=True)
    await server.serve_forever()


async def serve_notch(
    path: str, data: str, stamps: str | None = None, profile: str | None = None
) -> None:
    if stamps:
        from notch_app.ipc.server import connection, serving

        ns = time.perf_counter_ns
        read, handle = connection.Connection.buffer_updated, serving.NotchServer._handle

        def stamped_read(self: Any, nbytes: int) -> None:
            STAMPS.append(("read", ns()))
            read(self, nbytes)

        def stamped_handle(self: Any, conn: Any, line: bytes) -> None:
            STAMPS.append(("handle", ns()))
            handle(self, conn, line)
            STAMPS.append(("handled", ns()))

        connection.Connection.buffer_updated = stamped_read  # type: ignore[method-assign]
        serving.NotchServer._handle = stamped_handle  # type: ignore[method-assign]
        stamp_loop(stamps)
    await start(Path(path), Path(data), catalog=catalog())
    if profile:  # `--profile`: cProfile from here until SIGTERM, then write the stats
        import cProfile

        profiler = cProfile.Profile()

        def dump() -> None:
            profiler.disable()
            profiler.dump_stats(profile)
            os._exit(0)

        asyncio.get_running_loop().add_signal_handler(15, dump)
        profiler.enable()
    print("ready", flush=True)
    await asyncio.Event().wait()


async def flood(path: str, count: int) -> None:
    """Send `count` confirm requests at once from 4 clients (agents); print the decisions.
    (One connection may have at most 256 requests waiting: `MAX_IN_FLIGHT`.)"""
    clients = [AsyncNotchClient(path) for _ in range(4)]
    for client in clients:
        await client.connect()
    asks = [
        clients[i % 4].confirm(ID, "send_note", {"to": f"p{i}", "n": i}, call_id=f"f{i}")
        for i in range(count)
    ]
    decisions = await asyncio.gather(*asks)
    for client in clients:
        await client.close()
    print(json.dumps([d.to_wire() for d in decisions]), flush=True)


# --- measurements --------------------------------------------------------------------


def spawn(*argv: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, __file__, *argv], stdout=subprocess.PIPE, text=True, env=os.environ
    )
    assert child.stdout is not None
    if child.stdout.readline().strip() != "ready":
        raise SystemExit(f"child {argv} did not start")
    return child


ECHO_LINE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "confirm.request", "params":
                        {"callId": "x", "integration": ID, "tool": "search_notes",
                         "arguments": {"query": "q"}}}).encode() + b"\n"  # fmt: skip


class EchoClient(asyncio.BufferedProtocol):
    """The async echo client, built like `AsyncNotchClient` (a protocol resolving a
    future per reply, reads into one kept buffer) minus everything Notch adds."""

    def __init__(self) -> None:
        self.inbox = memoryview(bytearray(64 * 1024))
        self.got = bytearray()
        self.waiter: asyncio.Future[bytes] | None = None

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.inbox

    def buffer_updated(self, nbytes: int) -> None:
        self.got += self.inbox[:nbytes]
        if self.got.endswith(b"\n") and self.waiter is not None:
            self.waiter.set_result(bytes(self.got))
            self.got.clear()


async def streams_echo_round_trips(path: str, n: int) -> list[float]:
    reader, writer = await asyncio.open_unix_connection(path)
    out = []
    for _ in range(n):
        t = time.perf_counter()
        writer.write(ECHO_LINE)
        await reader.readline()
        out.append(time.perf_counter() - t)
    writer.close()
    return out


async def lean_echo_round_trips(path: str, n: int) -> list[float]:
    loop = asyncio.get_running_loop()
    transport, echo = await loop.create_unix_connection(EchoClient, path)
    out = []
    for _ in range(n):
        t = time.perf_counter()
        echo.waiter = loop.create_future()
        transport.write(ECHO_LINE)
        await echo.waiter
        out.append(time.perf_counter() - t)
    transport.close()
    return out


async def async_client_round_trips(path: str, n: int, tag: int) -> list[float]:
    out = []
    async with AsyncNotchClient(path) as client:
        for i in range(n):
            t = time.perf_counter()
            decision = await client.confirm(
                ID, "search_notes", {"query": "q"}, call_id=f"a{tag}-{i}"
            )
            out.append(time.perf_counter() - t)
            assert decision.outcome == "notRequired"
    return out


def sync_echo_round_trips(path: str, n: int) -> list[float]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    inbox = memoryview(bytearray(64 * 1024))
    out = []
    for _ in range(n):
        t = time.perf_counter()
        sock.sendall(ECHO_LINE)
        got = b""
        while not got.endswith(b"\n"):
            got += inbox[: sock.recv_into(inbox)]
        out.append(time.perf_counter() - t)
    sock.close()
    return out


def sync_client_round_trips(path: str, n: int, tag: int) -> list[float]:
    out = []
    with NotchClient(path) as client:
        for i in range(n):
            t = time.perf_counter()
            decision = client.confirm(ID, "search_notes", {"query": "q"}, call_id=f"s{tag}-{i}")
            out.append(time.perf_counter() - t)
            assert decision.outcome == "notRequired"
    return out


def bench_round_trip(tmp: Path, n: int) -> dict[str, Any]:
    echo_path, lean_path = str(tmp / "echo.sock"), str(tmp / "lean.sock")
    notch_path = str(tmp / "n" / "notch.sock")
    servers = [spawn("--serve-echo", echo_path), spawn("--serve-lean-echo", lean_path),
               spawn("--serve-notch", notch_path, str(tmp / "data"))]  # fmt: skip
    rounds = 10
    runs: dict[str, Any] = {
        "async_echo": lambda r: asyncio.run(streams_echo_round_trips(echo_path, n // rounds)),
        "async_lean_echo": lambda r: asyncio.run(lean_echo_round_trips(lean_path, n // rounds)),
        "async_client": lambda r: asyncio.run(async_client_round_trips(notch_path, n // rounds, r)),
        "sync_echo": lambda r: sync_echo_round_trips(echo_path, n // rounds),
        "sync_lean_echo": lambda r: sync_echo_round_trips(lean_path, n // rounds),
        "sync_client": lambda r: sync_client_round_trips(notch_path, n // rounds, r),
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    per_round: list[dict[str, float]] = []
    try:
        # Interleaved short rounds, so drift (and other jobs on the machine) hits every
        # side alike; round 0 only warms up the processes and is not counted.
        for r in range(rounds + 1):
            got = {name: run(r) for name, run in runs.items()}
            if r == 0:
                continue
            for name, values in got.items():
                times[name] += values
            per_round.append({name: statistics.median(values) for name, values in got.items()})
    finally:
        for server in servers:
            server.kill()
    out: dict[str, Any] = {}
    for name, values in times.items():
        out[f"{name}_p50_us"] = statistics.median(values) * 1e6
        out[f"{name}_p99_us"] = statistics.quantiles(values, n=100)[98] * 1e6
    for kind in ("async", "sync"):
        for base in ("echo", "lean_echo"):
            key = f"{kind}_{base}"
            out[f"{key}_ratio"] = out[f"{kind}_client_p50_us"] / out[f"{key}_p50_us"]
            ratios = sorted(m[f"{kind}_client"] / m[key] for m in per_round)
            out[f"{key}_ratio_rounds"] = (ratios[0], ratios[-1])
    return out


class StampedSocket(socket.socket):
    """`--stages`: a socket stamping its sends and reads (used by both blocking clients)."""

    def sendall(self, data: Any, flags: int = 0) -> None:
        STAMPS.append(("send", time.perf_counter_ns()))
        super().sendall(data, flags)
        STAMPS.append(("sent", time.perf_counter_ns()))

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        got = super().recv_into(buffer, nbytes, flags)
        STAMPS.append(("received", time.perf_counter_ns()))
        return got


STAGES = (
    ("client encodes", "call", "send"),
    ("client write syscall", "send", "sent"),
    ("server wakes (epoll returns)", "sent", "woke"),
    ("server reads the line", "woke", "read"),
    ("server handles (Notch's _handle)", "handle", "handled"),
    ("server: line read -> write", "read", "write"),
    ("server write syscall", "write", "written"),
    ("client wakes (recv returns)", "written", "received"),
    ("client decodes", "received", "done"),
    ("round trip", "call", "done"),
)


def stamped_round_trips(path: str, n: int, notch: bool) -> list[dict[str, int]]:
    """Blocking round trips with the client's steps stamped, one dict of stamps a call."""
    real_socket, socket.socket = socket.socket, StampedSocket  # type: ignore[misc]
    calls: list[dict[str, int]] = []
    try:
        if notch:
            client = NotchClient(path)
        else:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(path)
            inbox = memoryview(bytearray(64 * 1024))
        for i in range(n):
            STAMPS.clear()
            began = time.perf_counter_ns()
            if notch:
                client.confirm(ID, "search_notes", {"query": "q"}, call_id=f"stage-{i}")
            else:
                sock.sendall(ECHO_LINE)
                got = b""
                while not got.endswith(b"\n"):
                    got += inbox[: sock.recv_into(inbox)]
            calls.append({"call": began, **dict(STAMPS), "done": time.perf_counter_ns()})
        (client if notch else sock).close()
    finally:
        socket.socket = real_socket  # type: ignore[misc]
    return calls


def join_stamps(calls: list[dict[str, int]], server: list[list[Any]]) -> dict[str, float]:
    # The server's stamps, cut into one record per line read (with the wakeup before it).
    records: list[dict[str, int]] = []
    woke = 0
    for step, at in server:
        if step == "woke":
            woke = at
        elif step == "read":
            records.append({"woke": woke, "read": at})
        elif records and step not in records[-1]:
            records[-1][step] = at
    steps: dict[str, list[float]] = {name: [] for name, _, _ in STAGES}
    skip = len(calls) // 5  # warm-up
    for call, record in list(zip(calls, records, strict=True))[skip:]:
        at = {**record, **call}
        for name, start_step, end_step in STAGES:
            if start_step in at and end_step in at:
                steps[name].append((at[end_step] - at[start_step]) / 1000)
    return {name: statistics.median(v) for name, v in steps.items() if v}


def tight_loop_handle_us(tmp: Path, n: int = 3000) -> float:
    """Notch's `_handle` for the same request back to back in one process (hot caches)."""
    from notch_app.ipc.client import encode_call, request_params
    from notch_app.ipc.server.connection import Connection
    from notch_app.runtime.ownership import new_token

    class Sink:
        def write(self, data: bytes) -> None: ...
        def is_closing(self) -> bool:
            return False

        def get_write_buffer_size(self) -> int:
            return 0

    async def run() -> float:
        notch = await start(tmp / "t" / "notch.sock", tmp / "tdata", catalog=catalog())
        conn = Connection(notch.server)
        conn.transport = Sink()  # type: ignore[assignment]
        token = new_token()  # one client's, as the clients send it with every request
        lines = [encode_call(1, "confirm.request", request_params(
            ID, "search_notes", {"query": "q"}, f"t{i}", None, None, None, token))[:-1]
            for i in range(n)]  # fmt: skip
        took = []
        notch.server._handling = True  # replies held, as inside `_drain`
        for line in lines:
            t = time.perf_counter_ns()
            notch.server._handle(conn, line)
            took.append(time.perf_counter_ns() - t)
            conn.corked = None
        notch.server._handling = False
        notch.server._corked.clear()
        await notch.close()
        return statistics.median(took[n // 5 :]) / 1000

    return asyncio.run(run())


def bench_stages(tmp: Path, n: int) -> None:
    """`--stages`: where a blocking round trip's time goes, step by step, echo vs Notch."""
    got: dict[str, dict[str, float]] = {}
    for round_ in range(2):
        for kind in ("echo", "notch"):
            stamps = str(tmp / f"{kind}{round_}.stamps")
            if kind == "echo":
                path = str(tmp / f"se{round_}.sock")
                server = spawn("--serve-echo", path, "--stamps", stamps)
            else:
                path = str(tmp / f"sn{round_}" / "notch.sock")
                server = spawn("--serve-notch", path, str(tmp / f"sd{round_}"), "--stamps", stamps)
            try:
                calls = stamped_round_trips(path, n, kind == "notch")
            finally:
                server.terminate()  # the child writes its stamps, then exits
                server.wait()
            got[f"{kind}{round_}"] = join_stamps(calls, json.loads(Path(stamps).read_text()))
    print(f"Blocking round trip step by step, median µs ({n} calls, 2 rounds):")
    print(f"  {'step':36} {'echo':>15} {'Notch':>15}")
    for name, _, _ in STAGES:
        cells = []
        for kind in ("echo", "notch"):
            values = [got[f"{kind}{r}"].get(name) for r in range(2)]
            cells.append(" / ".join("-" if v is None else f"{v:.1f}" for v in values))
        print(f"  {name:36} {cells[0]:>15} {cells[1]:>15}")
    print(f"  Notch's _handle in a tight loop (hot caches): {tight_loop_handle_us(tmp):.1f} µs")
    # The clients alone: against a server that answers with a canned decision at once.
    path = str(tmp / "canned.sock")
    server = spawn("--serve-canned", path)
    try:
        alone: dict[str, list[float]] = {"bare": [], "notch": [], "abare": [], "anotch": []}
        for r in range(5):
            alone["bare"].append(statistics.median(sync_echo_round_trips(path, n // 5)))
            alone["notch"].append(statistics.median(sync_client_round_trips(path, n // 5, r)))
            alone["abare"].append(
                statistics.median(asyncio.run(lean_echo_round_trips(path, n // 5)))
            )
            alone["anotch"].append(
                statistics.median(asyncio.run(async_client_round_trips(path, n // 5, r)))
            )
    finally:
        server.kill()
    us = {k: statistics.median(v) * 1e6 for k, v in alone.items()}
    print("  The clients alone, against a server that answers a canned decision at once:")
    print(f"    blocking: bare socket client {us['bare']:.1f} µs, NotchClient {us['notch']:.1f} µs"
          f" ({us['notch'] / us['bare']:.2f}x)")  # fmt: skip
    print(f"    async: lean protocol client {us['abare']:.1f} µs, AsyncNotchClient "
          f"{us['anotch']:.1f} µs ({us['anotch'] / us['abare']:.2f}x)")  # fmt: skip


def bench_profile(tmp: Path, kind: str, n: int) -> None:
    """`--profile sync|async`: cProfile `n` notRequired round trips, the Notch server in
    its child process and the client here; prints each side's top functions by own time
    and the calls per round trip (cProfile slows Python ~2x: read shares, not times)."""
    import cProfile
    import pstats

    path, stats = str(tmp / "p" / "notch.sock"), str(tmp / "server.prof")
    server = spawn("--serve-notch", path, str(tmp / "pdata"), "--profile", stats)
    profiler = cProfile.Profile()
    try:
        if kind == "sync":
            with NotchClient(path) as client:
                client.confirm(ID, "search_notes", {"query": "q"}, call_id="warm")
                profiler.enable()
                for i in range(n):
                    client.confirm(ID, "search_notes", {"query": "q"}, call_id=f"p{i}")
                profiler.disable()
        else:

            async def calls() -> None:
                async with AsyncNotchClient(path) as client:
                    await client.confirm(ID, "search_notes", {"query": "q"}, call_id="warm")
                    profiler.enable()
                    for i in range(n):
                        await client.confirm(ID, "search_notes", {"query": "q"}, call_id=f"p{i}")
                    profiler.disable()

            asyncio.run(calls())
    finally:
        server.terminate()  # the child writes its stats, then exits
        server.wait()
    for side, got in (("client", pstats.Stats(profiler)), ("server", pstats.Stats(stats))):
        total_calls = got.total_calls  # type: ignore[attr-defined]
        print(f"--- {side}: {total_calls / n:.0f} function calls per round trip")
        got.sort_stats("tottime").print_stats(18)


class Heartbeat:
    """Ticks every 1 ms; the longest gap beyond that is the loop's worst stall."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.worst = max(self.worst, now - last - 0.001)
            last = now


async def bench_flood(tmp: Path, count: int, trace: bool) -> dict[str, Any]:
    def person(request: ConfirmationRequest) -> tuple[bool, dict[str, Any] | None] | None:
        return None  # decided below, one at a time, once all are queued

    gc.collect()
    if trace:  # tracemalloc slows Python ~2x: memory and stalls are measured in separate runs
        tracemalloc.start()
    base_mem = tracemalloc.get_traced_memory()[0]
    notch = await start(tmp / f"f{int(trace)}" / "notch.sock", tmp / f"fdata{int(trace)}",
                        presenter=lambda sink: ScriptedPresenter(sink, person), catalog=catalog())  # fmt: skip
    notch.service.max_open_per_asker = count  # the flood is one process on purpose
    cards = notch.presenter
    assert isinstance(cards, ScriptedPresenter)
    beat = Heartbeat()
    beat_task = asyncio.ensure_future(beat.run())
    t0 = time.perf_counter()
    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--flood-client", str(notch.server.path), str(count),
        stdout=asyncio.subprocess.PIPE, limit=64 * 1024 * 1024,
    )  # fmt: skip
    await cards.wait_for_cards(count, timeout=120)
    queued_s = time.perf_counter() - t0
    queued_stall = beat.worst
    peak_queued = tracemalloc.get_traced_memory()[1] - base_mem
    # The person works through the queue: even ones approved with an edit, odd declined.
    for call_id in list(cards.cards):
        i = int(call_id[1:])
        if i % 2 == 0:
            cards.approve(call_id, {"to": f"p{i}@example.com", "n": i})
        else:
            cards.decline(call_id)
        await asyncio.sleep(0)
    out, _ = await child.communicate()
    total_s = time.perf_counter() - t0
    decisions = json.loads(out)
    wrong = 0
    for d in decisions:
        i = int(d["callId"][1:])
        want = (
            ("approved", {"to": f"p{i}@example.com", "n": i}) if i % 2 == 0 else ("declined", None)
        )
        wrong += (d["outcome"], d["arguments"]) != want
    beat_task.cancel()
    open_after = len(notch.service.open_requests)
    await notch.close()
    gc.collect()
    left = tracemalloc.get_traced_memory()[0] - base_mem
    tracemalloc.stop()
    return {
        "requests": count,
        "decided": len(decisions),
        "wrong": wrong,
        "open_after": open_after,
        "queued_in_s": queued_s,
        "total_s": total_s,
        "max_stall_ms": beat.worst * 1000,
        "max_stall_while_queueing_ms": queued_stall * 1000,
        "traced_peak_queued_kib": peak_queued / 1024,
        "traced_per_request_kib": peak_queued / 1024 / count,
        "traced_left_after_close_kib": left / 1024,
        "rss_max_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


async def bench_idle(tmp: Path, seconds: float) -> dict[str, Any]:
    """Count the loop's iterations while nothing is pending (0 means no timer wakeups)."""
    notch = await start(tmp / "i" / "notch.sock", tmp / "idata", presenter=None, catalog=catalog())
    loop = asyncio.get_running_loop()
    ticks = 0
    original = loop._run_once  # type: ignore[attr-defined]

    def counting() -> None:
        nonlocal ticks
        ticks += 1
        original()

    loop._run_once = counting  # type: ignore[attr-defined]
    await asyncio.sleep(seconds)  # our own sleep costs one wakeup at its end
    loop._run_once = original  # type: ignore[attr-defined]
    await notch.close()
    return {"idle_seconds": seconds, "loop_wakeups": ticks}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--round-trips", type=int, default=3000)
    parser.add_argument("--flood", type=int, default=1000)
    parser.add_argument("--serve-echo")
    parser.add_argument("--serve-lean-echo")
    parser.add_argument("--serve-canned")
    parser.add_argument("--serve-notch", nargs=2)
    parser.add_argument("--flood-client", nargs=2)
    parser.add_argument("--stamps", help="(child servers) stamp each step into this file")
    parser.add_argument("--profile", help="only: cProfile round trips of 'sync' or 'async'")
    parser.add_argument(
        "--stages", action="store_true", help="only: a blocking round trip, step by step"
    )
    args = parser.parse_args()
    if args.serve_echo or args.serve_lean_echo or args.serve_canned:
        path = args.serve_echo or args.serve_lean_echo or args.serve_canned
        lean = bool(args.serve_lean_echo)
        asyncio.run(serve_echo(path, lean, args.stamps, canned=bool(args.serve_canned)))
        return
    if args.serve_notch:
        path, data = args.serve_notch
        asyncio.run(serve_notch(path, data, args.stamps, args.profile))
        return
    if args.profile:
        with tempfile.TemporaryDirectory(prefix="notch-b") as name:
            bench_profile(Path(name), args.profile, 5000)
        return
    if args.stages:
        with tempfile.TemporaryDirectory(prefix="notch-b") as name:
            bench_stages(Path(name), 3000)
        return
    if args.flood_client:
        asyncio.run(flood(args.flood_client[0], int(args.flood_client[1])))
        return
    with tempfile.TemporaryDirectory(prefix="notch-b") as name:
        tmp = Path(name)
        rt = bench_round_trip(tmp, args.round_trips)
        print("notRequired round trip, p50 (p99), 10 interleaved rounds:")
        for kind, label in (("async", "AsyncNotchClient"), ("sync", "NotchClient (blocking)")):
            print(f"  {label}: {rt[kind + '_client_p50_us']:.0f} µs "
                  f"({rt[kind + '_client_p99_us']:.0f} µs)")  # fmt: skip
            for base, what in (("echo", "asyncio streams echo"), ("lean_echo", "lean echo")):
                key = f"{kind}_{base}"
                low, high = rt[key + "_ratio_rounds"]
                print(f"    vs {what}, {kind} client: {rt[key + '_p50_us']:.0f} µs "
                      f"({rt[key + '_p99_us']:.0f} µs) = {rt[key + '_ratio']:.2f}x "
                      f"(rounds {low:.2f}–{high:.2f}x)")  # fmt: skip
        print("  target: ≤ 2x the asyncio streams echo, for each client")
        fl = asyncio.run(bench_flood(tmp, args.flood, trace=False))
        mem = asyncio.run(bench_flood(tmp, args.flood, trace=True))
        for key in (
            "traced_peak_queued_kib",
            "traced_per_request_kib",
            "traced_left_after_close_kib",
        ):
            fl[key] = mem[key]
        fl["wrong"] += mem["wrong"]
        print(f"{fl['requests']} queued at once: all queued in {fl['queued_in_s']:.2f} s, "
              f"all decided in {fl['total_s']:.2f} s; {fl['decided']} answers, "
              f"{fl['wrong']} wrong, {fl['open_after']} left open")  # fmt: skip
        print(f"  worst event-loop stall {fl['max_stall_ms']:.1f} ms (target < 50 ms; "
              f"{fl['max_stall_while_queueing_ms']:.1f} ms while queueing)")  # fmt: skip
        print(f"  memory: traced peak {fl['traced_peak_queued_kib']:.0f} KiB with all queued "
              f"({fl['traced_per_request_kib']:.1f} KiB per request), "
              f"{fl['traced_left_after_close_kib']:.0f} KiB left after close; "
              f"max RSS {fl['rss_max_mib']:.0f} MiB")  # fmt: skip
        idle = asyncio.run(bench_idle(tmp, 2.0))
        print(f"idle: {idle['loop_wakeups']} event-loop wakeups in {idle['idle_seconds']:.0f} s "
              "with nothing pending")  # fmt: skip
        for kind in ("async", "sync"):
            ratio = rt[f"{kind}_echo_ratio"]
            print(f"{kind} round trip vs the streams echo: {ratio:.2f}x "
                  + ("(within 2x)" if ratio <= 2 else "(MISS: over 2x)"))  # fmt: skip
        ok = (
            rt["async_echo_ratio"] <= 2
            and rt["sync_echo_ratio"] <= 2
            and fl["max_stall_ms"] < 50
            and fl["wrong"] == 0
        )
        print("PASS" if ok else "MISS")


if __name__ == "__main__":
    main()

"""One asking process can't take the room of all the others (issue 18, finding 9).

600 connections from one process, each holding a `confirm.request` (each with a token of
its own): 512 were accepted, a legitimate agent then got 0 of 5 answers ("too many
clients connected (512)"), and the notch showed "1 of 512". Now limits are counted per
asking process, as the kernel names it (SO_PEERCRED: a client cannot claim another's
pid, and minting tokens does not make it more processes): at most 32 connections and 32
requests waiting for the person per process, the excess refused with a clear JSON-RPC
error; and at the connection limit a newcomer takes room from the process holding the
most. Real processes on the real socket; the test is the person, approving only the
legitimate agent's cards.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from notch_app.ipc import protocol as rpc
from notch_app.ipc.server import MAX_CONNECTIONS_PER_ASKER, NotchServer
from notch_app.runtime.askers import MAX_OPEN_PER_ASKER
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.scripted import ScriptedPresenter

MAIL = "com.example.mail"

FLOOD = r"""
import json, os, select, socket, sys, time
path, count = sys.argv[1], int(sys.argv[2])
socks = []
for i in range(count):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    token = f"hostile-token-{i:04d}-" + "x" * 16  # a new "asker" every time
    line = {"jsonrpc": "2.0", "id": i, "method": "confirm.request", "params": {
        "callId": f"flood-{os.getpid()}-{i}", "integration": "com.example.mail", "tool": "send_email",
        "arguments": {"to": f"victim{i}@example.com"}, "token": token}}
    try:
        s.sendall(json.dumps(line).encode() + b"\n")
    except OSError:
        pass  # closed to make room before it could send: counted below as closed
    socks.append(s)
first = {}
deadline = time.monotonic() + 60
while len(first) < len(socks) and time.monotonic() < deadline:
    waiting = [s for s in socks if s.fileno() not in first]
    ready, _, _ = select.select(waiting, [], [], 1)
    for s in ready:
        try:
            data = s.recv(1 << 16)
        except OSError:
            data = b""
        first[s.fileno()] = data.split(b"\n")[0].decode() if data else ""
print(json.dumps({"pid": os.getpid(), "first": list(first.values())}), flush=True)
sys.stdin.readline()  # hold every connection until told
"""

AGENT = r"""
import sys
from notch_app.client import NotchClient
with NotchClient(sys.argv[1]) as notch:
    for n in range(int(sys.argv[2])):
        decision = notch.confirm("com.example.mail", "send_email", {"to": f"sam{n}@example.com"},
                                 timeout=30)
        print(decision.outcome, flush=True)
"""


async def run(script: str, *argv: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 24,
    )  # fmt: skip


def of(request: ConfirmationRequest, pid: int | None) -> bool:
    return request.process is not None and request.process.pid == pid


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_process_holding_600_requests_leaves_room_for_another_agent(
    base: Path, running_notch: Any
) -> None:
    legit: list[int] = []  # the agent's pid, once it runs

    def person(request: ConfirmationRequest) -> tuple[bool, None] | None:
        """Approves the legitimate agent's cards as they come; leaves the flood's."""
        return (True, None) if legit and of(request, legit[0]) else None

    async with running_notch(base, rule=person) as (notch, cards):
        path = str(notch.server.path)
        flood = await run(FLOOD, path, "600")
        assert flood.stdout is not None and flood.stdin is not None
        told = json.loads(await asyncio.wait_for(flood.stdout.readline(), 90))
        hostile = told["pid"]
        first = [json.loads(line) if line else {} for line in told["first"]]
        # The flood got its share and no more, and every refusal said why, plainly.
        flood_cards = [r for r in cards.cards.values() if of(r, hostile)]
        assert 0 < len(flood_cards) <= MAX_OPEN_PER_ASKER
        held = [c for c in notch.server._connections if c.process and c.process.pid == hostile]
        assert len(held) <= MAX_CONNECTIONS_PER_ASKER
        errors = [m["error"] for m in first if "error" in m]
        reasons = {
            rpc.OVERLOADED: f"the most one process may have ({MAX_OPEN_PER_ASKER})",
            rpc.TOO_MANY_CONNECTIONS: f"{MAX_CONNECTIONS_PER_ASKER}",
        }
        assert len(errors) >= 600 - MAX_CONNECTIONS_PER_ASKER, "every other one was told"
        assert all(reasons.get(e["code"], "?") in e["message"] for e in errors), errors[:3]

        agent = await run(AGENT, path, "5")
        assert agent.pid is not None and agent.stdout is not None
        legit.append(agent.pid)
        said = (await asyncio.wait_for(agent.stdout.read(), 60)).decode().split()
        assert said == ["approved"] * 5, said
        assert await agent.wait() == 0
        flood.stdin.write(b"go\n")
        await flood.wait()


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_when_several_processes_fill_every_place_a_newcomer_takes_room_from_the_busiest(
    base: Path, running_notch: Any
) -> None:
    """Three processes hold every connection of a small server (8 places, 4 per process),
    each with a request open: the newcomer's process holds none, so the busiest process
    gives up its least recently heard connection (its request stays open)."""
    legit: list[int] = []

    def person(request: ConfirmationRequest) -> tuple[bool, None] | None:
        return (True, None) if legit and of(request, legit[0]) else None

    async with running_notch(base, rule=person) as (notch, cards):
        assert isinstance(cards, ScriptedPresenter)
        server = NotchServer(
            notch.service, base / "t" / "notch.sock", max_connections=8,
            max_connections_per_asker=4,
        )  # fmt: skip
        await server.start()
        floods = []
        try:
            for count in ("4", "3", "1"):
                floods.append(await run(FLOOD, str(server.path), count))
                assert floods[-1].stdout is not None
                await asyncio.wait_for(floods[-1].stdout.readline(), 60)
            assert len(server._connections) == 8
            open_before = {r.call_id for r in notch.service.open_requests}
            agent = await run(AGENT, str(server.path), "5")
            assert agent.pid is not None and agent.stdout is not None
            legit.append(agent.pid)
            said = (await asyncio.wait_for(agent.stdout.read(), 60)).decode().split()
            assert said == ["approved"] * 5, said
            # Nothing of the others was decided to make that room.
            assert open_before <= {r.call_id for r in notch.service.open_requests}
        finally:
            for flood in floods:
                if flood.stdin is not None:
                    flood.stdin.write(b"go\n")
                await flood.wait()
            await server.close()


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_tokens_do_not_make_one_process_many_askers(base: Path, running_notch: Any) -> None:
    """40 requests on one connection, each with a token of its own: 32 cards, and the rest
    refused as the same process's, naming it and what to do."""
    async with running_notch(base) as (notch, cards):
        reader, writer = await asyncio.open_unix_connection(str(notch.server.path))
        for i in range(40):
            line = {"jsonrpc": "2.0", "id": i, "method": "confirm.request", "params": {
                "callId": f"t{i}", "integration": MAIL, "tool": "send_email",
                "arguments": {"to": f"p{i}"}, "token": f"token-number-{i:04d}-{'y' * 12}",
                "wait": False}}  # fmt: skip
            writer.write(json.dumps(line).encode() + b"\n")
        replies: list[dict[str, Any]] = []
        while len(replies) < 40:
            message = json.loads(await asyncio.wait_for(reader.readline(), 10))
            if "id" in message:
                replies.append(message)
        refused = [r["error"] for r in replies if "error" in r]
        assert len(cards.cards) == MAX_OPEN_PER_ASKER and len(refused) == 8
        assert {e["code"] for e in refused} == {rpc.OVERLOADED}
        assert f"(pid {os.getpid()})" in refused[0]["message"]
        assert "wait for some decisions" in refused[0]["message"]
        # A decision makes room again.
        cards.decline("t0")
        await notch.service.drain()
        writer.write(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "confirm.request",
                                 "params": {"callId": "t99", "integration": MAIL,
                                            "tool": "send_email", "arguments": {"to": "x"},
                                            "wait": False}}).encode() + b"\n")  # fmt: skip
        while True:
            message = json.loads(await asyncio.wait_for(reader.readline(), 10))
            if message.get("id") == 99:
                break
        assert message["result"]["status"] == "pending"
        writer.close()

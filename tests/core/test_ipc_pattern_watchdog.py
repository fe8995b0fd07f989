"""No request's argument check can hold Notch's socket loop: over the real socket server,
while a hostile client's arguments are being checked, another client's `server.info` is
answered within 100 ms; and a hostile pattern is answered at once, in both entry points
(`confirm.request`, `confirm.batch`).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchRequestError
from notch_app.ipc import protocol as rpc

# Latencies and a 1 s budget, measured while a hostile check runs: alone, not beside
# parallel workers (the `timing` mark, tests/conftest.py).
pytestmark = pytest.mark.timing

EVIL = "^(a+)+$"
RENAME = {
    "name": "rename",
    "description": "Renames files.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "x": {"type": "string", "pattern": EVIL},
            "names": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
        },
    },
}
# About 700 KB: checking every item against its pattern takes this machine 0.5-1 s (the
# check's budget is 1 s), in the worker thread; on the loop it was all that time. The
# last name fails, so the request is refused whether the check ends or runs out of time.
MANY_NAMES = {"names": ["abcdefgh"] * 60_000 + ["Not OK"]}


async def _watch(other: AsyncNotchClient, hostile: asyncio.Future[Any]) -> list[float]:
    """server.info round trips (seconds) from `other` until `hostile` is answered."""
    took: list[float] = []
    while not hostile.done():
        began = time.perf_counter()
        await other.call("server.info", {})
        took.append(time.perf_counter() - began)
    return took


@pytest.mark.asyncio
async def test_another_client_is_answered_within_100_ms_while_a_hostile_check_runs(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (notch, _cards, hostile):
        await hostile.call("gateway.attach", {"name": "evil", "tools": [RENAME]})
        async with AsyncNotchClient(notch.server.path) as other:
            await other.call("server.info", {})
            asked = asyncio.ensure_future(hostile.confirm("mcp.local.evil", "rename", MANY_NAMES))
            took = await _watch(other, asked)
            with pytest.raises(NotchRequestError) as refused:
                await asked
    assert refused.value.code == rpc.INVALID_PARAMS
    assert "arguments" in refused.value.message
    assert len(took) >= 3, "the hostile check ended before anyone could be kept waiting"
    assert max(took) < 0.1, f"server.info waited {max(took) * 1000:.0f} ms"


@pytest.mark.asyncio
async def test_the_evil_pattern_is_refused_at_once_and_names_the_field(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_notch, _cards, client):
        await client.call("gateway.attach", {"name": "evil", "tools": [RENAME]})
        began = time.perf_counter()
        with pytest.raises(NotchRequestError) as refused:
            await asyncio.wait_for(
                client.confirm("mcp.local.evil", "rename", {"x": "a" * 40 + "!"}), 5
            )
        answered = await asyncio.wait_for(
            client.call(
                "confirm.batch",
                {
                    "calls": [
                        {"callId": "b1", "integration": "mcp.local.evil", "tool": "rename",
                         "arguments": {"x": "a" * 4000 + "!"}},
                        {"callId": "b2", "integration": "mcp.local.evil", "tool": "rename",
                         "arguments": {"names": ["ok"] * 20_000 + ["Not OK"]}},
                    ]
                },
            ),
            5,
        )  # fmt: skip
        assert time.perf_counter() - began < 2
    assert refused.value.code == rpc.INVALID_PARAMS
    assert "arguments.x must match the pattern ^(a+)+$" in refused.value.message
    first, second = answered["results"]
    assert "arguments.x must match the pattern" in first["error"]["message"]
    assert "arguments.names.20000 must match the pattern" in second["error"]["message"]


@pytest.mark.asyncio
async def test_attach_leaves_out_a_tool_whose_pattern_notch_cannot_run_naming_both(
    base: Path, notch_and_client: Any
) -> None:
    lookahead = {
        "name": "set_password",
        "inputSchema": {
            "type": "object",
            "properties": {"password": {"type": "string", "pattern": "^(?=.*[A-Z]).{8,}$"}},
        },
    }
    async with notch_and_client(base) as (_notch, _cards, client):
        answer = await client.call("gateway.attach", {"name": "evil", "tools": [RENAME, lookahead]})
        assert [t["name"] for t in answer["tools"]] == ["rename"]
        (why,) = answer["leftOut"]
        assert why.startswith("'set_password': inputSchema/properties/password/pattern")
        assert "'^(?=.*[A-Z]).{8,}$'" in why and "lookahead" in why
        with pytest.raises(NotchRequestError):  # never asked with a card Notch cannot check
            await client.confirm("mcp.local.evil", "set_password", {"password": "Secret123"})

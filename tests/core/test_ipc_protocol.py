"""What a misbehaving client gets on the wire: clear JSON-RPC errors, never a crash."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient
from notch_app.ipc.address import SocketError, claim_socket_path, default_socket_path

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


class Wire:
    """A raw line-oriented connection, for sending what the real client never would."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, path: Path) -> Wire:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=8 * 1024 * 1024)
        return cls(reader, writer)

    async def send(self, data: bytes | dict[str, Any]) -> None:
        self.writer.write(data if isinstance(data, bytes) else json.dumps(data).encode() + b"\n")
        await self.writer.drain()

    async def reply(self) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(self.reader.readline(), 5))
            if "method" not in message:  # skip event notifications
                return message

    async def call(self, method: str, params: Any = None, id: int = 7) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        return await self.reply()


@pytest.mark.asyncio
async def test_malformed_json_gets_a_parse_error_and_the_connection_keeps_working(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, _):
        wire = await Wire.open(notch.server.path)
        await wire.send(b'{"jsonrpc": "2.0", "id": 1, "method": \n')
        error = (await wire.reply())["error"]
        assert error["code"] == -32700 and "one JSON object per line" in error["message"]
        await wire.send(b"\xff\xfe\n")
        assert (await wire.reply())["error"]["code"] == -32700
        await wire.send(b"[" * 5000 + b"]" * 5000 + b"\n")
        assert "nested" in (await wire.reply())["error"]["message"]
        assert (await wire.call("server.info"))["result"]["name"] == "notch"


@pytest.mark.asyncio
async def test_a_message_over_one_mebibyte_is_refused_and_skipped_without_losing_the_connection(
    base: Path,
    running_notch: Any,
) -> None:
    async with running_notch(base) as (notch, cards):
        wire = await Wire.open(notch.server.path)
        huge = {
            "jsonrpc": "2.0", "id": 1, "method": "confirm.request",
            "params": {"callId": "big", "integration": MAIL, "tool": "send_email",
                       "arguments": {"to": "x" * (1024 * 1024 + 10)}},
        }  # fmt: skip
        sender = asyncio.ensure_future(wire.send(huge))
        error = (await wire.reply())["error"]
        await sender
        assert error["code"] == -32600 and "1 MiB" in error["message"]
        assert (await wire.call("server.info"))["result"]["maxMessageBytes"] == 1024 * 1024
        assert cards.presented == []
        # A hostile client that never ends its line cannot make the server buffer it.
        wire2 = await Wire.open(notch.server.path)
        for _ in range(8):
            await wire2.send(b"x" * (1024 * 1024))
        assert (await wire2.reply())["error"]["code"] == -32600
        wire2.writer.close()
        async with AsyncNotchClient(notch.server.path) as client:
            assert (await client.confirm(MAIL, "search_mail", {})).outcome == "notRequired"


@pytest.mark.asyncio
async def test_unknown_method_lists_the_methods(base: Path, running_notch: Any) -> None:
    async with running_notch(base) as (notch, _):
        wire = await Wire.open(notch.server.path)
        error = (await wire.call("policy.set", {"tool": "send_email"}))["error"]
        assert error["code"] == -32601
        assert "confirm.request" in error["message"] and "integrations.list" in error["message"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"integration": MAIL, "tool": "send_email", "arguments": {}}, "callId"),
        ({"callId": 5, "integration": MAIL, "tool": "send_email"}, "callId"),
        ({"callId": "x", "integration": MAIL, "tool": "send_email", "arguments": [1]}, "arguments"),
        ({"callId": "x", "integration": MAIL, "tool": "send_email", "colour": 1}, "colour"),
        ({"callId": "x", "integration": MAIL, "tool": "send_email", "arguments": {"to": "a"},
          "expiresInMs": -4}, "expiresInMs"),
        ({"callId": "", "integration": MAIL, "tool": "send_email", "arguments": {"to": "a"}}, "callId"),
    ],
)  # fmt: skip
async def test_bad_params_name_the_field(
    base: Path, params: dict[str, Any], field: str, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        wire = await Wire.open(notch.server.path)
        error = (await wire.call("confirm.request", params))["error"]
        assert error["code"] == -32602
        assert error["data"]["field"] == field and field in error["message"]
        assert cards.presented == []


@pytest.mark.asyncio
async def test_batches_non_objects_and_positional_params_are_refused_clearly(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, _):
        wire = await Wire.open(notch.server.path)
        await wire.send([{"jsonrpc": "2.0", "id": 1, "method": "server.info"}])  # type: ignore[arg-type]
        assert "batch" in (await wire.reply())["error"]["message"]
        await wire.send({"id": 2, "method": "server.info"})
        assert (await wire.reply())["error"]["code"] == -32600
        reply = await wire.call("confirm.get", ["x"])
        assert reply["error"]["code"] == -32602 and "object" in reply["error"]["message"]


@pytest.mark.asyncio
async def test_a_notification_queues_the_card_and_gets_no_reply(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        wire = await Wire.open(notch.server.path)
        await wire.send({
            "jsonrpc": "2.0", "method": "confirm.request",
            "params": {"callId": "n1", "integration": MAIL, "tool": "send_email",
                       "arguments": {"to": "a"}, "wait": False},
        })  # fmt: skip
        await cards.wait_for_cards(1)
        assert (await wire.call("confirm.get", {"callId": "n1"}))["result"]["status"] == "pending"


@pytest.mark.asyncio
async def test_await_with_a_timeout_reports_pending_then_the_decision(
    base: Path, running_notch: Any, reached: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        wire = await Wire.open(notch.server.path)
        params = {"callId": "t1", "integration": MAIL, "tool": "send_email",
                  "arguments": {"to": "a"}, "wait": False}  # fmt: skip
        queued = (await wire.call("confirm.request", params))["result"]
        assert queued["status"] == "pending"
        token = queued["token"]  # none was sent: Notch made one, needed to await it
        waited = await wire.call("confirm.await", {"callId": "t1", "timeoutMs": 50, "token": token})
        assert waited["result"] == {"callId": "t1", "status": "pending"}
        awaited = reached(notch.service, "wait", "t1")
        asking = asyncio.ensure_future(wire.call("confirm.await", {"callId": "t1", "token": token}))
        await asyncio.wait_for(awaited.wait(), 5)  # Notch holds this await: decide now
        cards.decline("t1")
        decided = await asking
        assert decided["result"]["outcome"] == "declined"


@pytest.mark.asyncio
async def test_the_socket_is_its_owners_only_and_a_second_notch_is_refused(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, _):
        path = notch.server.path
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        with pytest.raises(SocketError, match="another Notch is already running"):
            claim_socket_path(path)
    assert not path.exists()  # removed on a clean stop


@pytest.mark.asyncio
async def test_a_stale_socket_from_a_crash_is_replaced(base: Path, running_notch: Any) -> None:
    path = base / "s" / "notch.sock"
    path.parent.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # the file stays, nobody listens: what SIGKILL leaves behind

    async with running_notch(base) as (_notch, _), AsyncNotchClient(path) as client:
        assert (await client.confirm(MAIL, "search_mail", {})).outcome == "notRequired"
    (base / "plain").mkdir(mode=0o700)
    (base / "plain" / "notch.sock").write_text("not a socket")
    with pytest.raises(SocketError, match="not a socket"):
        claim_socket_path(base / "plain" / "notch.sock")


def test_default_socket_path_prefers_the_override_then_the_runtime_dir(tmp_path: Path) -> None:
    assert default_socket_path({"NOTCH_SOCKET": "/x/y.sock"}) == Path("/x/y.sock")
    assert (
        default_socket_path({"XDG_RUNTIME_DIR": str(tmp_path)}) == tmp_path / "notch" / "notch.sock"
    )
    fallback = default_socket_path({})
    assert fallback.parent.name == f"notch-{os.getuid()}"


@pytest.mark.asyncio
async def test_a_burst_in_one_write_is_answered_in_full_while_another_client_is_served(
    base: Path,
    running_notch: Any,
) -> None:
    """500 requests in a single write (past the read-ahead limit, so reading pauses and
    resumes): every one answered exactly once, in order; a client connecting mid-burst
    is answered too."""

    async with running_notch(base) as (notch, cards):
        notch.service.max_open_per_asker = 1000  # one process's 250 cards: not its share here
        burst = await Wire.open(notch.server.path)
        lines = b"".join(
            json.dumps({"jsonrpc": "2.0", "id": i, "method": "confirm.request", "params": {
                "callId": f"b{i}", "integration": MAIL,
                "tool": "search_mail" if i % 2 else "send_email",
                "arguments": {"query": "q"} if i % 2 else {"to": f"p{i}"}, "wait": False,
            }}).encode() + b"\n"
            for i in range(500)
        )  # fmt: skip
        await burst.send(lines)
        other = await Wire.open(notch.server.path)
        info = await other.call("server.info", id=9001)
        assert info["id"] == 9001 and info["result"]["name"] == "notch"
        ids = [(await burst.reply())["id"] for _ in range(500)]
        assert ids == list(range(500))
        await cards.wait_for_cards(250)
        assert sorted(cards.cards) == sorted(f"b{i}" for i in range(0, 500, 2))


@pytest.mark.asyncio
async def test_a_client_that_sends_and_closes_its_side_still_gets_its_answers(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, _):
        wire = await Wire.open(notch.server.path)
        await wire.send(
            b'{"jsonrpc": "2.0", "id": 1, "method": "server.info"}\n'
            b'{"jsonrpc": "2.0", "id": 2, "method": "server.info"}'  # no final newline
        )
        wire.writer.write_eof()
        assert [(await wire.reply())["id"] for _ in range(2)] == [1, 2]
        assert await asyncio.wait_for(wire.reader.read(), 5) == b""  # then it closes

"""Values JSON lets through but no text or number can be — lone surrogates, NaN, ±Infinity —
and ids JSON-RPC does not allow are refused at the socket, before any method runs."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from notch_app.runtime.service import ServiceError

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


class Raw:
    """A line-oriented connection that sends exactly the bytes it is given."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, path: Path) -> Raw:
        reader, writer = await asyncio.open_unix_connection(str(path))
        return cls(reader, writer)

    async def reply_to(self, line: bytes) -> dict[str, Any]:
        self.writer.write(line + b"\n")
        await self.writer.drain()
        while True:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(self.reader.readline(), 5))
            if "method" not in message:  # skip event notifications
                return message

    def close(self) -> None:
        self.writer.close()


def request(call_id: str = "b-1", id: Any = 1, **change: Any) -> bytes:
    """A confirm.request line (wait: false) with `change` applied to its params; json.dumps
    writes lone surrogates as `\\udXXX` escapes and NaN/Infinity as bare words, as a
    hostile client would."""
    params: dict[str, Any] = {
        "callId": call_id,
        "integration": MAIL,
        "tool": "send_email",
        "arguments": {"to": "sam@example.com"},
        "wait": False,
    }
    params.update(change)
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "confirm.request", "params": params})\
        .encode()  # fmt: skip


BAD_PARAMS = [
    pytest.param(request(call_id="\ud800"), "callId", id="surrogate-callId"),
    pytest.param(request(integration="mail\udfff"), "integration", id="surrogate-integration"),
    pytest.param(request(arguments={"to": "sam\udc00"}), "arguments.to", id="surrogate-value"),
    pytest.param(request(arguments={"\ud800": "x"}), "arguments.\\ud800", id="surrogate-key"),
    pytest.param(
        request(arguments={"to": ["a", {"b": "\ud83d"}]}), "arguments.to.1.b", id="surrogate-nested"
    ),
    pytest.param(request(context={"agent": "\udbff"}), "context.agent", id="surrogate-context"),
    pytest.param(request(supersedes="\ud800"), "supersedes", id="surrogate-supersedes"),
    pytest.param(request(arguments={"to": float("nan")}), "arguments.to", id="nan"),
    pytest.param(request(arguments={"n": [1, float("inf")]}), "arguments.n.1", id="infinity"),
    pytest.param(request(arguments={"n": -float("inf")}), "arguments.n", id="minus-infinity"),
    pytest.param(
        request(arguments={"n": 1}).replace(b'"n": 1', b'"n": 1e400'),
        "arguments.n",
        id="overflow-to-infinity",
    ),
    pytest.param(request(context={"score": float("nan")}), "context.score", id="nan-context"),
    pytest.param(request(expiresInMs=float("nan")), "expiresInMs", id="nan-expires"),
]


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    loud = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not loud, [r.getMessage() for r in loud]


@pytest.mark.asyncio
@pytest.mark.parametrize(("line", "field"), BAD_PARAMS)
async def test_a_bad_value_in_params_is_refused_naming_the_field_and_nothing_runs(
    base: Path, running_notch: Any, caplog: pytest.LogCaptureFixture, line: bytes, field: str
) -> None:
    caplog.set_level(logging.DEBUG)
    async with running_notch(base) as (notch, cards):
        raw = await Raw.open(notch.server.path)
        try:
            reply = await raw.reply_to(line)
            assert reply["id"] == 1
            assert reply["error"]["code"] == -32602
            assert reply["error"]["data"] == {"field": field}
            assert reply["error"]["message"].startswith(f"{field}: ")
            # Nothing ran: no card, no open request, nothing stored under the callId.
            assert cards.presented == [] and notch.service.open_requests == []
            with pytest.raises(ServiceError, match="no request has callId"):
                notch.service.get("b-1")
            # The connection keeps working.
            good = await raw.reply_to(request(call_id="b-2", id=2))
            assert good["result"]["status"] == "pending"
            assert [c.call_id for c in cards.presented] == ["b-2"]
        finally:
            raw.close()
    no_tracebacks(caplog)


BAD_IDS = [
    pytest.param(b'{"a": 1}', "id: an object is not an id", id="object"),
    pytest.param(b"[1]", "id: an array is not", id="array"),
    pytest.param(b"true", "id: true or false is not", id="true"),
    pytest.param(b"NaN", "id: NaN is not a JSON number", id="nan"),
    pytest.param(b"Infinity", "id: Infinity is not", id="infinity"),
    pytest.param(b"1.5", "with a fraction", id="fraction"),
    pytest.param(b'"\\ud800"', "id: a lone surrogate", id="surrogate"),
    pytest.param(b'{"x": NaN}', "id: an object", id="object-holding-nan"),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("id_json", "said"), BAD_IDS)
async def test_an_id_that_is_not_a_string_a_whole_number_or_null_is_refused_and_nothing_runs(
    base: Path, running_notch: Any, caplog: pytest.LogCaptureFixture, id_json: bytes, said: str
) -> None:
    caplog.set_level(logging.DEBUG)
    async with running_notch(base) as (notch, cards):
        raw = await Raw.open(notch.server.path)
        try:
            line = request(id=424242).replace(b"424242", id_json)
            reply = await raw.reply_to(line)
            assert reply["id"] is None
            assert reply["error"]["code"] == -32600
            assert reply["error"]["data"] == {"field": "id"}
            assert said in reply["error"]["message"]
            assert "the method was not run" in reply["error"]["message"]
            assert cards.presented == [] and notch.service.open_requests == []
            with pytest.raises(ServiceError, match="no request has callId"):
                notch.service.get("b-1")
        finally:
            raw.close()
    no_tracebacks(caplog)


@pytest.mark.asyncio
async def test_good_ids_of_each_kind_are_echoed(base: Path, running_notch: Any) -> None:
    async with running_notch(base) as (notch, _):
        raw = await Raw.open(notch.server.path)
        try:
            for request_id in ("a", -3, 2**70, None, "😀"):
                line = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "server.info"})
                reply = await raw.reply_to(line.encode())
                assert reply["id"] == request_id and reply["result"]["name"] == "notch"
        finally:
            raw.close()


@pytest.mark.asyncio
async def test_a_notification_with_a_bad_value_gets_no_reply_and_does_not_run(
    base: Path, running_notch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with running_notch(base) as (notch, cards):
        raw = await Raw.open(notch.server.path)
        try:
            notification = json.loads(request(arguments={"to": "x"}))
            del notification["id"]
            line = json.dumps(notification).replace('"x"', '"\\ud800"').encode()
            raw.writer.write(line + b"\n")
            # The next reply is to the next request: the notification got none.
            info = b'{"jsonrpc": "2.0", "id": 5, "method": "server.info"}'
            assert (await raw.reply_to(info))["id"] == 5
            assert cards.presented == [] and notch.service.open_requests == []
        finally:
            raw.close()
    no_tracebacks(caplog)


@pytest.mark.asyncio
async def test_a_bad_value_in_the_envelope_is_an_invalid_request(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        raw = await Raw.open(notch.server.path)
        try:
            reply = await raw.reply_to(b'{"jsonrpc": "2.0", "id": 8, "method": "confirm.\\udc00"}')
            assert reply["id"] == 8 and reply["error"]["code"] == -32600
            assert "method: a lone surrogate is not text" in reply["error"]["message"]
            reply = await raw.reply_to(b'{"jsonrpc": "2.0", "id": 9, "method": "x", "p": NaN}')
            assert reply["id"] == 9 and reply["error"]["code"] == -32600
            assert "p: NaN is not a JSON number" in reply["error"]["message"]
            assert cards.presented == []
        finally:
            raw.close()

"""The pieces the server and both clients share: line framing, params, backoff.

The framing is I/O-free, so it is tested on bytes cut every possible way; the params
models are tested as an agent that sends the wrong thing would meet them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.client import NotchConnectionLost, NotchNotRunning
from notch_app.ipc import protocol as rpc
from notch_app.ipc.client import Backoff
from notch_app.ipc.methods import (
    CallIdParams,
    ConfirmAwaitParams,
    ConfirmRequestParams,
    NoParams,
    parse_params,
)

lines = st.lists(
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")).filter(bool), max_size=8
)


@settings(max_examples=200, deadline=None)
@given(lines, st.data())
def test_lines_come_out_whole_however_the_stream_is_cut(
    sent: list[bytes], data: st.DataObject
) -> None:
    stream = b"".join(line + b"\n" for line in sent)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    splitter = rpc.LineSplitter()
    got: list[bytes] = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        got += splitter.feed(stream[start:end])
    assert got == sent
    assert splitter.partial == 0


def test_a_line_over_the_limit_is_reported_once_and_never_held() -> None:
    splitter = rpc.LineSplitter(limit=10)
    assert splitter.feed(b"0123456789") == []  # at the limit: still a line in progress
    assert splitter.feed(b"abc") == [rpc.OVERSIZED]  # past it: reported at once...
    assert splitter.partial == 0  # ...and not buffered
    assert splitter.feed(b"x" * 1000) == []  # the rest of it is dropped as it comes
    assert splitter.partial == 0
    assert splitter.feed(b'yz\n{"ok":1}\n') == [b'{"ok":1}']  # the next line is fine
    assert splitter.feed(b"z" * 11 + b"\n") == [rpc.OVERSIZED]  # whole in one read


def test_the_last_line_without_a_newline_is_read_at_the_end() -> None:
    splitter = rpc.LineSplitter()
    assert splitter.feed(b'{"a":1}\n\n  {"b"') == [b'{"a":1}']
    assert splitter.partial == len(b'  {"b"')
    assert splitter.feed(b":2} ") == []
    assert splitter.finish() == b'{"b":2}'
    assert splitter.finish() is None


@pytest.mark.parametrize(
    ("model", "params", "field", "words"),
    [
        (ConfirmRequestParams, {"integration": "a", "tool": "b"}, "callId", "is required"),
        (ConfirmRequestParams, {"callId": 5, "integration": "a", "tool": "b"}, "callId",
         "must be a string"),
        (ConfirmRequestParams, {"callId": "x" * 129, "integration": "a", "tool": "b"}, "callId",
         "1 to 128 characters"),
        (ConfirmRequestParams, {"callId": "x", "integration": "a", "tool": "b", "wait": 1},
         "wait", "true or false"),
        (ConfirmRequestParams, {"callId": "x", "integration": "a", "tool": "b",
                                "expiresInMs": "60000"}, "expiresInMs", "whole number"),
        (ConfirmRequestParams, {"callId": "x", "integration": "a", "tool": "b",
                                "expiresInMs": True}, "expiresInMs", "whole number"),
        (ConfirmRequestParams, {"callId": "x", "integration": "a", "tool": "b",
                                "context": "hi"}, "context", "must be an object"),
        (ConfirmRequestParams, {"callId": "x", "integration": "a", "tool": "b",
                                "call_id": "y"}, "call_id", "not a parameter"),
        (ConfirmAwaitParams, {"callId": "x", "timeoutMs": -1}, "timeoutMs",
         "from 0 to 86400000"),
        (CallIdParams, {"callId": "x", "supersedes": "y"}, "supersedes", "it takes callId"),
        (NoParams, {"verbose": True}, "verbose", "it takes none"),
    ],
)  # fmt: skip
def test_wrong_params_are_refused_naming_the_field(
    model: type[NoParams], params: dict[str, object], field: str, words: str
) -> None:
    with pytest.raises(rpc.RpcError) as caught:
        parse_params(model, params)
    assert caught.value.code == rpc.INVALID_PARAMS
    assert caught.value.data == {"field": field}
    assert f"{field} " in caught.value.message and words in caught.value.message


def test_params_are_frozen_and_become_the_services_tool_call() -> None:
    asked = parse_params(
        ConfirmRequestParams,
        {"callId": "c1", "integration": "m", "tool": "t", "arguments": {"to": "a"},
         "expiresInMs": 5000, "supersedes": "c0"},
    )  # fmt: skip
    with pytest.raises(ValueError, match="frozen"):
        asked.call_id = "other"  # type: ignore[misc]
    call = asked.tool_call()
    assert (call.call_id, call.integration_id, call.tool_name) == ("c1", "m", "t")
    assert (call.arguments, call.expires_in_ms, call.supersedes) == ({"to": "a"}, 5000, "c0")
    assert asked.wait is True


SOCKET = Path("/run/notch.sock")


def test_backoff_doubles_its_pauses_up_to_a_second_then_gives_up() -> None:
    backoff = Backoff(SOCKET, reconnect_for=3.0)
    backoff.dropped(now=100.0)
    pauses = [backoff.pause_after(ConnectionError(), now=100.0 + i * 0.1) for i in range(7)]
    assert pauses == [0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    with pytest.raises(NotchConnectionLost, match="within 3 s"):
        backoff.pause_after(ConnectionError(), now=103.0)


def test_a_call_that_never_connected_is_not_retried() -> None:
    never = NotchNotRunning("no Notch is running")
    with pytest.raises(NotchNotRunning):
        Backoff(SOCKET, reconnect_for=10.0).pause_after(never, now=0.0)
    # Once the call's connection dropped, Notch being down for a moment is retried.
    backoff = Backoff(SOCKET, reconnect_for=10.0)
    backoff.dropped(now=0.0)
    assert backoff.pause_after(never, now=0.5) == 0.05

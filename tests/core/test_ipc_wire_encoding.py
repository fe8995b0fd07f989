"""The wire's JSON (orjson on the hot path) means exactly what the stdlib's would.

orjson parses big integers as floats, refuses NaN/Infinity and lone surrogates, and
writes NaN as null; the protocol hands every such case to the stdlib, so a message is
read and refused exactly as with `json` alone. The digest stays on the stdlib: orjson's
sorted output is not byte-identical (`1e-7` vs `1e-07`), and the digest must not change.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.ipc import protocol as rpc
from notch_app.runtime.decision import NotDigestible, arguments_digest, canonical_json

_STDLIB = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)

scalars = (
    st.none()
    | st.booleans()
    | st.integers()  # includes ints far past 64 bits
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats()  # includes NaN, ±Infinity, subnormals, -0.0
    | st.text()  # includes lone surrogates and non-ASCII
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def _same(a: Any, b: Any) -> bool:
    """Equal with types kept (1 vs 1.0 vs True differ) and NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and repr(a) == repr(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@settings(max_examples=300, deadline=None)
@given(values)
def test_a_line_decodes_to_what_the_stdlib_reads(value: Any) -> None:
    # Any text the stdlib writes (NaN, Infinity, big ints, "\\ud800" escapes included).
    for ensure_ascii in (True, False):
        try:
            line = json.dumps({"v": value}, ensure_ascii=ensure_ascii).encode("utf-8")
        except UnicodeEncodeError:  # a raw lone surrogate is not UTF-8: a line can't hold it
            continue
        assert _same(rpc.decode(line), json.loads(line.decode("utf-8")))


@settings(max_examples=300, deadline=None)
@given(values)
def test_a_message_encodes_or_is_refused_as_the_stdlib_would(value: Any) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "result": {"arguments": value}}
    try:
        expected = (_STDLIB.encode(message) + "\n").encode("utf-8")
    except ValueError:  # NaN/Infinity, or a lone surrogate failing UTF-8
        with pytest.raises(ValueError):
            rpc.encode(message)
        return
    line = rpc.encode(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    # The spelling of a float may differ (1e-7 / 1e-07); what it reads back as may not.
    assert _same(json.loads(line.decode("utf-8")), json.loads(expected.decode("utf-8")))


def test_big_integers_and_nan_keep_their_meaning_on_the_wire() -> None:
    big = 2**70 + 1
    line = b'{"jsonrpc":"2.0","id":1,"params":{"n":%d,"m":-%d}}\n' % (big, big)
    assert rpc.decode(line)["params"] == {"n": big, "m": -big}  # exact, not a float
    assert rpc.decode(rpc.encode({"n": big})) == {"n": big}
    assert math.isnan(rpc.decode(b'{"x":NaN}')["x"])  # accepted as by the stdlib
    with pytest.raises(ValueError):  # and never written back out as `null`
        rpc.encode({"x": float("nan")})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_a_reply_with_nulls_refuses_a_non_finite_float_anywhere_in_it(bad: float) -> None:
    # Replies hold nulls (unset fields), so orjson's null for NaN must be told apart.
    deep = {"message": None, "arguments": {"a": [None, {"b": (1, bad)}]}}
    for message in ({"id": 1, "result": deep}, {"id": 1, "result": [None, bad]}, bad):
        with pytest.raises(ValueError):
            rpc.encode(message)  # type: ignore[arg-type]
    fine = {"id": 1, "result": {"message": None, "n": [0.5, -1e300, None]}}
    assert rpc.encode(fine) == orjson.dumps(fine, option=orjson.OPT_APPEND_NEWLINE)


def test_malformed_lines_get_the_stdlibs_parse_error_message() -> None:
    with pytest.raises(rpc.RpcError) as caught:
        rpc.decode(b'{"jsonrpc": "2.0", "id": 1, "method": \n')
    assert caught.value.code == rpc.PARSE_ERROR
    assert caught.value.message.startswith("parse error: Expecting value: line 2 column 1")
    assert "send one JSON object per line" in caught.value.message
    with pytest.raises(rpc.RpcError, match="not valid UTF-8"):
        rpc.decode(b'{"a":"\xff"}')


def test_the_digest_is_rfc8785_which_neither_orjson_nor_the_stdlib_spells() -> None:
    # Issue 9 finding 8: the digest was Python's json.dumps spelling (1e-07), which a
    # JavaScript executor cannot reproduce; it is RFC 8785 now (tests/core/test_digest_vs_node.py).
    arguments = {"b": 1e-7, "a": "é", "c": 1250.0}
    canonical = canonical_json(arguments)
    assert canonical == '{"a":"é","b":1e-7,"c":1250}'
    assert orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS).decode() != canonical
    assert json.dumps(arguments, sort_keys=True, separators=(",", ":")) != canonical
    assert arguments_digest(arguments) == (
        "sha256:" + __import__("hashlib").sha256(canonical.encode()).hexdigest()
    )


json_keys = st.text(max_size=6) | st.sampled_from(["a", "B", "é", "\ue000", "😀", "a😀", ""])


@settings(max_examples=500, deadline=None)
@given(
    st.recursive(
        scalars | st.integers(-(2**53), 2**53) | st.sampled_from([1250.0, 1e-7, -0.0, 0.1]),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(json_keys, inner, max_size=4),
        max_leaves=12,
    )
)
def test_the_fast_digest_spelling_is_always_rfc8785(value: Any) -> None:
    # canonical_json spells plain trees with orjson (C speed) and the rest with rfc8785;
    # whichever path a tree takes, the bytes are RFC 8785's, or both refuse it.
    try:
        expected: str | None = rfc8785.dumps(value).decode("utf-8")
    except rfc8785.CanonicalizationError:
        expected = None
    try:
        got: str | None = canonical_json(value)
    except NotDigestible:
        got = None
    assert got == expected

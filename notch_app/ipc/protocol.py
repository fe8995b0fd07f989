"""JSON-RPC 2.0 over a local socket, one JSON object per line (UTF-8, `\\n`-terminated).

Methods (params are objects; names in camelCase):

* `confirm.request` {callId, token?, integration, tool, arguments, supersedes?,
  expiresInMs?, context?, wait?=true} — check and queue one tool call. With `wait` (the
  default) the response is the decision; with `wait: false` it is `{callId, status:
  "pending"}` at once (or the decision, when none is needed) and `confirm.await` waits
  later. Either reply carries `token`: the request's token (the client's own, or one
  Notch made when none was sent), needed by every method below that acts on it.
* `confirm.await` {callId, token, timeoutMs?} — the decision, or `{callId, status:
  "pending"}` if `timeoutMs` passed first.
* `confirm.get` {callId, token?} — with its token: the decision, or `{callId, status:
  "pending", parked}`. Without: only the bare status, `{callId, status: "pending",
  parked}` or `{callId, status: "decided"}`.
* `confirm.withdraw` {callId, token} — end an open request `withdrawn` (an already
  decided one returns its decision with `alreadyDecided: true`).
  A wrong token, or none where one is needed, is refused (-32008, or -32602 when
  missing) and changes nothing; `supersedes` needs the superseded request's token.
* `integrations.list` {} — `{integrations: [{id, name, version, summary, publisher,
  tools: [{name, title, description, confirms, kind}]}]}`.
* `server.info` {} — `{name, version, methods, maxMessageBytes}`.

While a client waits, the server sends it notifications `confirm.event` {callId, event,
...} with event one of confirmationRequired, shown, parked, restored, decided.
There is deliberately no method that changes policy. The params of each method are
models in `notch_app/ipc/methods/`; the OpenRPC document generated from them is
`schemas/notch-socket.openrpc.json`. This module is I/O-free: the line framing
(`LineSplitter`) and the JSON of one message (`encode`, `decode`).
"""

from __future__ import annotations

import json
import math
from typing import Any, Final, NamedTuple

import orjson

PROTOCOL_VERSION: Final = "1"
"""The socket API's version (the OpenRPC document's `info.version`): bumped when a
method, param or result changes in a way an existing client would notice."""
MAX_MESSAGE_BYTES: Final = 1024 * 1024
"""One line (request or response) may be at most 1 MiB, newline excluded."""
MAX_JSON_DEPTH: Final = 64
MAX_WITHDRAW_REASON_CHARS: Final = 200
"""Longest reason `confirm.withdraw` takes (the agent's words for why; clients cut theirs
to it, a longer one is refused)."""

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
# Server-defined errors (-32000..-32099):
UNKNOWN_CALL: Final = -32001
CALL_ID_IN_USE: Final = -32002
NOT_OPEN: Final = -32003
OVERLOADED: Final = -32004
TOO_MANY_IN_FLIGHT: Final = -32005
STORAGE_ERROR: Final = -32006
TOO_MANY_CONNECTIONS: Final = -32007
NOT_YOURS: Final = -32008

EVENT_METHOD: Final = "confirm.event"
# The socket's methods are listed once, with their params and results: ipc/methods/table.py.


OVERSIZED: Final = b"\x00oversized"
"""Stands in for a line over the limit (never valid JSON, so never confused with one)."""


class LineSplitter:
    """Cuts a byte stream into messages, one per `\\n`-terminated line. I/O-free: the
    server and both clients feed it whatever their socket read returned.

    A line longer than `limit` bytes (newline excluded) is never buffered: it comes out
    once as `OVERSIZED` and the rest of it is dropped as it arrives. Blank lines are
    skipped. `partial` is how many bytes of an unfinished line are held.
    """

    __slots__ = ("_held", "_skipping", "limit")

    def __init__(self, limit: int = MAX_MESSAGE_BYTES) -> None:
        self.limit = limit
        self._held = bytearray()
        self._skipping = False

    @property
    def partial(self) -> int:
        """Bytes of a line begun but not yet ended (0 between messages)."""
        return len(self._held)

    @property
    def in_line(self) -> bool:
        """A line has begun and not ended (held, or an oversized one being skipped)."""
        return self._skipping or bool(self._held)

    def feed(self, data: bytes) -> list[bytes]:
        """The lines `data` completes, newlines stripped, in order."""
        held = self._held
        if not held and not self._skipping and data.find(b"\n") == len(data) - 1:
            # The usual case: exactly one whole message in this read.
            if len(data) > self.limit + 1:
                return [OVERSIZED]
            return [data[:-1]] if len(data) > 1 else []
        if self._skipping:
            end = data.find(b"\n")
            if end < 0:
                return []
            self._skipping = False
            data = data[end + 1 :]
        lines: list[bytes] = []
        held += data
        start = 0
        while (end := held.find(b"\n", start)) >= 0:
            if end - start > self.limit:
                lines.append(OVERSIZED)
            elif end > start:
                lines.append(bytes(held[start:end]))
            start = end + 1
        if start:
            del held[:start]
        if len(held) > self.limit:
            # Never hold a line past the limit: report it now, drop the rest as it comes.
            held.clear()
            self._skipping = True
            lines.append(OVERSIZED)
        return lines

    def finish(self) -> bytes | None:
        """At end of stream: the unterminated last line (whitespace stripped), if any."""
        leftover = bytes(self._held).strip()
        self._held = bytearray()
        skipped, self._skipping = self._skipping, False
        return leftover if leftover and not skipped else None

    def clear(self) -> None:
        """Forget any partial line (the connection it came from is gone) and give its
        memory back: a new buffer, so the old one is freed whatever its size."""
        self._held = bytearray()
        self._skipping = False


class RpcError(Exception):
    """A JSON-RPC error to send back (server) or received (client)."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
# One encoder for every message: `json.dumps` with options builds a new one each time.

# orjson (C-speed) is the hot path; the stdlib is the reference. Wherever the two could
# differ, the stdlib decides, so the wire behaves exactly as with the stdlib alone.
_ORJSON_OPTIONS: Final = (
    orjson.OPT_APPEND_NEWLINE | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
)
# Digits become b"0", everything else b" ": a run of 19 digits is then one `in` test.
_DIGITS_ONLY: Final = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_LONG_NUMBER: Final = b"0" * 19


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line. Non-ASCII is kept as UTF-8; NaN/Infinity, lone surrogates
    and values JSON cannot hold are refused (ValueError, TypeError)."""
    try:
        data = orjson.dumps(message, option=_ORJSON_OPTIONS)
    except orjson.JSONEncodeError:
        # ints past 64 bits, non-str keys, lone surrogates, ...: the stdlib's spelling or
        # error (a lone surrogate fails its UTF-8 step: ValueError).
        return (_ENCODER.encode(message) + "\n").encode("utf-8")
    # orjson writes NaN/Infinity as null where the stdlib refuses them. A null in the
    # line may be one of those: look at the floats (not the whole message again, which
    # every reply with a null field would cost).
    if b"null" in data and _holds_non_finite((message,)):
        raise ValueError("Out of range float values are not JSON compliant (NaN, Infinity)")
    return data


def _holds_non_finite(node: Any) -> bool:
    """Whether a float in `node` (a message orjson took, so containers are dicts, lists
    and tuples, at most 255 deep) is NaN or ±Infinity."""
    for value in node.values() if isinstance(node, dict) else node:
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None:
            continue
        if kind is float:
            if value - value:  # NaN for NaN and ±Infinity, 0.0 for a finite float
                return True
        elif isinstance(value, dict | list | tuple):
            if value and _holds_non_finite(value):  # a reply's many [] cost no call
                return True
        elif isinstance(value, float) and not math.isfinite(value):
            return True
    return False


def decode(line: bytes) -> Any:
    """Parse one line. Raises RpcError(PARSE_ERROR) for bad UTF-8, bad JSON or JSON nested
    deeper than MAX_JSON_DEPTH."""
    return _parse(line)[0]


class BadValue(NamedTuple):
    """A value JSON lets through but no text or number can be: where it is (keys and
    indexes from the message's top) and what it is, in words."""

    path: tuple[str | int, ...]
    problem: str
    """What is wrong, e.g. "NaN is not a JSON number"."""
    fix: str
    """What to send instead."""

    def where(self, skip: int = 0) -> str:
        """The path as `a.b.0`, lone surrogates written `\\udXXX` so it can be sent."""
        return ".".join(printable(str(part)) for part in self.path[skip:])


def decode_request(line: bytes) -> tuple[Any, BadValue | None]:
    """Parse one line a client sent, and find the first lone surrogate (in a text or a
    key) or NaN/±Infinity in it: values the stdlib's parser accepts but that are not
    text or numbers, so nothing past the socket ever sees them. Raises like `decode`."""
    value, checked = _parse(line)
    return value, None if checked else first_bad_value(value)


def _parse(line: bytes) -> tuple[Any, bool]:
    # (value, True when orjson parsed it: orjson refuses lone surrogates, NaN, Infinity
    # and 1e400 outright, so only what the stdlib parsed can hold them.)
    value: Any
    checked = False
    # orjson turns integers past 64 bits into floats (the stdlib keeps them exact) and
    # refuses NaN, Infinity, 1e400 and lone surrogates (the stdlib accepts them): a line
    # with a 19-digit run or that orjson refuses is parsed by the stdlib, as before.
    if _LONG_NUMBER in line.translate(_DIGITS_ONLY):
        value = _stdlib_decode(line)
    else:
        try:
            value = orjson.loads(line)
            checked = True
        except orjson.JSONDecodeError:
            value = _stdlib_decode(line)
    # Counting brackets is C-speed; only a line that could be that deep is walked.
    if line.count(b"[") + line.count(b"{") > MAX_JSON_DEPTH and _too_deep(value):
        raise RpcError(PARSE_ERROR, f"parse error: JSON nested deeper than {MAX_JSON_DEPTH}")
    return value, checked


def first_bad_value(value: Any) -> BadValue | None:
    """The first lone surrogate or NaN/±Infinity in a decoded message, else None.
    Iterative (depth is bounded by `decode`, but a stack is cheaper than recursion)."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            if _lone_surrogate(node):
                return BadValue(path, "a lone surrogate is not text", _TEXT_FIX)
        elif isinstance(node, float):
            if not math.isfinite(node):
                name = "NaN" if node != node else ("Infinity" if node > 0 else "-Infinity")
                return BadValue(path, f"{name} is not a JSON number", "send a finite number")
        elif isinstance(node, dict):
            for key in reversed(node):
                if _lone_surrogate(key):
                    return BadValue(
                        (*path, key), "a key with a lone surrogate is not text", _TEXT_FIX
                    )
                stack.append((node[key], (*path, key)))
        elif isinstance(node, list):
            stack.extend((item, (*path, index)) for index, item in reversed(list(enumerate(node))))
    return None


_TEXT_FIX: Final = "send valid Unicode (UTF-16 surrogates only in pairs)"


def _lone_surrogate(text: str) -> bool:
    # Text from a parser holds a surrogate only when it was a lone `\udXXX` escape
    # (pairs are joined): encoding is C-speed and fails exactly then.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def printable(text: str) -> str:
    """`text` with lone surrogates written as `\\udXXX`, so a message quoting it can
    be sent as UTF-8."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _stdlib_decode(line: bytes) -> Any:
    try:
        return json.loads(line.decode("utf-8"))  # str: skips json's encoding sniffing
    except UnicodeDecodeError:
        raise RpcError(PARSE_ERROR, "parse error: the message is not valid UTF-8") from None
    except RecursionError:
        raise RpcError(
            PARSE_ERROR, f"parse error: JSON nested deeper than {MAX_JSON_DEPTH}"
        ) from None
    except ValueError as exc:
        raise RpcError(PARSE_ERROR, f"parse error: {exc}; send one JSON object per line") from None


def _too_deep(value: Any) -> bool:
    # Iterative, so a hostile document cannot exhaust the stack of later checks.
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > MAX_JSON_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def response(request_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_response(request_id: Any, error: RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_json()}


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}

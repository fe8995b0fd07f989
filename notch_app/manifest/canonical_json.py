"""Canonical JSON (RFC 8785, JCS): the one spelling Notch hashes.

An approval's digest (`runtime/decision.py`) and the fingerprint of what a person agreed
to when they turned Asks first off (`tool_facts.ToolFacts.fingerprint`) are both taken
over this spelling, so an executor in any language recomputes the same bytes
(JavaScript: sorted keys and JSON.stringify), and `1250.0` and `1250` are one number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

import orjson
import rfc8785


class NotDigestible(ValueError):
    """A value with no RFC 8785 spelling: NaN or ±Infinity, an integer outside ±(2**53 - 1),
    text that is not valid Unicode (a lone surrogate), a key that is not text, or a type
    JSON does not have. `path` is where, as `arguments.a.0.b` (the root is `where`)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def canonical_json(value: Any, where: str = "arguments") -> str:
    """The one JSON spelling digests are computed over: RFC 8785 (JCS), so an executor in
    any language recomputes the same bytes (JavaScript: sorted keys and JSON.stringify).

    Raises NotDigestible, naming the place under `where`, for a value JCS cannot spell.
    """
    if _plain(value):
        # For these trees orjson's sorted output is the JCS spelling (a Hypothesis test
        # holds them equal), at C speed: rfc8785 is pure Python, ~10x slower.
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")
        except orjson.JSONEncodeError:
            pass  # a lone surrogate: rfc8785 below refuses it, naming the place
    try:
        return rfc8785.dumps(value).decode("utf-8")
    except rfc8785.CanonicalizationError:
        # The library does not say where; find the place so the message can name it.
        path, problem = _first_problem(value, where)
        raise NotDigestible(path, problem) from None


def _plain(value: Any) -> bool:
    """True for a tree of objects with ASCII keys, arrays, text, booleans, null and
    integers within ±(2**53 - 1): no floats (JCS spells them as JavaScript does) and no
    key whose UTF-16 order could differ from its code-point order."""
    stack = [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is str or kind is bool or node is None:
            continue
        if kind is int:
            if -_SAFE_INT <= node <= _SAFE_INT:
                continue
            return False
        if kind is dict:
            for key in node:
                if type(key) is not str or not key.isascii():
                    return False
            stack.extend(node.values())
        elif kind is list:
            stack.extend(node)
        else:
            return False
    return True


def _first_problem(value: Any, path: str) -> tuple[str, str]:
    """Where and why `value` has no JCS spelling (depth-first, keys in sorted order)."""
    found = _problem_at(value, path)
    return found if found is not None else (path, "cannot be written as RFC 8785 JSON")


def _problem_at(value: Any, path: str) -> tuple[str, str] | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        if abs(value) <= _SAFE_INT:
            return None
        return path, (
            f"the integer {value} is beyond ±(2**53 - 1), which a JSON number cannot carry "
            "exactly; send it as a string"
        )
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return path, f"{value} is not a JSON number; send a finite number"
    if isinstance(value, str):
        bad = next((c for c in value if 0xD800 <= ord(c) <= 0xDFFF), None)
        if bad is None:
            return None
        return path, (
            f"text holds a lone surrogate (U+{ord(bad):04X}), which is not Unicode; "
            "send valid UTF-8"
        )
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _problem_at(item, f"{path}.{index}")
            if found is not None:
                return found
        return None
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                return path, f"the key {key!r} is not text"
            found = _problem_at(key, f"{path} (a key)")
            if found is not None:
                return found
        for key in sorted(value):
            found = _problem_at(value[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    return path, f"a {type(value).__name__} is not a JSON value"


_SAFE_INT: Final = 2**53 - 1
"""The largest integer a JSON number (an IEEE double) carries exactly; RFC 8785 stops there."""


__all__ = ["NotDigestible", "canonical_json"]

"""The argument paths a guard can name, read from a tool's inputSchema."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from notch_app.manifest.model import Tool

_MAX_PATHS = 2000
_MAX_DEPTH = 8


@dataclass(frozen=True, slots=True)
class ArgumentPathInfo:
    """One dotted argument path and what the schema says it holds."""

    path: str
    types: frozenset[str]
    """JSON Schema types of the value (after looking through arrays); empty when unknown."""
    title: str | None = None

    @property
    def numeric(self) -> bool | None:
        """True for number/integer, False for other known types, None when unknown."""
        if not self.types:
            return None
        return bool(self.types & {"number", "integer"})


def argument_paths(tool: Tool) -> list[ArgumentPathInfo]:
    """Every property path in the tool's inputSchema, nested objects and array items included."""
    out: list[ArgumentPathInfo] = []
    for info in _walk(tool.input_schema, "", 0):
        out.append(info)
        if len(out) >= _MAX_PATHS:
            break
    return out


def _types(schema: Mapping[str, Any]) -> frozenset[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return frozenset({declared})
    if isinstance(declared, list):
        return frozenset(t for t in declared if isinstance(t, str))
    if "enum" in schema and isinstance(schema["enum"], list):
        kinds = set()
        for v in schema["enum"]:
            if isinstance(v, bool):
                kinds.add("boolean")
            elif isinstance(v, int | float):
                kinds.add("number")
            elif isinstance(v, str):
                kinds.add("string")
        return frozenset(kinds)
    return frozenset()


def _through_arrays(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    # Guards fan out over lists, so a list's path stands for its items.
    for _ in range(_MAX_DEPTH):
        items = schema.get("items")
        if "array" in _types(schema) and isinstance(items, Mapping):
            schema = items
        else:
            break
    return schema


def _walk(schema: Any, prefix: str, depth: int) -> Iterator[ArgumentPathInfo]:
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return
    for name, sub in props.items():
        if not isinstance(name, str) or not isinstance(sub, Mapping):
            continue
        path = f"{prefix}.{name}" if prefix else name
        inner = _through_arrays(sub)
        title = sub.get("title") if isinstance(sub.get("title"), str) else None
        types = _types(inner) - {"null"}
        yield ArgumentPathInfo(path, frozenset(types), title)
        yield from _walk(inner, path, depth + 1)


def nearest(word: str, candidates: list[str]) -> str | None:
    """The closest candidate to a mistyped name, or None when nothing is close."""
    found = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    if found:
        return found[0]
    lowered = {c.lower(): c for c in candidates}
    return lowered.get(word.lower())

"""Checking the card's final arguments against the inputSchema on every keystroke, cheaply.

`notch_app.manifest.schema.arguments.argument_problems` checks the whole object; on a 20-input
card that is most of a keystroke's budget, and a 1 MB argument with a `pattern` would be
re-matched on every keystroke in another field. When the inputSchema is a plain object
schema (properties, required, additionalProperties — nearly every MCP tool), the check
splits exactly: each property against its own subschema, plus the object-level rules.
Edits are copy-on-write, so an untouched argument keeps its identity and its earlier
result is reused. Any other schema shape falls back to the whole check.

The messages are argument_problems' own: each part runs through it with a small derived
tool, so there is one source of wording. Before that, each value goes through the
shared fast path (`notch_app.manifest.schema.fast_path`, the one the service uses on
the request path); its answer is only ever "certainly valid" (then there is nothing to
word), anything else goes to the full check. That keeps a fresh card's first gate off
jsonschema for typical tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import compress
from operator import is_not
from typing import Any, Final

from notch_app.card.paths import MISSING
from notch_app.manifest.model import Tool
from notch_app.manifest.schema import (
    DIALECTS,
    ArgumentProblem,
    Check,
    argument_problems,
    compile_fast_path,
)

_SPLITTABLE_KEYS: Final = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "$schema", "$id",
        "$defs", "definitions", "title", "description", "default", "examples",
        "$comment", "readOnly", "writeOnly", "deprecated",
    }
)  # fmt: skip
_SHARED_KEYS: Final = ("$schema", "$id", "$defs", "definitions")
_MAX_PROBLEMS: Final = 50
_UNNAMED: Final = object()


_FAST: dict[int, tuple[Tool, dict[str, Check | None]]] = {}
"""id(tool) → (tool, property name → its compiled fast path): compiled once per loaded
tool, not once per card (a 20-input card compiled 20 predicates, ~1 ms, every time it
was built). The tool is held so its id stays its own."""
_MAX_FAST: Final = 64


def _fast_checks(tool: Tool) -> dict[str, Check | None]:
    entry = _FAST.get(id(tool))
    if entry is not None and entry[0] is tool:
        return entry[1]
    if len(_FAST) >= _MAX_FAST:
        _FAST.pop(next(iter(_FAST)))
    checks: dict[str, Check | None] = {}
    _FAST[id(tool)] = (tool, checks)
    return checks


class ArgumentCheck:
    """argument_problems(tool, arguments), remembered per argument between calls."""

    def __init__(self, tool: Tool) -> None:
        self.tool = tool
        schema = tool.input_schema
        props = schema.get("properties")
        self._split = (
            set(schema) <= _SPLITTABLE_KEYS
            and schema.get("type", "object") == "object"
            and isinstance(props, Mapping)
            and all(isinstance(k, str) for k in props)
        )
        self._parts: dict[str, Tool] = {}
        self._fast = _fast_checks(tool)
        # The fast path knows 2020-12 only; an older dialect's parts go to jsonschema.
        self._fast_dialect = schema.get("$schema", next(iter(DIALECTS))) in DIALECTS
        self._subschemas: dict[str, Any] = {}
        self._shared: dict[str, Any] = {}
        self._cache: dict[str, tuple[Any, list[ArgumentProblem]]] = {}
        self._object_rules: Tool | None = None
        self._object_cache: tuple[tuple[str, ...], tuple[Any, ...], list[ArgumentProblem]] | None
        self._object_cache = None
        self._required: tuple[str, ...] | None = None
        self._last_clean: Mapping[str, Any] | None = None
        """The last arguments checked, when they had no problem at all."""
        self._closed = False
        if self._split and isinstance(props, Mapping):
            self._shared = {k: schema[k] for k in _SHARED_KEYS if k in schema}
            # Object-level rules alone: every property accepted, extras and required kept.
            object_schema = {k: v for k, v in schema.items() if k != "properties"}
            object_schema["properties"] = dict.fromkeys(props, True)
            self._object_rules = _derived(tool, object_schema)
            self._subschemas = dict(props)
            required = schema.get("required", [])
            extra = schema.get("additionalProperties", True)
            if (
                isinstance(required, list)
                and all(isinstance(r, str) for r in required)
                and extra in (True, False)
                and schema.get("type", "object") == "object"
            ):
                self._required = tuple(required)
                self._closed = extra is False

    def problems(self, arguments: Mapping[str, Any]) -> list[ArgumentProblem]:
        """Every way `arguments` fails the inputSchema (at most 50), deepest first."""
        if not self._split or self._object_rules is None:
            return argument_problems(self.tool, arguments)
        if self._still_none(arguments):
            return []
        found: list[ArgumentProblem] = []
        for name, sub in self._subschemas.items():
            value = arguments.get(name, MISSING)
            if value is not MISSING:
                found.extend(self._one(name, sub, value))
        found.sort(key=lambda p: -p.pointer.count("/"))
        found.extend(self._object_problems(self._object_rules, arguments))
        self._last_clean = None if found else arguments
        return found[:_MAX_PROBLEMS]

    def _one(self, name: str, sub: Any, value: Any) -> list[ArgumentProblem]:
        """The problems of one property's value, kept while it is the same object."""
        hit = self._cache.get(name)
        if hit is not None and hit[0] is value:
            return hit[1]
        result = (
            []
            if self._surely_valid(name, sub, value)
            else argument_problems(self._part(name, sub), {name: value})
        )
        self._cache[name] = (value, result)  # holds `value`, so its id stays unique
        return result

    def _still_none(self, arguments: Mapping[str, Any]) -> bool:
        """True when the last arguments checked had no problem and these differ from them
        only in values of named properties that each still pass (a keystroke): the
        object-level rules see the same names, so nothing else can have changed."""
        last = self._last_clean
        if last is None or len(last) != len(arguments) or list(last) != list(arguments):
            return False
        for name in compress(arguments, map(is_not, last.values(), arguments.values())):
            sub = self._subschemas.get(name, _UNNAMED)
            if sub is _UNNAMED or self._one(name, sub, arguments[name]):
                return False
        self._last_clean = arguments
        return True

    def _surely_valid(self, name: str, sub: Any, value: Any) -> bool:
        # Compiled on first use: a card whose inputs are never edited compiles nothing.
        if name not in self._fast:
            self._fast[name] = compile_fast_path(sub) if self._fast_dialect else None
        check = self._fast[name]
        return check is not None and check(value)

    def _part(self, name: str, sub: Any) -> Tool:
        part = self._parts.get(name)
        if part is None:
            part = _derived(
                self.tool, {**self._shared, "type": "object", "properties": {name: sub}}
            )
            self._parts[name] = part
        return part

    def _object_problems(self, rules: Tool, arguments: Mapping[str, Any]) -> list[ArgumentProblem]:
        if (
            self._required is not None
            and all(r in arguments for r in self._required)
            and (not self._closed or all(k in self._subschemas for k in arguments))
        ):
            return []  # every required key present, no key the schema refuses
        # The object-level rules see only which keys are present and the values of keys
        # the schema does not name (additionalProperties), so those are the cache key.
        keys = tuple(arguments)
        extras = tuple(arguments[k] for k in keys if k not in self._parts)
        hit = self._object_cache
        if (
            hit is not None
            and hit[0] == keys
            and len(hit[1]) == len(extras)
            and all(a is b for a, b in zip(hit[1], extras, strict=True))
        ):
            return hit[2]
        result = argument_problems(rules, arguments)
        self._object_cache = (keys, extras, result)
        return result


def _derived(tool: Tool, schema: dict[str, Any]) -> Tool:
    # model_construct: the schema is the tool's own (already validated), only narrowed.
    return Tool.model_construct(name=tool.name, input_schema=schema)

"""A fast path for checking arguments against an inputSchema (or one of its subschemas).

Most inputSchemas are plain: an object of typed properties, some required, maybe an
enum or a length bound. For those, `surely_valid()` runs a small compiled predicate
(a few microseconds instead of the ~20 µs jsonschema needs per call on the request
path, and on every keystroke of a card, property by property). It only ever answers "certainly valid" or "ask jsonschema": a schema using any
keyword outside the subset below, or a value it is not sure about, falls back to
`notch_app.manifest.schema.arguments.argument_problems`, which stays the single authority on
what is wrong and how to say it. So the fast path can make a check faster, never laxer.

The subset: boolean schemas `true`; `type` (one name or a list); `properties`,
`required`, `additionalProperties` (boolean or schema); `items` (one schema),
`minItems`, `maxItems`; `minLength`, `maxLength`; `minimum`, `maximum`,
`exclusiveMinimum`, `exclusiveMaximum` (2020-12 numbers); `enum` and `const` for
text, numbers, booleans and null; `pattern`, through Notch's one engine
(`notch_app.manifest.schema.patterns`), for small work only: each match at most FAST_MATCH_WORK
and each check at most FAST_CHECK_WORK (program instructions x bytes, ~3 ms and ~15 ms at
RE2's slowest), past which the answer is "not sure" and the check goes off the loop; and
annotations (`title`, `description`, `default`, `examples`, `$comment`, `readOnly`,
`writeOnly`, `deprecated`); `format` for `email`, `idn-email`, `date` and `date-time`,
decided without jsonschema by the checks in `formats.py` (email-validator's syntax check
for an address, the very one the validator runs; jsonschema's own rule for a date;
RFC 3339 for a date-time); and `uniqueItems` over arrays of text.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, Final

from notch_app.manifest.model import Tool
from notch_app.manifest.schema.formats import FAST_CHECKS
from notch_app.manifest.schema.patterns import PatternRefused, compile_pattern

Check = Callable[[Any], bool]
"""True when the value certainly satisfies the (sub)schema; False means "not sure"."""

_ANNOTATIONS: Final = frozenset(
    {"title", "description", "default", "examples", "$comment", "readOnly", "writeOnly",
     "deprecated"}
)  # fmt: skip
DIALECTS: Final = frozenset(
    {"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft/2020-12/schema"}
)
"""The `$schema` values whose rules the fast path follows (absent means 2020-12)."""
_KEYWORDS: Final = _ANNOTATIONS | {
    "type", "properties", "required", "additionalProperties", "items", "minItems",
    "maxItems", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "enum", "const", "pattern", "format", "uniqueItems",
}  # fmt: skip
FAST_FORMATS: Final = frozenset(FAST_CHECKS)
"""The formats the fast path decides (`formats.py`, without jsonschema): cheap checks of a
short text (an address is refused unread past 320 characters). Any other format goes to
jsonschema."""
FAST_MATCH_WORK: Final = 200_000
FAST_CHECK_WORK: Final = 1_000_000
_MAX_DEPTH: Final = 16
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


class _Unsupported(Exception):
    pass


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _type_check(name: Any) -> Check:
    # Only the unambiguous cases pass: jsonschema's own rules (1.0 is an integer, True
    # is not a number) are left to jsonschema.
    if name == "string":
        return lambda v: isinstance(v, str)
    if name == "integer":
        return lambda v: isinstance(v, int) and not isinstance(v, bool)
    if name == "number":
        return _is_number
    if name == "boolean":
        return lambda v: isinstance(v, bool)
    if name == "null":
        return lambda v: v is None
    if name == "object":
        return lambda v: isinstance(v, dict)
    if name == "array":
        return lambda v: isinstance(v, list)
    raise _Unsupported


def _compile(schema: Any, depth: int) -> Check:
    if schema is True:
        return lambda v: True
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        raise _Unsupported
    if not schema.keys() <= _KEYWORDS:
        raise _Unsupported
    checks: list[Check] = []

    kind = schema.get("type")
    if kind is not None:
        names = kind if isinstance(kind, list) else [kind]
        typed = [_type_check(name) for name in names]
        checks.append(typed[0] if len(typed) == 1 else _any(typed))

    if "enum" in schema:
        if not isinstance(schema["enum"], list):
            raise _Unsupported
        checks.append(_one_of(schema["enum"]))
    if "const" in schema:  # both must hold when both are given
        checks.append(_one_of([schema["const"]]))

    low_len, high_len = schema.get("minLength"), schema.get("maxLength")
    if low_len is not None or high_len is not None:
        if not all(x is None or _is_count(x) for x in (low_len, high_len)):
            raise _Unsupported
        low, high = low_len or 0, high_len
        checks.append(
            lambda v: not isinstance(v, str) or (low <= len(v) and (high is None or len(v) <= high))
        )

    bounds = [(k, schema[k]) for k in ("minimum", "maximum", "exclusiveMinimum",
                                       "exclusiveMaximum") if k in schema]  # fmt: skip
    if bounds:
        if not all(_is_number(b) for _, b in bounds):
            raise _Unsupported
        checks.append(lambda v: not _is_number(v) or all(_within(v, k, b) for k, b in bounds))

    if "pattern" in schema:
        checks.append(_pattern_check(schema["pattern"]))

    if "format" in schema:
        checks.append(_format_check(schema["format"]))

    if "uniqueItems" in schema:
        checks.append(_unique_check(schema["uniqueItems"]))

    if any(k in schema for k in ("properties", "required", "additionalProperties")):
        checks.append(_object_check(schema, depth))

    if any(k in schema for k in ("items", "minItems", "maxItems")):
        item = _compile(schema["items"], depth + 1) if "items" in schema else None
        low_items, high_items = schema.get("minItems", 0), schema.get("maxItems")
        if not _is_count(low_items) or not (high_items is None or _is_count(high_items)):
            raise _Unsupported

        def array(v: Any) -> bool:
            if not isinstance(v, list):
                return True
            if len(v) < low_items or (high_items is not None and len(v) > high_items):
                return False
            if item is not None:
                for x in v:
                    if not item(x):
                        return False
            return True

        checks.append(array)

    return _all(checks)


# Combinators without generator expressions: this runs on every request.
def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)

    def every(v: Any) -> bool:
        for check in checks:  # noqa: SIM110 (a loop: no generator per call)
            if not check(v):
                return False
        return True

    return every


def _any(checks: list[Check]) -> Check:
    def some(v: Any) -> bool:
        for check in checks:  # noqa: SIM110 (a loop: no generator per call)
            if check(v):
                return True
        return False

    return some


def _one_of(allowed: list[Any]) -> Check:
    # Scalars of exactly the same type only: jsonschema's equality (1 == 1.0, True != 1,
    # also inside lists and objects) is left to jsonschema, and NaN never matches.
    scalars = frozenset((type(a), a) for a in allowed if type(a) in _SCALARS and a == a)
    return lambda v: type(v) in _SCALARS and (type(v), v) in scalars and v == v


def _within(value: float, keyword: str, bound: float) -> bool:
    if keyword == "minimum":
        return value >= bound
    if keyword == "maximum":
        return value <= bound
    if keyword == "exclusiveMinimum":
        return value > bound
    return value < bound


def _object_check(schema: Mapping[str, Any], depth: int) -> Check:
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list):
        raise _Unsupported
    if not all(isinstance(name, str) for name in required):
        raise _Unsupported
    known = {str(name): _compile(sub, depth + 1) for name, sub in properties.items()}
    if extra is True:
        other: Check | None = None
        closed = False
    elif extra is False:
        other, closed = None, True
    else:
        other, closed = _compile(extra, depth + 1), False
    needed = tuple(required)

    def check(v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        for name in needed:
            if name not in v:
                return False
        for name, value in v.items():
            sub = known.get(name)
            if sub is not None:
                if not sub(value):
                    return False
            elif closed or (other is not None and not other(value)):
                return False
        return True

    return check


class _Work(threading.local):
    left = 0


_work = _Work()


def _pattern_check(source: Any) -> Check:
    if not isinstance(source, str):
        raise _Unsupported
    try:
        pattern = compile_pattern(source)
    except PatternRefused:
        raise _Unsupported from None
    size = pattern.program_size

    def matches(v: Any) -> bool:
        if not isinstance(v, str):
            return True
        cost = size * (4 * len(v) + 1)  # a character is at most 4 UTF-8 bytes
        if cost > FAST_MATCH_WORK or cost > _work.left:
            return False  # not sure: the full check, off the loop
        _work.left -= cost
        return pattern.search(v)

    return matches


def _format_check(name: Any) -> Check:
    check = FAST_CHECKS.get(name) if isinstance(name, str) else None
    if check is None:
        raise _Unsupported
    return check


def _unique_check(unique: Any) -> Check:
    if unique is False:
        return lambda v: True
    if unique is not True:
        raise _Unsupported

    def unique_texts(v: Any) -> bool:
        # Texts are equal in JSON exactly when they are equal in Python; any other
        # element (1 and 1.0, objects in another key order) is left to jsonschema.
        if not isinstance(v, list):
            return True
        for item in v:
            if type(item) is not str:
                return False
        return len(set(v)) == len(v)

    return unique_texts


def compile_fast_path(schema: Any) -> Check | None:
    """The fast predicate for an inputSchema, or None when it uses anything outside the
    subset (then every call goes to jsonschema)."""
    if isinstance(schema, dict) and "$schema" in schema:
        if schema["$schema"] not in DIALECTS:
            return None
        schema = {k: v for k, v in schema.items() if k != "$schema"}
    try:
        check = _compile(schema, 0)
    except _Unsupported:
        return None

    def bounded(v: Any) -> bool:
        _work.left = FAST_CHECK_WORK  # each check's patterns share one small allowance
        return check(v)

    return bounded


_compiled: dict[int, tuple[Tool, Check | None]] = {}


def surely_valid(tool: Tool, arguments: Mapping[str, Any]) -> bool:
    """True when `arguments` certainly satisfy `tool.input_schema`. False means only
    "not sure": call `argument_problems()` for the verdict and the words."""
    hit = _compiled.get(id(tool))
    if hit is None or hit[0] is not tool:
        if len(_compiled) > 4096:  # bounded: tools are reloaded, never accumulated forever
            _compiled.clear()
        hit = (tool, compile_fast_path(tool.input_schema))
        _compiled[id(tool)] = hit
    check = hit[1]
    return check is not None and check(arguments)

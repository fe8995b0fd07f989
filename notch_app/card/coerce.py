"""Turning what a person typed or picked into the bound argument's JSON type.

A text field bound to an integer property hands over "42"; the executor must receive 42.
Text that cannot become the property's type is kept as typed (so the field still shows
it) together with an error in the card's words ("must be a whole number"); the card
keeps confirm disabled while any such error stands.

Messages never quote the value: it may be a password.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from notch_app.card.interpolate import display_value
from notch_app.card.paths import MISSING
from notch_app.card.schema import item_schema, schema_enum, schema_types
from notch_app.manifest.schema import fits_json_types, json_type

_INT_RE: Final = re.compile(r"[+-]?[0-9]+")
_FLOAT_RE: Final = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_MAX_NUMBER_CHARS: Final = 400
"""Longer "numbers" are refused before parsing (int() of huge text is quadratic)."""
_TRUE: Final = frozenset({"true", "yes", "y", "on", "1"})
_FALSE: Final = frozenset({"false", "no", "n", "off", "0"})

_SCALARS: Final = frozenset({str, int, float, bool})
"""JSON's scalar types: two values of the same one are the same value when equal."""

_ERRORS: Final = {
    "string": "must be text",
    "integer": "must be a whole number",
    "number": "must be a number",
    "boolean": "must be yes or no",
    "array": "must be a list",
    "object": "must be an object",
    "null": "must be empty",
}


@dataclass(frozen=True, slots=True)
class Coerced:
    """The result of coercing one input value.

    `value` is the typed value (MISSING = leave the argument absent); when `error` is
    set, `value` is the raw input unchanged so the field keeps showing it.
    """

    value: Any
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def __repr__(self) -> str:
        # Values stay out of reprs: this may be a passwordField's value.
        return f"Coerced(value=<{type(self.value).__name__}>, error={self.error!r})"


def is_blank(value: Any) -> bool:
    """Empty for the card's purposes: absent, null, whitespace-only text, an empty list/object."""
    if value is None or value is MISSING:
        return True
    if isinstance(value, str):
        return value.strip() == ""
    if isinstance(value, list | tuple | Mapping):
        return len(value) == 0
    return False


def same_value(a: Any, b: Any) -> bool:
    """JSON equality: unlike `==`, True is not 1 and 1.0 is the same as 1."""
    if a is b:
        return True
    kind = type(a)
    if kind is type(b) and kind in _SCALARS:
        return bool(a == b)  # text typed over text (a keystroke): no JSON types to find
    ta, tb = json_type(a), json_type(b)
    if {ta, tb} <= {"integer", "number"}:
        return bool(a == b)
    if ta != tb:
        return False
    if ta == "array":
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if ta == "object":
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return bool(a == b)


def coerce(
    raw: Any, prop_schema: Mapping[str, Any], root: Mapping[str, Any] | None = None
) -> Coerced:
    """Convert `raw` (text typed, an option picked, a toggle flipped, chips) to the type
    `prop_schema` asks for: string, integer, number, boolean, array (of strings or of
    the `items` type), an `enum`/`const` value, or a `type` list such as
    ["string", "null"]. `root` is the inputSchema `prop_schema` lives in (its `$ref`s
    are read there); without it `prop_schema` stands alone.

    Blank input: null when the schema allows null, the text as typed for a string,
    else MISSING (the argument is left out; the schema check then says whether it is
    required). Never raises.
    """
    types, allowed = _kinds(prop_schema, root)
    if type(raw) is str and allowed is None and "string" in types and raw and not raw.isspace():
        return Coerced(raw)  # text typed into a text field (a keystroke): as it is
    nullable = "null" in types or (allowed is not None and None in allowed)

    if is_blank(raw) and not isinstance(raw, list | tuple | Mapping):
        if allowed is not None and any(same_value(raw, v) for v in allowed):
            return Coerced(raw)
        if nullable:
            return Coerced(None)
        if isinstance(raw, str) and ("string" in types or not types) and allowed is None:
            return Coerced(raw)
        return Coerced(MISSING)

    if allowed is not None:
        return _coerce_enum(raw, allowed)
    if not types:
        return Coerced(list(raw) if isinstance(raw, tuple) else raw)

    if fits_json_types(raw, types):
        if json_type(raw) == "array":
            return _coerce_array(raw, prop_schema, root)
        return Coerced(raw)
    first_failure: Coerced | None = None
    for kind in types:
        if kind == "null":
            continue
        result = _coerce_to(raw, kind, prop_schema, root)
        if result.ok:
            return result
        first_failure = first_failure or result
    if first_failure is not None:
        return Coerced(raw, first_failure.error)
    return Coerced(raw, _ERRORS["null"])


_KINDS: dict[int, tuple[Mapping[str, Any], Any, list[str], list[Any] | None]] = {}
"""id(property schema) → (it, its root, its types, its enum): a field's schema is read
once, not on every keystroke. Each entry holds its schema, so an id is never reused;
schemas are a loaded tool's, never changed in place."""
_MAX_KINDS: Final = 4096


def _kinds(
    prop_schema: Mapping[str, Any], root: Mapping[str, Any] | None
) -> tuple[list[str], list[Any] | None]:
    """The JSON types and the allowed values of `prop_schema` (read-only lists)."""
    kept = _KINDS.get(id(prop_schema))
    if kept is not None and kept[0] is prop_schema and kept[1] is root:
        return kept[2], kept[3]
    types = schema_types(prop_schema, root)
    allowed = schema_enum(prop_schema, root)
    if len(_KINDS) >= _MAX_KINDS:
        _KINDS.pop(next(iter(_KINDS)))
    _KINDS[id(prop_schema)] = (prop_schema, root, types, allowed)
    return types, allowed


def _coerce_enum(raw: Any, allowed: list[Any]) -> Coerced:
    for v in allowed:
        if same_value(raw, v):
            return Coerced(v)
    if isinstance(raw, str):
        # A text field bound to an enum of numbers or booleans: "2" picks 2.
        typed = raw.strip()
        for v in allowed:
            if not isinstance(v, str) and typed in (display_value(v), _json_text(v)):
                return Coerced(v)
    shown = ", ".join(repr(v) for v in allowed[:12]) + (", …" if len(allowed) > 12 else "")
    return Coerced(raw, f"must be one of {shown}")


def _json_text(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return display_value(v)


def _coerce_to(
    raw: Any, kind: str, schema: Mapping[str, Any], root: Mapping[str, Any] | None
) -> Coerced:
    error = _ERRORS.get(kind, "has the wrong type")
    if kind == "string":
        if isinstance(raw, bool):
            return Coerced("true" if raw else "false")
        if isinstance(raw, int | float):
            return Coerced(display_value(raw))
        return Coerced(raw, error)
    if kind == "integer":
        return _to_integer(raw, error)
    if kind == "number":
        return _to_number(raw, error)
    if kind == "boolean":
        if isinstance(raw, int | float) and raw in (0, 1):
            return Coerced(bool(raw))
        if isinstance(raw, str):
            word = raw.strip().lower()
            if word in _TRUE:
                return Coerced(True)
            if word in _FALSE:
                return Coerced(False)
        return Coerced(raw, error)
    if kind == "array":
        if isinstance(raw, str):
            parts = [p.strip() for p in raw.split(",")]
            return _coerce_array([p for p in parts if p], schema, root, keep_on_error=raw)
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            return _coerce_array([raw], schema, root, keep_on_error=raw)
        return Coerced(raw, error)
    return Coerced(raw, error)


def _typed_number(raw: Any, error: str) -> str | Coerced:
    """Typed text on its way to a number, stripped; or the answer when the text already
    settles it (not text, too long, a whole number)."""
    if not isinstance(raw, str):
        return Coerced(raw, error)
    text = raw.strip()
    if len(text) > _MAX_NUMBER_CHARS:
        return Coerced(raw, "is too long to be a number")
    if _INT_RE.fullmatch(text):
        return Coerced(int(text))
    return text


def _to_integer(raw: Any, error: str) -> Coerced:
    if isinstance(raw, float) and not isinstance(raw, bool):
        if math.isfinite(raw) and raw.is_integer():
            return Coerced(int(raw))
        return Coerced(raw, error)
    text = _typed_number(raw, error)
    if isinstance(text, Coerced):
        return text
    if _FLOAT_RE.fullmatch(text):
        try:
            d = Decimal(text)
        except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
            return Coerced(raw, error)
        if d.is_finite() and abs(d.adjusted()) <= _MAX_NUMBER_CHARS and d == d.to_integral():
            return Coerced(int(d))
    return Coerced(raw, error)


def _to_number(raw: Any, error: str) -> Coerced:
    text = _typed_number(raw, error)
    if isinstance(text, Coerced):
        return text
    if _FLOAT_RE.fullmatch(text):
        f = float(text)
        if math.isfinite(f):
            return Coerced(f)
    return Coerced(raw, error)


def _coerce_array(
    raw: list[Any] | tuple[Any, ...],
    schema: Mapping[str, Any],
    root: Mapping[str, Any] | None,
    keep_on_error: Any = None,
) -> Coerced:
    element_schema = item_schema(schema, root)
    out: list[Any] = []
    for i, element in enumerate(raw):
        result = coerce(element, element_schema, root if root is not None else schema)
        if not result.ok:
            return Coerced(
                raw if keep_on_error is None else keep_on_error,
                f"has an entry ({_ordinal(i + 1)}) that {result.error}",
            )
        if result.value is not MISSING:
            out.append(result.value)
    return Coerced(out)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"

"""Checking a tool call's arguments against the tool's `inputSchema`.

Used before a card is shown (the service), while the person edits (confirm stays disabled
while the final arguments do not validate) and for preview fixtures. Messages never quote
the offending value: it may be a password.

Every check runs under a time budget (`patterns.time_budget`, 1 s) with Notch's own
validator class (`schema_validator`): patterns in linear time, no keyword past the budget.
A check that runs out of time fails closed with one problem that says so.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from notch_app.manifest.model import Tool
from notch_app.manifest.paths import join_pointer
from notch_app.manifest.schema.patterns import CHECK_BUDGET_S, CheckTooSlow, time_budget

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

_MAX_PROBLEMS = 50

_TYPE_WORDS = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "empty",
}


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    """One way the arguments fail the tool's inputSchema."""

    path: str
    """Dotted argument path (`user.name`, `recipients.0`); empty for the whole object."""
    pointer: str
    """JSON Pointer into the arguments (`/user/name`)."""
    message: str
    """What is wrong, in words, without quoting the value."""

    def __str__(self) -> str:
        return f"{self.path or 'arguments'}: {self.message}"


def json_type(value: Any) -> str | None:
    """The JSON type name of a Python value (`integer` for ints, `number` for floats,
    `array` for lists and tuples); None for a value JSON cannot hold."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return None


def fits_json_types(value: Any, types: Collection[str]) -> bool:
    """Whether `value` has one of the JSON `types` (an integer is also a `number`)."""
    kind = json_type(value)
    return kind in types or (kind == "integer" and "number" in types)


_validators: dict[int, tuple[Tool, Validator]] = {}


def schema_validator(tool: Tool) -> Validator:
    """A compiled validator for the tool's inputSchema (cached per tool object)."""
    hit = _validators.get(id(tool))
    if hit is not None and hit[0] is tool:
        return hit[1]
    # jsonschema loads with the first check the fast path cannot decide: an idle Notch,
    # whose bundled fixtures the fast path clears at load, never imports it (~4 MiB).
    from notch_app.manifest.schema.validator import new_validator

    validator = new_validator(tool.input_schema)
    if len(_validators) > 4096:  # bounded: tools are reloaded, never accumulated forever
        _validators.clear()
    _validators[id(tool)] = (tool, validator)
    return validator


def _describe(error: ValidationError) -> str:
    from notch_app.manifest.schema.validator import UNCHECKED

    v = error.validator
    value: Any = error.validator_value
    if v == UNCHECKED:
        return error.message  # ours, worded without the value
    if v == "type":
        kinds = value if isinstance(value, list) else [value]
        return "must be " + " or ".join(_TYPE_WORDS.get(str(k), str(k)) for k in kinds)
    if v == "required":
        missing = [
            name
            for name in value
            if isinstance(error.instance, dict) and name not in error.instance
        ]
        return "is missing " + ", ".join(repr(m) for m in missing)
    if v == "enum":
        shown = ", ".join(repr(x) for x in list(value)[:12])
        return f"must be one of {shown}"
    if v == "const":
        return f"must be {value!r}"
    if v in ("minimum", "exclusiveMinimum"):
        return f"must be {'at least' if v == 'minimum' else 'more than'} {value}"
    if v in ("maximum", "exclusiveMaximum"):
        return f"must be {'at most' if v == 'maximum' else 'less than'} {value}"
    if v == "minLength":
        return "must not be empty" if value == 1 else f"must be at least {value} characters"
    if v == "maxLength":
        return f"must be at most {value} characters"
    if v == "minItems":
        return "needs at least one entry" if value == 1 else f"needs at least {value} entries"
    if v == "maxItems":
        return f"allows at most {value} entries"
    if v == "pattern":
        return f"must match the pattern {value}"
    if v == "format":
        return f"must be a valid {value}"
    if v == "additionalProperties":
        return "has properties the tool does not accept"
    if v == "uniqueItems":
        return "must not repeat an entry"
    if v == "multipleOf":
        return f"must be a multiple of {value}"
    return f"does not satisfy the schema's {v!r} rule"


def argument_problems(
    tool: Tool, arguments: Mapping[str, Any], budget_s: float = CHECK_BUDGET_S
) -> list[ArgumentProblem]:
    """Every way `arguments` fails `tool.input_schema` (at most 50), deepest first.

    Never raises for bad arguments; an invalid inputSchema is reported by `notch validate`
    and such a tool is never loaded. A check past `budget_s` seconds stops with one
    problem for the whole object (fail closed).
    """
    validator = schema_validator(tool)
    out: list[ArgumentProblem] = []
    try:
        with time_budget(budget_s):
            found = list(validator.iter_errors(arguments))
    except CheckTooSlow:
        return [
            ArgumentProblem(
                "",
                "",
                f"could not be checked within {budget_s:g} s; send smaller arguments",
            )
        ]
    except RecursionError:  # nesting deeper than Python's stack: refused, not a traceback
        return [ArgumentProblem("", "", "are nested too deeply to check; flatten them")]
    errors = sorted(
        found,
        key=lambda e: (-len(e.absolute_path), list(map(str, e.absolute_path))),
    )
    for error in errors[:_MAX_PROBLEMS]:
        parts = [str(p) for p in error.absolute_path]
        if error.validator == "required" and isinstance(error.instance, dict):
            # Point at the missing property itself, so the card can show it at the field.
            required: Any = error.validator_value
            for name in required:
                if name not in error.instance:
                    sub = [*parts, str(name)]
                    out.append(
                        ArgumentProblem(
                            ".".join(sub),
                            join_pointer("", *sub),
                            "is required",
                        )
                    )
            continue
        out.append(
            ArgumentProblem(
                ".".join(parts),
                join_pointer("", *parts),
                _describe(error),
            )
        )
    return out

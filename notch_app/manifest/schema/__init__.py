"""A tool's `inputSchema` (JSON Schema 2020-12): read, checked, and held against a call.

- `navigator.py`: the one way to read a schema: what lives at an argument path and what
  it says, through `$ref`, combinators and items (validation, the card, guards and the
  tool's facts all read it so);
- `check.py`: is an `inputSchema` a valid JSON Schema? A fast, exact keyword check;
- `arguments.py`: a call's arguments against the schema, each problem at its place;
- `fast_path.py`: the same answer for plain schemas without jsonschema, when it is sure
  (`formats.py`: the formats it decides);
- `validator.py`: the jsonschema validator every argument check uses;
- `patterns/`: schema patterns, ECMA-262 translated to RE2 and matched in linear time
  under a time budget (the only place Notch runs a schema pattern).
"""

from typing import TYPE_CHECKING, Any

from notch_app.manifest.schema.navigator import SchemaNavigator, navigator_for

if TYPE_CHECKING:
    from notch_app.manifest.schema.arguments import (
        ArgumentProblem,
        argument_problems,
        fits_json_types,
        json_type,
    )
    from notch_app.manifest.schema.check import (
        SIMPLE_TYPES,
        first_schema_error,
        pattern_errors,
        unchecked_reason,
    )
    from notch_app.manifest.schema.fast_path import (
        DIALECTS,
        Check,
        compile_fast_path,
        surely_valid,
    )
    from notch_app.manifest.schema.validator import UNCHECKED, new_validator

_WHERE = {
    **dict.fromkeys(("ArgumentProblem", "argument_problems", "fits_json_types", "json_type"),
                    "arguments"),
    **dict.fromkeys(("SIMPLE_TYPES", "first_schema_error", "pattern_errors", "unchecked_reason"),
                    "check"),
    **dict.fromkeys(("DIALECTS", "Check", "compile_fast_path", "surely_valid"), "fast_path"),
    **dict.fromkeys(("UNCHECKED", "new_validator"), "validator"),
}  # fmt: skip


def __getattr__(name: str) -> Any:
    """The names above, each loaded from its module on first use: jsonschema and the
    manifest model load only for a check, not for reading a schema (the navigator),
    which is all a tool's facts from `tools/list` need."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{where}"), name)


__all__ = [
    "DIALECTS",
    "SIMPLE_TYPES",
    "UNCHECKED",
    "ArgumentProblem",
    "Check",
    "SchemaNavigator",
    "argument_problems",
    "compile_fast_path",
    "first_schema_error",
    "fits_json_types",
    "json_type",
    "navigator_for",
    "new_validator",
    "pattern_errors",
    "surely_valid",
    "unchecked_reason",
]

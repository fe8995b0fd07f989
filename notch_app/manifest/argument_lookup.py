"""Where a binding path leads in a tool's inputSchema, in the words validation reports.

The schema itself is read by `schema_navigator` (shared with the card and guards); this
module turns "nothing declared there" into the rule and the fix a manifest author sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from notch_app.manifest.facts import ARRAY_LENGTH
from notch_app.manifest.schema import navigator_for
from notch_app.manifest.structure import did_you_mean

LENGTH_SCHEMA: dict[str, Any] = {"type": "integer", "minimum": 0}


@dataclass(frozen=True)
class Lookup:
    """Where a binding path leads in a tool's inputSchema."""

    schema: dict[str, Any] | None
    """The property's schema when found (references followed)."""
    rule: str | None = None
    message: str = ""


def schema_types(root: dict[str, Any], schema: Any) -> set[str]:
    """JSON types a property of `root` may hold; empty when the schema does not say."""
    return set(navigator_for(root).types(schema))


def lookup(input_schema: dict[str, Any], path: str) -> Lookup:
    """Follow a dotted binding path through the inputSchema (properties, array elements
    by index, `length` of an array)."""
    nav = navigator_for(input_schema)
    current: dict[str, Any] = nav.at("") or {}
    segments = path.split(".")
    for i, segment in enumerate(segments):
        found = nav.child(current, segment)
        if found is None:
            last = i == len(segments) - 1
            return _not_found(nav.types(current), nav.properties(current), path, segments[:i], last)
        current = found
    return Lookup(current)


def _not_found(
    types: frozenset[str], props: dict[str, Any] | None, path: str, walked: list[str], last: bool
) -> Lookup:
    """What to say when `path` leaves the schema after `walked` (or what `.length` is)."""
    segment = path.split(".")[len(walked)]
    if segment == ARRAY_LENGTH and last and "array" in types and props is None:
        return Lookup(LENGTH_SCHEMA)
    here = ".".join(walked) or "the arguments"
    if props is None:
        if walked and types and "object" not in types:
            kind = " or ".join(sorted(types))
            hint = (
                f" (for how many elements, write {'.'.join([*walked, ARRAY_LENGTH])!r})"
                if "array" in types
                else ""
            )
            return Lookup(
                None,
                "binding-into-scalar",
                f"{path!r} walks into {here!r}, which is {kind}, not an object{hint}; bind "
                f"{here!r} itself or declare it as an object with properties",
            )
        return Lookup(
            None,
            "binding-unknown-argument",
            f"{path!r} names {segment!r}, but {here!r} declares no properties in the "
            'inputSchema; declare it under "properties"',
        )
    existing = ", ".join(sorted(props)) or "none"
    return Lookup(
        None,
        "binding-unknown-argument",
        f"{path!r} is not an argument of this tool{did_you_mean(segment, props)}; "
        f"{here if walked else 'the inputSchema'} has: {existing}",
    )


__all__ = ["ARRAY_LENGTH", "LENGTH_SCHEMA", "Lookup", "lookup", "schema_types"]

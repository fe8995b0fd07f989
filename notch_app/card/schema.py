"""What a tool's inputSchema says about one bound argument, as the card needs it.

A thin face over `manifest.schema_navigator`, the one reader of inputSchemas that
validation and guards use too, so the card edits an argument as the type validation
checked it against. Anything the schema does not say reads as `{}` (no constraints), so an
unusual schema never stops a card from working.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from notch_app.manifest.schema import navigator_for

_EMPTY: Mapping[str, Any] = {}


def property_schema(input_schema: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """The schema of the argument at dotted `path` (references followed), or `{}` when
    the schema does not say."""
    found = navigator_for(input_schema).at(path)
    return found if found is not None else _EMPTY


def is_argument_required(input_schema: Mapping[str, Any], path: str) -> bool:
    """Whether the schema lists the path's last segment in its parent's `required`."""
    return navigator_for(input_schema).is_required(path)


def schema_types(schema: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> list[str]:
    """The JSON types `schema` (a node of `root`, the inputSchema) allows; [] = any."""
    return navigator_for(schema if root is None else root).type_list(schema)


def schema_enum(
    schema: Mapping[str, Any], root: Mapping[str, Any] | None = None
) -> list[Any] | None:
    """The allowed values of `schema` (a node of `root`), else None."""
    return navigator_for(schema if root is None else root).enum(schema)


def item_schema(
    schema: Mapping[str, Any], root: Mapping[str, Any] | None = None
) -> Mapping[str, Any]:
    """The schema of an element of the array `schema` (a node of `root`), `{}` if unsaid."""
    found = navigator_for(schema if root is None else root).items(schema)
    return found if found is not None else _EMPTY

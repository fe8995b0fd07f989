"""Is a tool's `inputSchema` a valid JSON Schema (2020-12)? A fast, exact keyword check.

jsonschema's own check (validating against the 2020-12 meta-schema) costs ~20 ms per
schema because of `$dynamicRef` resolution; a manifest of 1,000 tools would take 20 s.
This walks the schema once, iteratively, checking each keyword's value the way the
2020-12 meta-schema does (unknown keywords are allowed there too). A test holds it to
jsonschema's verdict on a corpus and on generated schemas. Schemas that declare another
`$schema` dialect are checked by jsonschema itself.

It is stricter in one place, for every dialect: `pattern` and `patternProperties` keys
must be patterns Notch runs (ECMA-262, linear time: `notch_app.manifest.schema.patterns`), because
Notch runs them on an agent's arguments and the person's edits; and a schema may not mix
`unevaluatedProperties` with `patternProperties` (see `schema_validator`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from notch_app.manifest.paths import join_pointer
from notch_app.manifest.schema.patterns import pattern_problem, shown_pattern

DIALECT_2020_12: Final = "https://json-schema.org/draft/2020-12/schema"
SIMPLE_TYPES: Final = ("array", "boolean", "integer", "null", "number", "object", "string")

_SCHEMA: Final = frozenset(
    {"items", "contains", "additionalProperties", "propertyNames", "if", "then", "else",
     "not", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
)  # fmt: skip
_SCHEMA_MAP: Final = frozenset(
    {"$defs", "definitions", "properties", "patternProperties", "dependentSchemas"}
)
_SCHEMA_LIST: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_STRING: Final = frozenset(
    {"$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment",
     "$recursiveRef", "$recursiveAnchor", "title", "description", "format", "pattern", "contentEncoding",
     "contentMediaType"}
)  # fmt: skip
_NUMBER: Final = frozenset({"maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"})
_COUNT: Final = frozenset(
    {"maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains",
     "maxProperties", "minProperties"}
)  # fmt: skip
_BOOLEAN: Final = frozenset({"uniqueItems", "deprecated", "readOnly", "writeOnly"})
_ANCHORS: Final = frozenset({"$anchor", "$dynamicAnchor", "$recursiveAnchor"})
_ANCHOR: Final = re.compile(r"^[A-Za-z_][-A-Za-z0-9._]*$")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return value.is_integer() and value >= 0
    return isinstance(value, int) and value >= 0


def _unique(values: list[Any]) -> bool:
    seen: list[Any] = []
    for v in values:
        # JSON equality: 1 and true differ, 1 and 1.0 do not.
        key = (type(v) is bool, v)
        if key in seen:
            return False
        seen.append(key)
    return True


def _string_set(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value) and _unique(value)


def _flags(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, bool) for v in value.values())


def _pattern_error(pattern: str) -> str | None:
    why = pattern_problem(pattern)
    if why is None:
        return None
    return f"the pattern {shown_pattern(pattern)} cannot be run: {why}"


def schema_errors(schema: Any, base: str = "") -> Iterator[tuple[str, str]]:
    """(JSON Pointer, message) for every keyword whose value is not what 2020-12 allows."""
    stack: list[tuple[Any, str]] = [(schema, base)]
    while stack:
        node, here = stack.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            yield here, "a schema must be an object or true/false"
            continue
        for key, value in node.items():
            at = join_pointer(here, key)
            if key in _SCHEMA:
                stack.append((value, at))
            elif key in _SCHEMA_MAP:
                if not isinstance(value, dict):
                    yield at, f"{key!r} must be an object whose values are schemas"
                    continue
                for name, sub in value.items():
                    if key == "patternProperties" and (why := _pattern_error(name)):
                        yield join_pointer(at, name), why
                    stack.append((sub, join_pointer(at, name)))
            elif key in _SCHEMA_LIST:
                if not isinstance(value, list) or not value:
                    yield at, f"{key!r} must be a non-empty list of schemas"
                    continue
                stack.extend((sub, join_pointer(at, i)) for i, sub in enumerate(value))
            elif key == "type":
                if isinstance(value, str):
                    if value not in SIMPLE_TYPES:
                        yield at, f"{value!r} is not a JSON Schema type"
                elif not (
                    isinstance(value, list)
                    and value
                    and all(isinstance(v, str) and v in SIMPLE_TYPES for v in value)
                    and _unique(value)
                ):
                    yield at, "'type' must be a type name or a non-empty list of distinct ones"
            elif key in _STRING:
                if not isinstance(value, str):
                    yield at, f"{key!r} must be a string"
                elif key == "pattern" and (why := _pattern_error(value)):
                    yield at, why
                elif key in _ANCHORS and not _ANCHOR.match(value):
                    yield at, f"{key!r} must be a plain name (letters, digits, '-', '_', '.')"
                elif key == "$id" and "#" in value[:-1]:
                    yield at, "'$id' must not carry a fragment (nothing after '#')"
            elif key in _NUMBER:
                if not _is_number(value):
                    yield at, f"{key!r} must be a number"
            elif key == "multipleOf":
                if not _is_number(value) or value <= 0:
                    yield at, "'multipleOf' must be a number greater than 0"
            elif key in _COUNT:
                if not _is_count(value):
                    yield at, f"{key!r} must be a whole number, 0 or more"
            elif key in _BOOLEAN:
                if not isinstance(value, bool):
                    yield at, f"{key!r} must be true or false"
            elif key == "required":
                if not _string_set(value):
                    yield at, "'required' must be a list of distinct property names"
            elif key == "enum" or key == "examples":
                if not isinstance(value, list):
                    yield at, f"{key!r} must be a list"
            elif key == "dependentRequired":
                if not isinstance(value, dict) or not all(_string_set(v) for v in value.values()):
                    yield at, "'dependentRequired' must map names to lists of distinct names"
            elif key == "dependencies":
                if not isinstance(value, dict):
                    yield at, "'dependencies' must be an object"
                    continue
                for name, sub in value.items():
                    if isinstance(sub, list):
                        if not _string_set(sub):
                            yield join_pointer(at, name), "must be a list of distinct names"
                    else:
                        stack.append((sub, join_pointer(at, name)))
            elif key == "$vocabulary" and not _flags(value):
                yield at, "'$vocabulary' must map URIs to true/false"


def first_schema_error(schema: Any) -> tuple[str, str] | None:
    """The first problem with `schema` as (relative JSON Pointer, message), or None.

    2020-12 schemas (and schemas without `$schema`) use the fast check above; any other
    declared dialect is checked by jsonschema against its own meta-schema.
    """
    dialect = schema.get("$schema") if isinstance(schema, dict) else None
    if dialect is None or str(dialect).rstrip("#") == DIALECT_2020_12:
        for error in schema_errors(schema):
            return error
    else:  # jsonschema only for another dialect: 2020-12 schemas load without it
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import best_match
        from jsonschema.validators import validator_for

        cls = validator_for(schema, default=Draft202012Validator)
        error = best_match(cls(cls.META_SCHEMA).iter_errors(schema))
        if error is not None:
            return join_pointer("", *error.absolute_path), " ".join(error.message.split())[:160]
        for found in pattern_errors(schema):
            return found
    mixed = unchecked_reason(schema)
    if mixed is not None:
        where = next(
            (
                join_pointer(at, "unevaluatedProperties")
                for node, at in schema_nodes(schema)
                if "unevaluatedProperties" in node
            ),
            "",
        )
        return where, mixed
    return None


def unchecked_reason(schema: Any) -> str | None:
    """Why Notch cannot check arguments against `schema` in bounded time, or None."""
    keys = set(_keywords_in(schema))
    if "unevaluatedProperties" in keys and "patternProperties" in keys:
        return (
            "unevaluatedProperties together with patternProperties is more than Notch checks; "
            'use "additionalProperties" beside the patternProperties instead'
        )
    return None


def _keywords_in(node: Any) -> Iterator[str]:
    # Every key of every object in the schema, subschemas and data alike: a superset of
    # the keywords used, which only makes the refusal above err on the careful side.
    stack = [node]
    while stack:
        here = stack.pop()
        if isinstance(here, dict):
            yield from (k for k in here if isinstance(k, str))
            stack.extend(here.values())
        elif isinstance(here, list):
            stack.extend(here)


# Keywords whose value is a schema, a map of schemas, or a list of schemas, in any draft
# from 3 to 2020-12 (`pattern_errors` must find patterns whatever `$schema` says).
_ANY_DRAFT_SCHEMA: Final = _SCHEMA | {"additionalItems", "extends"}
_ANY_DRAFT_MAP: Final = _SCHEMA_MAP | {"dependencies"}
_ANY_DRAFT_LIST: Final = _SCHEMA_LIST | {"items", "extends", "type", "disallow"}


def schema_nodes(schema: Any, base: str = "") -> Iterator[tuple[dict[str, Any], str]]:
    """Every subschema object in `schema` with its JSON Pointer, for any draft."""
    stack: list[tuple[Any, str]] = [(schema, base)]
    while stack:
        node, here = stack.pop()
        if not isinstance(node, dict):
            continue
        yield node, here
        for key, value in node.items():
            at = join_pointer(here, key)
            if key in _ANY_DRAFT_MAP and isinstance(value, dict):
                stack.extend((sub, join_pointer(at, name)) for name, sub in value.items())
            elif key in _ANY_DRAFT_LIST and isinstance(value, list):
                stack.extend((sub, join_pointer(at, i)) for i, sub in enumerate(value))
            elif key in _ANY_DRAFT_SCHEMA:
                stack.append((value, at))


def pattern_errors(schema: Any, base: str = "") -> Iterator[tuple[str, str]]:
    """(JSON Pointer, message) for every `pattern` and `patternProperties` key Notch does
    not run, in a schema of any draft."""
    for node, here in schema_nodes(schema, base):
        pattern = node.get("pattern")
        if isinstance(pattern, str) and (why := _pattern_error(pattern)):
            yield join_pointer(here, "pattern"), why
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict):
            for name in patterns:
                if why := _pattern_error(name):
                    yield join_pointer(join_pointer(here, "patternProperties"), name), why

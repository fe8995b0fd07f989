"""Finding the JSON Schema of one bound argument inside a tool's inputSchema.

A card input bound to `user.name` edits the property reached by walking `properties`
along the dotted path (`items` for a numeric segment). Local `$ref`s (`#/$defs/...`) and
`allOf`/`anyOf`/`oneOf` branches are looked through; anything else reads as `{}` (no
constraints), so an unusual schema never stops a card from working.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from notch_app.manifest.schema_refs import MAX_REF_HOPS, ref_target

_EMPTY: Mapping[str, Any] = {}


def _resolve(root: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow local `$ref`s (bounded, so a cycle cannot loop); a reference that names
    nothing, or something that is not a schema object, leaves the node as it is."""
    for _ in range(MAX_REF_HOPS):
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return node
        target = ref_target(root, ref)
        if not isinstance(target, Mapping):
            return node
        node = target
    return node


def _branches(root: Mapping[str, Any], node: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The node itself, then its allOf/anyOf/oneOf branches (one level, resolved)."""
    yield node
    for key in ("allOf", "anyOf", "oneOf"):
        subs = node.get(key)
        if isinstance(subs, list):
            for sub in subs:
                if isinstance(sub, Mapping):
                    yield _resolve(root, sub)


def _child(root: Mapping[str, Any], node: Mapping[str, Any], seg: str) -> Mapping[str, Any] | None:
    for branch in _branches(root, node):
        props = branch.get("properties")
        if isinstance(props, Mapping) and isinstance(props.get(seg), Mapping):
            return _resolve(root, props[seg])
    if seg.isdigit():
        for branch in _branches(root, node):
            prefix = branch.get("prefixItems")
            if isinstance(prefix, list) and int(seg) < len(prefix):
                item = prefix[int(seg)]
                if isinstance(item, Mapping):
                    return _resolve(root, item)
            items = branch.get("items")
            if isinstance(items, Mapping):
                return _resolve(root, items)
    for branch in _branches(root, node):
        extra = branch.get("additionalProperties")
        if isinstance(extra, Mapping):
            return _resolve(root, extra)
    return None


def property_schema(input_schema: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """The schema of the argument at dotted `path`, or `{}` when the schema does not say."""
    node = _resolve(input_schema, input_schema)
    for seg in path.split("."):
        child = _child(input_schema, node, seg)
        if child is None:
            return _EMPTY
        node = child
    return node


def is_argument_required(input_schema: Mapping[str, Any], path: str) -> bool:
    """Whether the schema lists the path's last segment in its parent's `required`."""
    parent_path, _, leaf = path.rpartition(".")
    parent = property_schema(input_schema, parent_path) if parent_path else input_schema
    parent = _resolve(input_schema, parent)
    for branch in [parent, *_all_of(input_schema, parent)]:
        req = branch.get("required")
        if isinstance(req, list) and leaf in req:
            return True
    return False


def _all_of(root: Mapping[str, Any], node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    subs = node.get("allOf")
    if not isinstance(subs, list):
        return []
    return [_resolve(root, s) for s in subs if isinstance(s, Mapping)]


def schema_types(schema: Mapping[str, Any]) -> list[str]:
    """The JSON types a schema allows, from `type` or its anyOf/oneOf branches; [] = any."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    out: list[str] = []
    for key in ("anyOf", "oneOf"):
        subs = schema.get(key)
        if isinstance(subs, list):
            for sub in subs:
                if isinstance(sub, Mapping):
                    for t in schema_types(sub):
                        if t not in out:
                            out.append(t)
                    if "const" in sub and sub["const"] is None and "null" not in out:
                        out.append("null")
    return out


def schema_enum(schema: Mapping[str, Any]) -> list[Any] | None:
    """The allowed values (`enum`, `const`, or consts of anyOf/oneOf branches), else None."""
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    if "const" in schema:
        return [schema["const"]]
    for key in ("anyOf", "oneOf"):
        subs = schema.get(key)
        if (
            isinstance(subs, list)
            and subs
            and all(
                isinstance(s, Mapping) and ("const" in s or isinstance(s.get("enum"), list))
                for s in subs
            )
        ):
            values: list[Any] = []
            for s in subs:
                values.extend([s["const"]] if "const" in s else s["enum"])
            return values
    return None

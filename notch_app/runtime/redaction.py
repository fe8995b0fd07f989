"""Keeping secrets out of the decision log.

A value is secret when the tool's card binds it to a `passwordField`, or when the
inputSchema marks the property `format: password` or `writeOnly: true`. Nothing on disk
holds it: the store keeps `REDACTED` in its place (and the paths it withheld), the log
shows `REDACTED`; only the live decision sent to the asking executor carries the value.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from notch_app.manifest.bindings import MalformedBinding, parse_single_binding
from notch_app.manifest.model import Tool
from notch_app.manifest.view import PasswordFieldBlock, iter_blocks

if TYPE_CHECKING:
    from notch_app.runtime.catalog import Catalog

REDACTED: Final = "•••••"

_cache: dict[int, tuple[Tool, frozenset[str]]] = {}


def _schema_secrets(schema: Any, prefix: str, out: set[str], depth: int = 0) -> None:
    if not isinstance(schema, dict) or depth > 16:
        return
    props = schema.get("properties")
    if not isinstance(props, dict):
        return
    for name, sub in props.items():
        path = f"{prefix}.{name}" if prefix else str(name)
        if isinstance(sub, dict):
            if sub.get("format") == "password" or sub.get("writeOnly") is True:
                out.add(path)
            _schema_secrets(sub, path, out, depth + 1)


def secret_paths(tool: Tool) -> frozenset[str]:
    """Dotted argument paths whose values must never reach the log (cached per tool)."""
    hit = _cache.get(id(tool))
    if hit is not None and hit[0] is tool:
        return hit[1]
    out: set[str] = set()
    if tool.confirmation is not None:
        for block in iter_blocks(tool.confirmation.root):
            if isinstance(block, PasswordFieldBlock):
                # A malformed bind is reported by `notch validate`; nothing to redact then.
                with contextlib.suppress(MalformedBinding):
                    out.add(parse_single_binding(block.bind))
    _schema_secrets(tool.input_schema, "", out)
    result = frozenset(out)
    if len(_cache) > 4096:
        _cache.clear()
    _cache[id(tool)] = (tool, result)
    return result


def redact(arguments: Mapping[str, Any], paths: frozenset[str]) -> dict[str, Any]:
    """A copy of `arguments` with the value at every path in `paths` replaced by REDACTED.

    Paths that are absent stay absent. Never modifies `arguments`.
    """
    out = copy.deepcopy(dict(arguments))
    for path in paths:
        node, last = _parent(out, path)
        if node is not None and last in node:
            node[last] = REDACTED
    return out


def _parent(tree: Any, path: str) -> tuple[Any, str]:
    """(the dict holding the last part of dotted `path`, or None; that last part)."""
    parts = path.split(".")
    node: Any = tree
    for part in parts[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            break
    return (node if isinstance(node, dict) else None), parts[-1]


def present_paths(arguments: Mapping[str, Any], paths: frozenset[str]) -> tuple[str, ...]:
    """The paths of `paths` that hold a value in `arguments`, sorted."""
    out = []
    for path in paths:
        node, last = _parent(arguments, path)
        if node is not None and last in node:
            out.append(path)
    return tuple(sorted(out))


def without(arguments: Mapping[str, Any], paths: Sequence[str]) -> dict[str, Any]:
    """A copy of `arguments` with the values at `paths` removed (absent, to be asked for
    again). Never modifies `arguments`."""
    out = copy.deepcopy(dict(arguments))
    for path in paths:
        node, last = _parent(out, path)
        if node is not None:
            node.pop(last, None)
    return out


def secrets_in(catalog: Catalog, integration_id: str, tool_name: str) -> frozenset[str] | None:
    """`secret_paths` of a tool in `catalog`; None when it is not installed there."""
    tool = catalog.tool(integration_id, tool_name)
    return None if tool is None else secret_paths(tool)

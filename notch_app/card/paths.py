"""Reading and writing dotted argument paths (`user.name`, `recipients.0`).

Only key lookups: a segment names a property of an object, or (when it is all digits and
the container is a list) an element of a list. Writes never mutate what they were given:
every container along the path is shallow-copied and the rest is shared, so staging an
edit next to a 1 MB string argument costs the same as next to a short one.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, Final


class _Missing(enum.Enum):
    MISSING = "MISSING"

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing.MISSING
"""Stands for "this argument is absent" (distinct from an argument whose value is null)."""

Missing = _Missing
"""The type of MISSING, for annotations (`Any | Missing`)."""


class PathError(ValueError):
    """A path cannot be written: it runs through a list at an index past its end."""


def segments(path: str) -> list[str]:
    """The dotted path split into its segments; raises PathError for an empty segment."""
    parts = path.split(".")
    if any(p == "" for p in parts):
        raise PathError(f"{path!r} is not an argument path: a segment between dots is empty")
    return parts


def _index(segment: str) -> int | None:
    if segment.isdigit() and segment.isascii():
        return int(segment)
    return None


def get_path(args: Mapping[str, Any], path: str) -> Any:
    """The value at `path` inside `args`, or MISSING when any step is absent.

    Never raises: a step through a scalar, a non-numeric index into a list or an index
    past the end all read as MISSING.
    """
    node: Any = args
    for seg in path.split("."):
        if isinstance(node, Mapping):
            if seg not in node:
                return MISSING
            node = node[seg]
        elif isinstance(node, list):
            i = _index(seg)
            if i is None or i >= len(node):
                return MISSING
            node = node[i]
        else:
            return MISSING
    return node


def _copy_container(node: Any) -> dict[str, Any] | list[Any]:
    if isinstance(node, list):
        return list(node)
    if isinstance(node, Mapping):
        return dict(node)
    # A scalar (or nothing) where the path needs an object: the path's schema says it is
    # an object, so the edit wins and the schema check reports anything inconsistent.
    return {}


def set_path(args: Mapping[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A new dict equal to `args` with `value` written at `path`.

    Containers along the path are shallow-copied (copy-on-write); missing or scalar
    intermediates become new objects. In a list, an index equal to its length appends.
    Raises PathError for an empty segment or a list index past the end of the list.
    """
    parts = segments(path)
    root: dict[str, Any] = dict(args)
    parent: dict[str, Any] | list[Any] = root
    for depth, seg in enumerate(parts):
        last = depth == len(parts) - 1
        if isinstance(parent, list):
            i = _index(seg)
            if i is None or i > len(parent):
                raise PathError(
                    f"cannot write {path!r}: {'.'.join(parts[:depth]) or 'arguments'} is a "
                    f"list of {len(parent)} and {seg!r} is not an index inside or at its end"
                )
            if last:
                if i == len(parent):
                    parent.append(value)
                else:
                    parent[i] = value
                return root
            child = _copy_container(parent[i] if i < len(parent) else MISSING)
            if i == len(parent):
                parent.append(child)
            else:
                parent[i] = child
        else:
            if last:
                parent[seg] = value
                return root
            child = _copy_container(parent.get(seg, MISSING))
            parent[seg] = child
        parent = child
    return root  # pragma: no cover - the loop always returns at the last segment


def delete_path(args: Mapping[str, Any], path: str) -> dict[str, Any]:
    """A new dict equal to `args` without the value at `path` (copy-on-write).

    Deleting a list element removes it (later elements shift down). A path that is
    already absent returns an unchanged shallow copy. Raises PathError only for an empty
    segment.
    """
    parts = segments(path)
    if get_path(args, path) is MISSING:
        return dict(args)
    root: dict[str, Any] = dict(args)
    parent: dict[str, Any] | list[Any] = root
    for depth, seg in enumerate(parts):
        last = depth == len(parts) - 1
        if isinstance(parent, list):
            i = int(seg)  # present, so it is a valid index (checked by get_path above)
            if last:
                del parent[i]
                return root
            child = _copy_container(parent[i])
            parent[i] = child
        else:
            if last:
                del parent[seg]
                return root
            child = _copy_container(parent[seg])
            parent[seg] = child
        parent = child
    return root  # pragma: no cover

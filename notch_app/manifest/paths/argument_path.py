"""Dotted argument paths (`user.name`, `recipients.0`): the one place they are read,
written and matched.

Reading and writing (`get_path`, `set_path`, `delete_path`) are key lookups only: a
segment names a property of an object, or (when it is all digits and the container is a
list) an element of a list. Writes never mutate what they were given: every container
along the path is shallow-copied and the rest is shared, so staging an edit next to a
1 MB string argument costs the same as next to a short one.

A tool's inputSchema names paths the other way: a list's path stands for its elements
(`attendees.email` is the email of every attendee), as `schema_navigator` lists them,
guards fan out over them and secrets are declared. `values_along` reads such a path
(lists fan out), `declared_matches` says how a path of the arguments (`attendees.0.email`)
stands to one (it is it, lies inside it, or holds it), and `present_along` finds the
paths of the arguments it names.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from typing import Any, Final, Literal


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
        # JSON's objects are dicts: `type(...) is dict` spares them the Mapping ABC check.
        if type(node) is dict or isinstance(node, Mapping):
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
    root: dict[str, Any] = dict(args)
    if path and "." not in path:  # a top-level argument (a keystroke in most fields)
        root[path] = value
        return root
    parts = segments(path)
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


def is_under(path: str, prefix: str) -> bool:
    """`path` is `prefix` or lies inside it (`user.name` under `user`; "" holds all)."""
    return prefix == "" or path == prefix or path.startswith(prefix + ".")


# --- paths as a schema declares them (a list's path stands for its elements) -------------

Relation = Literal["is", "inside", "holds"]
"""How a path of the arguments stands to a declared path: it is it (`attendees.0.pin` to
`attendees.pin`), lies inside it (`user.password.0`), or holds it (`attendees`)."""

MAX_DEPTH: Final = 32
"""Deepest path walked in arguments (they are untrusted)."""
MAX_VALUES: Final = 10_000
"""Most values (or paths) one walk of the arguments gives."""


def declared_matches(declared: str, path: str) -> Relation | None:
    """How `path` (of the arguments: indices where lists are) stands to `declared` (as
    a schema or a binding names it: a list's path stands for its elements, though an
    index may be spelled out too), or None when neither is inside the other.

    Segments are compared in turn; an all-digit segment of `path` that `declared` does
    not spell is an element of a list and is passed over. Where that reading is
    ambiguous (an object whose keys are digits) the answer errs towards a relation:
    a secret is masked rather than shown."""
    return _align(declared, path)[0]


def declared_rest(declared: str, path: str) -> str | None:
    """What is left of `declared` below `path` when `path` holds it (`attendees.pin`
    below `attendees.0` is `pin`), else None."""
    relation, rest = _align(declared, path)
    return rest if relation == "holds" else None


def _align(declared: str, path: str) -> tuple[Relation | None, str]:
    want = declared.split(".") if declared else []
    have = path.split(".") if path else []
    j = 0
    for segment in have:
        if j == len(want):
            return "inside", ""
        if segment == want[j]:
            j += 1
        elif not (segment.isdigit() and segment.isascii()):
            return None, ""
    if j == len(want):
        return "is", ""
    return "holds", ".".join(want[j:])


def declared_form(path: str) -> str:
    """`path` of the arguments as a schema declares it: its indices left out
    (`guests.0.door` → `guests.door`)."""
    if not any(c.isdigit() for c in path):
        return path
    return ".".join(s for s in path.split(".") if not (s.isdigit() and s.isascii()))


def values_along(arguments: Any, path: str) -> Iterator[Any]:
    """Every value at declared `path` (see `declared_matches`): lists on the way, or at
    the end, fan out; missing keys and nulls give nothing; an all-digit segment at a
    list picks that element. A plain value where the path wants an object gives
    UNREADABLE, a walk past MAX_DEPTH gives TOO_DEEP. At most MAX_VALUES values."""
    walk = _along(arguments, path.split(".") if path else [], 0, "")
    for count, (_where, value) in enumerate(walk, 1):
        yield value
        if count >= MAX_VALUES:
            return


def present_along(arguments: Any, path: str) -> Iterator[str]:
    """The paths of `arguments` (indices spelled out) that hold a value at declared
    `path` (see `values_along`): `attendees.pin` on two attendees with a PIN gives
    `attendees.0.pin` and `attendees.1.pin`. A null counts as a value here."""
    count = 0
    for where, value in _along(arguments, path.split(".") if path else [], 0, "", nulls=True):
        if value is UNREADABLE or value is TOO_DEEP:
            continue
        yield where
        count += 1
        if count >= MAX_VALUES:
            return


class _Marker(enum.Enum):
    UNREADABLE = "UNREADABLE"
    TOO_DEEP = "TOO_DEEP"

    def __repr__(self) -> str:
        return self.value


UNREADABLE: Final = _Marker.UNREADABLE
"""`values_along` met a plain value where the path wants an object."""
TOO_DEEP: Final = _Marker.TOO_DEEP
"""`values_along` went deeper than MAX_DEPTH."""


def _along(
    node: Any, want: list[str], depth: int, where: str, *, nulls: bool = False
) -> Iterator[tuple[str, Any]]:
    if depth > MAX_DEPTH:
        yield where, TOO_DEEP
        return
    if isinstance(node, list):
        if want and want[0].isdigit() and want[0].isascii():
            i = int(want[0])
            if i < len(node):
                yield from _along(node[i], want[1:], depth + 1, _join(where, want[0]), nulls=nulls)
            return
        for i, item in enumerate(node):
            yield from _along(item, want, depth + 1, _join(where, str(i)), nulls=nulls)
        return
    if not want:
        if node is not None or nulls:
            yield where, node
        return
    if isinstance(node, Mapping):
        if want[0] in node:
            yield from _along(
                node[want[0]], want[1:], depth + 1, _join(where, want[0]), nulls=nulls
            )
        return
    if node is not None:
        yield where, UNREADABLE


def _join(where: str, segment: str) -> str:
    return f"{where}.{segment}" if where else segment


__all__ = [
    "MAX_DEPTH",
    "MAX_VALUES",
    "MISSING",
    "TOO_DEEP",
    "UNREADABLE",
    "Missing",
    "PathError",
    "Relation",
    "declared_form",
    "declared_matches",
    "declared_rest",
    "delete_path",
    "get_path",
    "is_under",
    "present_along",
    "segments",
    "set_path",
    "values_along",
]

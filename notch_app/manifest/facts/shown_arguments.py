"""Which arguments a confirmation view puts in front of the person.

An argument is *shown* when an input binds it (`bind`), a list draws it (`itemsFrom`) or
display text interpolates it (titles, text, badges, key/value rows, action labels...).
`visibleIf` only decides whether something shows; it shows no value. `{{paths.length}}`
shows how many elements `paths` has, not the elements.

Validation warns about an inputSchema property no block shows (`argument-not-shown`), and
the card lists what the call carries beyond what it shows under "Also sends"; both read
this module, so the warning and the card agree.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel

from notch_app.manifest.model import ActionItem, ActionsBlock, ButtonBlock, ListBlock, walk_blocks
from notch_app.manifest.paths import MalformedBinding, find_bindings, parse_single_binding

ARRAY_LENGTH: Final = "length"
"""The last segment of `{{paths.length}}`: the number of elements of an array."""

_SINGLE_KEYS: Final = frozenset({"bind", "items_from"})


@dataclass(frozen=True, slots=True)
class ShownPath:
    """One argument path a block shows."""

    path: str
    block: Any = None
    """The block (or action item) that shows it."""
    conditions: tuple[str, ...] = ()
    """The visibleIf paths of the block and its ancestors: it shows only while all hold."""


def counted_array(path: str) -> str | None:
    """`paths` for `paths.length`, else None."""
    head, _, last = path.rpartition(".")
    return head if head and last == ARRAY_LENGTH else None


def shown_paths(root: BaseModel) -> list[ShownPath]:
    """Every argument path the view under `root` shows, in reading order, with the
    visibleIf conditions it shows under. A malformed binding shows nothing. Never raises."""
    out: list[ShownPath] = []
    conditions: dict[int, tuple[str, ...]] = {}
    for visit in walk_blocks(root, action_items=True):
        block = visit.block
        inherited = conditions.get(id(visit.parent), ()) if visit.parent is not None else ()
        own = getattr(block, "visible_if", None)
        here = inherited
        if isinstance(own, str):
            with contextlib.suppress(MalformedBinding):
                here = (*inherited, parse_single_binding(own))
        conditions[id(block)] = here
        for path in _block_paths(block):
            out.append(ShownPath(path, block, here))
    return out


def _block_paths(block: BaseModel) -> Iterator[str]:
    # visibleIf decides whether something shows; nested blocks are visited by the walk;
    # an action's copy text and link are what it does when pressed, not what it says.
    skip = {"visible_if", "children", "footer"}
    if isinstance(block, ListBlock | ActionsBlock):
        skip.add("items")
    if isinstance(block, ActionItem | ButtonBlock):
        skip |= {"value", "url"}
    # Only fields the author wrote can hold a binding (defaults never do).
    written = block.model_fields_set
    for name in type(block).model_fields:
        if name in skip or name not in written:
            continue
        value = getattr(block, name, None)
        if name in _SINGLE_KEYS and isinstance(value, str):
            with contextlib.suppress(MalformedBinding):
                yield parse_single_binding(value)
            continue
        yield from _text_paths(value)


def _text_paths(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if "{{" in value or "<<" in value:
            try:
                yield from (b.path for b in find_bindings(value))
            except MalformedBinding:
                return
    elif isinstance(value, list):
        for item in value:
            yield from _text_paths(item)
    elif isinstance(value, BaseModel):
        written = value.model_fields_set
        for name in type(value).model_fields:
            if name in written:
                yield from _text_paths(getattr(value, name, None))


def covers(shown: str, path: str) -> bool:
    """Showing `shown` shows `path`: the same path or one of its ancestors."""
    return path == shown or path.startswith(shown + ".")


def partly_shows(shown: str, path: str) -> bool:
    """Showing `shown` shows a part of `path` (something inside it)."""
    return shown.startswith(path + ".")


def displayed(paths: Iterable[str]) -> list[str]:
    """The paths whose values are drawn: counts (`x.length`) draw no values."""
    return [p for p in paths if counted_array(p) is None]


__all__ = [
    "ARRAY_LENGTH",
    "ShownPath",
    "counted_array",
    "covers",
    "displayed",
    "partly_shows",
    "shown_paths",
]

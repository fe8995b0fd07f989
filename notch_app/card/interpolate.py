"""Display text with bindings: "Delete {{count}} files" → "Delete 42 files".

Only key lookups: the text between the braces is a dotted path handed to a lookup
function, never evaluated. Values are inserted once; a value that itself contains
`{{...}}` is shown as written, never interpolated again.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from notch_app.card.paths import MISSING
from notch_app.manifest.paths import BINDING_RE, PATH_RE, MalformedBinding, find_bindings

_MAX_DEPTH = 32
"""Nesting shown inside a value before the rest is summarised as `…`."""


def display_value(value: Any) -> str:
    """How an argument value reads on a card.

    None and MISSING → "", booleans → "Yes"/"No", 4.0 → "4", lists → "a, b, c",
    objects → "k: v, k: v" (nested lists/objects in brackets/braces). Nothing is
    truncated here; bounding long text is the widget's job. Never raises.
    """
    return _display(value, 0)


def _display(value: Any, depth: int) -> str:
    if value is None or value is MISSING:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, int):
        return _int_text(value)
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    if depth >= _MAX_DEPTH:
        return "…"
    if isinstance(value, list | tuple):
        return ", ".join(_nested(v, depth + 1) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {_nested(v, depth + 1)}" for k, v in value.items())
    return str(value)


def _int_text(value: int) -> str:
    try:
        return str(value)
    except ValueError:  # beyond Python's int→str digit limit; JSON never sends these
        return f"{value:.6e}" if abs(value) < 10**308 else "a very large number"


def _nested(value: Any, depth: int) -> str:
    if isinstance(value, list | tuple):
        return "[" + _display(value, depth) + "]"
    if isinstance(value, Mapping):
        return "{" + _display(value, depth) + "}"
    return _display(value, depth)


# A parsed template: literal text and paths, alternating; (literal, None) ends it.
_Piece = tuple[str, str | None]


@lru_cache(maxsize=2048)
def _compile(template: str) -> tuple[_Piece, ...]:
    pieces: list[_Piece] = []
    pos = 0
    try:
        for b in find_bindings(template):
            pieces.append((template[pos : b.start], b.path))
            pos = b.end
    except MalformedBinding:
        # Keep the good bindings and show each malformed one as the literal text it is.
        pieces = []
        pos = 0
        for match in BINDING_RE.finditer(template):
            inner = match.group("curly")
            if inner is None:
                inner = match.group("angle")
            m = PATH_RE.match(inner or "")
            if m is None:
                continue
            pieces.append((template[pos : match.start()], m.group("path")))
            pos = match.end()
    pieces.append((template[pos:], None))
    return tuple(pieces)


def template_paths(template: str) -> tuple[str, ...]:
    """The paths a template reads, in order (malformed bindings are skipped)."""
    return tuple(path for _, path in _compile(template) if path is not None)


def interpolate(template: str, lookup: Callable[[str], Any]) -> str:
    """`template` with each `{{path}}` / `<<path>>` replaced by `display_value(lookup(path))`.

    A malformed binding (`{{a..b}}`, `{{ 1 + 1 }}`) stays as literal text. Never raises
    for any template; `lookup` should return MISSING for an absent path.
    """
    if "{{" not in template and "<<" not in template:
        return template
    out: list[str] = []
    for literal, path in _compile(template):
        out.append(literal)
        if path is not None:
            out.append(display_value(lookup(path)))
    return "".join(out)

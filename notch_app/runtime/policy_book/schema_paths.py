"""The argument paths a guard can name, read from a tool's inputSchema."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from notch_app.manifest.model import Tool
from notch_app.manifest.schema import navigator_for


@dataclass(frozen=True, slots=True)
class ArgumentPathInfo:
    """One dotted argument path and what the schema says it holds."""

    path: str
    types: frozenset[str]
    """JSON Schema types of the value (after looking through arrays); empty when unknown."""
    title: str | None = None

    @property
    def numeric(self) -> bool | None:
        """True for number/integer, False for other known types, None when unknown."""
        if not self.types:
            return None
        return bool(self.types & {"number", "integer"})


def argument_paths(tool: Tool) -> list[ArgumentPathInfo]:
    """Every property path in the tool's inputSchema, nested objects and array items
    included (a list's path stands for its items, as guards fan out over lists), read by
    the same navigator as validation and the card: `$ref`s followed, types from `type`
    or `enum`/`const` values."""
    nav = navigator_for(tool.input_schema)
    out: list[ArgumentPathInfo] = []
    for path, written, inner in nav.argument_paths():
        title = written.get("title")
        if not isinstance(title, str):
            resolved = nav.schema(written) or {}
            title = resolved.get("title") if isinstance(resolved.get("title"), str) else None
        out.append(ArgumentPathInfo(path, nav.types(inner) - {"null"}, title))
    return out


def nearest(word: str, candidates: list[str]) -> str | None:
    """The closest candidate to a mistyped name, or None when nothing is close."""
    found = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    if found:
        return found[0]
    lowered = {c.lower(): c for c in candidates}
    return lowered.get(word.lower())

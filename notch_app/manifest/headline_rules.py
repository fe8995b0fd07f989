"""Rules on a view's own `confirmation.headline` (the card's first line).

Its bindings are checked as any display text's (`binding-malformed`,
`binding-unknown-argument` and the other argument look-up rules). Unlike a read-back it
may leave facts out: the card shows every argument below it, and Notch's generated
headline is only a default. Never raises.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from notch_app.manifest.argument_lookup import lookup
from notch_app.manifest.model import Tool
from notch_app.manifest.paths import MalformedBinding, find_bindings, join_pointer
from notch_app.manifest.reading import Problem, SourceDocument, quote


def headline_problems(
    doc: SourceDocument, tool: Tool, base: str, view: Mapping[str, Any], schema_ok: bool
) -> Iterator[Problem]:
    """Problems of the `headline` of the confirmation view at `base` (raw JSON)."""
    template = view.get("headline")
    if not isinstance(template, str):
        return
    pointer = join_pointer(base, "headline")
    try:
        bindings = find_bindings(template)
    except MalformedBinding as exc:
        yield doc.problem(
            pointer,
            "binding-malformed",
            f"{quote(exc.raw)} in the headline is not a binding; write a dotted argument "
            'path such as "{{to}}" or "<<user.name>>"',
        )
        return
    if not schema_ok:
        return
    for binding in bindings:
        found = lookup(tool.input_schema, binding.path)
        if found.rule is not None:
            yield doc.problem(pointer, found.rule, f"in the headline: {found.message}")


__all__ = ["headline_problems"]

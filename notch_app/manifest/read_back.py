"""What a read-back must say, and the rules for a manifest's own `confirmation.readBack`.

A read-back is the one sentence a voice agent says to ask for a call ("Send WhatsApp
message to Marc (+34 612 345 678): 'Running late'?"). Whatever writes it, the person must
hear where the action goes and what it costs: every phone number, IBAN, amount and
recipient the tool sends. Those arguments, and the secrets never read back, are the
tool's facts (`tool_facts.py`: one walk over the inputSchema), for the validator and for
the card (`card/read_back.py`).

Rules on a `readBack` template (beside `binding-malformed` / `binding-unknown-argument`,
checked as for any display text):
- `read-back-incomplete`: it leaves out an argument that must be read back, or its only
  content is free text the model fills (a summary) with no words of its own;
- `read-back-secret`: it binds a secret (`ToolFacts.is_secret`: a passwordField,
  `format: password`, a PIN, an argument under `$ref`, array items or `anyOf`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from notch_app.manifest.argument_lookup import lookup
from notch_app.manifest.facts import (
    MustRead,
    ToolFacts,
    is_free_text,
    must_read_kind,
    name_words,
    tool_facts,
)
from notch_app.manifest.model import Tool
from notch_app.manifest.paths import MalformedBinding, find_bindings, join_pointer
from notch_app.manifest.reading import Problem, SourceDocument, quote

MAX_READ_BACK_CHARS: Final = 300
"""A read-back is one sentence of at most this many characters, values cut with …"""

_LETTER = re.compile(r"[^\W\d_]{2,}")

ToolArguments = ToolFacts
"""What a read-back needs to know about a tool's arguments: its facts (`must_read`,
`secrets`, `free_text`, `schemas`), found once by `tool_facts`."""


def tool_arguments(tool: Tool) -> ToolFacts:
    """The tool's facts (`tool_facts`), for a read-back. Never raises."""
    return tool_facts(tool)


def covered(path: str, bound: list[str]) -> bool:
    """A template that binds one of `bound` reads `path` out: the path or an ancestor."""
    return any(path == b or path.startswith(b + ".") for b in bound)


def read_back_problems(
    doc: SourceDocument, tool: Tool, base: str, view: Mapping[str, Any], schema_ok: bool
) -> Iterator[Problem]:
    """Problems of the `readBack` template of the confirmation view at `base` (raw JSON),
    if it has one: malformed or unknown bindings, a secret, a missing phone number, IBAN,
    amount or recipient, or free text as the only content. Never raises."""
    template = view.get("readBack")
    if not isinstance(template, str):
        return
    pointer = join_pointer(base, "readBack")
    try:
        bindings = find_bindings(template)
    except MalformedBinding as exc:
        yield doc.problem(
            pointer,
            "binding-malformed",
            f"{quote(exc.raw)} in the readBack is not a binding; write a dotted argument "
            'path such as "{{to}}" or "<<user.name>>"',
        )
        return
    if not schema_ok:
        return
    paths = [b.path for b in bindings]
    unknown = False
    for path in paths:
        found = lookup(tool.input_schema, path)
        if found.rule is not None:
            unknown = True
            yield doc.problem(pointer, found.rule, f"in the readBack: {found.message}")
    if unknown:
        return
    args = tool_arguments(tool)
    for path in paths:
        if args.is_secret(path):
            yield doc.problem(
                pointer,
                "read-back-secret",
                f"the readBack binds {path!r}, a secret; a read-back is said aloud and sent "
                "to the agent, so secrets are never read back — remove the binding",
            )
    missing = [p for p, _kind in args.must_read if not covered(p, paths)]
    if missing:
        names = ", ".join("{{" + p + "}}" for p in missing[:6])
        more = f" (and {len(missing) - 6} more)" if len(missing) > 6 else ""
        yield doc.problem(
            pointer,
            "read-back-incomplete",
            f"the readBack leaves out {names}{more}: phone numbers, IBANs, amounts and "
            "recipients the tool sends are always read back, so the person hears where it "
            "goes and what it costs — add them to the sentence",
        )
    own_words = _LETTER.search(_literal_text(template, bindings)) is not None
    if paths and not own_words and all(p in args.free_text for p in paths):
        yield doc.problem(
            pointer,
            "read-back-incomplete",
            f"the readBack is only {', '.join(quote(b.raw) for b in bindings[:4])}: free "
            "text the model fills says whatever the model wants; say what the call does in "
            "your own words around it, e.g. \"Post '{{summary}}' to {{channel}}?\"",
        )


def _literal_text(template: str, bindings: list[Any]) -> str:
    out: list[str] = []
    pos = 0
    for b in bindings:
        out.append(template[pos : b.start])
        pos = b.end
    out.append(template[pos:])
    return " ".join(out)


__all__ = [
    "MAX_READ_BACK_CHARS",
    "MustRead",
    "ToolArguments",
    "covered",
    "is_free_text",
    "must_read_kind",
    "name_words",
    "read_back_problems",
    "tool_arguments",
]

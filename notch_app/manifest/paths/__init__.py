"""How Notch writes a place: a JSON Pointer in a document, a dotted path in a call's
arguments, a `{{binding}}` in a card's text. One place each, so the validator, the card,
redaction, guards and digests cannot read a place differently.

- `json_pointer.py`: RFC 6901 pointers, spelled, joined and followed;
- `argument_path.py`: dotted argument paths (`user.name`, `recipients.0`), read and
  written by key lookups only, and matched against the path a schema declares;
- `bindings.py`: `{{path}}` and `<<path>>` in a card's text, found and parsed.

Nothing here imports pydantic or jsonschema: `notch mcp` and the hooks use these before
any model loads.
"""

from notch_app.manifest.paths.argument_path import (
    MAX_DEPTH,
    MAX_VALUES,
    MISSING,
    TOO_DEEP,
    UNREADABLE,
    Missing,
    PathError,
    Relation,
    declared_form,
    declared_matches,
    declared_rest,
    delete_path,
    get_path,
    present_along,
    segments,
    set_path,
    values_along,
)
from notch_app.manifest.paths.bindings import (
    BINDING_RE,
    PATH_RE,
    MalformedBinding,
    find_bindings,
    parse_single_binding,
)
from notch_app.manifest.paths.json_pointer import (
    NOWHERE,
    escape_pointer_token,
    join_pointer,
    parent_pointer,
    pointer_target,
    pointer_tokens,
)

__all__ = [
    "BINDING_RE",
    "MAX_DEPTH",
    "MAX_VALUES",
    "MISSING",
    "NOWHERE",
    "PATH_RE",
    "TOO_DEEP",
    "UNREADABLE",
    "MalformedBinding",
    "Missing",
    "PathError",
    "Relation",
    "declared_form",
    "declared_matches",
    "declared_rest",
    "delete_path",
    "escape_pointer_token",
    "find_bindings",
    "get_path",
    "join_pointer",
    "parent_pointer",
    "parse_single_binding",
    "pointer_target",
    "pointer_tokens",
    "present_along",
    "segments",
    "set_path",
    "values_along",
]

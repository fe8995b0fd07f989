"""What Notch knows about a loaded tool, worked out once, and what its card shows.

- `tool_facts.py`: one frozen `ToolFacts` per tool: its argument paths, the secrets (one
  rule, through `$ref`, items and combinators), what a read-back must name, the acting
  verdict, the fingerprint of card and schema. Redaction, the model's sentence, the
  read-back, generated cards, the gateway, policy and the hooks ask these facts;
- `shown_arguments.py`: which arguments a confirmation view puts in front of the person
  (the `argument-not-shown` warning and the card's "Also sends" both read it).

Whether a tool acts is decided by `manifest/acting.py` (kept apart so `notch mcp` decides
before any model loads); the facts read that verdict once per tool.
"""

from typing import TYPE_CHECKING, Any

from notch_app.manifest.facts.tool_facts import (
    MustRead,
    ToolFacts,
    is_free_text,
    listed_tool_facts,
    must_read_kind,
    name_words,
    schema_secrets,
    tool_facts,
)

if TYPE_CHECKING:
    from notch_app.manifest.facts.shown_arguments import (
        ARRAY_LENGTH,
        ShownPath,
        counted_array,
        covers,
        displayed,
        partly_shows,
        shown_paths,
    )

_SHOWN = frozenset({"ARRAY_LENGTH", "ShownPath", "counted_array", "covers", "displayed",
                    "partly_shows", "shown_paths"})  # fmt: skip


def __getattr__(name: str) -> Any:
    """`shown_arguments`' names, loaded on first use: it loads the manifest model
    (pydantic), and a hook's call of a tool Notch has no card for reads only
    `listed_tool_facts`, which does not."""
    if name not in _SHOWN:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from notch_app.manifest.facts import shown_arguments

    return getattr(shown_arguments, name)


__all__ = [
    "ARRAY_LENGTH",
    "MustRead",
    "ShownPath",
    "ToolFacts",
    "counted_array",
    "covers",
    "displayed",
    "is_free_text",
    "listed_tool_facts",
    "must_read_kind",
    "name_words",
    "partly_shows",
    "schema_secrets",
    "shown_paths",
    "tool_facts",
]

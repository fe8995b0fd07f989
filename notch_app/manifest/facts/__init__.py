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

from notch_app.manifest.facts.shown_arguments import (
    ARRAY_LENGTH,
    ShownPath,
    counted_array,
    covers,
    displayed,
    partly_shows,
    shown_paths,
)
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

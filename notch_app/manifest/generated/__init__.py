"""Generated cards: the confirmation view a tool that must ask, but declares no card, asks
with, built from its `inputSchema`.

- `card.py`: the view (title, description, one input per property, Cancel and a confirm
  that names the action) and the tools and manifests that carry it;
- `inputs.py`: one input per property, by its type, through the schema navigator;
- `text.py`: the schema's untrusted text made fit to show, and the action's words.
"""

from notch_app.manifest.generated.card import (
    MAX_INPUTS,
    SPEC_ACTING_VERBS,
    generated_view,
    generated_view_with_notes,
    tool_document,
    with_generated_card,
    with_generated_cards,
)
from notch_app.manifest.generated.text import (
    MAX_DESCRIPTION_CHARS,
    MAX_HELP_CHARS,
    MAX_LABEL_CHARS,
    confirm_label,
    safe_text,
    words_of,
)

__all__ = [
    "MAX_DESCRIPTION_CHARS",
    "MAX_HELP_CHARS",
    "MAX_INPUTS",
    "MAX_LABEL_CHARS",
    "SPEC_ACTING_VERBS",
    "confirm_label",
    "generated_view",
    "generated_view_with_notes",
    "safe_text",
    "tool_document",
    "with_generated_card",
    "with_generated_cards",
    "words_of",
]

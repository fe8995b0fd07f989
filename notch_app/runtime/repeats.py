"""A tool called again by the same asker while its card is open: the new call replaces
that card (the voice-confirm seed: "calling the tool again replaces the open question"),
unless the agent asked for a batch. The new card says so in one line, and marks what
changed: "Updated by the agent: amount 500 → 700; note changed".

Qt-free; the service finds the open card (`ConfirmationService._repeat_of`), this module
only words the change for the person.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from notch_app.card.paths import MISSING, get_path
from notch_app.manifest.facts import ToolFacts
from notch_app.runtime.decision import changed_paths

UPDATED: Final = "Updated by the agent"
"""How a card that replaced the asker's open card for the same tool begins its notice."""
MAX_NOTE_CHARS: Final = 220
MAX_VALUE_CHARS: Final = 40
MAX_CHANGES: Final = 4


def updated_note(
    before: Mapping[str, Any], after: Mapping[str, Any], secrets: ToolFacts | None = None
) -> str:
    """The line a replacing card shows: "Updated by the agent: amount 500 → 700; to
    changed" (a secret value, as the tool's facts say, is named, never shown); "Updated by the agent: the same
    details again" when nothing changed. At most MAX_NOTE_CHARS."""
    paths = [p for p in changed_paths(dict(before), dict(after)) if p] or (
        [] if dict(before) == dict(after) else ["arguments"]
    )
    if not paths:
        return f"{UPDATED}: the same details again."
    said = [_change(p, before, after, secrets) for p in paths[:MAX_CHANGES]]
    if len(paths) > MAX_CHANGES:
        said.append(f"and {len(paths) - MAX_CHANGES} more")
    text = f"{UPDATED}: " + "; ".join(said) + "."
    return text if len(text) <= MAX_NOTE_CHARS else text[: MAX_NOTE_CHARS - 1] + "…"


def _change(
    path: str, before: Mapping[str, Any], after: Mapping[str, Any], secrets: ToolFacts | None
) -> str:
    if secrets is not None and secrets.is_secret(path):
        return f"{path} changed"
    old, new = get_path(before, path), get_path(after, path)
    if secrets is not None:  # an argument the schema does not declare, named as a secret
        old = old if old is MISSING else secrets.masked_value(old, path, "•••••")
        new = new if new is MISSING else secrets.masked_value(new, path, "•••••")
    if old is MISSING:
        return f"{path} added ({_shown(new)})"
    if new is MISSING:
        return f"{path} removed"
    return f"{path} {_shown(old)} → {_shown(new)}"


def _shown(value: Any) -> str:
    if isinstance(value, str):
        text = " ".join(value.split())
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
        except ValueError:
            text = str(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"

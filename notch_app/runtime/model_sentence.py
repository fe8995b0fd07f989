"""The sentence for the model: what happened to its tool call, in one line it can read.

Every decision carries one (`Decision.for_model`, `forModel` on the wire). It is built
here from the decision alone: the outcome, the tool's title as installed, the paths the
person changed with their old and new values, the scope of an approval, the person's
own words with a decline. Never from the model's words: its `context` is not read at
all, and a value it sent appears only as the "from" side of a change the person made.
Secret values (the tool's facts say which: `ToolFacts.is_secret`) are never quoted, only
named; a value that holds one is quoted with it masked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from notch_app.card.paths import MISSING, get_path
from notch_app.manifest.acting import ASKS_FIRST as ASKS_FIRST  # re-exported
from notch_app.manifest.acting import described_for_model as described_for_model  # re-exported
from notch_app.manifest.facts import ToolFacts, listed_tool_facts
from notch_app.runtime.decision import MAX_FOR_MODEL_CHARS, Decision

MAX_VALUE_CHARS: Final = 60
"""A value quoted in a sentence is cut here, with …"""
MAX_TITLE_CHARS: Final = 80
MAX_CHANGES_NAMED: Final = 4
"""Changes listed one by one; past that, "and N more changes"."""
MAX_FEEDBACK_QUOTED: Final = 200


def sentence_for_model(
    decision: Decision,
    title: str,
    asked: Mapping[str, Any] | None = None,
    secrets: ToolFacts | None = None,
) -> str:
    """The sentence for `decision` about the tool titled `title` (the manifest's), given
    the arguments the model `asked` with (for "changed `to` from A to B") and the tool's
    facts, which say what is secret (None: the tool is not installed; what a name calls
    a secret is still never quoted). At most MAX_FOR_MODEL_CHARS. Never raises for any decision."""
    name = _cut(" ".join(title.split()) or decision.tool_name, MAX_TITLE_CHARS)
    outcome = decision.outcome
    if outcome == "approved":
        # A tool not installed (any more): its schema is unknown, names still say secrets.
        facts = secrets if secrets is not None else listed_tool_facts({"name": decision.tool_name})
        text = _approved(decision, name, asked or {}, facts)
    elif outcome == "autoApproved":
        if decision.scope == "session":
            text = f"{name} ran without a card: the person allowed it for the rest of this session."
        else:
            text = f"{name} ran without a card: the person lets it run without asking."
    elif outcome == "notRequired":
        text = _read_only_text(name)
    elif outcome == "declined":
        words = (decision.feedback or "").strip()
        if words and decision.reason == "revise":
            said = _cut(" ".join(words.split()), MAX_FEEDBACK_QUOTED)
            # Plain words the agent acts on: no Notch terms (callId, supersedes).
            text = (
                f'The person wants a change to {name}: "{said}". Nothing ran; ask again '
                "with that change made."
            )
        elif words:
            said = _cut(" ".join(words.split()), MAX_FEEDBACK_QUOTED)
            text = f'The person declined {name} and said: "{said}". Nothing ran.'
        else:
            text = f"The person declined {name}; nothing ran."
    elif outcome == "blocked":
        text = (
            f"Blocked in the person's settings: {name} did not run, and asking again will "
            "not change that."
        )
    elif outcome == "expired":
        text = f"Expired unanswered: the person did not answer about {name} in time; nothing ran."
    elif outcome == "superseded":
        text = f"{name} was replaced by a newer request before the person answered; it did not run."
    elif outcome == "withdrawn":
        why = "" if decision.decided_by == "agent" else _why(decision.message)
        text = f"{name} was withdrawn before the person answered{why}; it did not run."
    else:  # an outcome added later: say only what is certain
        text = f"{name}: {outcome}."
    return _cut(text, MAX_FOR_MODEL_CHARS)


def read_only_sentence(title: str, tool_name: str) -> str:
    """The sentence of a notRequired decision of the tool titled `title`, as
    `sentence_for_model` makes it: without a Decision, so a read-only call's decision is
    built once with it (one is built per read, the busiest path)."""
    name = _cut(" ".join(title.split()) or tool_name, MAX_TITLE_CHARS)
    return _cut(_read_only_text(name), MAX_FOR_MODEL_CHARS)


def _read_only_text(name: str) -> str:
    return f"{name} needs no approval (it only reads); it ran as you sent it."


def _approved(decision: Decision, name: str, asked: Mapping[str, Any], secrets: ToolFacts) -> str:
    scope = {
        "session": " for the rest of this session",
        "always": " and lets it run without asking from now on",
    }.get(decision.scope or "once", "")
    changes = [p for p in decision.edited_paths if p]
    if not changes:
        return f"The person approved {name}{scope} as proposed."
    final = decision.arguments or {}
    said = [_change(path, asked, final, secrets) for path in changes[:MAX_CHANGES_NAMED]]
    more = len(changes) - MAX_CHANGES_NAMED
    if more > 0:
        said.append(f"{more} more change{'s' if more > 1 else ''}")
    listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    return f"The person approved {name}{scope} after {listed}; it ran with their values."


def _change(
    path: str, before: Mapping[str, Any], after: Mapping[str, Any], secrets: ToolFacts
) -> str:
    shown = f"`{_cut(path, MAX_VALUE_CHARS)}`"
    if secrets.is_secret(path):
        return f"changing {shown}"  # named, never quoted
    old = get_path(before, path)
    new = get_path(after, path)
    # A value holding an argument the schema does not declare, named as a secret.
    old, new = _masked(secrets, old, path), _masked(secrets, new, path)
    if old is MISSING and new is MISSING:
        return f"changing {shown}"
    if old is MISSING:
        return f"setting {shown} to {_value(new)}"
    if new is MISSING:
        return f"removing {shown}"
    return f"changing {shown} from {_value(old)} to {_value(new)}"


def _masked(secrets: ToolFacts, value: Any, path: str) -> Any:
    return value if value is MISSING else secrets.masked_value(value, path, MASK)


MASK: Final = "•••••"


def _value(value: Any) -> str:
    if isinstance(value, str):
        flat = " ".join(value.split())
        if flat and flat == value and " " not in flat:
            return _cut(flat, MAX_VALUE_CHARS)
        return '"' + _cut(flat, MAX_VALUE_CHARS) + '"'
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except ValueError:  # NaN and friends never reach a decision; say something anyway
        text = str(value)
    return _cut(text, MAX_VALUE_CHARS)


def _why(message: str | None) -> str:
    """The service's own reason (e.g. "the asking agent went away"), bounded."""
    if not message:
        return ""
    return ": " + _cut(" ".join(message.split()), MAX_VALUE_CHARS * 2)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"

"""Generated cards: a confirmation view built from a tool's `inputSchema`.

A tool that must ask but declares no card (a `cancel_*` tool, a `destructiveHint`, any
tool of a bare MCP server that is not read-only) still asks, with a card made here:

- the tool's title, and its description as text;
- one input per top-level property, by type: string → textField (`format` email/uri/
  date-time → a placeholder saying what is expected; a secret by the one rule of
  `tool_facts.py` — `password`, `writeOnly`, under `anyOf`, a name such as `api_token` —
  → a passwordField), enum → select, boolean → toggle, array of strings → chips,
  number/integer → textField (numbers are parsed back), anything else → a read-only
  keyValue showing the value;
- `required` from the schema (never on a toggle: off is an answer);
- a footer with Cancel and a confirm that names the action ("Cancel agent").

The result is a plain view document (`{"schemaVersion": 1, "root": ...}`), the same
shape an authored `confirmation` has, and passes `notch validate`'s rules. Everything the
schema says is untrusted text: it is bounded, stripped of control characters, and can
never form a binding. Arguments a generated card does not show (past the input limit,
or not named in the schema) are listed by the card's "Also sends" section.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from notch_app.manifest.facts import schema_secrets, tool_facts
from notch_app.manifest.generated.inputs import (
    bindable,
    input_for,
    properties,
    required_names,
    resolve,
)
from notch_app.manifest.generated.text import (
    MAX_DESCRIPTION_CHARS,
    MAX_LABEL_CHARS,
    confirm_label,
    safe_text,
    title_of,
)
from notch_app.manifest.model import ConfirmationView, Manifest, Tool

MAX_INPUTS: Final = 60
"""Properties given their own input; the rest travel in "Also sends" (never hidden)."""

SPEC_ACTING_VERBS: Final = frozenset(
    {"send", "create", "delete", "update", "post", "book", "pay", "publish", "open"}
)
"""The spec's words: a tool starting with one of these must declare its own card."""


# --- the card ---------------------------------------------------------------------------


def generated_view(tool: Mapping[str, Any], *, confirm: str | None = None) -> dict[str, Any]:
    """The confirmation view document for `tool`, built from its `inputSchema`.

    `tool` is an MCP tool dict as `tools/list` returns it ({"name", "title"?,
    "description"?, "inputSchema", "annotations"?}); `confirm` overrides the confirm
    label (an authored label carried over). Any schema is accepted — huge, deeply
    nested or with circular `$ref`s: it is read to a bounded depth and never raises.
    """
    return generated_view_with_notes(tool, confirm=confirm)[0]


def generated_view_with_notes(
    tool: Mapping[str, Any], *, confirm: str | None = None
) -> tuple[dict[str, Any], list[str]]:
    """`generated_view` and what a person should know about it (properties past the
    input limit, names no binding can reach, `$ref` chains that loop), each a sentence."""
    notes: list[str] = []
    raw_schema = tool.get("inputSchema")
    root: Mapping[str, Any] = raw_schema if isinstance(raw_schema, dict) else {}
    schema = resolve(root, root)
    required = required_names(schema)
    secrets = schema_secrets(root)
    children: list[dict[str, Any]] = []
    description = safe_text(tool.get("description"), MAX_DESCRIPTION_CHARS, one_line=False)
    if description:
        children.append({"type": "text", "text": description, "variant": "muted"})
    count = 0
    unbindable: list[str] = []
    skipped = 0
    for name, prop in properties(schema):
        if not bindable(name) or prop is False:
            # A name a binding cannot spell exactly (" query", a dot, over-long) or a
            # property no value fits: no input; 'Also sends' shows what the call carries.
            unbindable.append(name if isinstance(name, str) else repr(name))
            continue
        if count >= MAX_INPUTS:
            skipped += 1
            continue
        count += 1
        block, note = input_for(root, name, prop, name in required, name in secrets)
        children.append(block)
        if note:
            notes.append(note)
    if skipped:
        notes.append(
            f"the inputSchema has {count + skipped} properties; the card gives the first "
            f"{MAX_INPUTS} an input and lists the values of the rest under 'Also sends'"
        )
    if unbindable:
        shown = ", ".join(repr(n)[:40] for n in unbindable[:5])
        notes.append(
            f"properties {shown} have names no card can bind; their values are listed "
            "under 'Also sends'"
        )
    label = safe_text(confirm, MAX_LABEL_CHARS) if confirm else ""
    ann = tool.get("annotations")
    destructive = isinstance(ann, dict) and ann.get("destructiveHint") is True
    view = {
        "schemaVersion": 1,
        "root": {
            "type": "card",
            "title": title_of(tool),
            "children": children,
            "footer": [
                {
                    "type": "actions",
                    "items": [
                        {"label": "Cancel", "role": "cancel"},
                        {
                            "label": label or confirm_label(tool),
                            "role": "confirm",
                            "color": "danger" if destructive else "accent",
                        },
                    ],
                }
            ],
        },
    }
    return view, notes


# --- tools and manifests ----------------------------------------------------------------


def tool_document(tool: Tool) -> dict[str, Any]:
    """A manifest Tool as the MCP tool dict `generated_view` reads."""
    out: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": tool.input_schema,
    }
    if tool.title:
        out["title"] = tool.title
    if tool.annotations is not None:
        out["annotations"] = tool.annotations.model_dump(by_alias=True, exclude_none=True)
    return out


def with_generated_card(tool: Tool) -> Tool:
    """`tool` itself when it has a card or need not ask; else a copy carrying its
    generated card as `confirmation`. Raises nothing for any inputSchema."""
    if tool.confirmation is not None or not tool_facts(tool).own_acting.asks:
        return tool
    view = ConfirmationView.model_validate(generated_view(tool_document(tool)))
    return tool.model_copy(update={"confirmation": view})


def with_generated_cards(manifest: Manifest) -> Manifest:
    """`manifest` with every tool that must ask but declares no card given its generated
    card (`with_generated_card`); the same object when no tool needs one."""
    tools = [with_generated_card(t) for t in manifest.tools]
    if all(new is old for new, old in zip(tools, manifest.tools, strict=True)):
        return manifest
    return manifest.model_copy(update={"tools": tools})

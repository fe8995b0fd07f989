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

import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any, Final

from notch_app.manifest import limits
from notch_app.manifest.acting import (
    acting_looking,
    must_ask,
    name_words,
    read_only_contradicted,
)
from notch_app.manifest.facts import schema_secrets, tool_facts
from notch_app.manifest.model import ConfirmationView, Manifest, Tool
from notch_app.manifest.paths import NOWHERE, PATH_RE
from notch_app.manifest.schema_navigator import navigator_for

MAX_INPUTS: Final = 60
"""Properties given their own input; the rest travel in "Also sends" (never hidden)."""
MAX_DESCRIPTION_CHARS: Final = 400
"""The tool description shown on the card, cut at a word with '…'."""
MAX_LABEL_CHARS: Final = 80
MAX_HELP_CHARS: Final = 160

SPEC_ACTING_VERBS: Final = frozenset(
    {"send", "create", "delete", "update", "post", "book", "pay", "publish", "open"}
)
"""The spec's words: a tool starting with one of these must declare its own card."""

_FORMAT_PLACEHOLDERS: Final = {
    "email": "name@example.com",
    "idn-email": "name@example.com",
    "uri": "https://…",
    "url": "https://…",
    "iri": "https://…",
    "uri-reference": "https://…",
    "date-time": "2025-01-31T09:00:00Z",
    "date": "2025-01-31",
    "time": "09:00:00",
}
_MULTILINE_NAMES: Final = frozenset(
    {"body", "text", "message", "content", "description", "task", "prompt", "comment",
     "note", "notes", "html", "markdown", "instructions", "question", "reply"}
)  # fmt: skip
_CODE_NAMES: Final = frozenset(
    {"command", "cmd", "script", "code", "query", "sql", "shell", "patch", "diff", "snippet"}
)
"""Arguments shown in a fixed-width font: a command or code reads in columns."""
MAX_BOUND_NAME_CHARS: Final = 200
"""Longer property names get no input (their values are listed under 'Also sends'): a
label or binding built from them would pass the manifest's own limits."""
_SPACES_RE: Final = re.compile(r"[ \t]+")


# --- untrusted text ---------------------------------------------------------------------


def safe_text(value: Any, limit: int, *, one_line: bool = True) -> str:
    """Schema text made fit for a card: control characters removed, whitespace folded,
    binding marks broken apart (`{{x}}` shows as written, never as an argument), cut to
    `limit` characters at a word with '…'. Non-text values give ''."""
    if not isinstance(value, str):
        return ""
    text = value[: limit * 4]
    text = "".join(ch if ch == "\n" or unicodedata.category(ch) != "Cc" else " " for ch in text)
    if one_line:
        text = text.replace("\n", " ")
    text = "\n".join(_SPACES_RE.sub(" ", line).strip() for line in text.split("\n")).strip()
    # A binding needs two adjacent marks; a space between them keeps the text as written.
    for mark, broken in (("{{", "{ {"), ("}}", "} }"), ("<<", "< <"), (">>", "> >")):
        while mark in text:
            text = text.replace(mark, broken)
    if len(text) > limit:
        cut = text[: limit - 1]
        space = cut.rfind(" ")
        if space > limit // 2:
            cut = cut[:space]
        text = cut.rstrip() + "…"
    return text


def words_of(name: str) -> str:
    """A name in words: `open_pr` → "Open pr", `sendAs` → "Send as"."""
    words = name_words(name) or [name]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def _title_of(tool: Mapping[str, Any]) -> str:
    ann = tool.get("annotations")
    for candidate in (
        tool.get("title"),
        ann.get("title") if isinstance(ann, dict) else None,
    ):
        text = safe_text(candidate, MAX_LABEL_CHARS)
        if text:
            return text
    name = tool.get("name")
    return safe_text(words_of(name), MAX_LABEL_CHARS) if isinstance(name, str) else "Tool call"


def confirm_label(tool: Mapping[str, Any]) -> str:
    """The confirm button's words: the action named, never "Confirm" — the tool's title
    ("Cancel agent"), else its name in words (`cancel_agent` → "Cancel agent")."""
    return _title_of(tool)


# --- the schema -------------------------------------------------------------------------


def _resolve(root: Mapping[str, Any], node: Any) -> Any:
    """`node` with its `$ref`s followed by the schema navigator (the one reader of
    schemas: `#`, `#/json/pointer`, `#anchor`, `$id`); None for a chain that loops,
    leaves the schema or goes nowhere."""
    found = navigator_for(root).resolve(node)
    if found is NOWHERE or (isinstance(found, dict) and "$ref" in found):
        return None
    return found


def _types(schema: Mapping[str, Any]) -> set[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)}
    return set()


def _enum(schema: Mapping[str, Any]) -> list[Any] | None:
    values = schema.get("enum")
    if not isinstance(values, list) or not values or len(values) > limits.MAX_OPTIONS:
        return None
    out: list[Any] = []
    for v in values:
        if v is None:
            continue  # a nullable enum: leaving the select empty sends nothing
        text_ok = isinstance(v, str) and len(v) <= limits.MAX_LABEL_CHARS
        number_ok = isinstance(v, bool | int | float) and v == v  # NaN is no choice
        if not (text_ok or number_ok):
            return None
        out.append(v)
    return out or None


def _properties(schema: Any) -> Iterator[tuple[str, Any]]:
    if not isinstance(schema, dict):
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        yield from props.items()


def _bindable(name: Any) -> bool:
    """Whether `{{name}}` names exactly this property (no space around it, no dot)."""
    if not isinstance(name, str) or "." in name or len(name) > MAX_BOUND_NAME_CHARS:
        return False
    match = PATH_RE.match(name)
    return match is not None and match.group("path") == name


def _required(schema: Any) -> set[str]:
    if not isinstance(schema, dict):
        return set()
    names = schema.get("required")
    return {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()


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
    schema = _resolve(root, root)
    required = _required(schema)
    secrets = schema_secrets(root)
    children: list[dict[str, Any]] = []
    description = safe_text(tool.get("description"), MAX_DESCRIPTION_CHARS, one_line=False)
    if description:
        children.append({"type": "text", "text": description, "variant": "muted"})
    count = 0
    unbindable: list[str] = []
    skipped = 0
    for name, prop in _properties(schema):
        if not _bindable(name) or prop is False:
            # A name a binding cannot spell exactly (" query", a dot, over-long) or a
            # property no value fits: no input; 'Also sends' shows what the call carries.
            unbindable.append(name if isinstance(name, str) else repr(name))
            continue
        if count >= MAX_INPUTS:
            skipped += 1
            continue
        count += 1
        block, note = _input_for(root, name, prop, name in required, name in secrets)
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
            "title": _title_of(tool),
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


def _input_for(
    root: Mapping[str, Any], name: str, raw: Any, required: bool, secret: bool
) -> tuple[dict[str, Any], str | None]:
    bind = "{{" + name + "}}"
    prop = _resolve(root, raw)
    if not isinstance(prop, dict):
        note = None
        if isinstance(raw, dict) and "$ref" in raw:
            note = f"property {name!r}: its $ref chain loops or leads nowhere; shown read-only"
        return _read_only(name, bind), note
    label = safe_text(prop.get("title"), MAX_LABEL_CHARS) or words_of(name)
    block: dict[str, Any] = {"bind": bind, "label": label}
    help_text = safe_text(prop.get("description"), MAX_HELP_CHARS)
    if help_text:
        block["help"] = help_text
    types = _types(prop) - {"null"}
    enum = _enum(prop)
    if enum is not None and (not types or types <= {"string", "number", "integer", "boolean"}):
        block["type"] = "select"
        block["options"] = [
            {"label": safe_text(str(v) if not isinstance(v, bool) else ("Yes" if v else "No"),
                                limits.MAX_LABEL_CHARS) or "(empty)", "value": v}
            for v in enum
        ]  # fmt: skip
    elif types == {"boolean"}:
        block["type"] = "toggle"
        return block, None  # toggles never gate: off is an answer
    elif types == {"array"} and _strings_only(root, prop.get("items")):
        block["type"] = "chips"
    elif types and types <= {"number", "integer"}:
        block["type"] = "textField"
        block["placeholder"] = "a whole number" if types == {"integer"} else "a number"
    elif types == {"string"} or (types <= {"string", "number", "integer"} and "string" in types):
        fmt = prop.get("format")
        if secret:  # the one rule (tool_facts.py): format, writeOnly, anyOf, its name
            block["type"] = "passwordField"
        else:
            block["type"] = "textField"
            if isinstance(fmt, str) and fmt in _FORMAT_PLACEHOLDERS:
                block["placeholder"] = _FORMAT_PLACEHOLDERS[fmt]
            max_length = prop.get("maxLength")
            if name.lower() in _MULTILINE_NAMES or (
                isinstance(max_length, int) and max_length > 200
            ):
                block["multiline"] = True
            if name.lower() in _CODE_NAMES:
                block["monospace"] = True
    else:
        return _read_only(label, bind), None
    if required:
        block["required"] = True
    return block, None


def _strings_only(root: Mapping[str, Any], items: Any) -> bool:
    element = _resolve(root, items)
    if not isinstance(element, dict):
        return False
    return _types(element) == {"string"} and not any(
        k in element for k in ("anyOf", "oneOf", "allOf", "properties")
    )


def _read_only(label: str, bind: str) -> dict[str, Any]:
    return {
        "type": "keyValue",
        "items": [{"label": safe_text(label, MAX_LABEL_CHARS) or "Value", "value": bind}],
    }


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


__all__ = [
    "MAX_INPUTS",
    "SPEC_ACTING_VERBS",
    "acting_looking",
    "confirm_label",
    "generated_view",
    "generated_view_with_notes",
    "must_ask",
    "read_only_contradicted",
    "safe_text",
    "tool_document",
    "with_generated_card",
    "with_generated_cards",
]

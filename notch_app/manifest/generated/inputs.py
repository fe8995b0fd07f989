"""One input per property of a tool's `inputSchema`, by its type: string → textField (a
secret → passwordField), enum → select, boolean → toggle, array of strings → chips,
number/integer → textField, anything else → a read-only keyValue showing the value.

The schema is read through the schema navigator (the one reader of `$ref`s), to a
bounded depth; whatever it says is untrusted text (`text.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from notch_app.manifest import limits
from notch_app.manifest.generated.text import MAX_HELP_CHARS, MAX_LABEL_CHARS, safe_text, words_of
from notch_app.manifest.paths import NOWHERE, PATH_RE
from notch_app.manifest.schema import navigator_for

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


# --- the schema -------------------------------------------------------------------------


def resolve(root: Mapping[str, Any], node: Any) -> Any:
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


def properties(schema: Any) -> Iterator[tuple[str, Any]]:
    if not isinstance(schema, dict):
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        yield from props.items()


def bindable(name: Any) -> bool:
    """Whether `{{name}}` names exactly this property (no space around it, no dot)."""
    if not isinstance(name, str) or "." in name or len(name) > MAX_BOUND_NAME_CHARS:
        return False
    match = PATH_RE.match(name)
    return match is not None and match.group("path") == name


def required_names(schema: Any) -> set[str]:
    if not isinstance(schema, dict):
        return set()
    names = schema.get("required")
    return {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()


def input_for(
    root: Mapping[str, Any], name: str, raw: Any, required: bool, secret: bool
) -> tuple[dict[str, Any], str | None]:
    bind = "{{" + name + "}}"
    prop = resolve(root, raw)
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
    element = resolve(root, items)
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

"""VoiceOS integration folders, read as they are written.

A VoiceOS folder holds `voiceos.integration.json` (the manifest), an optional
`voiceos.integration.preview.json` (the fixture), `icon.png` and an MCP server. The
format is the one Notch's manifest describes, plus spellings and features Notch does not
draw; this module turns them into Notch's own shape before the manifest is checked, and
says what it did as warnings, so a folder written for VoiceOS loads unchanged:

- in every manifest: `keyValue` `rows` (objects or `[label, value]` pairs) read as
  `items`; a bare `visibleIf` (`"channel"`) reads as the binding `{{channel}}`; a
  confirmation whose root is a sandboxed HTML `widget` is drawn as one where QtWebEngine
  is installed, and otherwise (or for a widget inside other blocks, or an `html` block)
  asks with the card generated from the tool's inputSchema (every argument is shown);
  a permission of a kind Notch does not know is ignored (it grants nothing);
- in a file named `voiceos.integration.json` (written for VoiceOS, so future keys are
  expected): keys Notch does not know inside the manifest's objects and blocks are
  ignored, an unknown runtime, auth or preference kind is ignored, and a confirmation
  that still breaks a rule asks with its generated card (see `rules.check_manifest`).

Every change is a warning at the place it was written; nothing here makes a tool ask
less. Qt-free; the data given is never modified (changed parts are copied).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Final

from pydantic import BaseModel

from notch_app.manifest.generated import generated_view
from notch_app.manifest.model import manifest as m
from notch_app.manifest.model import view as v
from notch_app.manifest.model import walk_blocks
from notch_app.manifest.paths import PATH_RE, join_pointer
from notch_app.manifest.reading.discovery import VOICEOS_MANIFEST_FILE, VOICEOS_PREVIEW_FILE
from notch_app.manifest.reading.problems import Problem, quote
from notch_app.manifest.reading.source import SourceDocument

GENERATED: Final = "confirmation-generated"
IGNORED: Final = "voiceos-ignored"

_WIDGET_TYPES: Final = frozenset({"widget", "html"})
_BLOCK_MODELS: Final[dict[str, type[BaseModel]]] = {
    "card": v.CardBlock, "stack": v.StackBlock, "text": v.TextBlock,
    "markdown": v.MarkdownBlock, "keyValue": v.KeyValueBlock, "metadata": v.MetadataBlock,
    "list": v.ListBlock, "listItem": v.ListItemBlock, "image": v.ImageBlock,
    "badge": v.BadgeBlock, "progress": v.ProgressBlock, "divider": v.DividerBlock,
    "textField": v.TextFieldBlock, "passwordField": v.PasswordFieldBlock,
    "select": v.SelectBlock, "toggle": v.ToggleBlock, "chips": v.ChipsBlock,
    "button": v.ButtonBlock, "actions": v.ActionsBlock, "widget": v.WidgetBlock,
}  # fmt: skip
_PERMISSION_KINDS: Final[dict[str, type[BaseModel]]] = {
    "network": m.NetworkPermission,
    "background": m.BackgroundPermission,
    "notify": m.NotifyPermission,
}
_RUNTIME_KINDS: Final[dict[str, type[BaseModel]]] = {
    "local-mcp": m.LocalMcpRuntime,
    "remote-mcp": m.RemoteMcpRuntime,
}
_AUTH_KINDS: Final[dict[str, type[BaseModel]]] = {"apiKey": m.ApiKeyAuth, "none": m.NoAuth}
_PREFERENCE_TYPES: Final = frozenset({"text", "select", "toggle", "number"})


def is_voiceos_file(doc: SourceDocument) -> bool:
    """Whether `doc` is a file written for VoiceOS (`voiceos.integration*.json`)."""
    return doc.path.name in (VOICEOS_MANIFEST_FILE, VOICEOS_PREVIEW_FILE)


@dataclass
class Read:
    """A manifest's data in Notch's shape, and what was changed to get there."""

    data: Any
    problems: list[Problem] = field(default_factory=list)
    generated: set[int] = field(default_factory=set)
    """Indexes of tools whose confirmation was replaced by a generated card."""


def _aliases(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(info.alias or name for name, info in model.model_fields.items())


def read_manifest(doc: SourceDocument, data: Any, *, liberal: bool) -> Read:
    """`data` (the manifest in `doc`) in Notch's shape. `liberal` for files written for
    VoiceOS: unknown inner keys and kinds are ignored with a warning. Never raises."""
    out = Read(data)
    if not isinstance(data, dict):
        return out
    changed: dict[str, Any] = {}
    perms = data.get("permissions")
    if isinstance(perms, list):
        kept = _permissions(doc, perms, liberal, out.problems)
        if kept is not perms:
            changed["permissions"] = kept
    if liberal:
        for key, kinds in (("runtime", _RUNTIME_KINDS), ("auth", _AUTH_KINDS)):
            value = data.get(key)
            if isinstance(value, dict):
                fixed = _kinded(doc, "/" + key, value, kinds, out.problems)
                if fixed is not value:
                    changed[key] = fixed
        pub = data.get("publisher")
        if isinstance(pub, dict):
            fixed_pub = _known_keys(doc, "/publisher", pub, _aliases(m.Publisher), out.problems)
            if fixed_pub is not pub:
                changed["publisher"] = fixed_pub
        prefs = data.get("preferences")
        if isinstance(prefs, list):
            fixed_prefs = _preferences(doc, prefs, out.problems)
            if fixed_prefs is not prefs:
                changed["preferences"] = fixed_prefs
    tools = data.get("tools")
    if isinstance(tools, list):
        new_tools = list(tools)
        for index, tool in enumerate(tools):
            if isinstance(tool, dict):
                fixed_tool = _tool(doc, index, tool, liberal, out)
                new_tools[index] = fixed_tool
        if any(a is not b for a, b in zip(new_tools, tools, strict=True)):
            changed["tools"] = new_tools
    if changed:
        out.data = {**data, **changed}
    return out


def generate_confirmations(doc: SourceDocument, data: dict[str, Any], indexes: set[int]) -> Any:
    """`data` with the confirmation of each tool in `indexes` replaced by its generated
    card (a liberal read's last resort for a card that breaks a rule)."""
    tools = data.get("tools")
    if not isinstance(tools, list):
        return data
    new_tools = list(tools)
    for index in indexes:
        tool = tools[index]
        if isinstance(tool, dict):
            new_tools[index] = {**tool, "confirmation": generated_view(_mcp_tool(tool))}
    return {**data, "tools": new_tools}


def generated_notice(doc: SourceDocument, index: int, why: str) -> Problem:
    """The warning that tool `index` asks with a generated card, and why."""
    return doc.problem(
        join_pointer("/tools", index, "confirmation"),
        GENERATED,
        f"{why}; Notch asks with a card built from the tool's inputSchema instead (every "
        "argument shown, editable where its type allows)",
        severity="warning",
    )


# --- parts --------------------------------------------------------------------------------


def _warn(
    doc: SourceDocument, pointer: str, message: str, out: list[Problem], *, key: bool = False
) -> None:
    out.append(doc.problem(pointer, IGNORED, message, severity="warning", key=key))


def _known_keys(
    doc: SourceDocument, base: str, obj: dict[str, Any], known: frozenset[str], out: list[Problem]
) -> dict[str, Any]:
    unknown = [k for k in obj if k not in known]
    if not unknown:
        return obj
    for key in unknown:
        _warn(
            doc,
            join_pointer(base, key),
            f"key {quote(key)} is not one Notch knows here; it is ignored (known: "
            f"{', '.join(sorted(known))})",
            out,
            key=True,
        )
    return {k: val for k, val in obj.items() if k in known}


def _kinded(
    doc: SourceDocument,
    base: str,
    obj: dict[str, Any],
    kinds: dict[str, type[BaseModel]],
    out: list[Problem],
) -> Any:
    kind = obj.get("kind")
    found = kinds.get(kind) if isinstance(kind, str) else None
    if found is None:
        return obj  # the structure check names the missing or unknown kind
    fixed = _known_keys(doc, base, obj, _aliases(found), out)
    if kind == "apiKey":
        fixed = _known_keys_of_each(doc, base, fixed, "fields", _aliases(m.AuthField), out)
    return fixed


def _known_keys_of_each(
    doc: SourceDocument,
    base: str,
    obj: dict[str, Any],
    key: str,
    known: frozenset[str],
    out: list[Problem],
) -> dict[str, Any]:
    """`obj` with `_known_keys` applied to each object in its list `key`; `obj` itself
    when nothing changed."""
    items = obj.get(key)
    if not isinstance(items, list):
        return obj
    new = [
        _known_keys(doc, join_pointer(base, key, i), item, known, out)
        if isinstance(item, dict)
        else item
        for i, item in enumerate(items)
    ]
    if all(a is b for a, b in zip(new, items, strict=True)):
        return obj
    return {**obj, key: new}


def _permissions(
    doc: SourceDocument, perms: list[Any], liberal: bool, out: list[Problem]
) -> list[Any]:
    kept: list[Any] = []
    changed = False
    for i, perm in enumerate(perms):
        kind = perm.get("kind") if isinstance(perm, dict) else None
        if isinstance(kind, str) and kind not in _PERMISSION_KINDS:
            _warn(
                doc,
                join_pointer("/permissions", i, "kind"),
                f"permission kind {quote(kind)} is not one Notch knows ("
                f"{', '.join(_PERMISSION_KINDS)}); it is ignored and grants nothing",
                out,
            )
            changed = True
            continue
        if liberal and isinstance(perm, dict) and isinstance(kind, str):
            fixed = _known_keys(
                doc, join_pointer("/permissions", i), perm, _aliases(_PERMISSION_KINDS[kind]), out
            )
            changed = changed or fixed is not perm
            kept.append(fixed)
            continue
        kept.append(perm)
    return kept if changed else perms


def _preferences(doc: SourceDocument, prefs: list[Any], out: list[Problem]) -> list[Any]:
    known = _aliases(m.Preference)
    option_keys = _aliases(m.PreferenceOption)
    kept: list[Any] = []
    changed = False
    for i, pref in enumerate(prefs):
        if not isinstance(pref, dict):
            kept.append(pref)
            continue
        base = join_pointer("/preferences", i)
        kind = pref.get("type")
        if isinstance(kind, str) and kind not in _PREFERENCE_TYPES:
            _warn(
                doc,
                base + "/type",
                f"preference type {quote(kind)} is not one Notch knows ("
                f"{', '.join(sorted(_PREFERENCE_TYPES))}); this preference is ignored",
                out,
            )
            changed = True
            continue
        fixed = _known_keys(doc, base, pref, known, out)
        fixed = _known_keys_of_each(doc, base, fixed, "options", option_keys, out)
        changed = changed or fixed is not pref
        kept.append(fixed)
    return kept if changed else prefs


def _tool(doc: SourceDocument, index: int, tool: dict[str, Any], liberal: bool, out: Read) -> Any:
    base = join_pointer("/tools", index)
    fixed = tool
    if liberal:
        for key, model in (("execution", m.Execution),):
            value = tool.get(key)
            if isinstance(value, dict):
                kept = _known_keys(
                    doc, join_pointer(base, key), value, _aliases(model), out.problems
                )
                if kept is not value:
                    fixed = {**fixed, key: kept}
    view = tool.get("confirmation")
    if not isinstance(view, dict):
        return fixed
    widget = _first_widget(view)
    if widget is not None and not _drawn_as_widget(widget[0]):
        block, pointer = widget
        label = block.get("confirmLabel")
        out.problems.append(
            generated_notice(
                doc,
                index,
                f"this confirmation holds a sandboxed HTML {quote(block.get('type'))} block "
                f"(at {pointer or '/'}), which this Notch does not draw",
            )
        )
        out.generated.add(index)
        confirm = label if isinstance(label, str) and label.strip() else None
        return {**fixed, "confirmation": generated_view(_mcp_tool(fixed), confirm=confirm)}
    new_view = _view(doc, base + "/confirmation", view, liberal, out.problems)
    if new_view is not view:
        fixed = {**fixed, "confirmation": new_view}
    return fixed


def _mcp_tool(tool: dict[str, Any]) -> dict[str, Any]:
    return {
        k: tool[k]
        for k in ("name", "title", "description", "inputSchema", "annotations")
        if k in tool
    }


def _type_of(block: dict[str, Any]) -> str:
    """A block's `type` when it is text, else "" (a list or object there is the
    structure check's to report, never a crash here)."""
    kind = block.get("type")
    return kind if isinstance(kind, str) else ""


def _drawn_as_widget(block: dict[str, Any]) -> bool:
    """A `widget` block is kept where QtWebEngine is installed: as the root it is drawn,
    anywhere else the rules say `widget-not-root` (a VoiceOS file then asks with the
    generated card)."""
    return block.get("type") == "widget" and v.web_engine_installed()


def _first_widget(view: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    root = view.get("root")
    for visit in walk_blocks(root, "/root"):
        block = visit.block
        if isinstance(block, dict) and _type_of(block) in _WIDGET_TYPES:
            return block, visit.pointer
    return None


def _view(
    doc: SourceDocument, base: str, view: dict[str, Any], liberal: bool, out: list[Problem]
) -> dict[str, Any]:
    """The view with VoiceOS spellings read as Notch's; a copy only when one is found."""
    root = view.get("root")
    if not any(_needs_reading(b.block, liberal) for b in walk_blocks(root)):
        return view
    fixed = copy.deepcopy(view)
    for visit in walk_blocks(fixed.get("root"), base + "/root", action_items=True):
        block = visit.block
        if isinstance(block, dict):
            _read_block(doc, visit.pointer, block, visit.parent, liberal, out)
    return fixed


def _needs_reading(block: Any, liberal: bool) -> bool:
    if not isinstance(block, dict):
        return False
    if block.get("type") == "keyValue" and "rows" in block:
        return True
    if _bare_path(block.get("visibleIf")) is not None:
        return True
    items = block.get("items") if block.get("type") == "actions" else None
    if isinstance(items, list) and any(
        isinstance(i, dict) and _bare_path(i.get("visibleIf")) for i in items
    ):
        return True
    if liberal:
        found = _BLOCK_MODELS.get(_type_of(block))
        if found is not None and any(k not in _aliases(found) for k in block):
            return True
        if block.get("type") == "actions" and isinstance(block.get("items"), list):
            known = _aliases(v.ActionItem)
            return any(
                isinstance(i, dict) and any(k not in known for k in i) for i in block["items"]
            )
    return False


def _bare_path(value: Any) -> str | None:
    """`channel` or `user.name` written where a binding belongs; None otherwise."""
    if not isinstance(value, str) or "{{" in value or "<<" in value:
        return None
    match = PATH_RE.match(value)
    return match.group("path") if match else None


def _read_block(
    doc: SourceDocument,
    pointer: str,
    block: dict[str, Any],
    parent: Any,
    liberal: bool,
    out: list[Problem],
) -> None:
    path = _bare_path(block.get("visibleIf"))
    if path is not None:
        block["visibleIf"] = "{{" + path + "}}"
    is_action_item = (
        isinstance(parent, dict) and parent.get("type") == "actions" and "type" not in block
    )
    written = "items"
    if block.get("type") == "keyValue" and "rows" in block:
        rows = block.pop("rows")
        if "items" not in block:
            written = "rows"
            block["items"] = [_row(r) for r in rows] if isinstance(rows, list) else rows
    if block.get("type") == "keyValue" and isinstance(block.get("items"), list):
        known_item = _aliases(v.KeyValueItem)
        for i, item in enumerate(block["items"]):
            if isinstance(item, dict):
                for key in [k for k in item if k not in known_item]:
                    del item[key]
                    _warn(doc, join_pointer(pointer, written, i, key),
                          f"key {quote(key)} on a keyValue row is not drawn by Notch; it is ignored",
                          out, key=True)  # fmt: skip
    if not liberal:
        return
    found = v.ActionItem if is_action_item else _BLOCK_MODELS.get(_type_of(block))
    if found is None:
        return  # an unknown block type: the structure check reports it
    known = _aliases(found)
    for key in [k for k in block if k not in known]:
        del block[key]
        what = "an action" if is_action_item else f"a {block.get('type')!r} block"
        _warn(doc, join_pointer(pointer, key),
              f"key {quote(key)} on {what} is not one Notch draws; it is ignored",
              out, key=True)  # fmt: skip


def _row(row: Any) -> Any:
    # A glance-style row is a [label, value] pair.
    if isinstance(row, list) and len(row) == 2 and all(isinstance(x, str) for x in row):
        return {"label": row[0], "value": row[1]}
    return row


def fixture_notes(doc: SourceDocument, data: Any) -> tuple[Any, list[Problem]]:
    """A VoiceOS fixture file's data with top-level keys Notch does not know set aside
    (as warnings). Never raises."""
    if not isinstance(data, dict):
        return data, []
    from notch_app.manifest.model import PreviewFixtures

    problems: list[Problem] = []
    kept = _known_keys(doc, "", data, _aliases(PreviewFixtures), problems)
    return kept, problems


__all__ = [
    "GENERATED",
    "IGNORED",
    "VOICEOS_MANIFEST_FILE",
    "VOICEOS_PREVIEW_FILE",
    "Read",
    "fixture_notes",
    "generate_confirmations",
    "generated_notice",
    "is_voiceos_file",
    "read_manifest",
]

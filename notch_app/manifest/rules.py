"""The rules beyond structure, each with a stable rule id.

Structure (shapes, types, reserved shapes, limits) is `structure.py`; this module checks
what a schema cannot say: bindings name real arguments of the right type, the footer
holds one confirm and one cancel, acting tools ask and read tools do not, inputSchemas are
themselves valid, and preview fixtures fit their tools. Every check is one pass over the
data (no rule looks at pairs of tools or blocks), so validation grows linearly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from referencing.exceptions import Unresolvable

from notch_app.manifest import limits
from notch_app.manifest.arguments import argument_problems, fits_json_types, json_type
from notch_app.manifest.bindings import MalformedBinding, find_bindings, parse_single_binding
from notch_app.manifest.fixtures import PreviewFixtures
from notch_app.manifest.model import Manifest, Tool, leading_verb, tool_kind
from notch_app.manifest.problems import Problem, join_pointer, quote
from notch_app.manifest.schema_check import SIMPLE_TYPES, first_schema_error
from notch_app.manifest.schema_refs import NOWHERE, follow_refs, pointer_target, ref_target
from notch_app.manifest.source import SourceDocument
from notch_app.manifest.structure import (
    describe_types,
    did_you_mean,
    nearest,
    pre_pass_views,
    structure_problems,
)
from notch_app.manifest.view import INPUT_TYPES

RULES: dict[str, str] = {
    "json-syntax": "the file is valid JSON",
    "json-encoding": "the file is UTF-8",
    "file-unreadable": "the path exists and can be read",
    "limit-file-size": f"a file is at most {limits.MAX_FILE_BYTES} bytes",
    "limit-nesting-depth": "JSON and block nesting stay within the limits",
    "limit-block-count": f"a view holds at most {limits.MAX_BLOCKS_PER_VIEW} blocks",
    "limit-string-length": "strings stay within their length limits",
    "limit-list-length": "lists stay within their length limits",
    "schema-structure": "the document has the shape the schema describes",
    "unknown-property": "closed objects hold only known properties",
    "unknown-key": "(warning) manifest and tool keys Notch does not know",
    "block-unknown-type": "every block type is in the vocabulary",
    "select-needs-options": "a select has at least one option",
    "reserved-block": "canvas blocks are reserved for a later schemaVersion",
    "reserved-role": "role custom is reserved for a later schemaVersion",
    "view-schema-version": "a confirmation view has schemaVersion 1",
    "binding-malformed": "a binding is {{dotted.path}} or <<dotted.path>>",
    "binding-unknown-argument": "every binding names a property of the inputSchema",
    "binding-into-scalar": "a dotted path only walks into objects",
    "input-type-mismatch": "an input's bound property has a type the input can edit",
    "select-option-mismatch": "every select option value fits the bound property",
    "footer-confirm-count": "the card footer holds exactly one confirm",
    "footer-cancel-count": "the card footer holds exactly one cancel",
    "acting-tool-needs-confirmation": "acting tools declare a confirmation",
    "read-tool-has-confirmation": "read-only tools do not declare a confirmation",
    "input-schema-invalid": "a tool's inputSchema is a valid, self-contained JSON Schema",
    "tool-duplicate-name": "tool names are unique",
    "destructive-confirm-label": "(warning) a destructive confirm names the consequence",
    "toggle-required": "(warning) toggles never gate, so `required` does nothing",
    "fixture-unknown-tool": "preview fixtures name tools of the manifest",
    "fixture-args-invalid": "preview fixture args validate against the tool's inputSchema",
}
"""Every rule id `notch validate` reports, with what it asks for."""

DESTRUCTIVE_VERBS = frozenset(
    {"delete", "remove", "trash", "erase", "wipe", "overwrite", "revoke", "destroy",
     "purge", "drop", "cancel", "unsubscribe", "refund", "pay", "transfer"}
)  # fmt: skip
VAGUE_CONFIRM_LABELS = frozenset(
    {"confirm", "ok", "okay", "yes", "continue", "proceed", "submit", "done", "accept",
     "approve", "go", "apply", "sure", "allow", "run"}
)  # fmt: skip

_SINGLE_BINDING_KEYS = frozenset({"bind", "visibleIf", "itemsFrom"})
_WORD_KEYS = frozenset({"type", "role", "color", "tone", "variant", "direction"})


@dataclass
class ManifestCheck:
    """What checking one manifest found."""

    manifest: Manifest | None
    """The typed manifest when its structure is valid (rules may still have failed)."""
    problems: list[Problem] = field(default_factory=list)
    tools: dict[str, Tool] = field(default_factory=dict)
    """Well-formed tools with a valid inputSchema, by name (for fixture checks)."""
    tool_names: list[str] = field(default_factory=list)
    """Every tool name written in the file, well-formed or not."""


# --- the manifest ----------------------------------------------------------------------


def check_manifest(doc: SourceDocument) -> ManifestCheck:
    """Structure, then every rule, for the manifest in `doc`. Never raises for content."""
    data = doc.data
    if not isinstance(data, dict):
        return ManifestCheck(
            None,
            [
                doc.problem(
                    "",
                    "schema-structure",
                    'a manifest is a JSON object ({"schemaVersion": 1, "id": ..., '
                    '"tools": [...]}); wrap the content in { }',
                )
            ],
        )
    pre = pre_pass_views(doc, data)
    result = ManifestCheck(None, list(pre.problems))
    tools: list[tuple[int, Tool]] = []
    try:
        result.manifest = Manifest.model_validate(data, strict=True)
        tools = list(enumerate(result.manifest.tools))
    except ValidationError as exc:
        result.problems.extend(structure_problems(doc, exc, Manifest, data, pre))
        # Rules still run on the tools that are well formed, so one bad tool does not
        # hide the problems of the others.
        raw_tools = data.get("tools")
        if isinstance(raw_tools, list):
            for index, raw in enumerate(raw_tools[: limits.MAX_TOOLS]):
                try:
                    tools.append((index, Tool.model_validate(raw, strict=True)))
                except ValidationError:
                    continue
    raw_tools = data.get("tools")
    if isinstance(raw_tools, list):
        result.tool_names = [
            t["name"] for t in raw_tools if isinstance(t, dict) and isinstance(t.get("name"), str)
        ]
    result.problems.extend(_unknown_keys(doc, data))
    seen: set[str] = set()
    for index, tool in tools:
        base = join_pointer("/tools", index)
        if tool.name in seen:
            result.problems.append(
                doc.problem(
                    base + "/name",
                    "tool-duplicate-name",
                    f"a tool named {tool.name!r} is already declared above; tool names must be "
                    "unique — rename one",
                )
            )
        seen.add(tool.name)
        raw = raw_tools[index] if isinstance(raw_tools, list) else {}
        schema_ok = _check_input_schema(doc, tool, base, result.problems)
        if schema_ok:
            result.tools.setdefault(tool.name, tool)
        _check_tool_kind(doc, tool, base, result.problems)
        view = raw.get("confirmation") if isinstance(raw, dict) else None
        if tool.confirmation is not None and isinstance(view, dict):
            _check_view(doc, tool, base + "/confirmation", view, schema_ok, result.problems)
    return result


def _unknown_keys(doc: SourceDocument, data: dict[str, Any]) -> Iterator[Problem]:
    """Warnings for keys of the two open shapes (Manifest, Tool) that Notch does not know."""
    known = _aliases(Manifest)
    for key in data:
        if key not in known:
            yield _unknown_key(doc, "", key, known, "manifest")
    tools = data.get("tools")
    if not isinstance(tools, list):
        return
    tool_known = _aliases(Tool)
    for index, raw in enumerate(tools):
        if isinstance(raw, dict):
            for key in raw:
                if key not in tool_known:
                    yield _unknown_key(doc, join_pointer("/tools", index), key, tool_known, "tool")


def _aliases(model: type[Manifest] | type[Tool]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def _unknown_key(doc: SourceDocument, base: str, key: str, known: list[str], where: str) -> Problem:
    hint = did_you_mean(key, known)
    fix = "rename it" if hint else "Notch ignores it; remove it if it is a mistake"
    return doc.problem(
        join_pointer(base, key),
        "unknown-key",
        f"{where} key {quote(key)} is not one Notch knows{hint}; {fix}",
        severity="warning",
        key=True,
    )


# --- tools -----------------------------------------------------------------------------


def _check_tool_kind(doc: SourceDocument, tool: Tool, base: str, out: list[Problem]) -> None:
    kind = tool_kind(tool)
    by_annotation = tool.annotations is not None and (
        tool.annotations.read_only_hint is not None or bool(tool.annotations.destructive_hint)
    )
    reason = (
        "its annotations say so"
        if by_annotation
        else f"its name starts with {leading_verb(tool.name)!r}"
    )
    if kind == "acting" and tool.confirmation is None:
        out.append(
            doc.problem(
                base + "/name",
                "acting-tool-needs-confirmation",
                f"tool {tool.name!r} acts ({reason}) but declares no confirmation; add a "
                '"confirmation" view showing what it will do (or mark it '
                '"annotations": {"readOnlyHint": true} if it only reads)',
            )
        )
    elif kind == "read" and tool.confirmation is not None:
        out.append(
            doc.problem(
                base + "/confirmation",
                "read-tool-has-confirmation",
                f"tool {tool.name!r} only reads ({reason}) but declares a confirmation; "
                "remove it — asking before reads makes the assistant feel broken",
            )
        )


def _check_input_schema(doc: SourceDocument, tool: Tool, base: str, out: list[Problem]) -> bool:
    schema = tool.input_schema
    pointer = base + "/inputSchema"
    declared = schema.get("type")
    if declared is not None and declared != "object":
        out.append(
            doc.problem(
                pointer + "/type",
                "input-schema-invalid",
                f"inputSchema type is {quote(declared)}; tool arguments are an object — "
                'write "type": "object" with "properties"',
            )
        )
        return False
    for ref_pointer, ref in _refs(schema, pointer):
        if not ref.startswith("#"):
            out.append(
                doc.problem(
                    ref_pointer,
                    "input-schema-invalid",
                    f"$ref {quote(ref)} points outside the inputSchema; Notch never fetches "
                    'schemas — move the definition into "$defs" and refer to "#/$defs/..."',
                )
            )
            return False
        if not _resolves(schema, ref):
            out.append(
                doc.problem(
                    ref_pointer,
                    "input-schema-invalid",
                    f"$ref {quote(ref)} points at nothing in this inputSchema; add the "
                    'definition under "$defs" or fix the reference',
                )
            )
            return False
    found = first_schema_error(schema)
    if found is None:
        return True
    where, why = found
    value = _at(schema, where)
    if where.endswith("/type") and isinstance(value, str):
        message = (
            f"{quote(value)} is not a JSON Schema type{did_you_mean(value, SIMPLE_TYPES)}; "
            f"use one of: {', '.join(SIMPLE_TYPES)}"
        )
    else:
        message = f"inputSchema is not a valid JSON Schema: {why}; fix it so the tool's arguments can be checked"
    out.append(doc.problem(pointer + where, "input-schema-invalid", message))
    return False


def _at(schema: Any, pointer: str) -> Any:
    found = pointer_target(schema, pointer)
    return None if found is NOWHERE else found


def _resolves(schema: dict[str, Any], ref: str) -> bool:
    """Whether a local `$ref` (`#`, `#/json/pointer` or `#anchor`) names something."""
    return ref == "#/" or ref_target(schema, ref) is not NOWHERE


def _refs(schema: Any, base: str) -> Iterator[tuple[str, str]]:
    # Children carry their parent's pointer and their token; only containers join theirs
    # (scalars, most of a schema, never need one).
    if isinstance(schema, (dict, list)):
        yield from _refs_below(schema, base)


def _refs_below(root: dict[str, Any] | list[Any], base: str) -> Iterator[tuple[str, str]]:
    stack: list[tuple[Any, str, str | int | None]] = [(root, base, None)]
    while stack:
        node, parent, token = stack.pop()
        if isinstance(node, dict):
            pointer = parent if token is None else join_pointer(parent, token)
            ref = node.get("$ref")
            if isinstance(ref, str):
                yield pointer + "/$ref", ref
            stack.extend((v, pointer, k) for k, v in node.items() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            pointer = parent if token is None else join_pointer(parent, token)
            stack.extend((v, pointer, i) for i, v in enumerate(node) if isinstance(v, (dict, list)))


# --- argument lookup through the inputSchema -------------------------------------------


@dataclass(frozen=True)
class Lookup:
    """Where a binding path leads in a tool's inputSchema."""

    schema: dict[str, Any] | None
    """The property's schema when found."""
    rule: str | None = None
    message: str = ""


def _deref(root: dict[str, Any], node: Any) -> Any:
    found = follow_refs(root, node)
    return {} if found is NOWHERE else found


def _branches(root: dict[str, Any], schema: Any) -> list[dict[str, Any]]:
    """The schema and its allOf/anyOf/oneOf branches (one level), dereferenced."""
    schema = _deref(root, schema)
    if not isinstance(schema, dict):
        return []
    out = [schema]
    for key in ("allOf", "anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            out.extend(b for b in (_deref(root, x) for x in branches) if isinstance(b, dict))
    return out


def schema_types(root: dict[str, Any], schema: Any) -> set[str]:
    """JSON types a property may hold; empty when the schema does not say."""
    types: set[str] = set()
    for branch in _branches(root, schema):
        declared = branch.get("type")
        if isinstance(declared, str):
            types.add(declared)
        elif isinstance(declared, list):
            types.update(t for t in declared if isinstance(t, str))
        values = branch.get("enum") if isinstance(branch.get("enum"), list) else None
        if values is None and "const" in branch:
            values = [branch["const"]]
        for v in values or []:
            types.add(json_type(v) or "null")
    return types


def _properties(root: dict[str, Any], schema: Any) -> dict[str, Any] | None:
    found: dict[str, Any] | None = None
    for branch in _branches(root, schema):
        props = branch.get("properties")
        if isinstance(props, dict):
            found = {**(found or {}), **props}
    return found


def lookup(input_schema: dict[str, Any], path: str) -> Lookup:
    """Follow a dotted binding path through `properties` (and array `items` by index)."""
    current: Any = input_schema
    walked: list[str] = []
    for segment in path.split("."):
        props = _properties(input_schema, current)
        types = schema_types(input_schema, current)
        if props is None and "array" in types and segment.isdigit():
            items: Any = None
            for branch in _branches(input_schema, current):
                if isinstance(branch.get("items"), dict):
                    items = branch["items"]
            current = _deref(input_schema, items) if items is not None else {}
            walked.append(segment)
            continue
        here = ".".join(walked) or "the arguments"
        if props is None:
            if walked and types and "object" not in types:
                kind = " or ".join(sorted(types))
                return Lookup(
                    None,
                    "binding-into-scalar",
                    f"{path!r} walks into {'.'.join(walked)!r}, which is {kind}, not an object; "
                    f"bind {'.'.join(walked)!r} itself or declare it as an object with "
                    "properties",
                )
            return Lookup(
                None,
                "binding-unknown-argument",
                f"{path!r} names {segment!r}, but {here!r} declares no properties in the "
                'inputSchema; declare it under "properties"',
            )
        if segment not in props:
            existing = ", ".join(sorted(props)) or "none"
            return Lookup(
                None,
                "binding-unknown-argument",
                f"{path!r} is not an argument of this tool{did_you_mean(segment, props)}; "
                f"{here if walked else 'the inputSchema'} has: {existing}",
            )
        current = _deref(input_schema, props[segment])
        walked.append(segment)
    return Lookup(current if isinstance(current, dict) else {})


# --- views -----------------------------------------------------------------------------


def _check_view(
    doc: SourceDocument,
    tool: Tool,
    base: str,
    view: dict[str, Any],
    schema_ok: bool,
    out: list[Problem],
) -> None:
    root = view.get("root")
    if not isinstance(root, dict):
        return
    bound: dict[str, Lookup] = {}
    _check_bindings(doc, tool, base, view, schema_ok, bound, out)
    blocks = list(_walk_blocks(root, base + "/root"))
    for block, pointer in blocks:
        kind = block.get("type")
        if kind in INPUT_TYPES:
            _check_input(doc, tool, block, pointer, bound, out)
    _check_footer(doc, tool, root, base + "/root", out)


def _walk_blocks(root: dict[str, Any], pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    stack: list[tuple[Any, str]] = [(root, pointer)]
    while stack:
        node, here = stack.pop()
        if not isinstance(node, dict):
            continue
        yield node, here
        kind = node.get("type")
        keys = {"card": ("children", "footer"), "stack": ("children",), "list": ("items",)}
        kids: list[tuple[Any, str]] = []
        for key in keys.get(kind if isinstance(kind, str) else "", ()):
            value = node.get(key)
            if isinstance(value, list):
                kids.extend((kid, join_pointer(here, key, i)) for i, kid in enumerate(value))
        stack.extend(reversed(kids))


def _check_bindings(
    doc: SourceDocument,
    tool: Tool,
    base: str,
    view: dict[str, Any],
    schema_ok: bool,
    bound: dict[str, Lookup],
    out: list[Problem],
) -> None:
    """Every string in the view: `bind`/`visibleIf`/`itemsFrom` hold exactly one binding,
    display text may hold many; each must name an argument of the tool."""
    # Each entry holds its parent's pointer and its own token: the pointer is joined only
    # for containers (their children need it) and for strings that hold a binding, not
    # for every label and flag in the view.
    stack: list[tuple[Any, str, str | int, str]] = [(view.get("root"), base, "root", "")]
    while stack:
        node, parent, token, key = stack.pop()
        if isinstance(node, dict):
            pointer = join_pointer(parent, token)
            options_entry = key == "options"
            for k, v in node.items():
                if k in _WORD_KEYS or (options_entry and k == "value"):
                    continue
                stack.append((v, pointer, k, k))
        elif isinstance(node, list):
            pointer = join_pointer(parent, token)
            stack.extend((v, pointer, i, key) for i, v in enumerate(node))
        elif isinstance(node, str):
            if key not in _SINGLE_BINDING_KEYS and "{{" not in node and "<<" not in node:
                continue  # no binding in this text (find_bindings would find none)
            pointer = join_pointer(parent, token)
            paths: list[str] = []
            try:
                if key in _SINGLE_BINDING_KEYS:
                    paths = [parse_single_binding(node)]
                else:
                    paths = [b.path for b in find_bindings(node)]
            except MalformedBinding as exc:
                what = (
                    f"{key!r} must be exactly one binding, and {quote(exc.raw)} is not one"
                    if key in _SINGLE_BINDING_KEYS
                    else f"{quote(exc.raw)} in this text is not a binding"
                )
                out.append(
                    doc.problem(
                        pointer,
                        "binding-malformed",
                        f"{what}; write a dotted argument path such as "
                        '"{{user.name}}" or "<<user.name>>" (letters, digits, _ and - '
                        "between the dots)",
                    )
                )
                continue
            if not schema_ok:
                continue
            for path in paths:
                found = lookup(tool.input_schema, path)
                if key in ("bind", "itemsFrom"):
                    bound[pointer] = found
                if found.rule is not None:
                    out.append(doc.problem(pointer, found.rule, found.message))


def _check_input(
    doc: SourceDocument,
    tool: Tool,
    block: dict[str, Any],
    pointer: str,
    bound: dict[str, Lookup],
    out: list[Problem],
) -> None:
    kind = block["type"]
    if kind == "toggle" and block.get("required") is True:
        out.append(
            doc.problem(
                pointer + "/required",
                "toggle-required",
                'toggles never gate the confirm button (off is an answer), so "required" '
                "does nothing here; remove it",
                severity="warning",
            )
        )
    found = bound.get(pointer + "/bind")
    if found is None or found.schema is None:
        return
    root = tool.input_schema
    types = schema_types(root, found.schema) - {"null"}
    path = parse_single_binding(block["bind"])
    if kind == "select":
        _check_select(doc, root, found.schema, types, block, pointer, path, out)
        return
    if not types:
        return  # the schema does not say; any value is editable
    expected: dict[str, set[str]] = {
        "toggle": {"boolean"},
        "chips": {"array"},
        "textField": {"string", "number", "integer"},
        "passwordField": {"string", "number", "integer"},
    }
    fix = {
        "toggle": "bind a boolean property, or use a select or textField",
        "chips": "bind an array of strings, or use a textField",
        "textField": "bind a string or number property, or use a toggle/select/chips",
        "passwordField": "bind a string property",
    }
    ok = bool(types & expected[kind])
    if ok and kind == "chips":
        item_types: set[str] = set()
        for branch in _branches(root, found.schema):
            if isinstance(branch.get("items"), dict | bool):
                item_types |= (
                    schema_types(root, branch["items"])
                    if isinstance(branch["items"], dict)
                    else set()
                )
        ok = item_types == set() or item_types <= {"string"}
        if not ok:
            types = {f"a list of {describe_types(item_types)}"}
    if not ok:
        shown = ", ".join(sorted(types)) if any(" " in t for t in types) else describe_types(types)
        out.append(
            doc.problem(
                pointer + "/bind",
                "input-type-mismatch",
                f"a {kind} cannot edit {path!r}: it is {shown} in the inputSchema, and a "
                f"{kind} edits {_INPUT_EDITS[kind]}; {fix[kind]}",
            )
        )


_INPUT_EDITS = {
    "toggle": "true/false",
    "chips": "a list of text",
    "textField": "text or a number",
    "passwordField": "text or a number",
}


def _check_select(
    doc: SourceDocument,
    root: dict[str, Any],
    prop: dict[str, Any],
    types: set[str],
    block: dict[str, Any],
    pointer: str,
    path: str,
    out: list[Problem],
) -> None:
    enum: list[Any] | None = None
    for branch in _branches(root, prop):
        if isinstance(branch.get("enum"), list):
            enum = list(branch["enum"])
        elif "const" in branch and enum is None:
            enum = [branch["const"]]
    options = block.get("options")
    if not isinstance(options, list):
        return
    for i, option in enumerate(options):
        if not isinstance(option, dict) or "value" not in option:
            continue
        value = option["value"]
        where = join_pointer(pointer, "options", i, "value")
        if enum is not None:
            if not any(json_type(value) == json_type(e) and value == e for e in enum):
                allowed = ", ".join(quote(e) for e in enum[:12])
                hint = (
                    did_you_mean(value, [e for e in enum if isinstance(e, str)])
                    if isinstance(value, str)
                    else ""
                )
                out.append(
                    doc.problem(
                        where,
                        "select-option-mismatch",
                        f"option value {quote(value)} is not allowed for {path!r}{hint}; the "
                        f"inputSchema's enum is: {allowed}",
                    )
                )
        elif types and not fits_json_types(value, types):
            out.append(
                doc.problem(
                    where,
                    "select-option-mismatch",
                    f"option value {quote(value)} is {describe_types({json_type(value) or 'null'})}, "
                    f"but {path!r} is {describe_types(types)}; change the value to fit",
                )
            )


def _roles(footer: list[Any], base: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(role, pointer of the action, the action) for every action in a footer."""
    for i, block in enumerate(footer):
        if not isinstance(block, dict):
            continue
        here = join_pointer(base, i)
        if block.get("type") == "button":
            yield str(block.get("role")), here, block
        elif block.get("type") == "actions" and isinstance(block.get("items"), list):
            for j, item in enumerate(block["items"]):
                if isinstance(item, dict):
                    yield str(item.get("role")), join_pointer(here, "items", j), item


def _check_footer(
    doc: SourceDocument, tool: Tool, root: dict[str, Any], pointer: str, out: list[Problem]
) -> None:
    if root.get("type") != "card":
        for rule in ("footer-confirm-count", "footer-cancel-count"):
            out.append(
                doc.problem(
                    pointer,
                    rule,
                    f"the root is a {root.get('type')!r} block; confirm and cancel live in a "
                    "card's footer — make the root a card whose footer holds one confirm "
                    "and one cancel action",
                )
            )
        return
    footer = root.get("footer")
    footer_pointer = pointer + "/footer" if isinstance(footer, list) else pointer
    actions = list(_roles(footer if isinstance(footer, list) else [], pointer + "/footer"))
    destructive = bool(tool.annotations and tool.annotations.destructive_hint) or (
        leading_verb(tool.name) in DESTRUCTIVE_VERBS
    )
    for role, rule in (("confirm", "footer-confirm-count"), ("cancel", "footer-cancel-count")):
        matching = [(p, a) for r, p, a in actions if r == role]
        if not matching:
            example = (
                '{"label": "Send", "role": "confirm"}'
                if role == "confirm"
                else ('{"label": "Cancel", "role": "cancel"}')
            )
            out.append(
                doc.problem(
                    footer_pointer,
                    rule,
                    f"the card's footer has no {role} action; add one, e.g. {example} in an "
                    "actions block of the footer",
                )
            )
        for extra_pointer, _ in matching[1:]:
            out.append(
                doc.problem(
                    extra_pointer + "/role",
                    rule,
                    f"the card's footer holds {len(matching)} {role} actions; keep exactly one "
                    f"(change this one's role or remove it)",
                )
            )
        if role == "confirm" and destructive and matching:
            first_pointer, action = matching[0]
            label = action.get("label")
            if (
                isinstance(label, str)
                and label.strip().lower().rstrip("!.") in VAGUE_CONFIRM_LABELS
            ):
                out.append(
                    doc.problem(
                        first_pointer + "/label",
                        "destructive-confirm-label",
                        f"{tool.name!r} is destructive but its confirm says only {label!r}; name "
                        'the consequence, e.g. "Delete {{count}} files"',
                        severity="warning",
                    )
                )


# --- preview fixtures ------------------------------------------------------------------


def check_fixtures(
    doc: SourceDocument, manifest: ManifestCheck
) -> tuple[PreviewFixtures | None, list[Problem]]:
    """The preview fixture file in `doc` against the checked manifest."""
    data = doc.data
    if not isinstance(data, dict):
        return None, [
            doc.problem(
                "",
                "schema-structure",
                'a preview fixture file is a JSON object {"schemaVersion": 1, "tools": '
                "{...}}; wrap the content in { }",
            )
        ]
    problems: list[Problem] = []
    fixtures: PreviewFixtures | None = None
    try:
        fixtures = PreviewFixtures.model_validate(data, strict=True)
    except ValidationError as exc:
        problems.extend(structure_problems(doc, exc, PreviewFixtures, data))
    tools = data.get("tools")
    if not isinstance(tools, dict):
        return fixtures, problems
    names = manifest.tool_names
    for name, entry in tools.items():
        pointer = join_pointer("/tools", name)
        if name not in names:
            problems.append(
                doc.problem(
                    pointer,
                    "fixture-unknown-tool",
                    f"the manifest has no tool {quote(name)}{did_you_mean(name, names)}; "
                    f"fixtures can name: {', '.join(names) or 'no tools'}",
                    key=True,
                )
            )
            continue
        tool = manifest.tools.get(name)
        args = entry.get("args") if isinstance(entry, dict) else None
        if tool is None or not isinstance(args, dict):
            continue
        try:
            found = argument_problems(tool, args)
        except (Unresolvable, re.error, RecursionError, ValueError) as exc:
            # The inputSchema passed its checks but cannot be applied; say so, once.
            problems.append(
                doc.problem(
                    pointer + "/args",
                    "fixture-args-invalid",
                    f"these sample arguments cannot be checked: the inputSchema of {name!r} "
                    f"fails when applied ({type(exc).__name__}); fix the inputSchema",
                )
            )
            continue
        for ap in found:
            problems.append(
                doc.problem(
                    pointer + "/args" + ap.pointer,
                    "fixture-args-invalid",
                    f"sample argument {ap.path or 'object'!r} {ap.message} (per the inputSchema of "
                    f"{name!r}); change the fixture to a value the tool accepts",
                )
            )
    return fixtures, problems


__all__ = ["RULES", "ManifestCheck", "check_fixtures", "check_manifest", "lookup", "nearest"]

"""Rules about one confirmation view: what it binds, what it edits, what it acts with.

Bindings name real arguments of the right type, inputs can edit what they bind, select
options fit their property, the footer holds one confirm and one cancel (and no confirm
hides in the body), a destructive confirm names its consequence, and every argument the
tool takes is shown somewhere on the card. Each check is one pass over the view.

A `widget` view is a sandboxed page as the root: its `data` bindings are checked like any,
its `html` is the page's own text (no bindings), and Notch lists every argument and draws
its own confirm and cancel around it, so it needs no footer and shows every argument.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from notch_app.manifest.acting import leading_verb
from notch_app.manifest.argument_lookup import Lookup, lookup, schema_types
from notch_app.manifest.facts import displayed
from notch_app.manifest.model import INPUT_TYPES, ROOT_ONLY_TYPES, Tool, walk_blocks
from notch_app.manifest.paths import (
    MalformedBinding,
    declared_form,
    find_bindings,
    join_pointer,
    parse_single_binding,
)
from notch_app.manifest.reading import Problem, SourceDocument, quote
from notch_app.manifest.schema import fits_json_types, json_type, navigator_for
from notch_app.manifest.structure import describe_types, did_you_mean

DESTRUCTIVE_VERBS = frozenset(
    {"delete", "remove", "trash", "erase", "wipe", "overwrite", "revoke", "destroy",
     "purge", "drop", "cancel", "unsubscribe", "refund", "pay", "transfer"}
)  # fmt: skip
VAGUE_CONFIRM_LABELS = frozenset(
    {"confirm", "ok", "okay", "yes", "continue", "proceed", "submit", "done", "accept",
     "approve", "go", "apply", "sure", "allow", "run"}
)  # fmt: skip

_ACTION_DOES = frozenset({"value", "url"})
"""An action's copy text and link: what it does when pressed, not what it shows."""
_SINGLE_BINDING_KEYS = frozenset({"bind", "visibleIf", "itemsFrom"})
_WORD_KEYS = frozenset({"type", "role", "color", "tone", "variant", "direction"})
_WIDGET_OWN = frozenset({"html", "data"})
"""A widget's page (its own text) and data (checked by `_check_widget_data`)."""


def check_view(
    doc: SourceDocument,
    tool: Tool,
    base: str,
    view: dict[str, Any],
    schema_ok: bool,
    out: list[Problem],
) -> list[str]:
    """Check one confirmation view (raw JSON at `base`); returns the argument paths it
    shows (for `argument_shown_problems`)."""
    root = view.get("root")
    if not isinstance(root, dict):
        return []
    bound: dict[str, Lookup] = {}
    shown: list[str] = []
    _check_bindings(doc, tool, base, view, schema_ok, bound, shown, out)
    if root.get("type") == "widget":
        _check_widget_data(doc, tool, base + "/root", root, schema_ok, out)
        # Notch lists every argument under the page itself ("What will run").
        return [
            path for path, _written, _inner in navigator_for(tool.input_schema).argument_paths()
        ]
    footer = base + "/root/footer/"
    for visit in walk_blocks(root, base + "/root"):
        block = visit.block
        kind = block.get("type")
        if kind in ROOT_ONLY_TYPES and visit.depth > 1:
            out.append(
                doc.problem(
                    visit.pointer + "/type",
                    "widget-not-root",
                    f"a {kind!r} is a whole confirmation view and is drawn only as the root "
                    '(`"root": {"type": "widget", ...}`, with Notch\'s own confirm and cancel '
                    "around it); make it the root of this confirmation, or draw this part "
                    "with blocks",
                )
            )
            if kind == "widget":
                _check_widget_data(doc, tool, visit.pointer, block, schema_ok, out)
        if kind in INPUT_TYPES:
            _check_input(doc, tool, block, visit.pointer, bound, out)
        if root.get("type") == "card" and not visit.pointer.startswith(footer):
            for here, action in _actions_of(block, visit.pointer):
                if action.get("role") == "confirm":
                    out.append(
                        doc.problem(
                            here + "/role",
                            "body-confirm",
                            "a confirm action in the card's body takes the primary button "
                            "and demotes the footer's confirm, so the person may approve "
                            "from a button they did not read as the main one; keep the one "
                            "confirm in the footer (give this one role copy or openUrl, or "
                            "remove it)",
                        )
                    )
    _check_footer(doc, tool, root, base + "/root", out)
    return shown


def _check_bindings(
    doc: SourceDocument,
    tool: Tool,
    base: str,
    view: dict[str, Any],
    schema_ok: bool,
    bound: dict[str, Lookup],
    shown: list[str],
    out: list[Problem],
) -> None:
    """Every string in the view: `bind`/`visibleIf`/`itemsFrom` hold exactly one binding,
    display text may hold many; each must name an argument of the tool. The paths that
    show a value (not visibleIf, not an action's copy text or link) go into `shown`, as
    `shown_arguments.shown_paths` reads them from the model."""
    # Each entry holds its parent's pointer and its own token: the pointer is joined only
    # for containers (their children need it) and for strings that hold a binding, not
    # for every label and flag in the view.
    stack: list[tuple[Any, str, str | int, str, bool]] = [
        (view.get("root"), base, "root", "", False)
    ]
    while stack:
        node, parent, token, key, in_action = stack.pop()
        if isinstance(node, dict):
            pointer = join_pointer(parent, token)
            options_entry = key == "options"
            action = "role" in node
            widget = node.get("type") == "widget"
            for k, v in node.items():
                if k in _WORD_KEYS or (options_entry and k == "value"):
                    continue
                if widget and k in _WIDGET_OWN:
                    continue
                stack.append((v, pointer, k, k, action))
        elif isinstance(node, list):
            pointer = join_pointer(parent, token)
            stack.extend((v, pointer, i, key, False) for i, v in enumerate(node))
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
            if key != "visibleIf" and not (in_action and key in _ACTION_DOES):
                shown.extend(paths)
            if not schema_ok:
                continue
            for path in paths:
                found = lookup(tool.input_schema, path)
                if key in ("bind", "itemsFrom"):
                    bound[pointer] = found
                if found.rule is not None:
                    out.append(doc.problem(pointer, found.rule, found.message))


def _check_widget_data(
    doc: SourceDocument,
    tool: Tool,
    pointer: str,
    block: dict[str, Any],
    schema_ok: bool,
    out: list[Problem],
) -> None:
    """Every binding in a widget's `data` (at any depth, keys aside) names an argument."""
    stack: list[tuple[Any, str]] = [(block.get("data"), pointer + "/data")]
    while stack:
        node, here = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, join_pointer(here, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, join_pointer(here, i)) for i, v in enumerate(node))
        elif isinstance(node, str) and ("{{" in node or "<<" in node):
            try:
                paths = [b.path for b in find_bindings(node)]
            except MalformedBinding as exc:
                out.append(
                    doc.problem(
                        here,
                        "binding-malformed",
                        f"{quote(exc.raw)} in this data is not a binding; write a dotted "
                        'argument path such as "{{to}}" or "<<user.name>>", or leave the '
                        "braces out",
                    )
                )
                continue
            for path in paths if schema_ok else ():
                found = lookup(tool.input_schema, path)
                if found.rule is not None:
                    out.append(doc.problem(here, found.rule, found.message))


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
        element = navigator_for(root).items(found.schema)
        item_types = schema_types(root, element) if element is not None else set()
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
    enum = navigator_for(root).enum(prop)
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


def _actions_of(block: dict[str, Any], here: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer, action) for a button, or for each item of an actions row."""
    if block.get("type") == "button":
        yield here, block
    elif block.get("type") == "actions" and isinstance(block.get("items"), list):
        for j, item in enumerate(block["items"]):
            if isinstance(item, dict):
                yield join_pointer(here, "items", j), item


def _roles(footer: list[Any], base: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(role, pointer of the action, the action) for every action in a footer."""
    for i, block in enumerate(footer):
        if isinstance(block, dict):
            for here, action in _actions_of(block, join_pointer(base, i)):
                yield str(action.get("role")), here, action


def _check_footer(
    doc: SourceDocument, tool: Tool, root: dict[str, Any], pointer: str, out: list[Problem]
) -> None:
    if root.get("type") in ROOT_ONLY_TYPES:
        return  # Notch draws its own confirm and cancel around a widget
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
                        'the consequence, e.g. "Delete {{paths.length}} files"',
                        severity="warning",
                    )
                )


def argument_shown_problems(
    doc: SourceDocument, tool: Tool, base: str, shown_paths: list[str]
) -> Iterator[Problem]:
    """Warnings (`argument-not-shown`) for each inputSchema property no block of the
    tool's card binds or displays: the person would approve a value they never saw (the
    card lists such values under "Also sends", but a card should show them itself).
    `base` is the tool's pointer and `shown_paths` what `check_view` found its card shows;
    the tool's inputSchema is valid."""
    # Guards and the schema walk name a list's elements by the list's path.
    shown = {declared_form(p) for p in displayed(shown_paths)}
    inside_shown = {prefix for p in shown for prefix in _ancestors(p)}
    nav = navigator_for(tool.input_schema)
    unshown: list[str] = []
    for path, _written, _inner in nav.argument_paths():
        if path in shown or path in inside_shown:
            continue  # shown whole, or part of it shows (its parts are judged one by one)
        if any(a in shown or a in unshown for a in _ancestors(path)):
            continue  # shown as part of its parent, or inside an argument already reported
        unshown.append(path)
    for path in unshown:
        yield doc.problem(
            _property_pointer(tool.input_schema, base + "/inputSchema", path),
            "argument-not-shown",
            f"argument {path!r} is sent but the card never shows it; bind it to an input "
            f'or show it in text (e.g. a keyValue row "{{{{{path}}}}}"), so the person '
            "sees what they approve",
            severity="warning",
            key=True,
        )


def _ancestors(path: str) -> list[str]:
    """`a`, `a.b` for `a.b.c`."""
    parts = path.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _property_pointer(schema: dict[str, Any], base: str, path: str) -> str:
    """The pointer of `path`'s key as written under `properties` (through `items` for a
    list), as deep as the schema spells it literally."""
    pointer, node = base, schema
    for segment in path.split("."):
        while (
            isinstance(node, dict)
            and "properties" not in node
            and isinstance(node.get("items"), dict)
        ):
            pointer, node = pointer + "/items", node["items"]
        props = node.get("properties") if isinstance(node, dict) else None
        if not isinstance(props, dict) or segment not in props:
            break
        pointer, node = join_pointer(pointer, "properties", segment), props[segment]
    return pointer

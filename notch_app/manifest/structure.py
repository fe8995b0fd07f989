"""Structure: pydantic's verdict on a document, turned into placed, fixable Problems.

A pre-pass over the raw JSON finds the shapes a generic union error would hide — reserved
blocks and roles, unknown block types, an unsupported view `schemaVersion`, views too large
or too deep — and reports them with their own rule ids. Pydantic's errors under those
places are then dropped, and every remaining error's `loc` is walked alongside the model
types and the data to give a JSON Pointer and a message that says how to fix it.

Kept in one module on purpose: the pre-pass decides which places pydantic's errors
are dropped under, and the error walk must read that decision, so the two halves are one
job (turning "the document has the wrong shape" into placed, fixable problems).
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from notch_app.manifest import limits
from notch_app.manifest.model import (
    BLOCK_TYPES,
    RESERVED_BLOCK_TYPES,
    RESERVED_ROLES,
    SUPPORTED_VIEW_VERSIONS,
    walk_blocks,
)
from notch_app.manifest.paths import join_pointer, parent_pointer
from notch_app.manifest.reading import Problem, SourceDocument, quote
from notch_app.manifest.schema import json_type

_TYPE_WORDS = {
    "string_type": "text (a JSON string)",
    "int_type": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "list_type": "a list",
    "literal_error": "one of the allowed words",
}


def nearest(word: str, choices: Iterable[str]) -> str | None:
    """The closest of `choices` to `word`, if any is close enough to be a typo."""
    pool = list(choices)
    hits = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    if not hits:
        lowered = {c.lower(): c for c in pool}
        hit = lowered.get(word.lower())
        return hit
    return hits[0]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    hit = nearest(word, choices)
    return f" (did you mean {hit!r}?)" if hit is not None and hit != word else ""


TYPE_NAMES = {
    "boolean": "true/false",
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
"""JSON types in a manifest author's words (`null` stays `null`: it is what they wrote)."""


def describe_types(types: Iterable[str]) -> str:
    """JSON type names as words: `text or a whole number`."""
    return " or ".join(TYPE_NAMES.get(t, t) for t in sorted(types))


def _kind_of(value: Any) -> str:
    return TYPE_NAMES[json_type(value) or "null"]


# --- the pre-pass --------------------------------------------------------------------


@dataclass
class PrePass:
    problems: list[Problem]
    suppressed: set[str]

    def covers(self, pointer: str) -> bool:
        probe = pointer
        while True:
            if probe in self.suppressed:
                return True
            if not probe:
                return False
            probe = parent_pointer(probe)


def pre_pass_views(doc: SourceDocument, data: Any) -> PrePass:
    """Reserved shapes, unknown block types, view versions and view size limits."""
    out = PrePass([], set())
    if not isinstance(data, dict):
        return out
    tools = data.get("tools")
    if not isinstance(tools, list):
        return out
    for index, tool in enumerate(tools):
        if isinstance(tool, dict) and isinstance(tool.get("confirmation"), dict):
            pre_pass_view(
                doc, tool["confirmation"], join_pointer("/tools", index, "confirmation"), out
            )
    return out


def pre_pass_view(doc: SourceDocument, view: dict[str, Any], base: str, out: PrePass) -> None:
    if _unsupported_version(doc, view, base, out):
        return
    root = view.get("root")
    if not isinstance(root, dict):
        return
    count = 0
    pruned: set[int] = set()
    for visit in walk_blocks(root, base + "/root", pruned=pruned):
        node, pointer, depth = visit.block, visit.pointer, visit.depth
        count += 1
        if count > limits.MAX_BLOCKS_PER_VIEW:
            out.problems.append(
                doc.problem(
                    base + "/root",
                    "limit-block-count",
                    f"this view has more than {limits.MAX_BLOCKS_PER_VIEW} blocks; a "
                    "confirmation card must stay readable — show a summary or a list bound "
                    "to an array argument (itemsFrom) instead",
                )
            )
            out.suppressed.add(base)
            return
        if _refused_block(doc, node, pointer, depth, out):
            out.suppressed.add(pointer)
            pruned.add(id(node))
            continue
        kind = node.get("type")
        if kind == "button":
            _reserved_role(doc, node, pointer, out)
        if kind == "actions" and isinstance(node.get("items"), list):
            for i, item in enumerate(node["items"]):
                if isinstance(item, dict):
                    _reserved_role(doc, item, join_pointer(pointer, "items", i), out)


def _unsupported_version(
    doc: SourceDocument, view: dict[str, Any], base: str, out: PrePass
) -> bool:
    """A view `schemaVersion` this Notch does not read: reported, and the view left out."""
    version = view.get("schemaVersion")
    if "schemaVersion" in view and not (
        isinstance(version, int)
        and not isinstance(version, bool)
        and version in SUPPORTED_VIEW_VERSIONS
    ):
        readable = ", ".join(str(v) for v in SUPPORTED_VIEW_VERSIONS)
        out.problems.append(
            doc.problem(
                base + "/schemaVersion",
                "view-schema-version",
                f"confirmation schemaVersion {quote(version)} is not supported: this Notch "
                f'reads schemaVersion {readable}; write "schemaVersion": 1 and use only '
                "version-1 blocks",
            )
        )
        out.suppressed.add(base)
        return True
    return False


def _refused_block(
    doc: SourceDocument, node: dict[str, Any], pointer: str, depth: int, out: PrePass
) -> bool:
    """A block nested too deep, of a reserved type or of no known type: reported; the
    caller leaves it and what it holds out."""
    if depth > limits.MAX_VIEW_DEPTH:
        out.problems.append(
            doc.problem(
                pointer,
                "limit-nesting-depth",
                f"blocks are nested more than {limits.MAX_VIEW_DEPTH} levels deep here; "
                "flatten the layout",
            )
        )
        return True
    kind = node.get("type")
    if isinstance(kind, str) and kind in RESERVED_BLOCK_TYPES:
        out.problems.append(
            doc.problem(
                pointer + "/type",
                "reserved-block",
                f"{kind!r} blocks are reserved for a later schemaVersion and are not "
                "accepted in schemaVersion 1; remove this block (or show the content "
                "with text, markdown or image blocks)",
            )
        )
        return True
    if isinstance(kind, str) and kind not in BLOCK_TYPES:
        out.problems.append(
            doc.problem(
                pointer + "/type",
                "block-unknown-type",
                f"{quote(kind)} is not a block type{did_you_mean(kind, BLOCK_TYPES)}; "
                f"use one of the valid types: {', '.join(sorted(BLOCK_TYPES))}",
            )
        )
        return True
    return False


def _reserved_role(doc: SourceDocument, node: dict[str, Any], pointer: str, out: PrePass) -> None:
    role = node.get("role")
    if isinstance(role, str) and role in RESERVED_ROLES:
        out.problems.append(
            doc.problem(
                pointer + "/role",
                "reserved-role",
                f"role {role!r} is reserved for a later schemaVersion (server round-trip "
                "actions) and is not accepted in schemaVersion 1; use confirm, cancel, "
                "copy or openUrl",
            )
        )
        out.suppressed.add(pointer)


# --- walking a pydantic error location -----------------------------------------------


def _unwrap(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _tag_of(model: type[BaseModel]) -> str | None:
    for key in ("type", "kind"):
        info = model.model_fields.get(key)
        if info is not None and get_origin(info.annotation) is Literal:
            args = get_args(info.annotation)
            if len(args) == 1 and isinstance(args[0], str):
                return args[0]
    return None


def _field(model: type[BaseModel], name: str) -> Any:
    for fname, info in model.model_fields.items():
        if info.alias == name or fname == name:
            return info.annotation
    return None


def _field_names(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


@dataclass
class _Place:
    pointer: str
    data: Any
    model: type[BaseModel] | None
    """The model holding the last loc element (for missing/extra properties)."""
    off_branch: bool
    """The error comes from a union member that cannot match the data's JSON type."""
    found: bool
    """The whole loc exists in the data."""


def walk_loc(loc: Sequence[str | int], root_model: type[BaseModel], data: Any) -> _Place:
    """Follow a pydantic `loc` through the model types and the data together."""
    pointer = ""
    node = data
    tp: Any = root_model
    holder: type[BaseModel] | None = root_model
    off_branch = False
    found = True
    for el in loc:
        tp = _unwrap(tp)
        origin = get_origin(tp)
        if origin in (Union, types.UnionType):
            members = [_unwrap(m) for m in get_args(tp) if m is not type(None)]
            if len(members) == 1:
                tp = members[0]
            else:
                picked = None
                for m in members:
                    if _is_model(m) and (_tag_of(m) == el or m.__name__ == el):
                        picked = m
                        break
                if picked is not None:
                    tp = picked
                    if not isinstance(node, dict):
                        off_branch = True
                    continue
                if isinstance(el, str):
                    # A scalar member's label ('constrained-str', 'int', ...).
                    if any(_is_model(m) for m in members) and isinstance(node, dict):
                        off_branch = True
                    tp = None
                    continue
                tp = None
        if el == "[key]":
            continue
        if _is_model(tp):
            holder = tp
            tp = _field(tp, str(el))
        elif origin is list or get_origin(tp) is list:
            args = get_args(tp)
            tp = args[0] if args else None
        elif get_origin(tp) is dict:
            args = get_args(tp)
            tp = args[1] if len(args) == 2 else None
        else:
            tp = None
        node, present = _child(node, el)
        found = found and present
        pointer = join_pointer(pointer, el)
    return _Place(pointer, node, holder, off_branch, found)


def _child(node: Any, el: str | int) -> tuple[Any, bool]:
    if isinstance(node, dict) and isinstance(el, str) and el in node:
        return node[el], True
    if isinstance(node, list) and isinstance(el, int) and 0 <= el < len(node):
        return node[el], True
    return None, False


# --- messages ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Error:
    """One pydantic error at its place, with what every message about it names."""

    doc: SourceDocument
    err: ErrorDetails
    place: _Place
    parent_data: Any
    ctx: dict[str, Any]
    last: str | int
    """The last key of the error's `loc` (what is missing, unknown, too long)."""
    what: str
    """That key as a message names it, or "this value"."""

    @property
    def pointer(self) -> str:
        return self.place.pointer


def _structure_problem(
    doc: SourceDocument, err: ErrorDetails, place: _Place, parent_data: Any
) -> Problem | None:
    kind = err["type"]
    last = err["loc"][-1] if err["loc"] else ""
    what = f"{last!r}" if isinstance(last, str) and last else "this value"
    error = _Error(doc, err, place, parent_data, dict(err.get("ctx") or {}), last, what)
    message = _MESSAGES.get(kind)
    if message is not None:
        return message(error)
    if kind in _TYPE_WORDS:
        return doc.problem(
            place.pointer,
            "schema-structure",
            f"{what} must be {_TYPE_WORDS[kind]}, not {_kind_of(place.data)}; change the value",
        )
    return doc.problem(place.pointer, "schema-structure", f"{what}: {err['msg']}; change the value")


def _missing(e: _Error) -> Problem | None:
    place, parent_data, last = e.place, e.parent_data, e.last
    fields = _field_names(place.model) if place.model is not None else []
    hint = ""
    if isinstance(parent_data, dict):
        typo = nearest(str(last), [k for k in parent_data if k not in fields])
        if typo is not None:
            if place.model is not None and place.model.model_config.get("extra") == "forbid":
                return None  # the unknown-property problem for the typo says it all
            hint = f" (is {typo!r} a misspelling of it?)"
    return e.doc.problem(
        parent_pointer(e.pointer),
        "schema-structure",
        f"missing required property {e.what}{hint}; add it here",
    )


def _extra_forbidden(e: _Error) -> Problem | None:
    place, parent_data = e.place, e.parent_data
    fields = _field_names(place.model) if place.model is not None else []
    where = ""
    if isinstance(parent_data, dict) and isinstance(parent_data.get("type"), str):
        where = f" on a {parent_data['type']!r} block"
    allowed = f" Allowed here: {', '.join(fields)}." if fields else ""
    return e.doc.problem(
        e.pointer,
        "unknown-property",
        f"unknown property {e.what}{where}{did_you_mean(str(e.last), fields)}; remove or rename "
        f"it.{allowed}",
        key=True,
    )


def _union_tag(e: _Error) -> Problem | None:
    ctx = e.ctx
    tags = str(ctx.get("expected_tags", "")).replace("'", "")
    disc = str(ctx.get("discriminator", "'type'")).strip("'")
    if e.err["type"] == "union_tag_not_found":
        return e.doc.problem(
            e.pointer,
            "schema-structure",
            f"this object has no {disc!r}; add one of: {tags}",
        )
    tag = str(ctx.get("tag", ""))
    return e.doc.problem(
        join_pointer(e.pointer, disc),
        "schema-structure",
        f"{disc} {quote(tag)} is not known{did_you_mean(tag, tags.split(', '))}; use one of: "
        f"{tags}",
    )


def _literal(e: _Error) -> Problem | None:
    expected = str(e.ctx.get("expected", ""))
    words = [w.strip(" '") for w in expected.replace(" or ", ", ").split(",")]
    got = e.place.data
    hint = did_you_mean(got, words) if isinstance(got, str) else ""
    return e.doc.problem(
        e.pointer, "schema-structure", f"{quote(got)} is not allowed{hint}; use {expected}"
    )


def _string_too_long(e: _Error) -> Problem | None:
    limit = e.ctx.get("max_length")
    size = len(e.place.data) if isinstance(e.place.data, str) else "?"
    return e.doc.problem(
        e.pointer,
        "limit-string-length",
        f"this text is {size} characters; the limit here is {limit} — shorten it",
    )


def _too_long(e: _Error) -> Problem | None:
    limit = e.ctx.get("max_length")
    size = len(e.place.data) if isinstance(e.place.data, list | dict) else "?"
    return e.doc.problem(
        e.pointer,
        "limit-list-length",
        f"{e.what} has {size} entries; at most {limit} are allowed — split or shorten it",
    )


def _too_short(e: _Error) -> Problem | None:
    need = e.ctx.get("min_length", 1)
    if e.last == "options":
        return e.doc.problem(
            e.pointer,
            "select-needs-options",
            'a select needs at least one option: add {"label": ..., "value": ...} '
            'entries to "options"',
        )
    return e.doc.problem(
        e.pointer,
        "schema-structure",
        f"{e.what} needs at least {need} entr{'y' if need == 1 else 'ies'}; add one",
    )


def _string_too_short(e: _Error) -> Problem | None:
    what = e.what
    if e.last in ("bind", "visibleIf", "itemsFrom"):
        return e.doc.problem(
            e.pointer,
            "binding-malformed",
            f'{what} must be exactly one binding such as "{{{{text}}}}" or '
            f'"<<user.name>>", not {quote(e.place.data)}',
        )
    need = e.ctx.get("min_length", 1)
    if need == 1:
        return e.doc.problem(
            e.pointer, "schema-structure", f"{what} must not be empty; write a value"
        )
    return e.doc.problem(
        e.pointer, "schema-structure", f"{what} must be at least {need} characters long"
    )


def _pattern_mismatch(e: _Error) -> Problem | None:
    pattern = str(e.ctx.get("pattern", ""))
    if e.last == "id":
        advice = "use a reverse-DNS id in lower case, e.g. 'com.example.mail'"
    elif e.last in ("name", "key"):
        advice = "start with a letter and use letters, digits, '_', '.' or '-'"
    else:
        advice = f"match the pattern {pattern}"
    return e.doc.problem(
        e.pointer, "schema-structure", f"{quote(e.place.data)} is not valid here: {advice}"
    )


_MESSAGES: dict[str, Callable[[_Error], Problem | None]] = {
    "missing": _missing,
    "extra_forbidden": _extra_forbidden,
    "union_tag_invalid": _union_tag,
    "union_tag_not_found": _union_tag,
    "literal_error": _literal,
    "string_too_long": _string_too_long,
    "too_long": _too_long,
    "too_short": _too_short,
    "string_too_short": _string_too_short,
    "string_pattern_mismatch": _pattern_mismatch,
}
"""A pydantic error type → its message; the rest say which JSON type is wanted
(`_TYPE_WORDS`) or pass pydantic's own words on."""


def _merge_union_types(problems: list[tuple[ErrorDetails, _Place, Problem]]) -> Problem:
    """Several scalar union members failed at one place: say what would be accepted."""
    first = problems[0][2]
    kinds = [_TYPE_WORDS.get(err["type"]) for err, _, _ in problems]
    if len(problems) > 1 and all(k is not None for k in kinds):
        data = problems[0][1].data
        accepted = " or ".join(dict.fromkeys(k for k in kinds if k is not None))
        return Problem(
            first.file,
            first.line,
            first.column,
            first.pointer,
            "schema-structure",
            "error",
            f"this value must be {accepted}, not {_kind_of(data)}; change the value",
        )
    return first


def structure_problems(
    doc: SourceDocument,
    exc: ValidationError,
    model: type[BaseModel],
    data: Any,
    pre: PrePass | None = None,
    base: str = "",
) -> list[Problem]:
    """Problems for every pydantic error in `exc`, validated as `model` on `data`.

    `base` prefixes pointers when `data` is a part of the document (one tool).
    """
    grouped: dict[str, list[tuple[ErrorDetails, _Place, Problem]]] = {}
    for err in exc.errors(include_url=False):
        place = walk_loc(err["loc"], model, data)
        if place.off_branch:
            continue
        place.pointer = base + place.pointer
        if pre is not None and pre.covers(place.pointer):
            continue
        parent = walk_loc(err["loc"][:-1], model, data).data if err["loc"] else None
        problem = _structure_problem(doc, err, place, parent)
        if problem is None:
            continue
        grouped.setdefault(problem.pointer, []).append((err, place, problem))
    out: list[Problem] = []
    for group in grouped.values():
        merged = _merge_union_types(group)
        out.append(merged)
        if merged is group[0][2]:
            out.extend(p for _, _, p in group[1:] if p.message != merged.message)
    return out

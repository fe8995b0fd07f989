"""The rules beyond structure, each with a stable rule id, and the manifest-level ones.

Structure (shapes, types, reserved shapes, limits) is `structure.py`. The rules are split
by what they look at:
- this module: the rule list, the manifest and its tools (acting tools ask, read tools do
  not, names are unique, inputSchemas are valid and self-contained);
- `view_rules.py`: one confirmation view (bindings, inputs, footer, arguments shown);
- `trust_rules.py`: who the manifest says it is (icon file, impersonating words);
- `argument_lookup.py`: where a binding path leads in an inputSchema;
- `fixture_rules.py`: preview fixtures against their tools.
Every check is one pass over the data (no rule looks at pairs of tools or blocks), so
validation grows linearly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from pydantic import ValidationError

from notch_app.manifest import limits
from notch_app.manifest.acting import acting_verdict, leading_verb
from notch_app.manifest.argument_lookup import Lookup, lookup
from notch_app.manifest.fixture_rules import fixture_problems
from notch_app.manifest.generated import SPEC_ACTING_VERBS
from notch_app.manifest.headline_rules import headline_problems
from notch_app.manifest.model import Manifest, PreviewFixtures, Tool
from notch_app.manifest.paths import NOWHERE, join_pointer, pointer_target
from notch_app.manifest.read_back import read_back_problems
from notch_app.manifest.reading import (
    Problem,
    Read,
    SourceDocument,
    generate_confirmations,
    generated_notice,
    is_voiceos_file,
    quote,
    read_manifest,
)
from notch_app.manifest.schema import SIMPLE_TYPES, first_schema_error, navigator_for
from notch_app.manifest.structure import (
    did_you_mean,
    nearest,
    pre_pass_views,
    structure_problems,
)
from notch_app.manifest.trust_rules import (
    icon_problems,
    impersonation_problems,
    read_only_hint_problems,
)
from notch_app.manifest.view_rules import (
    DESTRUCTIVE_VERBS,
    VAGUE_CONFIRM_LABELS,
    argument_shown_problems,
    check_view,
)

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
    "acting-tool-needs-confirmation": "tools named send/create/delete/update/post/book/pay/"
    "publish/open... declare a confirmation",
    "acting-tool-without-card": "(warning) other acting-looking tools without a card ask "
    "with a generated card",
    "confirmation-generated": "(warning) a card Notch cannot draw or use asks with the "
    "tool's generated card instead",
    "voiceos-ignored": "(warning) VoiceOS keys and kinds Notch does not use are ignored",
    "read-tool-has-confirmation": "read-only tools do not declare a confirmation",
    "input-schema-invalid": "a tool's inputSchema is a valid, self-contained JSON Schema",
    "tool-duplicate-name": "tool names are unique",
    "destructive-confirm-label": "(warning) a destructive confirm names the consequence",
    "toggle-required": "(warning) toggles never gate, so `required` does nothing",
    "fixture-unknown-tool": "preview fixtures name tools of the manifest",
    "fixture-args-invalid": "preview fixture args validate against the tool's inputSchema",
    "fixture-glance-count": "a fixture's expectedGlanceBlocks is 0 to 3 and matches the "
    "blocks its sample result shows",
    "glance-block-dropped": "(warning) every glance block of a fixture's sample result shows",
    "body-confirm": "a confirm action lives only in the card's footer, never in its body",
    "widget-not-root": "a sandboxed HTML widget is a whole view: only a view's root",
    "icon-missing": "the manifest's icon names a file in the integration's folder",
    "icon-outside-folder": "the manifest's icon stays inside the integration's folder",
    "impersonation": "(warning) texts do not claim to be the system or another vendor",
    "read-only-hint-contradicted": "(warning) a tool marked readOnlyHint: true is not named "
    "or described as deleting, sending, paying or writing",
    "argument-not-shown": "(warning) the card shows every argument the tool takes",
    "read-back-incomplete": "a confirmation's readBack names every phone number, IBAN, "
    "amount and recipient the tool sends, and says more than free text the model fills",
    "read-back-secret": "a confirmation's readBack never binds a secret",
}
"""Every rule id `notch validate` reports, with what it asks for."""


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
    """Structure, then every rule, for the manifest in `doc`. Never raises for content.

    VoiceOS spellings are read as Notch's first (`voiceos.read_manifest`). A file written
    for VoiceOS (`voiceos.integration.json`) is read liberally: a confirmation that still
    breaks a rule asks with the tool's generated card (its problems become warnings), and
    a missing icon or a card on a read tool is a warning — never fewer asks."""
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
    liberal = is_voiceos_file(doc)
    read = read_manifest(doc, data, liberal=liberal)
    result = _check_data(doc, read.data)
    if liberal:
        result = _generate_broken_cards(doc, read, result)
    result.problems[:0] = read.problems
    return result


_LIBERAL_WARNINGS: Final = frozenset({"icon-missing", "read-tool-has-confirmation"})
"""Rules that are warnings in a file written for VoiceOS: neither makes a tool ask less."""


def _generate_broken_cards(doc: SourceDocument, read: Read, first: ManifestCheck) -> ManifestCheck:
    tools = read.data.get("tools") if isinstance(read.data, dict) else None
    count = len(tools) if isinstance(tools, list) else 0
    bases = {join_pointer("/tools", i, "confirmation"): i for i in range(count)}
    broken: dict[int, list[Problem]] = {}
    for p in first.problems:
        if p.is_error and p.rule != "read-tool-has-confirmation":
            parts = p.pointer.split("/")
            index = bases.get("/".join(parts[:4])) if len(parts) >= 4 else None
            if index is not None and index not in read.generated:
                broken.setdefault(index, []).append(p)
    result = first
    if broken:
        result = _check_data(doc, generate_confirmations(doc, read.data, set(broken)))
        for index, found in sorted(broken.items()):
            result.problems.extend(dataclasses.replace(p, severity="warning") for p in found)
            result.problems.append(
                generated_notice(
                    doc,
                    index,
                    f"this confirmation breaks {len(found)} of Notch's rules "
                    f"({', '.join(sorted({p.rule for p in found}))}; listed as warnings)",
                )
            )
    result.problems = [
        dataclasses.replace(p, severity="warning") if p.rule in _LIBERAL_WARNINGS else p
        for p in result.problems
    ]
    return result


def _check_data(doc: SourceDocument, data: dict[str, Any]) -> ManifestCheck:
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
    result.problems.extend(icon_problems(doc, data))
    result.problems.extend(impersonation_problems(doc, data))
    result.problems.extend(read_only_hint_problems(doc, data))
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
            shown = check_view(doc, tool, base + "/confirmation", view, schema_ok, result.problems)
            result.problems.extend(
                read_back_problems(doc, tool, base + "/confirmation", view, schema_ok)
            )
            result.problems.extend(
                headline_problems(doc, tool, base + "/confirmation", view, schema_ok)
            )
            # A view with an error (a mistyped binding, say) is fixed first: "not shown"
            # would mostly repeat it.
            if schema_ok and not _has_error_under(result.problems, base + "/confirmation"):
                result.problems.extend(argument_shown_problems(doc, tool, base, shown))
    return result


def _has_error_under(problems: list[Problem], pointer: str) -> bool:
    return any(p.is_error and (p.pointer + "/").startswith(pointer + "/") for p in problems)


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
    """Whether the tool's card matches what it does, by the one rule (`acting_verdict`):
    the same verdict `notch mcp`, policy and the generated cards go by."""
    verdict = acting_verdict(tool, has_card=False)
    verb = leading_verb(tool.name)
    if (
        tool.confirmation is None
        and verdict.asks
        and not verdict.mixed
        and verb in SPEC_ACTING_VERBS
    ):
        out.append(
            doc.problem(
                base + "/name",
                "acting-tool-needs-confirmation",
                f"tool {tool.name!r} acts (its name starts with {verb!r}) "
                'but declares no confirmation; add a "confirmation" view showing what it '
                'will do (or mark it "annotations": {"readOnlyHint": true} if it only reads)',
            )
        )
    elif tool.confirmation is None and verdict.asks:
        fix = (
            "make the name, description and annotations agree"
            if verdict.mixed
            else 'mark it "annotations": {"readOnlyHint": true} if it only reads'
        )
        out.append(
            doc.problem(
                base + "/name",
                "acting-tool-without-card",
                f"tool {tool.name!r} looks like it acts ({verdict.why}) but declares no "
                "confirmation; Notch asks with a card generated from its inputSchema — add "
                f'a "confirmation" view to choose what the card shows (or {fix})',
                severity="warning",
            )
        )
    elif verdict.kind == "read" and tool.confirmation is not None:
        out.append(
            doc.problem(
                base + "/confirmation",
                "read-tool-has-confirmation",
                f"tool {tool.name!r} only reads ({verdict.why}) but declares a confirmation; "
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
    elif where.endswith("/unevaluatedProperties") or "/pattern" in where:
        message = f"inputSchema: {why}"  # valid JSON Schema, but not one Notch runs
    else:
        message = f"inputSchema is not a valid JSON Schema: {why}; fix it so the tool's arguments can be checked"
    out.append(doc.problem(pointer + where, "input-schema-invalid", message))
    return False


def _at(schema: Any, pointer: str) -> Any:
    found = pointer_target(schema, pointer)
    return None if found is NOWHERE else found


def _resolves(schema: dict[str, Any], ref: str) -> bool:
    """Whether a local `$ref` (`#`, `#/json/pointer` or `#anchor`) names something."""
    return navigator_for(schema).ref_target(ref) is not NOWHERE


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


def check_fixtures(
    doc: SourceDocument, manifest: ManifestCheck
) -> tuple[PreviewFixtures | None, list[Problem]]:
    """The preview fixture file in `doc` against the checked manifest. Never raises."""
    return fixture_problems(doc, manifest.tool_names, manifest.tools)


__all__ = [
    "DESTRUCTIVE_VERBS",
    "RULES",
    "VAGUE_CONFIRM_LABELS",
    "Lookup",
    "ManifestCheck",
    "check_fixtures",
    "check_manifest",
    "lookup",
    "nearest",
]

"""Integrations a `notch mcp` gateway brings to the running Notch (`gateway.attach`).

A gateway may front a folder the person never installed, or a bare MCP server with no
manifest at all, and `notch run` must still show the right card. The gateway sends only
*where* the cards come from, never a card:

- a folder: Notch loads the manifest from disk itself, with every check `notch run`
  applies to installed folders (`load_integration`), so an invalid manifest is refused
  with the same messages;
- a bare server: its `tools/list` (names, titles, descriptions, inputSchemas,
  annotations); Notch generates every card itself from the schema (`generated_view`),
  every tool not marked `readOnlyHint: true` asks, and its schema is closed
  (`additionalProperties: false`) so no argument can run that the card does not show.

An attached integration never replaces one the person installed or that is bundled; a
second attach of the same id replaces only an earlier attach (a gateway restarted with
a changed manifest or server). Bare servers get ids of their own (`mcp.local.<name>`),
and the card's asker strip names the gateway and its folder or command.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from notch_app.manifest.acting import read_only_contradicted
from notch_app.manifest.facts import listed_tool_facts
from notch_app.manifest.generated import with_generated_cards
from notch_app.manifest.integration import load_integration
from notch_app.manifest.model import Manifest
from notch_app.manifest.reading import discover_integrations
from notch_app.manifest.schema import pattern_errors, unchecked_reason
from notch_app.manifest.trust_rules import find_claim
from notch_app.runtime.bare_id import BARE_PREFIX as BARE_PREFIX  # re-exported
from notch_app.runtime.bare_id import AttachRefused as AttachRefused  # re-exported
from notch_app.runtime.bare_id import bare_integration_id as bare_integration_id  # re-exported
from notch_app.runtime.catalog import Catalog, CatalogEntry

MAX_BARE_TOOLS: Final = 256


def folder_entry(folder: Path) -> CatalogEntry:
    """The integration in `folder`, loaded and checked as `notch run` loads installed
    ones. Raises AttachRefused naming the problems (file:line:column) or the fix."""
    if not folder.is_absolute():
        raise AttachRefused(f"{folder}: send the folder as an absolute path")
    try:
        found = discover_integrations(folder)
    except FileNotFoundError:
        raise AttachRefused(f"{folder}: no such folder") from None
    if len(found.manifests) != 1:
        raise AttachRefused(
            f"{folder}: holds {len(found.manifests)} integrations; notch mcp fronts exactly one "
            "(name its own folder)"
        )
    integration, problems = load_integration(found.manifests[0])
    if integration is None:
        errors = [p.format() for p in problems if p.is_error]
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise AttachRefused("; ".join(errors[:3]) + more)
    manifest = with_generated_cards(integration.manifest)
    return CatalogEntry(manifest, integration.folder, integration.fixtures, through_gateway=True)


def bare_entry(
    name: str,
    tools: Iterable[Mapping[str, Any]],
    command: Sequence[str] | None = None,
    cwd: str | None = None,
) -> tuple[CatalogEntry, list[str]]:
    """A bare server's tools as an integration whose cards Notch generates; and the
    names of tools left out (a name or schema a manifest could not hold), each with why.
    `command` (and the folder it runs in, `cwd`) is where the tools come from: an
    "Always allow" is bound to it."""
    integration_id = bare_integration_id(name)
    kept: list[dict[str, Any]] = []
    left_out: list[str] = []
    for tool in list(tools)[:MAX_BARE_TOOLS]:
        document = _closed_tool(tool)
        try:
            Manifest.model_validate(_manifest_document(integration_id, name, [document]))
        except ValidationError as exc:
            left_out.append(f"{tool.get('name')!r}: {exc.errors()[0]['msg']}")
            continue
        refused = _pattern_refused(document["inputSchema"])
        if refused is not None:
            left_out.append(f"{tool.get('name')!r}: {refused}")
            continue
        kept.append(document)
    manifest = Manifest.model_validate(_manifest_document(integration_id, name, kept))
    line = None
    if command:
        line = shlex.join(command)[:2000] + (f" (in {cwd[:1000]})" if cwd else "")
    entry = CatalogEntry(with_generated_cards(manifest), through_gateway=True, command=line)
    return entry, left_out


def attach_warnings(entry: CatalogEntry, tools: Iterable[Mapping[str, Any]] = ()) -> list[str]:
    """What the person is warned about for an attached integration: a name, summary or
    tool title that claims to be the system, a platform vendor, Notch or a verifier
    (however it is spelled); a bare server's `readOnlyHint` Notch does not believe
    (`tools`, as listed). One sentence each, at most 20."""
    manifest = entry.manifest
    out: list[str] = []
    texts = [("name", manifest.name), ("summary", manifest.summary or "")]
    texts += [(f"tool {t.name} title", t.title or "") for t in manifest.tools]
    for where, text in texts:
        found = find_claim(text)
        if found is not None:
            how = " (with look-alike letters or spacing)" * found.disguised
            out.append(
                f"{where} {text[:80]!r} claims to be {found.who}{how}; its cards mark the "
                "name as unverified"
            )
    for tool in tools:
        why = read_only_contradicted(tool)
        if why is not None:
            out.append(
                f"tool {str(tool.get('name'))[:80]!r} says readOnlyHint: true, but {why}: "
                "it asks first"
            )
    return out[:20]


def _pattern_refused(schema: Any) -> str | None:
    """Why Notch cannot check this inputSchema's patterns (a pattern it does not run, or
    unevaluatedProperties beside patternProperties), naming the place; else None."""
    for where, why in pattern_errors(schema):
        return f"inputSchema{where}: {why}"
    mixed = unchecked_reason(schema)
    return None if mixed is None else f"inputSchema: {mixed}"


def _closed_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    schema = dict(tool.get("inputSchema") or {"type": "object"})
    schema.setdefault("type", "object")
    schema["additionalProperties"] = False  # only what the card shows can run
    annotations = dict(tool.get("annotations") or {})
    if listed_tool_facts(tool, bare_server=True).acting.asks:
        annotations["readOnlyHint"] = False  # the bare-server rule, for the Catalog too
    out: dict[str, Any] = {"name": tool.get("name"), "inputSchema": schema}
    for key in ("title", "description"):
        if isinstance(tool.get(key), str):
            out[key] = tool[key]
    if annotations:
        out["annotations"] = annotations
    return out


def _manifest_document(
    integration_id: str, name: str, tools: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "id": integration_id,
        "version": "0",
        "name": name[:60] or "MCP server",
        "summary": "A bare MCP server behind notch mcp; Notch generated its cards.",
        "tools": tools,
    }


def attach(catalog: Catalog, attached: set[str], entry: CatalogEntry) -> str:
    """Put `entry` in `catalog`: add it, or replace an earlier attach of the same id
    (`attached` holds the ids attached so far). Returns "added", "replaced" or "same".
    Raises AttachRefused when the id belongs to an installed or bundled integration
    from another folder."""
    integration_id = entry.manifest.id
    known = catalog.entry(integration_id)
    if known is None:
        catalog.add(entry)
        attached.add(integration_id)
        return "added"
    if integration_id not in attached and _same_folder(known.folder, entry.folder):
        return "same"  # installed from this very folder: the copy `notch run` loaded
    if (
        known.manifest == entry.manifest
        and _same_folder(known.folder, entry.folder)
        and known.command == entry.command
    ):
        return "same"
    if integration_id not in attached:
        raise AttachRefused(
            f"{integration_id} is already loaded from {known.folder or 'memory'}; Notch keeps "
            "that copy and its cards. Remove it from your integrations, or give this "
            "folder's manifest another id"
        )
    catalog.replace(entry)
    return "replaced"


def _same_folder(a: Path | None, b: Path | None) -> bool:
    if a is None or b is None:
        return a is b
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False

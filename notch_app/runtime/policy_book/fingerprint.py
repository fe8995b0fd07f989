"""Fingerprints of what a person agreed to when they turned Asks first off.

Both are taken over RFC 8785 JSON (`manifest/canonical_json.py`), the spelling approval
digests use. The card's: the confirmation view and the arguments it can bind (the
inputSchema). A manifest update that changes either gets a new fingerprint, so an earlier
"off" no longer applies and the action asks again.

The source's: where the integration comes from (its folder, a bare server's command
line, else the manifest itself). Two integrations can share a name and an id ("files" and
"Files!" are both `mcp.local.files`); an "off" made for one does not let the other run.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from notch_app.manifest.canonical_json import NotDigestible, canonical_json
from notch_app.manifest.facts import tool_facts
from notch_app.manifest.model import Manifest, Tool

if TYPE_CHECKING:
    from notch_app.runtime.catalog import CatalogEntry


def card_fingerprint(tool: Tool) -> str:
    """`sha256:<hex>` of the canonical JSON (RFC 8785) of the tool's confirmation view and
    inputSchema: `ToolFacts.fingerprint`, made once per tool."""
    return tool_facts(tool).fingerprint


_SOURCES: dict[int, tuple[object, str | None]] = {}
"""id(entry or manifest) → (it, its source): asked on every request, worked out once."""


def integration_source(entry: CatalogEntry | None, manifest: Manifest | None = None) -> str | None:
    """Where a loaded integration comes from, in words a person can check: "folder
    /abs/path", "command npx files-server (in /home/me)", or, for one built in memory,
    "manifest sha256:…". None when neither is known."""
    key: object = entry if entry is not None else manifest
    hit = _SOURCES.get(id(key))
    if hit is not None and hit[0] is key:
        return hit[1]
    if len(_SOURCES) > 1024:
        _SOURCES.clear()
    found = _source(entry, manifest)
    _SOURCES[id(key)] = (key, found)
    return found


def _source(entry: CatalogEntry | None, manifest: Manifest | None) -> str | None:
    if entry is not None and entry.command is not None:
        return f"command {entry.command}"
    if entry is not None and entry.folder is not None:
        try:
            return f"folder {entry.folder.resolve()}"
        except (OSError, RuntimeError):
            return f"folder {entry.folder}"
    manifest = entry.manifest if entry is not None else manifest
    if manifest is None:
        return None
    dumped = manifest.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    try:
        canonical = canonical_json(dumped, "manifest")
    except NotDigestible:  # NaN or a huge int in a manifest built in memory
        canonical = repr(dumped)
    return "manifest sha256:" + hashlib.sha256(canonical.encode("utf-8", "replace")).hexdigest()


def source_fingerprint(source: str) -> str:
    """`sha256:<hex>` of a source (`integration_source`): what the settings file keeps,
    so a command line that holds a token is never written there."""
    return "sha256:" + hashlib.sha256(source.encode("utf-8")).hexdigest()

"""Fingerprints of what a person agreed to when they turned Asks first off.

The card's: the confirmation view and the arguments it can bind (the inputSchema). A
manifest update that changes either gets a new fingerprint, so an earlier "off" no longer
applies and the action asks again.

The source's: where the integration comes from (its folder, a bare server's command
line, else the manifest itself). Two integrations can share a name and an id ("files" and
"Files!" are both `mcp.local.files`); an "off" made for one does not let the other run.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from notch_app.manifest.model import Manifest, Tool

if TYPE_CHECKING:
    from notch_app.runtime.catalog import CatalogEntry


def card_fingerprint(tool: Tool) -> str:
    """`sha256:<hex>` of the canonical JSON of the tool's confirmation view and inputSchema."""
    view: Any = None
    if tool.confirmation is not None:
        # Defaults left out, so a new optional field in the view model does not by itself
        # reset everybody's choices.
        view = tool.confirmation.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    canonical = json.dumps(
        {"confirmation": view, "inputSchema": tool.input_schema},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


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
    canonical = json.dumps(
        manifest.model_dump(mode="json", by_alias=True, exclude_defaults=True),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return "manifest sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def source_fingerprint(source: str) -> str:
    """`sha256:<hex>` of a source (`integration_source`): what the settings file keeps,
    so a command line that holds a token is never written there."""
    return "sha256:" + hashlib.sha256(source.encode("utf-8")).hexdigest()

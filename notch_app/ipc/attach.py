"""`gateway.attach`: a `notch mcp` gateway tells the running Notch where its cards come
from (see `notch_app.runtime.attached` for the rules and docs/gateway.md for the design).

Params (one of the two shapes, checked at the boundary like every method's):

- `{"folder": "/abs/path"}`: Notch loads and checks the integration folder itself;
- `{"name": "files", "tools": [MCP tool, ...]}`: a bare server; Notch generates the cards.

Answers `{"integration": id, "attached": "added" | "replaced" | "same", "tools": [{name,
confirms}], "leftOut": [...]}`; -32602 naming the problem (an invalid manifest's
file:line:column) when it refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from notch_app.ipc import protocol as rpc
from notch_app.ipc.methods import AttachParams, parse_params
from notch_app.runtime.attached import (
    AttachRefused,
    attach,
    attach_warnings,
    bare_entry,
    folder_entry,
)
from notch_app.runtime.catalog import Catalog

METHOD: Final = "gateway.attach"


def attach_handler(
    catalog_of: Callable[[], Catalog],
    attached_hook: Callable[[Any, str], None] | None = None,
) -> Callable[[Any, dict[str, Any]], dict[str, Any]]:
    """The `gateway.attach` method for a server whose service's catalog is `catalog_of()`
    (asked on every call: Settings → Reload puts a new catalog in place, and a gateway
    attaches again when Notch no longer knows its integration). `attached_hook(conn,
    integration_id)` runs after each attach that was taken (the connection is that
    integration's gateway; the overlay readies itself for result glances)."""
    attached: set[str] = set()

    def handle(conn: Any, params: dict[str, Any]) -> dict[str, Any]:
        asked = parse_params(AttachParams, params)
        catalog = catalog_of()
        left_out: list[str] = []
        try:
            if asked.folder is not None and asked.name is None and asked.tools is None:
                entry = folder_entry(Path(asked.folder))
            elif asked.folder is None and asked.name is not None and asked.tools is not None:
                entry, left_out = bare_entry(asked.name, asked.tools, asked.command, asked.cwd)
            else:
                raise AttachRefused(
                    "send either folder, or name and tools (a bare server), not both"
                )
            how = attach(catalog, attached, entry)
        except AttachRefused as exc:
            raise rpc.RpcError(rpc.INVALID_PARAMS, str(exc)) from None
        loaded = catalog.integration(entry.manifest.id)
        assert loaded is not None
        if attached_hook is not None:
            attached_hook(conn, loaded.id)
        return {
            "integration": loaded.id,
            "attached": how,
            "tools": [
                {"name": t.name, "confirms": t.confirmation is not None} for t in loaded.tools
            ],
            "leftOut": left_out,
            "warnings": attach_warnings(entry, asked.tools or ()),
        }

    return handle

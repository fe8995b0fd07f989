"""The MCP server behind this integration, made by `notch init` on the official `mcp` SDK.

Notch starts it as manifest.json's runtime says (`python server.py`, in this folder, with
the Python that runs Notch) and speaks MCP to it on stdin and stdout, so never print to
stdout here. The manifest, not this file, decides which tools ask the person first: keep
the tools here and there in step.

- list_items only reads: it runs at once, and its result carries a glance (the blocks
  under `_voiceos_glance`) that the notch shows for a few seconds.
- create_item acts: `notch mcp` calls it only after the person approved the card, with
  the arguments they approved (edits included).

The items live in memory while the server runs; put your service's calls in their place.
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

NAME = "__NAME__"
ROWS_SHOWN = 6  # a glance list shows at most 6 rows
SUBTITLE_CHARS = 80  # ...and a row's subtitle at most 80 characters: trim, or the row is dropped

server = MCPServer("__SLUG__", version="0.1.0")
items: list[dict[str, Any]] = [
    {"id": "item-1", "title": "Water the plants", "note": "", "priority": "normal"},
    {"id": "item-2", "title": "Renew the domain", "note": "Before the 30th", "priority": "high"},
]


def trimmed(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def glance(shown: list[dict[str, Any]]) -> dict[str, Any]:
    """What the notch shows for a list_items result (docs/glances.md lists the blocks)."""
    rows = []
    for item in shown[:ROWS_SHOWN]:
        row: dict[str, Any] = {"icon": "check", "title": trimmed(item["title"], 60)}
        if item["note"]:
            row["subtitle"] = trimmed(item["note"], SUBTITLE_CHARS)
        if item["priority"] == "high":
            row["badge"] = {"text": "High", "tone": "bad"}
        rows.append(row)
    count = f"{len(shown)} item{'s' * (len(shown) != 1)}"
    header = {"type": "header", "icon": "list", "title": NAME, "trailing": count}
    return {"blocks": [header, {"type": "list", "rows": rows}] if rows else [header]}


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def list_items(limit: int = 5) -> dict[str, Any]:
    """The newest items, newest first."""
    shown = list(reversed(items))[: max(1, min(limit, ROWS_SHOWN))]
    return {"items": shown, "_voiceos_glance": glance(shown)}


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def create_item(
    title: str, note: str = "", priority: Literal["low", "normal", "high"] = "normal"
) -> dict[str, Any]:
    """Add an item; reached only with the arguments the person approved."""
    item = {"id": f"item-{len(items) + 1}", "title": title, "note": note, "priority": priority}
    items.append(item)
    return {"created": item}


if __name__ == "__main__":
    server.run()

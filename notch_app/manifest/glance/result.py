"""Where the glance sits in a tool's result, and where a dropped block is in that JSON.

A tool returns `{..., "_voiceos_glance": {"blocks": [...]}}`; through MCP the same object
arrives as a CallToolResult's `structuredContent` or as JSON in a `content` text item (how
the public VoiceOS integrations send it), and a saved JSON-RPC response wraps that in
`result`. `notch glance check` and the preview-fixture rules read all of them alike.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

from notch_app.manifest.glance.reading import GLANCE_KEY, DroppedBlock
from notch_app.manifest.paths import escape_pointer_token
from notch_app.manifest.reading import check_depth

TOP_LEVEL: Final = "the result's top level"

NO_GLANCE: Final = (
    f"no {GLANCE_KEY} here: a tool's result carries it at its top level, beside the data "
    f'the model reads ({{"{GLANCE_KEY}": {{"blocks": [...]}}, ...}}), or an MCP result in '
    "structuredContent or in a content text item holding that JSON"
)

_MAX_CONTENT_ITEMS: Final = 64


@dataclass(frozen=True)
class GlanceSource:
    """The glance found in a tool result, and where it was found."""

    value: Any
    """What `_voiceos_glance` holds (give it to `read_glance`)."""
    pointer: str
    """JSON Pointer of `_voiceos_glance` in the result (of the text item, when inside one)."""
    read_from: str
    """Which part was read, in words: the result's top level, structuredContent, ..."""
    inside_text: bool = False
    """The glance is JSON inside a text item, so positions can only point at that text."""


def find_glance(result: object) -> GlanceSource | None:
    """The glance of a tool result, an MCP CallToolResult or a JSON-RPC response around
    one; None when there is none. Never raises."""
    if not isinstance(result, dict):
        return None
    if GLANCE_KEY in result:
        return GlanceSource(result[GLANCE_KEY], "/" + GLANCE_KEY, TOP_LEVEL)
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and GLANCE_KEY in structured:
        return GlanceSource(
            structured[GLANCE_KEY], f"/structuredContent/{GLANCE_KEY}", "structuredContent"
        )
    content = result.get("content")
    if isinstance(content, list):
        for i, item in enumerate(content[:_MAX_CONTENT_ITEMS]):
            text = item.get("text") if isinstance(item, dict) else None
            inner = _json_in_text(text) if isinstance(text, str) else None
            if isinstance(inner, dict) and GLANCE_KEY in inner:
                return GlanceSource(
                    inner[GLANCE_KEY],
                    f"/content/{i}/text",
                    f"content[{i}].text (JSON in a text item)",
                    inside_text=True,
                )
    response = result.get("result")
    if "jsonrpc" in result and isinstance(response, dict) and "jsonrpc" not in response:
        inner_source = find_glance(response)
        if inner_source is not None:
            part = inner_source.read_from
            return GlanceSource(
                inner_source.value,
                "/result" + inner_source.pointer,
                "result" if part == TOP_LEVEL else f"result.{part}",
                inner_source.inside_text,
            )
    return None


def dropped_pointer(source: GlanceSource, drop: DroppedBlock) -> str:
    """JSON Pointer (in the result) of the field a dropped block's reason names, so a
    line:column points at it; its block, or the glance, when the field is not known."""
    if source.inside_text:
        return source.pointer
    if drop.index < 0:
        blocks = source.pointer + "/blocks"
        return blocks if drop.reason.startswith("blocks:") else source.pointer
    block = f"{source.pointer}/blocks/{escape_pointer_token(drop.index)}"
    return block + _field_pointer(drop.reason)


def _json_in_text(text: str) -> object:
    # The text came from a bounded file or message; refuse deep nesting before json does.
    if not text.lstrip().startswith("{") or check_depth(text, "") is not None:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


_FIELD_PATH: Final = re.compile(
    r"[A-Za-z_]\w*(?:\[\d+\])*(?: \(\w+\))?(?:\.[A-Za-z_]\w*(?:\[\d+\])*(?: \(\w+\))?)*"
)
_PATH_PARTS: Final = re.compile(r"[A-Za-z_]\w*|\d+")
_KIND_NOTE: Final = re.compile(r" \(\w+\)")


def _field_pointer(reason: str) -> str:
    """`rows[7].title: ...` → `/rows/7/title` (a path not in the file falls back to its
    nearest ancestor when placed)."""
    head = reason.split(": ", 1)[0]
    if _FIELD_PATH.fullmatch(head) is None:
        return ""
    return "".join("/" + part for part in _PATH_PARTS.findall(_KIND_NOTE.sub("", head)))


__all__ = ["NO_GLANCE", "TOP_LEVEL", "GlanceSource", "dropped_pointer", "find_glance"]

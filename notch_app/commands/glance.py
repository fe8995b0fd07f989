"""`notch glance check RESULT.json [--json]`: would this tool result's glance show?

RESULT.json is a tool's result object as the tool returns it, holding `_voiceos_glance` at
its top level; an MCP CallToolResult (the glance in `structuredContent`, or in a `content`
text item whose text is JSON) and a JSON-RPC response around one are read too, and the
output says which part was read.

Exit 0 when every block would show (`N blocks would show: header, list`), 1 when any would
be dropped (one line each: `RESULT.json:LINE:COLUMN: block 2 (list): rows: ...`), 2 for an
unreadable file, invalid JSON, or no `_voiceos_glance` at all. Never imports Qt.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from notch_app.manifest.glance import GLANCE_KEY, DroppedBlock, GlanceReading, read_glance
from notch_app.manifest.problems import Problem, escape_pointer_token
from notch_app.manifest.source import SourceDocument, SourceError, check_depth, load_json

_NO_GLANCE: Final = (
    f"no {GLANCE_KEY} here: a tool's result carries it at its top level, beside the data "
    f'the model reads ({{"{GLANCE_KEY}": {{"blocks": [...]}}, ...}}), or an MCP result in '
    "structuredContent or in a content text item holding that JSON"
)


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="say which glance blocks of a tool result would show, and why any would not",
        description="Exit 0 when every block would show, 1 when any would be dropped "
        "(one line each, with the reason and the fix), 2 for an unreadable file, invalid "
        "JSON, or no _voiceos_glance.",
    )
    check.add_argument(
        "result", type=Path, metavar="RESULT.json", help="a tool's result object, as returned"
    )
    check.add_argument(
        "--json",
        action="store_true",
        help="print {file, readFrom, shown, dropped: [{index, kind, reason, line, column, "
        "pointer}]} (or {file, error, line, column})",
    )


@dataclass(frozen=True)
class _Found:
    """Where the glance sits in the file, for messages and positions."""

    value: Any
    pointer: str
    """JSON Pointer of `_voiceos_glance` in the file's own JSON."""
    read_from: str
    """Which part was read, in words."""
    inside_text: bool = False
    """The glance is JSON inside a text item: positions point at that text."""


def run(args: argparse.Namespace) -> int:
    name = str(args.result)
    try:
        doc, problems = _load(args.result, name)
    except SourceError as exc:
        return _fail(args, name, str(exc).removeprefix(f"{name}: "), 1, 1)
    if doc is None:
        first = problems[0]
        return _fail(args, name, first.message, first.line, first.column)
    found = _find_glance(doc.data)
    if found is None:
        return _fail(args, name, _NO_GLANCE, 1, 1)
    reading = read_glance(found.value)
    return _report(args, doc, found, reading)


_READ_PER_BLOCK: Final = frozenset({"json-lone-surrogate", "json-number-range"})
"""Valid JSON that validate refuses for the whole file; here the block holding it is named."""


def _load(path: Path, name: str) -> tuple[SourceDocument | None, list[Problem]]:
    doc, problems = load_json(path, name)
    if doc is None and problems and all(p.rule in _READ_PER_BLOCK for p in problems):
        # Size, encoding, depth and syntax passed: parse again and let read_glance say
        # which block holds the unreadable text or number.
        text = path.read_bytes().decode("utf-8-sig")
        return SourceDocument(path, name, text, json.loads(text)), []
    return doc, problems


def _find_glance(data: object) -> _Found | None:
    """The glance in a tool result, an MCP CallToolResult, or a JSON-RPC response."""
    if not isinstance(data, dict):
        return None
    if GLANCE_KEY in data:
        return _Found(data[GLANCE_KEY], "/" + GLANCE_KEY, "the result's top level")
    structured = data.get("structuredContent")
    if isinstance(structured, dict) and GLANCE_KEY in structured:
        return _Found(
            structured[GLANCE_KEY], f"/structuredContent/{GLANCE_KEY}", "structuredContent"
        )
    content = data.get("content")
    if isinstance(content, list):
        for i, item in enumerate(content[:64]):
            text = item.get("text") if isinstance(item, dict) else None
            inner = _json_in_text(text) if isinstance(text, str) else None
            if isinstance(inner, dict) and GLANCE_KEY in inner:
                return _Found(
                    inner[GLANCE_KEY],
                    f"/content/{i}/text",
                    f"content[{i}].text (JSON in a text item)",
                    inside_text=True,
                )
    response = data.get("result")
    if "jsonrpc" in data and isinstance(response, dict):
        inner_found = _find_glance({k: v for k, v in response.items() if k != "result"})
        if inner_found is not None:
            return _Found(
                inner_found.value,
                "/result" + inner_found.pointer,
                "result." + inner_found.read_from.replace("the result's top level", "(top)"),
                inner_found.inside_text,
            )
    return None


def _json_in_text(text: str) -> object:
    # The text came from a file already bounded in size; refuse deep nesting before json.
    if not text.lstrip().startswith("{") or check_depth(text, "") is not None:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _pointer_of(found: _Found, drop: DroppedBlock) -> str:
    if found.inside_text:
        return found.pointer
    if drop.index < 0:
        blocks = found.pointer + "/blocks"
        return blocks if drop.reason.startswith("blocks:") else found.pointer
    block = f"{found.pointer}/blocks/{escape_pointer_token(drop.index)}"
    return block + _field_pointer(drop.reason)


_FIELD_PATH: Final = re.compile(
    r"[A-Za-z_]\w*(?:\[\d+\])*(?: \(\w+\))?(?:\.[A-Za-z_]\w*(?:\[\d+\])*(?: \(\w+\))?)*"
)
_PATH_PARTS: Final = re.compile(r"[A-Za-z_]\w*|\d+")


def _field_pointer(reason: str) -> str:
    """`rows[7].title: ...` → `/rows/7/title`, so the line:column points at the field
    (a path that is not in the file falls back to its nearest ancestor)."""
    head = reason.split(": ", 1)[0]
    if _FIELD_PATH.fullmatch(head) is None:
        return ""
    bare = re.sub(r" \(\w+\)", "", head)
    return "".join("/" + part for part in _PATH_PARTS.findall(bare))


def _report(
    args: argparse.Namespace, doc: SourceDocument, found: _Found, reading: GlanceReading
) -> int:
    shown = [block.type for block in reading.blocks]
    placed = []
    for drop in reading.dropped:
        pointer = _pointer_of(found, drop)
        line, column = doc.position(pointer)
        placed.append((drop, pointer, line, column))
    status = 1 if reading.dropped else 0
    count = f"{len(shown)} block{'s' * (len(shown) != 1)} would show"
    summary = f"{count}: {', '.join(shown)}" if shown else count
    if found.read_from != "the result's top level":
        summary += f" (read from {found.read_from})"
    if args.json:
        out = {
            "file": doc.display_name,
            "readFrom": found.read_from,
            "shown": shown,
            "dropped": [
                {
                    "index": d.index,
                    "kind": d.kind,
                    "reason": d.reason,
                    "line": line,
                    "column": column,
                    "pointer": pointer,
                }
                for d, pointer, line, column in placed
            ],
        }
        print(_printable(json.dumps(out, indent=2, ensure_ascii=False)))
        return status
    for d, _pointer, line, column in placed:
        where = f"{doc.display_name}:{line}:{column}"
        what = f"block {d.index} ({d.kind}): " if d.index >= 0 else ""
        print(_printable(f"{where}: {what}{d.reason}"))
    print(_printable(summary), file=sys.stderr if status else sys.stdout)
    return status


def _fail(args: argparse.Namespace, name: str, message: str, line: int, column: int) -> int:
    if args.json:
        out = {"file": name, "error": message, "line": line, "column": column}
        print(_printable(json.dumps(out, indent=2, ensure_ascii=False)))
    else:
        print(_printable(f"{name}:{line}:{column}: {message}"), file=sys.stderr)
    return 2


def _printable(text: str) -> str:
    # A lone surrogate (from a file name or a key) cannot be written to a UTF-8 stream.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")

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
import sys
from pathlib import Path
from typing import Final

from notch_app.manifest.glance import (
    NO_GLANCE,
    TOP_LEVEL,
    GlanceReading,
    GlanceSource,
    dropped_pointer,
    find_glance,
    read_glance,
)
from notch_app.manifest.reading import Problem, SourceDocument, SourceError, load_json


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


def run(args: argparse.Namespace) -> int:
    name = str(args.result)
    try:
        doc, problems = _load(args.result, name)
    except SourceError as exc:
        return _fail(args, name, str(exc).removeprefix(f"{name}: "), 1, 1)
    if doc is None:
        first = problems[0]
        return _fail(args, name, first.message, first.line, first.column)
    found = find_glance(doc.data)
    if found is None:
        return _fail(args, name, NO_GLANCE, 1, 1)
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


def _report(
    args: argparse.Namespace, doc: SourceDocument, found: GlanceSource, reading: GlanceReading
) -> int:
    shown = [block.type for block in reading.blocks]
    placed = []
    for drop in reading.dropped:
        pointer = dropped_pointer(found, drop)
        line, column = doc.position(pointer)
        placed.append((drop, pointer, line, column))
    status = 1 if reading.dropped else 0
    count = f"{len(shown)} block{'s' * (len(shown) != 1)} would show"
    summary = f"{count}: {', '.join(shown)}" if shown else count
    if found.read_from != TOP_LEVEL:
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

"""A tool call's input as a person reads it whole: what it acts on first, rows as a table.

A card for a tool Notch has no manifest for showed its input as sorted JSON, so a
50-row insert listed its `rows` first and `table: "customers"` last, after hundreds of
lines (issue 20, finding 2). Here the same input is written for reading, every value of
it still there:

- identifying arguments first: short text and numbers (`table`, `to`, `path`, `amount`),
  in the order the agent sent them, then the bulk (lists, objects, long text);
- a list of objects as a table with a column for every key any row has, one row per
  item, numbered, each cell whole (a long cell makes its column wide, never cut);
- nested objects indented under their name, other lists one item per line.

Deterministic and total: every key and value of the input appears (the test checks that
each scalar's JSON is in the text). Qt-free; never raises.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

SHORT_TEXT: Final = 80
"""Text up to this long, on one line, counts as identifying (it goes first)."""
MAX_DEPTH: Final = 12


def readable_input(value: Mapping[str, Any]) -> str:
    """`value` (a tool's input) as text for the card; see the module docstring."""
    lines: list[str] = []
    _object(value, 0, lines)
    return "\n".join(lines)


def _identifying(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | float):
        return True
    return isinstance(value, str) and len(value) <= SHORT_TEXT and "\n" not in value


def _scalar(value: Any) -> str:
    """A scalar as JSON would write it (strings quoted, so `"1"` and `1` stay apart)."""
    return json.dumps(value, ensure_ascii=False)


def _object(value: Mapping[str, Any], depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    items = list(value.items())
    first = [(k, v) for k, v in items if _identifying(v)]
    rest = [(k, v) for k, v in items if not _identifying(v)]
    for key, item in first:
        lines.append(f"{pad}{key}: {_scalar(item)}")
    for key, item in rest:
        _named(str(key), item, depth, lines)


def _named(key: str, item: Any, depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    if depth >= MAX_DEPTH:
        lines.append(f"{pad}{key}: {json.dumps(item, ensure_ascii=False, default=str)}")
        return
    if isinstance(item, str):
        lines.append(f"{pad}{key}: |")
        lines.extend(f"{pad}  {line}" for line in item.split("\n"))
    elif isinstance(item, Mapping):
        lines.append(f"{pad}{key}: ({len(item)} {'entry' if len(item) == 1 else 'entries'})")
        _object(item, depth + 1, lines)
    elif isinstance(item, list):
        if item and all(isinstance(row, Mapping) for row in item):
            _table(key, item, depth, lines)
        else:
            lines.append(f"{pad}{key}: ({len(item)} {'item' if len(item) == 1 else 'items'})")
            for i, element in enumerate(item, 1):
                if _identifying(element):
                    lines.append(f"{pad}  {i}. {_scalar(element)}")
                else:
                    _named(f"{i}.", element, depth + 1, lines)
    else:
        lines.append(f"{pad}{key}: {json.dumps(item, ensure_ascii=False, default=str)}")


def _table(key: str, rows: list[Any], depth: int, lines: list[str]) -> None:
    """Rows of objects as a table: a column for every key any row has, in first-seen
    order; a cell holding a list or an object is its JSON."""
    pad = "  " * depth
    columns: list[str] = []
    for row in rows:
        for column in row:
            if str(column) not in columns:
                columns.append(str(column))
    lines.append(f"{pad}{key}: ({len(rows)} rows × {len(columns)} columns: {', '.join(columns)})")
    cells = [["#", *columns]]
    for i, row in enumerate(rows, 1):
        cells.append([str(i), *(_cell(row, c) for c in columns)])
    widths = [max(len(r[c]) for r in cells) for c in range(len(cells[0]))]
    for row_cells in cells:
        line = "  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row_cells)).rstrip()
        lines.append(f"{pad}  {line}")


def _cell(row: Mapping[str, Any], column: str) -> str:
    if column not in row:
        return "—"  # this row has no such key (not an empty value)
    value = row[column]
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text.replace("\n", "⏎")  # whole: a line too long for the card asks elsewhere


__all__ = ["readable_input"]

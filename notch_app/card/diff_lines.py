"""A diff as a person reads it: each line added, removed or kept, with its line number.

`read_diff(text)` recognises a unified diff (`--- a/x`, `+++ b/x`, `@@ -12,3 +12,3 @@`)
and Codex's patches (`*** Begin Patch`, `*** Update File: x`, `@@`), and says for every
line what it is and which line of the old and the new file it is. The code panel paints
added lines green and removed ones red with a numbered gutter; runs of unchanged lines
longer than FOLD_RUN are folded to their ends (`folded`), so the change is what shows.
Pure functions over `str`; never raise. Text that is not a diff gets None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

Kind = Literal["add", "remove", "same", "hunk", "file", "fold"]

FOLD_RUN: Final = 8
"""Unchanged lines in a row past which the middle folds to one "⋯ N unchanged" line."""
FOLD_KEEP: Final = 3
"""Unchanged lines kept on each side of a fold (the context a change is read in)."""

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_FILE_LINES: Final = ("--- ", "+++ ", "*** ", "diff --git", "index ", "new file mode")


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of a diff as shown."""

    kind: Kind
    old: int | None = None
    """Its line number in the old file (removed and unchanged lines)."""
    new: int | None = None
    """Its line number in the new file (added and unchanged lines)."""

    @property
    def number(self) -> int | None:
        """The number the gutter shows: the new file's, the old one's for a removal."""
        return self.old if self.kind == "remove" else self.new


def looks_like_diff(text: str) -> bool:
    """Whether `text` is a unified diff or a Codex patch (a header or a hunk line)."""
    head = text[:4000]
    return (
        head.startswith(("--- ", "diff --git", "*** Begin Patch"))
        or "\n+++ " in head
        or _HUNK.search(head) is not None
        or "\n@@" in head
    )


def read_diff(text: str) -> list[DiffLine] | None:
    """Every line of `text` as a DiffLine (one per line, in order), or None when `text`
    is not a diff. Numbers start at a hunk's header; a hunk without numbers (Codex's
    bare `@@`) numbers nothing."""
    if not looks_like_diff(text):
        return None
    out: list[DiffLine] = []
    old: int | None = None
    new: int | None = None
    in_hunk = False
    for line in text.split("\n"):
        hunk = _HUNK.match(line)
        if hunk is not None:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            in_hunk = True
            out.append(DiffLine("hunk"))
        elif line.startswith("@@"):
            old = new = None
            in_hunk = True
            out.append(DiffLine("hunk"))
        elif line.startswith(_FILE_LINES) and not (in_hunk and line.startswith(("--- ", "+++ "))):
            in_hunk = line.startswith("*** ") and not line.startswith("*** End")
            out.append(DiffLine("file"))
        elif line.startswith("+"):
            out.append(DiffLine("add", None, new))
            new = new + 1 if new is not None else None
        elif line.startswith("-"):
            out.append(DiffLine("remove", old, None))
            old = old + 1 if old is not None else None
        else:
            out.append(DiffLine("same", old, new))
            old = old + 1 if old is not None else None
            new = new + 1 if new is not None else None
    return out


def folded(text: str, rows: list[DiffLine]) -> tuple[str, list[DiffLine]]:
    """`text` and its rows with each run of more than FOLD_RUN unchanged lines cut to
    FOLD_KEEP lines at each end around one "⋯ N unchanged lines" line."""
    lines = text.split("\n")
    out_lines: list[str] = []
    out_rows: list[DiffLine] = []
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and rows[j].kind == "same":
            j += 1
        run = j - i
        if run > FOLD_RUN:
            out_lines += lines[i : i + FOLD_KEEP]
            out_rows += rows[i : i + FOLD_KEEP]
            hidden = run - 2 * FOLD_KEEP
            out_lines.append(f"⋯ {hidden:,} unchanged line{'' if hidden == 1 else 's'}")
            out_rows.append(DiffLine("fold"))
            out_lines += lines[j - FOLD_KEEP : j]
            out_rows += rows[j - FOLD_KEEP : j]
            i = j
        elif run:
            out_lines += lines[i:j]
            out_rows += rows[i:j]
            i = j
        else:
            out_lines.append(lines[i])
            out_rows.append(rows[i])
            i += 1
    return "\n".join(out_lines), out_rows


__all__ = ["FOLD_KEEP", "FOLD_RUN", "DiffLine", "folded", "looks_like_diff", "read_diff"]

"""A file edit or write as the change it makes: a bounded unified diff for the card.

The hook computes it (difflib) from the tool's input and the file on disk, so the card
shows what the file will become, not what the agent says it does. Everything here is
bounded: the file read (a regular file of at most MAX_READ_BYTES, never a FIFO or a
device), each line shown, and the whole diff. A change past those bounds is `partial`
(what is left out is counted on the diff's last line): the hook then leaves the call to
the agent's own prompt, since a yes must never cover lines the card could not show. The
card's code panel scrolls, so the bounds are what a person can read, not what a label holds.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from notch_app.card.risk import OUTSIDE_NOTE

MAX_READ_BYTES: Final = 2 * 1024 * 1024
MAX_DIFF_CHARS: Final = 120_000
"""Within what the card's scrolling code panel shows whole (`ui/widgets/code_view.py`)."""
MAX_DIFF_LINES: Final = 3000
"""Lines a person can scroll through on a card; a longer change is left to the agent."""
MAX_LINE_CHARS: Final = 2000
MAX_TEXT_CHARS: Final = 5 * 1024 * 1024
"""Old and new text longer than this are not diffed (the diff would take too long)."""


@dataclass(frozen=True, slots=True)
class FileChange:
    """What the card shows about one file change: its arguments, as the manifest names
    them (`file_path`, `written_as`, `change`, `diff`, `notes`)."""

    file_path: str
    diff: str
    change: str
    written_as: str = ""
    notes: tuple[str, ...] = field(default=())
    partial: bool = False
    """Part of the change is past the bounds: the card could not show all of it."""

    def arguments(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file_path": self.file_path, "diff": self.diff}
        if self.change:
            out["change"] = self.change
        if self.written_as:
            out["written_as"] = self.written_as
        if self.notes:
            out["notes"] = " · ".join(self.notes)
        return out


@dataclass(frozen=True, slots=True)
class _Place:
    path: str
    written_as: str
    outside: bool


def _place(file_path: str, cwd: str) -> _Place:
    """`file_path` made absolute against `cwd` with `.` and `..` resolved as text (the
    path the tool writes, shown so `src/../../etc/x` reads as `/etc/x`)."""
    base = cwd if os.path.isabs(cwd) else os.sep
    resolved = os.path.normpath(os.path.join(base, file_path))
    written_as = file_path if file_path != resolved else ""
    outside = bool(cwd) and os.path.isabs(cwd)
    if outside:
        root = os.path.normpath(cwd)
        outside = os.path.commonpath([root, resolved]) != root
    return _Place(resolved, written_as, outside)


def read_current(path: str) -> tuple[str | None, str]:
    """The text of the regular file at `path` (None when there is none) and a note when
    it could not be read whole. Never blocks on a FIFO or reads past MAX_READ_BYTES."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, f"the file could not be read ({exc.strerror or exc})"
    with contextlib.closing(os.fdopen(fd, "rb")) as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None, "the path is not a regular file"
        if info.st_size > MAX_READ_BYTES:
            return None, f"the file is {info.st_size:,} bytes, too large to compare"
        data = handle.read(MAX_READ_BYTES + 1)
    if b"\0" in data:
        return None, "the file is binary"
    return data.decode("utf-8", errors="replace"), ""


def bounded(lines: Iterable[str]) -> tuple[str, bool]:
    """`lines` joined for the card: each line cut past MAX_LINE_CHARS and the whole past
    MAX_DIFF_LINES / MAX_DIFF_CHARS, with a last line counting what is not shown.
    Returns (text, whether anything was left out)."""
    shown: list[str] = []
    used = 0
    rest = 0
    rest_chars = 0
    partial = False
    for raw in lines:
        line = raw.rstrip("\n")
        if rest or len(shown) >= MAX_DIFF_LINES or used + len(line) > MAX_DIFF_CHARS:
            rest += 1
            rest_chars += len(line) + 1
            continue
        if len(line) > MAX_LINE_CHARS:
            line = f"{line[:MAX_LINE_CHARS]}… (+{len(line) - MAX_LINE_CHARS:,} characters)"
            partial = True
        shown.append(line)
        used += len(line) + 1
    if rest:
        shown.append(f"… {rest:,} more lines not shown ({rest_chars:,} characters)")
    return "\n".join(shown), partial or rest > 0


def _counts(diff_lines: list[str]) -> tuple[int, int]:
    added = sum(1 for d in diff_lines if d.startswith("+") and not d.startswith("+++"))
    removed = sum(1 for d in diff_lines if d.startswith("-") and not d.startswith("---"))
    return added, removed


def _lines_said(added: int, removed: int) -> str:
    return f"{added:,} line{'' if added == 1 else 's'} added, {removed:,} removed"


def _diff(before: str, after: str, name: str, new_file: bool) -> list[str]:
    return list(
        difflib.unified_diff(
            before.splitlines(),
            after.splitlines(),
            "/dev/null" if new_file else f"a/{name}",
            f"b/{name}",
            lineterm="",
        )
    )


def _finish(place: _Place, diff_lines: list[str], what: str, notes: list[str]) -> FileChange:
    added, removed = _counts(diff_lines)
    text, partial = bounded(diff_lines) if diff_lines else ("(no change to the file's text)", False)
    if place.outside:
        notes.insert(0, OUTSIDE_NOTE)  # the card's risk section reads it
    if partial:
        notes.append("Part of the change is not shown")
    change = f"{what} · {_lines_said(added, removed)}" if what else _lines_said(added, removed)
    return FileChange(place.path, text, change, place.written_as, tuple(notes), partial)


def _too_long(*texts: str) -> bool:
    return sum(len(t) for t in texts) > MAX_TEXT_CHARS


def write_change(tool_input: Mapping[str, Any], cwd: str) -> FileChange:
    """Write {file_path, content}: the whole new file against the file on disk (a new
    file's head when there is none). Raises ValueError for an input without them."""
    file_path, content = _texts(tool_input, "file_path", "content")
    place = _place(file_path, cwd)
    before, note = read_current(place.path)
    notes = [note] if note else []
    name = os.path.basename(place.path)
    if _too_long(before or "", content):
        return _finish(place, ["+" + line for line in content.splitlines()], "", notes)
    what = "New file" if before is None and not note else "Replaces the whole file"
    return _finish(place, _diff(before or "", content, name, before is None), what, notes)


def edit_change(tool_input: Mapping[str, Any], cwd: str) -> FileChange:
    """Edit {file_path, old_string, new_string, replace_all} or MultiEdit {file_path,
    edits: [...]}: the file as it will be after the replacements, as a diff. Where the
    file cannot be read (or a text is not in it) the replaced and new text are shown."""
    file_path = _texts(tool_input, "file_path")[0]
    edits = tool_input.get("edits")
    if edits is None:
        edits = [tool_input]
    if not isinstance(edits, list) or not edits or not all(isinstance(e, dict) for e in edits):
        raise ValueError("edits must be a list of {old_string, new_string} objects")
    place = _place(file_path, cwd)
    before, note = read_current(place.path)
    notes = [note] if note else []
    pairs: list[tuple[str, str, bool]] = []
    for edit in edits:
        old, new = _texts(edit, "old_string", "new_string")
        pairs.append((old, new, edit.get("replace_all") is True))
    what = f"{len(pairs)} edits" if len(pairs) > 1 else ""
    name = os.path.basename(place.path)
    if before is not None and not _too_long(before, *(o + n for o, n, _ in pairs)):
        replaced = _replaced(before, pairs)
        if replaced is not None:
            after, count = replaced
            if len(pairs) == 1:
                what = f"Replaces {count:,} occurrence{'' if count == 1 else 's'}"
            return _finish(place, _diff(before, after, name, False), what, notes)
        notes.append("The text to replace is not in the file as it is now")
    elif before is None and not note:
        notes.append("The file does not exist yet")
    lines: list[str] = [f"--- a/{name} (the replaced text)", f"+++ b/{name} (the new text)"]
    for old, new, _ in pairs:
        lines.append("@@ replace @@")
        lines.extend("-" + line for line in old.splitlines())
        lines.extend("+" + line for line in new.splitlines())
    return _finish(place, lines, what, notes)


def _replaced(text: str, pairs: list[tuple[str, str, bool]]) -> tuple[str, int] | None:
    """`text` after the replacements, and how many the last one made; None when a text
    to replace is not there (the tool would fail)."""
    count = 0
    for old, new, every in pairs:
        if not old or old not in text:
            return None
        count = text.count(old) if every else 1
        text = text.replace(old, new, -1 if every else 1)
    return text, count


_PATCH_FILE_MARKS: Final = ("*** Add File: ", "*** Update File: ", "*** Delete File: ")


def patch_change(patch: str, cwd: str) -> FileChange:
    """Codex's apply_patch body (its own patch format, shown as written): which files it
    touches and its lines, bounded."""
    files: list[str] = []
    for line in patch.splitlines():
        for mark in _PATCH_FILE_MARKS:
            if line.startswith(mark):
                files.append(line[len(mark) :].strip())
    first = files[0] if files else "(no file named)"
    place = _place(first, cwd)
    outside = any(_place(f, cwd).outside for f in files)
    place = _Place(place.path, place.written_as, outside)
    what = f"Patch to {len(files)} file{'' if len(files) == 1 else 's'}"
    if len(files) > 1:
        what += ": " + ", ".join(files[:5]) + (" …" if len(files) > 5 else "")
    return _finish(place, patch.splitlines(), what, [])


def _texts(value: Mapping[str, Any], *keys: str) -> list[str]:
    out = []
    for key in keys:
        got = value.get(key)
        if not isinstance(got, str):
            raise ValueError(f"{key} is missing or not text")
        out.append(got)
    return out

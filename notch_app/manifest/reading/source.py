"""Reading an untrusted JSON file: bounded before parsing, and placed back in its text.

`load_json()` refuses a file over `limits.MAX_FILE_BYTES` without reading it all, and one
nested deeper than `limits.MAX_NESTING_DEPTH` with an iterative scan *before* `json.loads`
(a document nested 100,000 levels deep is refused in milliseconds, never a RecursionError).

`SourceDocument.position(pointer)` maps a JSON Pointer to the 1-based line and column of
that value in the text, lazily, only when a problem has to be placed: a clean file never
pays for it, and placing one problem steps only over the siblings before it.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from notch_app.manifest import limits
from notch_app.manifest.paths import escape_pointer_token
from notch_app.manifest.reading.problems import Problem

# A JSON string (unrolled loop: no per-character alternation), a bracket, or a
# non-JSON constant that Python's json would otherwise accept.
_DEPTH_SCAN: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|NaN|-?Infinity', re.DOTALL)
# Tokens of a document already known to be valid JSON; whitespace is skipped by finditer.
_TOKEN: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.DOTALL)


class SourceError(Exception):
    """The file cannot be read at all (missing, a directory, permissions)."""


@dataclass
class SourceDocument:
    """A parsed JSON file and the means to place a JSON Pointer in its text."""

    path: Path
    display_name: str
    text: str
    data: Any
    _scans: dict[str, _ContainerScan] = field(default_factory=dict, repr=False)
    _line_starts: list[int] | None = field(default=None, repr=False)
    _counted: int = field(default=0, repr=False)

    def offset(self, pointer: str, *, key: bool = False) -> int:
        """Character offset of the value at `pointer` (of its key, with `key=True`).

        A pointer that is not in the document (a missing property) falls back to its
        nearest existing ancestor.
        """
        here = _skip_ws(self.text, 0)
        walked = ""
        for token in pointer.split("/")[1:]:
            scan = self._scans.get(walked)
            if scan is None:
                scan = self._scans[walked] = _ContainerScan(self.text, here)
            hit = scan.find(token)
            if hit is None:
                return here
            walked = walked + "/" + token
            here = hit[1] if key and walked == pointer and hit[1] >= 0 else hit[0]
        return here

    def position(self, pointer: str, *, key: bool = False) -> tuple[int, int]:
        """1-based (line, column) of the value at `pointer` (see `offset`)."""
        return self.line_column(self.offset(pointer, key=key))

    def line_column(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset.

        The first few problems are placed by counting newlines at C speed (no allocation);
        only a file with many problems builds the table of line starts (one int object per
        line: 100,000 of them for a 2.5 MB manifest, more than a clean file with a warning
        or two should pay for), so many problems stay O(log lines) each.
        """
        if self._line_starts is None:
            if self._counted < _COUNT_BEFORE_TABLE:
                self._counted += 1
                line = self.text.count("\n", 0, offset) + 1
                return line, offset - self.text.rfind("\n", 0, offset)
            starts = [0]
            starts.extend(m.end() for m in re.finditer(r"\n", self.text))
            self._line_starts = starts
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def problem(
        self,
        pointer: str,
        rule: str,
        message: str,
        *,
        severity: str = "error",
        key: bool = False,
    ) -> Problem:
        """A Problem placed at `pointer` in this file."""
        line, column = self.position(pointer, key=key)
        return Problem(
            self.display_name,
            line,
            column,
            pointer,
            rule,
            "warning" if severity == "warning" else "error",
            message,
        )


_COUNT_BEFORE_TABLE: Final = 16
"""Problems placed by counting newlines before `line_column` builds its table."""

_DECODER: Final = json.JSONDecoder()
_WHITESPACE: Final = re.compile(r"[ \t\n\r]*")


def _skip_ws(text: str, at: int) -> int:
    m = _WHITESPACE.match(text, at)
    return m.end() if m else at


class _ContainerScan:
    """The children of one object or array, found on demand and remembered.

    Scanning stops at the child asked for and resumes from there next time, so placing a
    problem never decodes more than the siblings before it; each skipped sibling is decoded
    (and dropped) by json's C scanner on its own. Assumes valid JSON.
    """

    __slots__ = ("children", "index", "is_object", "next_at", "pending", "text")

    def __init__(self, text: str, at: int) -> None:
        self.text = text
        self.children: dict[str, tuple[int, int]] = {}
        self.is_object = at < len(text) and text[at] == "{"
        self.next_at = _skip_ws(text, at + 1) if at < len(text) and text[at] in "[{" else -1
        self.index = 0
        self.pending = False

    def find(self, token: str) -> tuple[int, int] | None:
        """(value offset, key offset or -1) of the child named `token`, or None."""
        hit = self.children.get(token)
        text = self.text
        i = self.next_at
        while hit is None and i >= 0:
            if self.pending:
                # Step over the previous child's value only now that it is not the answer.
                _, i = _DECODER.raw_decode(text, i)
                i = _skip_ws(text, i)
                if i < len(text) and text[i] == ",":
                    i = _skip_ws(text, i + 1)
                self.pending = False
            if i >= len(text) or text[i] in "]}":
                i = -1
                break
            key_at = -1
            if self.is_object:
                key_at = i
                name, i = _DECODER.raw_decode(text, i)
                i = _skip_ws(text, _skip_ws(text, i) + 1)  # past the ':'
                child = escape_pointer_token(str(name))
            else:
                child = str(self.index)
                self.index += 1
            self.children.setdefault(child, (i, key_at))
            self.pending = True
            if child == token:
                hit = self.children[child]
        self.next_at = i
        return hit


def _problem_at(name: str, text: str, offset: int, rule: str, message: str) -> Problem:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Problem(name, line, column, "", rule, "error", message)


_STRINGS: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS: Final = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP: Final = {"[": 1, "{": 1, "]": -1, "}": -1}


def check_depth(text: str, name: str) -> Problem | None:
    """Refuse nesting deeper than MAX_NESTING_DEPTH, and NaN/Infinity, before parsing.

    The common case runs at C speed (strip strings, keep brackets, running sum); the
    token-by-token scan only runs to place a problem.
    """
    bare = _STRINGS.sub('""', text)
    brackets = _NOT_BRACKETS.sub("", bare)
    clean = "NaN" not in bare and "Infinity" not in bare
    if clean and (
        brackets.count("[") + brackets.count("{") <= limits.MAX_NESTING_DEPTH
        or max(itertools.accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0)
        <= limits.MAX_NESTING_DEPTH
    ):
        return None
    return _place_depth_problem(text, name)


def _place_depth_problem(text: str, name: str) -> Problem | None:
    depth = 0
    for m in _DEPTH_SCAN.finditer(text):
        c = m.group(0)[0]
        if c in "[{":
            depth += 1
            if depth > limits.MAX_NESTING_DEPTH:
                return _problem_at(
                    name,
                    text,
                    m.start(),
                    "limit-nesting-depth",
                    f"objects and lists are nested more than {limits.MAX_NESTING_DEPTH} "
                    "levels deep here; flatten the document (a manifest needs far less)",
                )
        elif c in "]}":
            depth -= 1
        elif c != '"':
            return _problem_at(
                name,
                text,
                m.start(),
                "json-syntax",
                f"{m.group(0)} is not valid JSON; write a number or null instead",
            )
    return None


def load_json(
    path: Path, display_name: str | None = None
) -> tuple[SourceDocument | None, list[Problem]]:
    """Read and parse `path` within the limits.

    Returns the document, or None with the problems that stopped it (size, encoding,
    depth, syntax). Raises SourceError only when the file cannot be read at all.
    """
    name = display_name if display_name is not None else str(path)
    try:
        with path.open("rb") as fh:
            raw = fh.read(limits.MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise SourceError(f"{name}: cannot read: {exc.strerror or exc}") from exc
    if len(raw) > limits.MAX_FILE_BYTES:
        return None, [
            Problem(
                name,
                1,
                1,
                "",
                "limit-file-size",
                "error",
                f"the file is larger than {limits.MAX_FILE_BYTES // (1024 * 1024)} MiB; "
                "a manifest should be a few kilobytes — move large data (images) into "
                "files beside it",
            )
        ]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        prefix = raw[: exc.start].decode("utf-8", errors="replace")
        return None, [
            _problem_at(
                name,
                prefix,
                len(prefix),
                "json-encoding",
                "the file is not UTF-8 text; save it as UTF-8",
            )
        ]
    # The bytes are not needed once decoded; dropping them now keeps a 4 MiB file from
    # holding two copies of itself while it is parsed and checked.
    del raw
    return parse_text(text, path, name)


def parse_text(
    text: str, path: Path, display_name: str
) -> tuple[SourceDocument | None, list[Problem]]:
    """Parse already-read `text` within the limits (see `load_json`)."""
    too_deep = check_depth(text, display_name)
    if too_deep is not None:
        return None, [too_deep]
    out_of_range: list[str] = []

    def finite_float(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):  # 1e999 is valid JSON but reads as infinity
            out_of_range.append(literal)
        return value

    try:
        data = json.loads(text, parse_float=finite_float)
    except json.JSONDecodeError as exc:
        return None, [
            Problem(
                display_name,
                exc.lineno,
                exc.colno,
                "",
                "json-syntax",
                "error",
                f"invalid JSON: {exc.msg}; fix the syntax here (a missing comma, quote or "
                "bracket is the usual cause)",
            )
        ]
    except (ValueError, RecursionError) as exc:
        # e.g. an integer with more digits than Python converts; never a traceback.
        return None, [
            Problem(display_name, 1, 1, "", "json-syntax", "error", f"cannot read the JSON: {exc}")
        ]
    doc = SourceDocument(path, display_name, text, data)
    if out_of_range or _SURROGATE_ESCAPE.search(text) is not None:
        unrepresentable = list(itertools.islice(_unrepresentable(doc), _MAX_REPORTED))
        if unrepresentable:
            return None, unrepresentable
    return doc, []


_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""A `\\uD800`–`\\uDFFF` escape: the only way a lone surrogate gets into text decoded as
UTF-8. Pairs are fine (json joins them into one character); only a lone one is refused."""

_MAX_REPORTED: Final = 20


def _is_lone_surrogate_text(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _unrepresentable(doc: SourceDocument) -> Iterator[Problem]:
    """Values no other program reads back the same: strings or keys holding a lone UTF-16
    surrogate (not a character; printing one fails) and numbers too large for a float.
    Checked once here, at the boundary, so nothing downstream ever meets them."""
    pending: list[tuple[str, Any]] = [("", doc.data)]
    while pending:
        pointer, value = pending.pop()
        if isinstance(value, dict):
            items = list(value.items())
            for key, child in reversed(items):
                child_pointer = f"{pointer}/{escape_pointer_token(key)}"
                if _is_lone_surrogate_text(key):
                    yield doc.problem(
                        child_pointer, "json-lone-surrogate", _SURROGATE_FIX, key=True
                    )
                pending.append((child_pointer, child))
        elif isinstance(value, list):
            pending.extend(
                (f"{pointer}/{i}", child) for i, child in reversed(list(enumerate(value)))
            )
        elif isinstance(value, str):
            if _is_lone_surrogate_text(value):
                yield doc.problem(pointer, "json-lone-surrogate", _SURROGATE_FIX)
        elif isinstance(value, float) and not math.isfinite(value):
            yield doc.problem(
                pointer,
                "json-number-range",
                "this number is too large to read (it would become infinity); write a "
                "number within ±1.7e308",
            )


_SURROGATE_FIX: Final = (
    "this text holds a lone UTF-16 surrogate escape (\\uD800–\\uDFFF without its pair), "
    "which is not a character; remove it or write the character it stands for"
)

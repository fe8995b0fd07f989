"""Schema patterns compiled with RE2 and matched on UTF-8, each match bounded before it
starts (MAX_MATCH_WORK) and every refusal worded for a person."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import re2

from notch_app.manifest.schema.patterns.budget import spend
from notch_app.manifest.schema.patterns.ecma import PatternRefused, translate

MAX_MATCH_WORK: Final = 12_000_000
"""Program instructions x text bytes allowed for one match: about 0.1-0.3 s at RE2's
slowest (its NFA), a few ms usually. A longer text is refused for that pattern."""
MAX_PROGRAM_BYTES: Final = 2 * 1024 * 1024
"""RE2's memory for one compiled pattern (its default is 8 MiB)."""


class TooLongToMatch(Exception):
    """One match would cost more than MAX_MATCH_WORK: that value fails (the message says
    by how much, without quoting it); the rest of the check goes on."""


@dataclass(frozen=True, slots=True)
class SchemaPattern:
    """One compiled schema pattern."""

    source: str
    """The pattern as the schema wrote it (ECMA-262)."""
    translated: str
    """The same pattern in RE2 syntax."""
    program_size: int
    """RE2 program instructions: the cost of a match is at most about this x bytes."""
    _found: Callable[[bytes], bool]

    def search(self, text: str) -> bool:
        """Whether the pattern matches anywhere in `text` (JSON Schema's `pattern`).
        Raises TooLongToMatch when the text is too long for this pattern, CheckTooSlow
        when the check's time budget is spent."""
        spend()
        if self.program_size * (4 * len(text) + 1) > MAX_MATCH_WORK:
            # A character is 1-4 UTF-8 bytes (what RE2 reads): measure exactly only here.
            size = len(text.encode("utf-8", "surrogatepass"))
            if self.program_size * (size + 1) > MAX_MATCH_WORK:
                raise TooLongToMatch(
                    f"is too long ({len(text):,} characters) to check against the pattern "
                    f"{shown_pattern(self.source)} in time; send at most "
                    f"{MAX_MATCH_WORK // self.program_size:,} bytes"
                )
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: RE2 reads UTF-8 only
            data = _without_surrogates(text).encode("utf-8")
        return self._found(data)


def shown_pattern(source: str, limit: int = 80) -> str:
    """A pattern as messages quote it: in quotes, cut to `limit` characters."""
    return repr(source if len(source) <= limit else source[: limit - 1] + "…")


def compile_pattern(source: str) -> SchemaPattern:
    """The compiled pattern (cached). Raises PatternRefused naming why and the fix."""
    found = _compiled(source)
    if isinstance(found, str):
        raise PatternRefused(found)
    return found


def pattern_problem(source: str) -> str | None:
    """Why `source` cannot be a schema pattern in Notch, or None when it can."""
    found = _compiled(source)
    return found if isinstance(found, str) else None


def search(source: str, text: str) -> bool:
    """`compile_pattern(source).search(text)`: raises PatternRefused, TooLongToMatch or
    CheckTooSlow."""
    return compile_pattern(source).search(text)


@functools.lru_cache(maxsize=1024)
def _compiled(source: str) -> SchemaPattern | str:
    # Cached refusals too: a refused pattern is asked about again on every check.
    try:
        translated = translate(source)
    except PatternRefused as exc:
        return str(exc)
    options = re2.Options()
    options.never_capture = True  # only "does it match" is ever asked
    options.log_errors = False  # refusals are ours to word, not stderr noise
    options.max_mem = MAX_PROGRAM_BYTES
    try:
        regexp = re2.compile(translated, options)
    except re2.error as exc:
        return _engine_refusal(str(exc))
    return SchemaPattern(source, translated, int(regexp.programsize), _finder(regexp))


def _finder(regexp: Any) -> Callable[[bytes], bool]:
    # The binding's own RE2::Match on bytes: 0.8-1.5 µs a match here, against 5-8 µs for
    # its re-like `search` on str (which also maps every span back to str offsets).
    engine = getattr(regexp, "_regexp", None)
    anchor = getattr(getattr(re2, "_re2", None), "RE2", None)
    unanchored = getattr(getattr(anchor, "Anchor", None), "UNANCHORED", None)
    if engine is None or unanchored is None or not hasattr(engine, "Match"):
        return lambda data: regexp.search(data) is not None  # a binding without them

    def found(data: bytes) -> bool:
        return bool(engine.Match(unanchored, data, 0, len(data))[0][0] != -1)

    return found


def _engine_refusal(reason: str) -> str:
    if "too large" in reason or "memory" in reason:
        return (
            "the pattern is too large for Notch's linear-time engine; simplify it (fewer or "
            "smaller counted repeats, shorter alternations)"
        )
    if "character class" in reason or "property" in reason.lower():
        return "the pattern names a Unicode property Notch's engine does not know"
    return f"Notch's engine cannot run this pattern ({reason.strip()[:120]})"


def _without_surrogates(text: str) -> str:
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)

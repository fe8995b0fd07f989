"""Schema patterns (`pattern`, `patternProperties`, `format: regex`): compiled and matched
in time linear in the text, with ECMA-262 meaning, under a time budget.

A pattern comes from a manifest or from any MCP server a gateway attaches, and it is run
on arguments an agent chose; with a backtracking engine (Python's `re`, which jsonschema
uses) `^(a+)+$` on `"a" * 40 + "!"` runs for hours and holds the GIL, so `notch run`
stopped answering everyone and ignored SIGTERM. Every pattern Notch runs goes through
this module, and nothing else in Notch runs a schema pattern.

Why RE2 (`google-re2`), measured on this project's 2-core machine (Python 3.11):

- typical patterns (email, id, date, uuid): compile 7-13 µs, match 5-8 µs (Python's `re`
  0.4-0.7 µs; `regex` 4-5 µs; `pyre2` 0.7 µs);
- `^(a+)+$`, `^(a|aa)+$`, `^(\\d+)*$` and friends on 40-5,000 characters: 0.02-0.25 ms.
  The `regex` module with `timeout=` needed its full 50 ms budget on `^(a|aa)+$`, every
  time, and is backtracking underneath; `pyre2` silently falls back to `re` for what RE2
  cannot run unless told not to;
- the GIL is released while it matches (a 20 MB match in a thread: the main thread ran 38
  times, worst gap 3 ms), so a check off the event loop never stalls it;
- it refuses, rather than runs slowly, what it cannot do in linear time (lookaround,
  backreferences), so such a pattern is refused when the manifest is validated or the
  server attached, with the reason and the fix.

RE2 is linear but not free: a large program on a long text falls back from its DFA to
its NFA, about 7-17 ns per program instruction per byte here (`a[ab]{30}b[ab]{30}c` on
1 MB: 0.8 s; a 825-instruction alternation: 11 s). So each match is bounded before it
starts (instructions x bytes <= MAX_MATCH_WORK, about 0.1-0.3 s at worst), and a whole
argument check is bounded by `time_budget()` (checked between matches and keywords).

ECMA-262 meaning (what JSON Schema specifies, with the `u` flag as Ajv uses it): the
pattern is parsed here and written out in RE2 syntax, so the differences are explicit:
`\\d`, `\\w`, `\\b` are ASCII; `\\s` is JavaScript's Unicode white space and line
terminators; `.` excludes `\\n`, `\\r`, U+2028 and U+2029; `^` and `$` are the start and
end of the text only (Python's `$` also matches before a final newline); escapes `\\xHH`,
`\\uHHHH`, `\\u{H...}`, `\\cX`, `\\0`, `\\p{...}`. Refused: lookahead and lookbehind,
backreferences, escapes that are not ECMA-262 (`\\Z`, `\\A`, `\\z`, `\\h`...), inline
flags and Python's `(?P<name>`, repeats over 1,000, and text with lone surrogates in the
pattern. Lone surrogates in a matched text are read as U+FFFD.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

import re2

MAX_PATTERN_CHARS: Final = 8192
"""Longer patterns are refused (a translation is linear in the pattern, and no real
schema needs more)."""
MAX_REPEAT: Final = 1000
"""RE2's limit on a counted repeat (`{n,m}`)."""
MAX_MATCH_WORK: Final = 12_000_000
"""Program instructions x text bytes allowed for one match: about 0.1-0.3 s at RE2's
slowest (its NFA), a few ms usually. A longer text is refused for that pattern."""
MAX_PROGRAM_BYTES: Final = 2 * 1024 * 1024
"""RE2's memory for one compiled pattern (its default is 8 MiB)."""
CHECK_BUDGET_S: Final = 1.0
"""Time budget for one check of a call's arguments (see `time_budget`)."""

_MAX_CODE_POINT: Final = 0x10FFFF
_SYNTAX: Final = frozenset("^$\\.*+?()[]{}|/")

# JavaScript's \s: WhiteSpace and LineTerminator (ECMA-262 22.2.2.9, Unicode Zs).
_SPACE: Final = (
    (0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)  # fmt: skip
_DIGIT: Final = ((0x30, 0x39),)
_WORD: Final = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_LINE_END: Final = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))

# General_Category long names (ECMA-262 accepts both); RE2 knows the short ones.
_CATEGORIES: Final = {
    "Letter": "L", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo",
    "Mark": "M", "Combining_Mark": "M", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
    "Nonspacing_Mark": "Mn", "Number": "N", "Decimal_Number": "Nd", "digit": "Nd",
    "Letter_Number": "Nl", "Other_Number": "No", "Punctuation": "P", "punct": "P",
    "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd", "Close_Punctuation": "Pe",
    "Final_Punctuation": "Pf", "Initial_Punctuation": "Pi", "Other_Punctuation": "Po",
    "Open_Punctuation": "Ps", "Symbol": "S", "Currency_Symbol": "Sc",
    "Modifier_Symbol": "Sk", "Math_Symbol": "Sm", "Other_Symbol": "So",
    "Separator": "Z", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
    "Space_Separator": "Zs", "Other": "C", "Control": "Cc", "cntrl": "Cc",
    "Format": "Cf", "Private_Use": "Co", "Surrogate": "Cs",
}  # fmt: skip
_SHORT_CATEGORIES: Final = frozenset(_CATEGORIES.values())
_NOT_ECMA: Final = {
    "A": "\\A is not ECMA-262; write ^ for the start of the text",
    "Z": "\\Z is not ECMA-262; write $ for the end of the text",
    "z": "\\z is not ECMA-262; write $ for the end of the text",
    "G": "\\G is not ECMA-262",
    "Q": "\\Q...\\E is not ECMA-262; escape each character with \\",
    "E": "\\Q...\\E is not ECMA-262; escape each character with \\",
}


class PatternRefused(ValueError):
    """A pattern Notch will not run: not ECMA-262, or not runnable in linear time. The
    message says why and what to write instead (without the pattern itself)."""


class CheckTooSlow(Exception):
    """A check ran out of its time budget (`time_budget`): the whole check is abandoned."""


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


# --- the time budget -------------------------------------------------------------------

_deadline: ContextVar[float | None] = ContextVar("notch_check_deadline", default=None)


@contextlib.contextmanager
def time_budget(seconds: float = CHECK_BUDGET_S) -> Iterator[None]:
    """Bound the checks run inside: `spend()` (called before every match and every schema
    keyword) raises CheckTooSlow once `seconds` have passed. Per thread (a ContextVar);
    an inner budget never extends an outer one."""
    ends = time.monotonic() + seconds
    outer = _deadline.get()
    token = _deadline.set(ends if outer is None else min(outer, ends))
    try:
        yield
    finally:
        _deadline.reset(token)


def spend() -> None:
    """Raise CheckTooSlow when the current `time_budget` is spent; free outside one."""
    ends = _deadline.get()
    if ends is not None and time.monotonic() > ends:
        raise CheckTooSlow("could not be checked in time; send smaller arguments")


# --- ECMA-262 to RE2 -------------------------------------------------------------------


def translate(source: str) -> str:
    """`source` (an ECMA-262 pattern, `u` flag) in RE2 syntax with the same meaning.
    Raises PatternRefused for what is not ECMA-262 or cannot run in linear time."""
    if len(source) > MAX_PATTERN_CHARS:
        raise PatternRefused(
            f"the pattern is {len(source):,} characters long; Notch runs patterns of at most "
            f"{MAX_PATTERN_CHARS:,}"
        )
    for i, c in enumerate(source):
        if 0xD800 <= ord(c) <= 0xDFFF:
            raise PatternRefused(
                f"character {i + 1} is a lone surrogate (U+{ord(c):04X}), which is not text; "
                "remove it"
            )
    return _Translator(source).run()


Ranges = list[tuple[int, int]]


def _complement(ranges: Ranges | tuple[tuple[int, int], ...]) -> Ranges:
    out: Ranges = []
    low = 0
    for a, b in sorted(ranges):
        if a > low:
            out.append((low, a - 1))
        low = max(low, b + 1)
    if low <= _MAX_CODE_POINT:
        out.append((low, _MAX_CODE_POINT))
    return out


def _class(ranges: Ranges, properties: list[str], negated: bool = False) -> str:
    parts = [f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges]
    body = "".join(parts) + "".join(properties)
    if not body:  # [] matches nothing, [^] matches any character
        return "[^\\x{0}-\\x{10FFFF}]" if not negated else "[\\x{0}-\\x{10FFFF}]"
    return ("[^" if negated else "[") + body + "]"


def _literal(code: int) -> str:
    c = chr(code)
    return c if c.isascii() and c.isalnum() else f"\\x{{{code:X}}}"


class _Translator:
    """A recursive-descent reader of one ECMA-262 pattern that writes RE2 syntax."""

    def __init__(self, source: str) -> None:
        self.s = source
        self.i = 0
        self.groups: set[str] = set()
        self.depth = 0

    def fail(self, why: str, at: int | None = None) -> PatternRefused:
        where = (self.i if at is None else at) + 1
        return PatternRefused(f"at character {where}: {why}")

    def peek(self, offset: int = 0) -> str:
        j = self.i + offset
        return self.s[j] if j < len(self.s) else ""

    def run(self) -> str:
        out = self.disjunction()
        if self.i < len(self.s):
            raise self.fail("')' closes no group; escape it as \\)")
        return out

    def disjunction(self) -> str:
        alternatives = [self.alternative()]
        while self.peek() == "|":
            self.i += 1
            alternatives.append(self.alternative())
        return "|".join(alternatives)

    def alternative(self) -> str:
        out: list[str] = []
        while self.i < len(self.s) and self.peek() not in "|)":
            out.append(self.term())
        return "".join(out)

    def term(self) -> str:
        start = self.i
        c = self.peek()
        if c == "^":
            self.i += 1
            return self.no_quantifier("^", "\\A", start)
        if c == "$":
            self.i += 1
            return self.no_quantifier("$", "\\z", start)
        if c == "\\" and self.peek(1) in ("b", "B"):
            self.i += 2
            return self.no_quantifier("\\" + self.s[start + 1], "\\" + self.s[start + 1], start)
        atom = self.atom()
        return atom + self.quantifier()

    def no_quantifier(self, written: str, out: str, at: int) -> str:
        if self.quantifier_ahead():
            raise self.fail(f"{written} is an assertion and cannot be repeated", at)
        return out

    def quantifier_ahead(self) -> bool:
        c = self.peek()
        return c in ("*", "+", "?") or (c == "{" and self._counted() is not None)

    def quantifier(self) -> str:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.i += 1
            out = c
        elif c == "{" and (counted := self._counted()) is not None:
            low, high, end = counted
            if high is not None and high < low:
                raise self.fail(f"{{{low},{high}}} repeats from more to fewer times")
            if max(low, high or 0) > MAX_REPEAT:
                raise self.fail(
                    f"a counted repeat of over {MAX_REPEAT} is more than Notch's linear-time "
                    "engine runs; use + or * with a maxLength instead"
                )
            self.i = end
            out = f"{{{low},}}" if high is None else f"{{{low},{high}}}"
        else:
            return ""
        if self.peek() == "?":  # lazy: the same verdict for "does it match"
            self.i += 1
            out += "?"
        if self.quantifier_ahead():
            raise self.fail("a repeat cannot be repeated again (nothing to repeat)")
        return out

    def _counted(self) -> tuple[int, int | None, int] | None:
        # {n}, {n,}, {n,m}; anything else after { is a literal { (Annex B).
        j = self.i + 1
        s = self.s
        k = j
        while k < len(s) and s[k].isdigit() and s[k].isascii():
            k += 1
        if k == j:
            return None
        low = int(s[j:k][:9])
        if k < len(s) and s[k] == "}":
            return low, low, k + 1
        if k >= len(s) or s[k] != ",":
            return None
        m = k + 1
        while m < len(s) and s[m].isdigit() and s[m].isascii():
            m += 1
        if m < len(s) and s[m] == "}":
            high = int(s[k + 1 : m][:9]) if m > k + 1 else None
            return low, high, m + 1
        return None

    def atom(self) -> str:
        c = self.peek()
        start = self.i
        if c in ("*", "+", "?"):
            raise self.fail(f"{c} has nothing to repeat; escape it as \\{c}")
        if c == "{" and self._counted() is not None:
            raise self.fail("{ starts a repeat with nothing to repeat; escape it as \\{")
        if c == ".":
            self.i += 1
            return _class(list(_LINE_END), [], negated=True)
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class()
        if c == "\\":
            return self.atom_escape()
        self.i += 1
        if c in ("]", "{", "}"):  # Annex B: literal when they cannot mean anything else
            return _literal(ord(c))
        assert c not in ("|", ")"), start
        return _literal(ord(c))

    def group(self) -> str:
        start = self.i
        self.i += 1
        if self.peek() == "?":
            kind = self.s[self.i : self.i + 3]
            if kind.startswith("?:"):
                self.i += 2
            elif kind.startswith(("?=", "?!")):
                raise self.fail(
                    "lookahead (?= or (?! cannot run in linear time, so Notch does not run it; "
                    "express the rule without it (e.g. separate properties, or minLength and "
                    "a simpler pattern)",
                    start,
                )
            elif kind in ("?<=", "?<!"):
                raise self.fail(
                    "lookbehind (?<= or (?<! cannot run in linear time, so Notch does not run "
                    "it; express the rule without it",
                    start,
                )
            elif kind.startswith("?<"):
                self.i += 2
                name = self.group_name()
                if name in self.groups:
                    raise self.fail(f"the group name {name!r} is used twice", start)
                self.groups.add(name)
            elif kind.startswith("?P"):
                raise self.fail(
                    "(?P<name>...) is Python's syntax, not ECMA-262; write (?<name>...)", start
                )
            else:
                raise self.fail(
                    "inline flags and other (?... groups are not ECMA-262; write (?:...) "
                    "for a plain group",
                    start,
                )
        self.depth += 1
        if self.depth > 200:
            raise self.fail("groups are nested more than 200 deep", start)
        inner = self.disjunction()
        self.depth -= 1
        if self.peek() != ")":
            raise self.fail("this group is never closed; add )", start)
        self.i += 1
        return f"(?:{inner})"

    def group_name(self) -> str:
        end = self.s.find(">", self.i)
        name = self.s[self.i : end] if end >= 0 else ""
        if (
            not name
            or not (name[0].isalpha() or name[0] in "$_")
            or not all(ch.isalnum() or ch in "$_" for ch in name)
        ):
            raise self.fail("a group name must be letters, digits, $ or _, closed by >")
        self.i = end + 1
        return name

    # --- escapes ---

    def atom_escape(self) -> str:
        start = self.i
        self.i += 1
        c = self.peek()
        if not c:
            raise self.fail("the pattern ends with a lone \\; write \\\\ for a backslash", start)
        shorthand = self.shorthand(c)
        if shorthand is not None:
            self.i += 1
            return _class(shorthand, [])
        if c in ("p", "P"):
            prop = self.property(c, start)
            return f"[{prop}]"
        if c.isdigit() and c != "0":
            raise self.fail(
                f"\\{c} is a backreference, which cannot run in linear time, so Notch does "
                "not run it; repeat the sub-pattern instead",
                start,
            )
        if c == "k":
            raise self.fail(
                "\\k<name> is a backreference, which cannot run in linear time, so Notch does "
                "not run it; repeat the sub-pattern instead",
                start,
            )
        return _literal(self.character_escape(start, in_class=False))

    def shorthand(self, c: str) -> Ranges | None:
        table: dict[str, Ranges] = {
            "d": list(_DIGIT),
            "D": _complement(_DIGIT),
            "w": list(_WORD),
            "W": _complement(_WORD),
            "s": list(_SPACE),
            "S": _complement(_SPACE),
        }
        return table.get(c)

    def character_escape(self, start: int, in_class: bool) -> int:
        """The code point of the escape after `\\` at self.i (consumed)."""
        c = self.peek()
        simple = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
        if c in simple:
            self.i += 1
            return simple[c]
        if c == "b" and in_class:
            self.i += 1
            return 0x08
        if c == "c":
            letter = self.peek(1)
            if letter.isascii() and letter.isalpha():
                self.i += 2
                return ord(letter) % 32
            raise self.fail("\\c must be followed by a letter (\\cJ is a newline)", start)
        if c == "0":
            if self.peek(1).isdigit():
                raise self.fail(
                    "octal escapes are not ECMA-262 with the u flag; write \\xHH or \\uHHHH",
                    start,
                )
            self.i += 1
            return 0
        if c == "x":
            digits = self.s[self.i + 1 : self.i + 3]
            if len(digits) == 2 and _hex(digits):
                self.i += 3
                return int(digits, 16)
            raise self.fail("\\x must be followed by two hex digits (\\x41)", start)
        if c == "u":
            return self.unicode_escape(start)
        if c.isascii() and c.isalnum():
            if c in _NOT_ECMA:
                raise self.fail(_NOT_ECMA[c], start)
            raise self.fail(
                f"\\{c} is not an ECMA-262 escape; write the letter itself, or what it means "
                "in JavaScript",
                start,
            )
        # Annex B identity escape: \- \@ \/ \" ... mean the character itself.
        self.i += 1
        return ord(c)

    def unicode_escape(self, start: int) -> int:
        if self.peek(1) == "{":
            end = self.s.find("}", self.i + 2)
            digits = self.s[self.i + 2 : end] if end > 0 else ""
            if digits and _hex(digits) and int(digits, 16) <= _MAX_CODE_POINT:
                self.i = end + 1
                return self._not_surrogate(int(digits, 16), start)
            raise self.fail("\\u{...} must hold a code point up to 10FFFF in hex", start)
        digits = self.s[self.i + 1 : self.i + 5]
        if len(digits) != 4 or not _hex(digits):
            raise self.fail("\\u must be followed by four hex digits (\\u00e9) or {...}", start)
        self.i += 5
        code = int(digits, 16)
        if 0xD800 <= code <= 0xDBFF and self.s[self.i : self.i + 2] == "\\u":
            low = self.s[self.i + 2 : self.i + 6]
            if len(low) == 4 and _hex(low) and 0xDC00 <= int(low, 16) <= 0xDFFF:
                self.i += 6  # a surrogate pair is one code point (u flag)
                return 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
        return self._not_surrogate(code, start)

    def _not_surrogate(self, code: int, start: int) -> int:
        if 0xD800 <= code <= 0xDFFF:
            raise self.fail(
                f"U+{code:04X} is a lone surrogate, which no text holds; write the whole "
                "character (\\u{1F600} or a surrogate pair)",
                start,
            )
        return code

    def property(self, c: str, start: int) -> str:
        # \p{...} / \P{...}: General_Category values and Script=...; RE2 syntax out.
        if self.peek(1) != "{":
            raise self.fail(f"\\{c} must be followed by {{Name}} (\\{c}{{L}})", start)
        end = self.s.find("}", self.i + 2)
        body = self.s[self.i + 2 : end] if end > 0 else ""
        if not body or not all(ch.isascii() and (ch.isalnum() or ch in "_=") for ch in body):
            raise self.fail(f"\\{c}{{...}} must name a Unicode property", start)
        self.i = end + 1
        name, _, value = body.partition("=")
        if value:
            if name in ("General_Category", "gc"):
                short = _CATEGORIES.get(value, value)
                if short not in _SHORT_CATEGORIES:
                    raise self.fail(f"{value!r} is not a General_Category", start)
            elif name in ("Script", "sc"):
                if value in _CATEGORIES or value in _SHORT_CATEGORIES or value in ("Any", "ASCII"):
                    raise self.fail(f"{value!r} is not a script (Script=Greek)", start)
                short = value  # RE2 knows scripts by their full names; it refuses others
            else:
                raise self.fail(
                    f"Notch's engine knows General_Category and Script properties, not {name!r}",
                    start,
                )
        elif body == "Any":
            return "\\x{0}-\\x{10FFFF}" if c == "p" else "^\\x{0}-\\x{10FFFF}"
        elif body == "ASCII":
            return "\\x{0}-\\x{7F}" if c == "p" else "\\x{80}-\\x{10FFFF}"
        else:
            short = _CATEGORIES.get(body, body)
            if short not in _SHORT_CATEGORIES:
                raise self.fail(
                    f"{body!r} is not a General_Category Notch's engine knows (write "
                    "\\p{Script=...} for a script)",
                    start,
                )
        return f"\\{c}{{{short}}}"

    # --- classes ---

    def char_class(self) -> str:
        start = self.i
        self.i += 1
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        ranges: Ranges = []
        properties: list[str] = []
        while True:
            c = self.peek()
            if not c:
                raise self.fail("this [ class is never closed; add ]", start)
            if c == "]":
                self.i += 1
                break
            first = self.class_atom(properties)
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                dash = self.i
                self.i += 1
                second = self.class_atom(properties)
                if isinstance(first, int) and isinstance(second, int):
                    if second < first:
                        raise self.fail("a range runs backwards (write [a-z], not [z-a])", dash)
                    ranges.append((first, second))
                    continue
                # Annex B: a class escape at either end makes the - literal.
                ranges.append((0x2D, 0x2D))
                ranges.extend(_as_ranges(second))
            ranges.extend(_as_ranges(first))
        if len(properties) > 64:
            raise self.fail("a class names over 64 Unicode properties", start)
        return _class(ranges, properties, negated)

    def class_atom(self, properties: list[str]) -> int | Ranges:
        """A code point, or the ranges of a class escape (properties are appended)."""
        c = self.peek()
        start = self.i
        if c != "\\":
            self.i += 1
            return ord(c)
        self.i += 1
        e = self.peek()
        if not e:
            raise self.fail("the pattern ends inside a class; add ]", start)
        shorthand = self.shorthand(e)
        if shorthand is not None:
            self.i += 1
            return shorthand
        if e in ("p", "P"):
            prop = self.property(e, start)
            if prop.startswith("\\"):
                properties.append(prop)
                return []
            return _parse_ranges(prop)
        if e == "-":
            self.i += 1
            return 0x2D
        if e == "B":
            raise self.fail("\\B means nothing inside a class; remove it", start)
        if e.isdigit() and e != "0":
            raise self.fail(
                f"\\{e} inside a class is an octal escape, not ECMA-262 with the u flag; write "
                "\\xHH",
                start,
            )
        if e == "k":
            raise self.fail("\\k is not an escape inside a class", start)
        return self.character_escape(start, in_class=True)


def _as_ranges(atom: int | Ranges) -> Ranges:
    return [(atom, atom)] if isinstance(atom, int) else atom


def _parse_ranges(written: str) -> Ranges:
    # Only the two forms `property` writes for Any and ASCII.
    negated = written.startswith("^")
    low, high = (int(x[3:-1], 16) for x in written.lstrip("^").split("-"))
    return _complement([(low, high)]) if negated else [(low, high)]


def _hex(digits: str) -> bool:
    return all(ch in "0123456789abcdefABCDEF" for ch in digits)

"""ECMA-262 patterns (the `u` flag, as Ajv reads them) written out in RE2 syntax.

A recursive-descent reader: what ECMA-262 means is said explicitly in the RE2 text, and
what is not ECMA-262 or cannot run in linear time is refused with the reason and the fix.
"""

from __future__ import annotations

from typing import Final

from notch_app.manifest.schema.patterns.code_points import (
    CATEGORIES,
    DIGIT,
    LINE_END,
    MAX_CODE_POINT,
    NOT_ECMA,
    SHORT_CATEGORIES,
    SPACE,
    WORD,
    Ranges,
    as_ranges,
    class_text,
    complement,
    is_hex,
    literal,
    parse_ranges,
)

MAX_PATTERN_CHARS: Final = 8192
"""Longer patterns are refused (a translation is linear in the pattern, and no real
schema needs more)."""
MAX_REPEAT: Final = 1000
"""RE2's limit on a counted repeat (`{n,m}`)."""


class PatternRefused(ValueError):
    """A pattern Notch will not run: not ECMA-262, or not runnable in linear time. The
    message says why and what to write instead (without the pattern itself)."""


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
            return class_text(list(LINE_END), [], negated=True)
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class()
        if c == "\\":
            return self.atom_escape()
        self.i += 1
        if c in ("]", "{", "}"):  # Annex B: literal when they cannot mean anything else
            return literal(ord(c))
        assert c not in ("|", ")"), start
        return literal(ord(c))

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
            return class_text(shorthand, [])
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
        return literal(self.character_escape(start, in_class=False))

    def shorthand(self, c: str) -> Ranges | None:
        table: dict[str, Ranges] = {
            "d": list(DIGIT),
            "D": complement(DIGIT),
            "w": list(WORD),
            "W": complement(WORD),
            "s": list(SPACE),
            "S": complement(SPACE),
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
            if len(digits) == 2 and is_hex(digits):
                self.i += 3
                return int(digits, 16)
            raise self.fail("\\x must be followed by two hex digits (\\x41)", start)
        if c == "u":
            return self.unicode_escape(start)
        if c.isascii() and c.isalnum():
            if c in NOT_ECMA:
                raise self.fail(NOT_ECMA[c], start)
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
            if digits and is_hex(digits) and int(digits, 16) <= MAX_CODE_POINT:
                self.i = end + 1
                return self._not_surrogate(int(digits, 16), start)
            raise self.fail("\\u{...} must hold a code point up to 10FFFF in hex", start)
        digits = self.s[self.i + 1 : self.i + 5]
        if len(digits) != 4 or not is_hex(digits):
            raise self.fail("\\u must be followed by four hex digits (\\u00e9) or {...}", start)
        self.i += 5
        code = int(digits, 16)
        if 0xD800 <= code <= 0xDBFF and self.s[self.i : self.i + 2] == "\\u":
            low = self.s[self.i + 2 : self.i + 6]
            if len(low) == 4 and is_hex(low) and 0xDC00 <= int(low, 16) <= 0xDFFF:
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
                short = CATEGORIES.get(value, value)
                if short not in SHORT_CATEGORIES:
                    raise self.fail(f"{value!r} is not a General_Category", start)
            elif name in ("Script", "sc"):
                if value in CATEGORIES or value in SHORT_CATEGORIES or value in ("Any", "ASCII"):
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
            short = CATEGORIES.get(body, body)
            if short not in SHORT_CATEGORIES:
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
                ranges.extend(as_ranges(second))
            ranges.extend(as_ranges(first))
        if len(properties) > 64:
            raise self.fail("a class names over 64 Unicode properties", start)
        return class_text(ranges, properties, negated)

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
            return parse_ranges(prop)
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

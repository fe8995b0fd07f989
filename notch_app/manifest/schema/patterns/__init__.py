"""Schema patterns (`pattern`, `patternProperties`, `format: regex`): compiled and matched
in time linear in the text, with ECMA-262 meaning, under a time budget.

A pattern comes from a manifest or from any MCP server a gateway attaches, and it is run
on arguments an agent chose; with a backtracking engine (Python's `re`, which jsonschema
uses) `^(a+)+$` on `"a" * 40 + "!"` runs for hours and holds the GIL, so `notch run`
stopped answering everyone and ignored SIGTERM. Every pattern Notch runs goes through
this package, and nothing else in Notch runs a schema pattern: `ecma.py` translates a
pattern to RE2 syntax (`code_points.py` holds JavaScript's classes and property names),
`engine.py` compiles and matches it, `budget.py` bounds a whole check in time.

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

from notch_app.manifest.schema.patterns.budget import (
    CHECK_BUDGET_S,
    CheckTooSlow,
    spend,
    time_budget,
)
from notch_app.manifest.schema.patterns.ecma import (
    MAX_PATTERN_CHARS,
    MAX_REPEAT,
    PatternRefused,
    translate,
)
from notch_app.manifest.schema.patterns.engine import (
    MAX_MATCH_WORK,
    MAX_PROGRAM_BYTES,
    SchemaPattern,
    TooLongToMatch,
    compile_pattern,
    pattern_problem,
    search,
    shown_pattern,
)

__all__ = [
    "CHECK_BUDGET_S",
    "MAX_MATCH_WORK",
    "MAX_PATTERN_CHARS",
    "MAX_PROGRAM_BYTES",
    "MAX_REPEAT",
    "CheckTooSlow",
    "PatternRefused",
    "SchemaPattern",
    "TooLongToMatch",
    "compile_pattern",
    "pattern_problem",
    "search",
    "shown_pattern",
    "spend",
    "time_budget",
    "translate",
]

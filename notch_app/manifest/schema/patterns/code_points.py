"""Code points as ECMA-262 reads them, and the RE2 text that names them.

JavaScript's `\\s`, `\\d`, `\\w` and `.` as ranges, the General_Category names both
spellings of which ECMA-262 accepts, and the escapes it does not have (with what to
write instead).
"""

from __future__ import annotations

from typing import Final

MAX_CODE_POINT: Final = 0x10FFFF

# JavaScript's \s: WhiteSpace and LineTerminator (ECMA-262 22.2.2.9, Unicode Zs).
SPACE: Final = (
    (0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)  # fmt: skip
DIGIT: Final = ((0x30, 0x39),)
WORD: Final = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
LINE_END: Final = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))


# General_Category long names (ECMA-262 accepts both); RE2 knows the short ones.
CATEGORIES: Final = {
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
SHORT_CATEGORIES: Final = frozenset(CATEGORIES.values())
NOT_ECMA: Final = {
    "A": "\\A is not ECMA-262; write ^ for the start of the text",
    "Z": "\\Z is not ECMA-262; write $ for the end of the text",
    "z": "\\z is not ECMA-262; write $ for the end of the text",
    "G": "\\G is not ECMA-262",
    "Q": "\\Q...\\E is not ECMA-262; escape each character with \\",
    "E": "\\Q...\\E is not ECMA-262; escape each character with \\",
}


Ranges = list[tuple[int, int]]


def complement(ranges: Ranges | tuple[tuple[int, int], ...]) -> Ranges:
    out: Ranges = []
    low = 0
    for a, b in sorted(ranges):
        if a > low:
            out.append((low, a - 1))
        low = max(low, b + 1)
    if low <= MAX_CODE_POINT:
        out.append((low, MAX_CODE_POINT))
    return out


def class_text(ranges: Ranges, properties: list[str], negated: bool = False) -> str:
    parts = [f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges]
    body = "".join(parts) + "".join(properties)
    if not body:  # [] matches nothing, [^] matches any character
        return "[^\\x{0}-\\x{10FFFF}]" if not negated else "[\\x{0}-\\x{10FFFF}]"
    return ("[^" if negated else "[") + body + "]"


def literal(code: int) -> str:
    c = chr(code)
    return c if c.isascii() and c.isalnum() else f"\\x{{{code:X}}}"


def as_ranges(atom: int | Ranges) -> Ranges:
    return [(atom, atom)] if isinstance(atom, int) else atom


def parse_ranges(written: str) -> Ranges:
    # Only the two forms `property` writes for Any and ASCII.
    negated = written.startswith("^")
    low, high = (int(x[3:-1], 16) for x in written.lstrip("^").split("-"))
    return complement([(low, high)]) if negated else [(low, high)]


def is_hex(digits: str) -> bool:
    return all(ch in "0123456789abcdefABCDEF" for ch in digits)

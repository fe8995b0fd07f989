"""A problem found in a manifest or fixture file, placed at FILE:LINE:COLUMN.

Every check in `notch validate` reports through `Problem`: one line for a person
(`format()`), one object for a program (`to_json()`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]

_MAX_QUOTED = 60


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding: where it is, which rule it breaks, and how to fix it."""

    file: str
    line: int
    """1-based line of the offending value in the source text."""
    column: int
    """1-based column (in characters) of the offending value."""
    pointer: str
    """JSON Pointer to the offending value (`/tools/0/confirmation/root`)."""
    rule: str
    """Stable kebab-case rule id, e.g. `binding-unknown-argument`."""
    severity: Severity
    message: str
    """What is wrong and how to fix it, on one line."""

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def format(self) -> str:
        """`FILE:LINE:COLUMN: error[RULE-ID]: message`."""
        return (
            f"{self.file}:{self.line}:{self.column}: {self.severity}[{self.rule}]: {self.message}"
        )

    def to_json(self) -> dict[str, str | int]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "pointer": self.pointer,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
        }

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.line, self.column, self.rule, self.message)


def quote(value: object) -> str:
    """A short, single-line, escaped rendering of an untrusted value for a message."""
    text = repr(value)
    if len(text) > _MAX_QUOTED:
        text = text[: _MAX_QUOTED - 1] + "…"
    return text

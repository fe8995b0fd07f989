"""What the risk reading of a shell command finds: one plain line per finding.

`ShellReading` is what `read_command` returns; the card lists its lines, dangerous ones
first, and the decision log keeps them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

UNREAD_LINE: Final = "Could not read this command fully"
MAX_LINES: Final = 8
"""Findings a card lists before "and N more findings" (the log keeps them all)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the command does that a person should see, as one plain line."""

    kinds: tuple[str, ...]
    text: str
    danger: bool = True
    """Risky enough for the card's destructive style; False for a caution."""


@dataclass(frozen=True, slots=True)
class ShellReading:
    """What `read_command` found in a command."""

    findings: tuple[Finding, ...]
    complete: bool
    """The whole command was read (no syntax Notch could not follow)."""

    @property
    def kinds(self) -> frozenset[str]:
        """Every kind found, `unread` included when the command was not read whole."""
        found = {k for f in self.findings for k in f.kinds}
        if not self.complete:
            found.add("unread")
        return frozenset(found)

    @property
    def risky(self) -> bool:
        """A dangerous finding, or a command Notch could not read whole."""
        return not self.complete or any(f.danger for f in self.findings)

    def lines(self, most: int = MAX_LINES) -> list[str]:
        """The plain lines for the card, dangerous ones first, at most `most` of them (then
        "and N more findings"), then "Could not read this command fully"."""
        ordered = [f.text for f in self.findings if f.danger]
        ordered += [f.text for f in self.findings if not f.danger]
        if len(ordered) > most:
            ordered = [*ordered[: most - 1], f"and {len(ordered) - most + 1} more findings"]
        if not self.complete:
            ordered.append(UNREAD_LINE)
        return ordered

"""What a card warns about before the yes: the risk of what runs, in plain lines.

Three readings, from the arguments that will run (so an edit updates them):
- a shell command (a string `command` or `cmd` argument, with `cwd` or `workdir` as the
  folder it runs in): `shell.read_command` — "Deletes build recursively";
- a file edit or write (a `file_path` argument): outside the folder the agent works in
  (the hook's OUTSIDE_NOTE), or into credentials or startup files;
- a tool its server or manifest marks `destructiveHint: true`, when none of the above
  reads it more precisely and its card does not already say so in a danger badge that
  always shows ("Cannot be undone"): said once, not twice.

A risky card gets the destructive style (danger confirm) and its lines above the body.
Qt-free; never raises.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from notch_app.card.shell import places, read_command

if TYPE_CHECKING:  # the model loads pydantic; `notch hook` reads OUTSIDE_NOTE without it
    from notch_app.manifest.model import Tool

OUTSIDE_NOTE: Final = "Outside the working directory"
"""The note a coding agent's hook puts on a file change outside the folder it works in
(`hooks/file_change.py` writes it; the risk section reads it)."""
DESTRUCTIVE_LINE: Final = "Marked destructive by the integration: it may not be undone"
COMMAND_KEYS: Final = ("command", "cmd")
FOLDER_KEYS: Final = ("cwd", "workdir", "working_directory")


@dataclass(frozen=True, slots=True)
class CardRisk:
    """The lines a card shows about the risk of what runs, and whether it is risky."""

    lines: tuple[str, ...] = ()
    risky: bool = False
    """Destructive style: a dangerous finding, or a command Notch could not read whole."""
    kinds: frozenset[str] = frozenset()


NO_RISK: Final = CardRisk()


def card_risk(tool: Tool, arguments: Mapping[str, Any], home: str | None = None) -> CardRisk:
    """The risk reading of `tool` called with `arguments` (the card's current final
    arguments); `home` is the person's home folder (theirs when None). Never raises."""
    home = home or posixpath.expanduser("~")
    command = next((arguments[k] for k in COMMAND_KEYS if isinstance(arguments.get(k), str)), None)
    if command is not None and command.strip():
        folder = next(
            (arguments[k] for k in FOLDER_KEYS if isinstance(arguments.get(k), str)), None
        )
        reading = read_command(command, folder, home)
        return CardRisk(tuple(reading.lines()), reading.risky, reading.kinds)
    path = arguments.get("file_path")
    if isinstance(path, str) and path.strip():
        return _file_risk(path, arguments, home)
    if _destructive(tool) and not _says_so(tool):
        return CardRisk((DESTRUCTIVE_LINE,), True, frozenset({"destructive"}))
    return NO_RISK


def _file_risk(path: str, arguments: Mapping[str, Any], home: str) -> CardRisk:
    lines: list[str] = []
    kinds: set[str] = set()
    resolved = places.resolved(path, None, home)
    shown = places.shortened(resolved or path, home)
    notes = arguments.get("notes")
    if isinstance(notes, str) and OUTSIDE_NOTE in notes.split(" · "):
        lines.append(f"Writes {shown}, outside the folder the agent works in")
        kinds.add("write-outside")
    if resolved is not None:
        what = places.secret_place(resolved, home)
        if what is not None:
            lines.append(f"Writes to {shown}, {what}")
            kinds.add("credentials")
        elif places.startup_file(resolved, home):
            lines.append(f"Changes what runs at login or on a schedule: writes {shown}")
            kinds.add("startup")
    return CardRisk(tuple(lines), bool(lines), frozenset(kinds))


def _says_so(tool: Tool) -> bool:
    """The card itself shows a danger badge on every call (none behind a `visibleIf`)."""
    from notch_app.manifest.facts import tool_facts

    return tool_facts(tool).danger_badge


def _destructive(tool: Tool) -> bool:
    annotations = tool.annotations
    return bool(annotations is not None and annotations.destructive_hint)


__all__ = ["DESTRUCTIVE_LINE", "NO_RISK", "OUTSIDE_NOTE", "CardRisk", "card_risk"]

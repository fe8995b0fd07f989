"""How far a scoped yes reaches: as narrow as the person meant (issue 20, finding 5).

"Always allow" on a shell card meant every shell command, forever, in one click, and
"Allow for this session" on `npm test` meant the whole Bash tool. Now:

- "Allow for this session" on a shell command reaches that command's prefix, as Claude
  Code's own prompt scopes it (`npm test`, `git diff`, `python -m pytest`), in that
  folder only, and only for later commands that are one plain command with nothing the
  risk reading finds; a compound or risky command reaches exactly itself. On any other
  card it reaches the action (this tool of this integration).
- "Always allow" is offered only where one click may sensibly mean "from now on": never
  for a shell command, a file edit, a card standing for other tools, a risky call or any
  destructive action; where offered, its label names what it covers.

The card (labels) and the service (what a later call falls under) use the same
functions, so what the person read is what is kept. Qt-free; never raises.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from notch_app.card.risk import COMMAND_KEYS, FOLDER_KEYS, card_risk
from notch_app.card.shell import places, read_command, read_script
from notch_app.manifest.facts import tool_facts
from notch_app.manifest.model import Tool

SUBCOMMANDS: Final = frozenset(
    {"npm", "pnpm", "yarn", "bun", "git", "cargo", "go", "docker", "podman", "kubectl",
     "make", "pip", "pip3", "poetry", "uv", "dotnet", "mvn", "gradle", "./gradlew",
     "bundle", "rake", "rails", "deno", "mix", "swift", "terraform", "helm", "brew", "apt",
     "gh", "composer", "npx", "pnpx", "bunx", "just", "tox", "nox", "hatch", "pdm"}
)  # fmt: skip
"""Commands whose first word after their name says what they do (`git diff`, `npm test`):
a session scope keeps that word."""
RUNNERS: Final = frozenset({"run", "run-script", "exec", "x"})
"""`npm run build`, `uv run pytest`: the word after these is part of the prefix too."""
MAX_LABEL_COMMAND: Final = 32
MAX_LABEL_FOLDER: Final = 24

Kind = Literal["action", "prefix", "exact"]


@dataclass(frozen=True, slots=True)
class Reach:
    """What a session scope covers: the action, a command prefix in a folder, or one
    exact command in a folder."""

    kind: Kind
    label: str
    """What the person reads: "`npm test` in ~/code/app", "Send email"."""
    words: tuple[str, ...] = ()
    command: str = ""
    folder: str | None = None


def session_reach(tool: Tool, arguments: Mapping[str, Any], home: str | None = None) -> Reach:
    """What "Allow for this session" on `tool` called with `arguments` covers."""
    home = home or posixpath.expanduser("~")
    command = _command(arguments)
    if command is None:
        return Reach("action", tool.display_title)
    folder = _folder(arguments)
    where = f" in {_short_folder(folder, home)}" if folder else ""
    words = _prefix(command, folder, home)
    if words:
        return Reach("prefix", f"`{' '.join(words)}`{where}", words, "", folder)
    shown = " ".join(command.split())
    if len(shown) > MAX_LABEL_COMMAND:
        shown = shown[: MAX_LABEL_COMMAND - 1] + "…"
    return Reach("exact", f"exactly `{shown}`{where}", (), command, folder)


def covers(reach: Reach, arguments: Mapping[str, Any], home: str | None = None) -> bool:
    """Whether a later call of the same action with `arguments` falls under `reach`
    (the caller has matched the integration, the tool and the session)."""
    if reach.kind == "action":
        return _command(arguments) is None
    command = _command(arguments)
    if command is None or _folder(arguments) != reach.folder:
        return False
    if reach.kind == "exact":
        return command == reach.command
    words = _prefix(command, reach.folder, home or posixpath.expanduser("~"), whole=True)
    return words is not None and words[: len(reach.words)] == reach.words


def always_label(tool: Tool, arguments: Mapping[str, Any]) -> str | None:
    """The "Always allow" choice's label ("Always allow Send email"), or None where it
    is not offered: a shell command, a file edit, a card for other tools (`tool_name`),
    a risky call, a destructive action (`destructiveHint`, a danger confirm)."""
    properties = tool.input_schema.get("properties")
    names = set(properties) if isinstance(properties, Mapping) else set()
    if names & {*COMMAND_KEYS, "file_path", "tool_name"} or _command(arguments) is not None:
        return None
    annotations = tool.annotations
    if annotations is not None and annotations.destructive_hint:
        return None
    if tool_facts(tool).danger_confirm or card_risk(tool, arguments).risky:
        return None
    title = tool.display_title
    return f"Always allow {title if len(title) <= 24 else title[:23] + '…'}"


def _short_folder(folder: str, home: str) -> str:
    """A folder as a button can hold it: `~/code/app`, else its last two parts."""
    shown = places.shortened(folder, home, limit=1000)
    if len(shown) <= MAX_LABEL_FOLDER:
        return shown
    parts = [p for p in shown.split("/") if p]
    return "…/" + "/".join(parts[-2:])


def _command(arguments: Mapping[str, Any]) -> str | None:
    for key in COMMAND_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _folder(arguments: Mapping[str, Any]) -> str | None:
    for key in FOLDER_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return posixpath.normpath(value)
    return None


def _prefix(
    command: str, folder: str | None, home: str, *, whole: bool = False
) -> tuple[str, ...] | None:
    """The prefix words of a plain, riskless, single command (`npm test -- --x` → npm,
    test); None for anything else. With `whole`, every literal word (for matching)."""
    script = read_script(command, folder)
    if not script.complete or len(script.commands) != 1:
        return None
    only = script.commands[0]
    if only.piped_from or only.piped_to or only.background or only.redirects:
        return None
    if only.assignments:
        return None  # `LD_PRELOAD=x.so npm test` is not `npm test`
    words = [only.name, *only.args]
    if not all(w.literal and not w.inner for w in words) or only.name.escaped:
        return None
    if read_command(command, folder, home).findings:
        return None  # something the risk reading names: only this exact command
    texts = tuple(w.text for w in words)
    if whole:
        return texts
    keep = 1
    if texts[0] in SUBCOMMANDS:
        rest = [i for i, t in enumerate(texts[1:], 1) if not t.startswith("-")]
        if rest:
            keep = rest[0] + 1
            if texts[rest[0]] in RUNNERS and len(rest) > 1:
                keep = rest[1] + 1
            elif texts[0] in ("npx", "pnpx", "bunx"):
                keep = rest[0] + 1
    elif texts[0] in ("python", "python3") and len(texts) > 2 and texts[1] == "-m":
        keep = 3
    return texts[:keep]


__all__ = ["Reach", "always_label", "covers", "session_reach"]

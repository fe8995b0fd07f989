"""Permission and owner changes: on many files (`-R`, through `find` or `xargs`, a glob),
world-writable modes, setuid."""

from __future__ import annotations

from notch_app.card.shell.parse import Word
from notch_app.card.shell.reading import Reading, Run, on_host
from notch_app.card.shell.words import flags_and_operands


def changes(reading: Reading, run: Run) -> None:
    name = run.name
    flags, operands = flags_and_operands(run.args, {"-reference"})
    if not operands and run.context.bulk is None:
        return
    # The mode, owner, group or flags, then the files; from xargs both may come.
    mode = operands[0] if operands else Word("", True, "")
    targets = operands[1:]
    if name == "chmod" and mode.literal and mode.text.startswith("-"):
        return
    recursive = bool({"R", "recursive"} & flags)
    bulk = run.context.bulk is not None or any(t.substituted for t in targets)
    globbed = any(t.literal and any(c in t.text for c in "*?[") for t in targets)
    what = {"chmod": "permissions", "chown": "owner", "chgrp": "group"}.get(name, "flags")
    shown = reading.targets(targets, run.context)
    if not shown and run.context.bulk == "xargs":
        shown = f"what {run.context.lister} lists"
        if run.context.roots:
            shown += " under " + reading.targets(list(run.context.roots), run.context)
    shown = shown or "files"
    on = on_host(run.context)
    if recursive:
        reading.add(
            ("permissions",), f"Changes the {what} of everything under {shown} ({name} -R)" + on
        )
    elif run.context.bulk == "find":
        under = reading.targets(list(run.context.roots), run.context) or "."
        reading.add(
            ("permissions",),
            f"Changes the {what} of every file find lists under {under} ({name})" + on,
        )
    elif bulk:
        reading.add(
            ("permissions",),
            f"Changes the {what} of a list of files only known when it runs ({name})" + on,
        )
    elif globbed:
        reading.add(
            ("permissions",), f"Changes the {what} of every file matching {shown} ({name})" + on
        )
    if name == "chmod" and mode.literal:
        text = mode.text
        if world_writable(text):
            reading.add(("permissions",), f"Lets anyone write to {shown} (chmod {text})" + on)
        if setuid(text):
            reading.add(
                ("permissions",),
                f"Makes {shown} run with its owner's rights (setuid, chmod {text})" + on,
            )


def world_writable(mode: str) -> bool:
    if mode.isdigit() and len(mode) >= 3:
        return mode[-1] in "2367"
    for clause in mode.split(","):
        who, _, perms = clause.partition("+")
        if "w" in perms and ("o" in who or "a" in who):
            return True
    return False


def setuid(mode: str) -> bool:
    if mode.isdigit() and len(mode) == 4:
        return mode[0] in "4567"
    return any(c.startswith(("u+", "+")) and "s" in c.split("+", 1)[1] for c in mode.split(","))

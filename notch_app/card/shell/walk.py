"""The walk through a command: each simple command, wrappers looked through (`sudo`,
`env`, `xargs`, `sh -c`, `ssh host '…'`), then what runs checked (`checks.py`)."""

from __future__ import annotations

import posixpath
from dataclasses import replace

from notch_app.card.shell import places, wrappers
from notch_app.card.shell.checks import check
from notch_app.card.shell.findings import ShellReading
from notch_app.card.shell.parse import Command, Script, Word, read_script
from notch_app.card.shell.reading import Context, Reading, Run, on_host
from notch_app.card.shell.system import fork_bomb
from notch_app.card.shell.words import (
    INTERPRETERS,
    MAX_NESTING,
    PASS_THROUGH,
    ROOT,
    after_options,
    base,
    cut,
    effective,
    starting_points,
)
from notch_app.card.shell.writes import redirects


class Walk(Reading):
    """Walks a parsed script: each command, each wrapper looked through, each check run."""

    def script(self, script: Script, context: Context) -> None:
        if not script.complete:
            self.complete = False
        for command in script.commands:
            cwd = command.cwd if command.cwd is not None or context.depth == 0 else context.cwd
            if cwd is not None:
                cwd = places.resolved(cwd, None, self.home)
            here = replace(context, cwd=cwd, stdin=tuple(command.piped_from))
            self.command(command, here)
        fork_bomb(self, script)

    def inner(self, text: str, context: Context) -> None:
        """Read `text` (a `sh -c` string, an ssh command) as a script of its own."""
        if context.depth >= MAX_NESTING:
            self.complete = False
            return
        self.script(read_script(text, context.cwd), replace(context, depth=context.depth + 1))

    def command(self, command: Command, context: Context) -> None:
        name = command.name
        redirects(self, command, context)
        if not name.literal or name.escaped:
            if name.text == "" and not name.source:
                return  # a bare redirect
            if not name.literal:
                self.add(
                    ("hidden",), f"Runs a command only known when it runs ({cut(name.source)})"
                )
                return
            self.add(("hidden",), f"Runs {cut(name.text)} written in escapes ({cut(name.source)})")
        self.run(Run(command.base, list(command.args), command, context))

    def run(self, run: Run) -> None:
        """Look through a wrapper to what it runs; then check what runs."""
        name, args, context = run.name, run.args, run.context
        if name in ROOT:
            self.add(("root",), f"Runs as root ({name})" + on_host(context))
            rest = after_options(name, args)
            if rest:
                self.run(replace(run, name=base(rest[0]), args=rest[1:],
                                 context=replace(context, root=name)))  # fmt: skip
            return
        if name == "su":
            wrappers.su(self, run)
            return
        if name in PASS_THROUGH:
            rest = after_options(name, args)
            if name == "timeout" and rest:
                rest = rest[1:]  # the duration
            if name == "command" and any(a.text in ("-v", "-V") for a in args if a.literal):
                return  # a look-up, not a run
            if rest and rest[0].literal:
                self.run(replace(run, name=base(rest[0]), args=rest[1:]))
            elif rest:
                self.add(
                    ("hidden",), f"Runs a command only known when it runs ({cut(rest[0].source)})"
                )
            return
        if name == "xargs":
            rest = after_options(name, args)
            target = rest[0] if rest else Word("echo", True, "echo")
            # The list comes from the command before: `find /tmp … | xargs rm` deletes
            # under /tmp, wherever xargs runs.
            listers = [effective(c) for c in reversed(context.stdin)]
            lister = next((found for found in listers if found[0] in ("find", "ls")), None)
            roots = starting_points(*lister) if lister is not None else ()
            source = lister[0] if lister is not None else "the command before it"
            if target.literal:
                self.run(replace(run, name=base(target), args=rest[1:],
                                 context=replace(context, bulk="xargs", roots=roots,
                                                 lister=source)))  # fmt: skip
            return
        if name == "watch":
            rest = after_options(name, args, {"n", "d", "x"})
            text = " ".join(w.text for w in rest if w.literal)
            if text:
                self.inner(text, context)
            return
        if name in ("eval",):
            wrappers.evaluates(self, run)
            return
        if name == "alias":
            # `alias ls='rm -rf ~'; ls`: what the alias runs is read as if run.
            for word in args:
                if word.literal and "=" in word.text:
                    self.inner(word.text.split("=", 1)[1], context)
            return
        if name == "ssh":
            wrappers.ssh(self, run)
            return
        if name in ("source", "."):
            wrappers.source(self, run)
            return
        if name in INTERPRETERS:
            wrappers.interpreter(self, run)
        check(self, run)


def read_command(command: str, cwd: str | None = None, home: str | None = None) -> ShellReading:
    """The risk reading of `command` run in `cwd` (None: not known), with `home` the
    home folder (`~`; the person's own when None). Never raises."""
    if home is None:
        home = posixpath.expanduser("~")
    if cwd is not None:
        cwd = places.resolved(cwd, None, home) if cwd.startswith(("/", "~")) else None
    reading = Walk(home, cwd)
    try:
        reading.script(read_script(command, cwd), Context(cwd))
    except RecursionError:  # pragma: no cover - nesting is bounded; belt and braces
        reading.complete = False
    return ShellReading(tuple(reading.findings), reading.complete)

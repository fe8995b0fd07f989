"""One reading under way: its findings, how a command is reached, and its paths.

The families of findings (`deletes.py`, `network.py`…) are functions of a `Reading` and
a `Run`; they ask it to run what a command runs (`find -exec`) or read a script of its
own (`sh -c`), which the walk (`walk.py`) does: so no family imports the walk.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from notch_app.card.shell import places
from notch_app.card.shell.findings import Finding
from notch_app.card.shell.parse import Command, Word
from notch_app.card.shell.words import cut, listed, under_cwd


@dataclass(frozen=True, slots=True)
class Context:
    """How a command is reached: through sudo, from find or xargs, on another host."""

    cwd: str | None
    root: str | None = None
    bulk: str | None = None
    """"find" or "xargs": its arguments are completed with a list only known when it runs."""
    roots: tuple[Word, ...] = ()
    """For `find -exec`: find's starting folders (what `{}` lies under); for `xargs`, where
    the command before it lists from."""
    lister: str = "the command before it"
    """For `xargs`: what makes its list (`find`, `ls`)."""
    host: str | None = None
    depth: int = 0
    stdin: tuple[Command, ...] = ()
    """The commands whose output this one reads (its pipeline's earlier stages)."""


@dataclass(slots=True)
class Run:
    """A command as it runs, wrappers looked through."""

    name: str
    args: list[Word]
    command: Command
    context: Context

    @property
    def cwd(self) -> str | None:
        return self.context.cwd


class Reading(ABC):
    """The findings so far, and what every family asks of a path; the walk (`walk.py`)
    supplies how a command is run and read."""

    def __init__(self, home: str, project: str | None) -> None:
        self.home = home
        self.project = project
        """The folder the agent works in (the card's "In"): what a delete must stay under,
        wherever a `cd` in the command moved to."""
        self.findings: list[Finding] = []
        self.complete = True
        self.downloads: dict[str, str] = {}
        """Files a fetcher wrote (path → the site it came from), for a later run of them."""

    def add(self, kinds: Sequence[str], text: str, danger: bool = True) -> None:
        for found in self.findings:
            if found.text == text:
                return
        self.findings.append(Finding(tuple(kinds), text, danger))

    def targets(self, targets: list[Word], context: Context, resolve: bool = False) -> str:
        """The targets as a person reads them, at most three named; `resolve`: each as the
        absolute path it is (home as `~`) rather than as written."""
        names = []
        for word in targets:
            if word.literal and word.text == "{}" and context.roots:
                names.append(self.targets(list(context.roots), replace(context, roots=()), resolve))
                continue
            text = word.text if word.literal else word.source
            if word.substituted and word.inner:
                lister = " ".join(w.source for w in [word.inner[-1].name, *word.inner[-1].args])
                text = f"the files `{cut(lister, 40)}` lists"
            if resolve and word.literal:
                path = places.resolved(text, context.cwd, self.home)
                if path is not None:
                    text = places.shortened(path, self.home)
            names.append(cut(text, 50))
        return listed(names)

    def outside(self, targets: Iterable[Word], context: Context) -> bool:
        if context.host is not None:
            return False
        for word in targets:
            for path in self.paths_of(word, context):
                if path is not None and not under_cwd(path, self.project):
                    return True
        return False

    def paths_of(self, word: Word, context: Context) -> Iterator[str | None]:
        """The absolute paths `word` names (None for one only known when it runs)."""
        if word.literal and word.text == "{}" and context.roots:
            for root in context.roots:
                yield from self.paths_of(root, replace(context, roots=()))
            return
        text = word.text if word.literal else word.source.strip('"')
        if not word.literal and not text.startswith(("$HOME", "${HOME}", "~")):
            yield None
            return
        if not word.literal and any(c in text[5:] for c in "$`"):
            yield None
            return
        yield places.resolved(places.fixed_part(text) or ".", context.cwd, self.home)

    def secret_targets(self, targets: Iterable[Word], context: Context) -> str | None:
        if context.host is not None:
            return None
        for word in targets:
            for path in self.paths_of(word, context):
                if path is not None:
                    what = places.secret_place(path, self.home)
                    if what is not None:
                        return what
        return None

    def where(self, cwd: str | None) -> str:
        return places.shortened(cwd, self.home) if cwd else "the folder it runs in"

    @abstractmethod
    def run(self, run: Run) -> None:
        """Look through a wrapper to what it runs; then check what runs."""

    @abstractmethod
    def inner(self, text: str, context: Context) -> None:
        """Read `text` (a `sh -c` string, an ssh command) as a script of its own."""


def literal_words(run: Run) -> list[str]:
    return [a.text for a in run.args if a.literal]


def on_host(context: Context) -> str:
    return f" on {context.host}" if context.host else ""

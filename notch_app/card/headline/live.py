"""Headlines and facts that follow a person's edits: said again only when what they read changed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from notch_app.card.argument_changes import Changes, Reads
from notch_app.card.headline.facts import Facts, Part
from notch_app.card.headline.manifest_words import Action
from notch_app.card.headline.saying import fact_words_of, headline_of
from notch_app.card.headline.text import Headline
from notch_app.manifest.model import Tool


class LiveHeadline:
    """The headline of one card as the person edits it (`said`): made again only when
    an argument it was made from changed; otherwise the last one is returned as is."""

    def __init__(self, tool: Tool) -> None:
        self._tool = tool
        self._arguments: Mapping[str, Any] | None = None
        self._reads = Reads(frozenset(), True)
        self._parts: dict[Callable[..., Any], Part] = {}
        self._consulted: list[tuple[Callable[..., Any], Action | None]] = []
        """The parts the current headline was made from, in the order asked."""
        self._made_from: list[Reads | None] = []
        """The reads of each consulted part when the sentence was last made."""
        self._objects: list[str] | None = None
        self.current: Headline | None = None

    def said(self, arguments: Mapping[str, Any], changes: Changes | None = None) -> Headline:
        """The headline for `arguments` (never changed in place; see `Changes`).
        `changes`: from the arguments of the last call, when the caller has them."""
        current, before = self.current, self._arguments
        self._arguments = arguments
        if current is not None and before is not None:
            if changes is None or changes.before is not before or changes.after is not arguments:
                changes = Changes.between(before, arguments)
            if self._reads.unchanged(changes):
                return current
            facts = self._facts(arguments, changes)
            if self._same_parts(facts, changes):
                return current
            facts.start_over()  # the parts made just now are kept for the sentence
        else:
            facts = self._facts(arguments, None)
        self.current = headline_of(facts)
        parts = self._parts
        made_from = [parts[make].reads if make in parts else None for make, _ in facts.consulted]
        if made_from != self._made_from or facts.consulted != self._consulted:
            # What the sentence was made from changed (not only the words of a part):
            # noted again. A keystroke in a quoted field keeps the same reads.
            self._reads = facts.reads()
            self._made_from = made_from
        self._objects = facts.object_names
        self._consulted = facts.consulted
        return self.current

    def _facts(self, arguments: Mapping[str, Any], changes: Changes | None) -> Facts:
        facts = Facts(self._tool, arguments, locale=None, now=None, zone=None, home=None)
        # Each part of the sentence (the command, the payment, the people…) is made again
        # only when one of the arguments it read changed.
        facts.remember(self._parts, changes)
        if changes is not None and not changes.shape:
            facts.object_names = self._objects  # the same names hold objects
        return facts

    def _same_parts(self, facts: Facts, changes: Changes) -> bool:
        """Whether every part the current headline was made from says the same for the
        arguments of `facts` (each made again only if it read what changed): the sentence
        is then the same, so it is not put together again. A keystroke in a field the
        headline looked at but does not quote ("Send thing: value of text_1") ends here."""
        parts, arguments = self._parts, changes.after
        for make, act in self._consulted:
            old = parts.get(make)
            if old is not None and old.at is changes.before and old.reads.unchanged(changes):
                old.at = arguments  # kept: what it read did not change
                continue
            facts.part(make, act)
            new = parts.get(make)
            if new is old:
                continue
            if (
                old is None
                or new is None
                or new.made != old.made
                or new.said != old.said
                or new.reads != old.reads  # the sentence is made again to note them
            ):
                return False
        self._objects = facts.object_names
        return True


class LiveFact:
    """One argument's value in a headline's words (`fact_words`) as the person edits
    the card: said again only when an argument it was made from changed."""

    def __init__(self, tool: Tool, path: str) -> None:
        self._tool = tool
        self.path = path
        self._arguments: Mapping[str, Any] | None = None
        self._reads = Reads(frozenset(), True)
        self.words = ""
        self.changed = True
        """Whether the last `said` made new words (False: the same as before)."""

    def made_only_from(self, names: frozenset[str]) -> bool:
        """Whether the words said last were made from the top-level arguments `names`
        alone (no walk over which names there are, nothing passed over): an edit of
        any other argument leaves them as they are."""
        reads = self._reads
        return not reads.listed and not reads.passed_over and reads.names <= names

    def still(self, changes: Changes) -> bool:
        """True when the words said last still hold after `changes` (from the arguments
        of the last call); they are then taken as said for the arguments after them."""
        if changes.before is self._arguments and self._reads.unchanged(changes):
            self._arguments = changes.after
            return True
        return False

    def said(self, arguments: Mapping[str, Any], changes: Changes | None = None) -> str:
        """The words for `arguments` (never changed in place). `changes`: from the
        arguments of the last call to these, when the caller has them (shared by many
        facts, so each need not compare the arguments again)."""
        before = self._arguments
        self._arguments = arguments
        if before is not None:
            if changes is None or changes.before is not before or changes.after is not arguments:
                changes = Changes.between(before, arguments)
            if self._reads.unchanged(changes):
                self.changed = False
                return self.words
        facts = Facts(self._tool, arguments, locale=None, now=None, zone=None, home=None)
        words = fact_words_of(facts, self.path)
        self.changed = words != self.words or before is None
        self.words = words
        self._reads = facts.reads()
        return words

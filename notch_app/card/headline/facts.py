"""The arguments as a headline reads them: found by name, shown as a card shows them, each read noted."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any, TypeVar

from notch_app.card.argument_changes import Changes, Reads
from notch_app.card.headline.manifest_words import Action, tool_words
from notch_app.card.headline.names import AMOUNTS, CURRENCIES, ENDS, MINUTES, NARRATION, PARTIES
from notch_app.card.headline.text import (
    NAME_CHARS,
    SECRET_SHOWN,
    VALUE_CHARS,
    WHOLE,
    cut_to,
    one_line,
    some_of,
)
from notch_app.card.interpolate import display_value
from notch_app.card.path_text import home_short, looks_like_path
from notch_app.card.paths import MISSING, get_path
from notch_app.card.person_locale import as_amount, as_moment, money_text, when_text
from notch_app.manifest.facts import counted_array, name_words
from notch_app.manifest.model import Tool

_T = TypeVar("_T")


@dataclass(slots=True)
class Part:
    """One part of a live headline as made last (see `Facts.part`)."""

    made: Any
    reads: Reads
    said: frozenset[str]
    at: Mapping[str, Any]
    """The arguments it was made from, or last found still right for (updated)."""


class Facts:
    """The arguments read for a headline: each lookup by name, values shown as a card
    shows them (secrets masked, invisibles marked, select values as their labels)."""

    def __init__(
        self,
        tool: Tool,
        arguments: Mapping[str, Any],
        *,
        locale: str | None,
        now: datetime | None,
        zone: tzinfo | None,
        home: str | None,
    ) -> None:
        self.tool = tool
        self._args = arguments
        self.locale = locale
        self.now = now
        self.zone = zone
        self.home = home
        self.words = words = tool_words(tool)
        self.known = words.known
        """What the tool's arguments are: `known.is_secret` is the one rule for secrets."""
        self.said: set[str] = set()
        """Paths whose whole value the generated headline states (see Headline.said)."""
        self.options = words.options
        self._read: set[str] = set()
        self._listed = False
        self.object_names: list[str] | None = None
        """The top-level arguments that hold an object, once walked (see `objects`)."""
        self._parts: dict[Callable[..., Any], Part] | None = None
        self._changes: Changes | None = None
        self._kept: list[Reads] = []
        self._passed: dict[str, Callable[[Any], bool]] = {}
        """Top-level arguments passed over by a test they failed (see `at_if`)."""
        self.consulted: list[tuple[Callable[..., Any], Action | None]] = []
        """Each part asked for, in order, with its action (see `LiveHeadline`)."""

    def start_over(self) -> None:
        """Forget what was read and stated so far (the parts kept stay kept): the same
        arguments read again from the first part, as a new `Facts` would."""
        self.said = set()
        self._read = set()
        self._listed = False
        self._kept = []
        self._passed = {}
        self.consulted = []

    def remember(self, parts: dict[Callable[..., Any], Part], changes: Changes | None) -> None:
        """Keep each `part` in `parts`, and take a kept one whose reads `changes` leave
        unchanged instead of making it again."""
        self._parts = parts
        self._changes = changes

    def part(self, make: Callable[[Facts, Action], _T], act: Action | None = None) -> _T:
        """`make(self, act)`, its reads and its stated paths noted apart (see `remember`)."""
        parts, args = self._parts, self._args
        self.consulted.append((make, act))
        kept = parts.get(make) if parts is not None else None
        if kept is not None and kept.at is not args:  # else made for these very arguments
            # A part kept from an earlier state than the last (one not reached then) is
            # compared with that state, not with the last.
            changes = self._changes
            if changes is None or changes.before is not kept.at or changes.after is not args:
                changes = Changes.between(kept.at, args)
            if not kept.reads.unchanged(changes):
                kept = None
        if kept is not None:
            kept.at = args
            self._kept.append(kept.reads)
            if kept.said:
                self.said.update(kept.said)
            return kept.made  # type: ignore[no-any-return]  # what `make` made
        read, listed, said, passed, inner = (
            self._read, self._listed, self.said, self._passed, self._kept
        )  # fmt: skip
        self._read, self._listed, self.said, self._passed = set(), False, set(), {}
        self._kept = []  # the parts this one asks for and finds kept (a part of parts)
        try:
            made = make(self, act if act is not None else self.words.action)
            if parts is not None:
                parts[make] = Part(made, self.reads(), frozenset(self.said), args)
        finally:
            read.update(self._read)
            said.update(self.said)
            passed.update(self._passed)
            inner.extend(self._kept)
            self._read, self._listed, self.said = read, listed or self._listed, said
            self._passed, self._kept = passed, inner
        return made

    def reads(self) -> Reads:
        """The arguments read so far (see `Reads`), kept parts' included."""
        kept = self._kept
        if not kept:
            return Reads(frozenset(self._read), self._listed, tuple(self._passed.items()))
        names = frozenset(self._read).union(*[r.names for r in kept])
        passed = list(self._passed.items())
        for r in kept:
            if r.passed_over:
                passed.extend(p for p in r.passed_over if p not in passed)
        return Reads(names, self._listed or any(r.listed for r in kept), tuple(passed))

    # -- reading the arguments (every read is noted, for `reads`) --

    def at(self, path: str) -> Any:
        """The raw value at `path`, MISSING when absent (secrets not masked)."""
        args = self._args
        if "." not in path:
            self._read.add(path)
            return args.get(path, MISSING)
        self._read.add(path.partition(".")[0])
        return get_path(args, path)

    def at_if(self, name: str, test: Callable[[Any], bool]) -> Any:
        """The value of the top-level argument `name` when `test(value)` holds, else
        MISSING. A value that fails is noted as passed over, not read: what is made from
        here holds while it still fails (a field typed into that the headline does not
        quote leaves the headline as it was)."""
        value = self._args.get(name, MISSING)
        if test(value):
            self._read.add(name)
            return value
        self._passed.setdefault(name, test)
        return MISSING

    def top(self) -> Mapping[str, Any]:
        """The whole arguments, for a walk over their names: what is said then depends
        on which names there are (a reader notes each value it goes by with `at`)."""
        self._listed = True
        return self._args

    def first_of(self, names: Sequence[str]) -> Any:
        """The first top-level argument called one of `names` that holds something."""
        self._read.update(names)
        args = self._args
        for name in names:
            value = args.get(name, MISSING)
            if value is not MISSING and present(value):
                return value
        return None

    def objects(self) -> list[tuple[str, Mapping[str, Any]]]:
        """The top-level arguments that hold an object, in order (a walk over names)."""
        top = self.top()  # noted by every reader, made once
        if self.object_names is None:
            self.object_names = [
                key for key, inner in top.items() if isinstance(key, str) and _is_object(inner)
            ]
        return [(key, top[key]) for key in self.object_names]

    # -- finding an argument by what it is called --

    def find(self, names: Sequence[str], *, nested: bool = True) -> tuple[str, Any] | None:
        """The first argument called one of `names` that holds something (top level
        first, then one level inside object arguments that are not a party)."""
        # Every name is read, found or not: a name that appears later changes the words.
        self._read.update(names)
        args, secret = self._args, self.known.is_secret
        for name in names:
            value = args.get(name, MISSING)
            if value is not MISSING and present(value) and not secret(name):
                return name, value
        if not nested:
            return None
        for key, inner in self.objects():
            if key.lower() in PARTIES or is_narration(key):
                continue
            for name in names:
                if name in inner:
                    path = f"{key}.{name}"
                    value = self.value(path)
                    if present(value):
                        return path, value
        return None

    def value(self, path: str) -> Any:
        value = self.at(path)
        if value is MISSING or self.known.is_secret(path):
            return MISSING
        return value

    # -- showing one value --

    def shown(self, path: str, value: Any, limit: int = VALUE_CHARS) -> str:
        if self.known.is_secret(path):
            return SECRET_SHOWN
        text = display_value(value)
        text = self.options.get(path, {}).get(text, text)
        return cut_to(one_line(text), limit)

    def stated(self, *paths: str, whole: bool = True) -> None:
        """The headline states these paths' values (whole: not cut)."""
        if whole:
            self.said.update(p for p in paths if p)

    def money(self, path: str, value: Any) -> str | None:
        head, _, _last = path.rpartition(".")
        currency: Any = None
        if isinstance(value, Mapping):  # {"value": 1250, "currency": "EUR"}
            for name in AMOUNTS:
                if name in value:
                    currency = first_present(value, CURRENCIES)
                    value = value[name]
                    break
        else:
            if head:
                siblings = self.at(head)
                if isinstance(siblings, Mapping):
                    currency = first_present(siblings, CURRENCIES)
            if currency is None:
                currency = self.first_of(CURRENCIES)
        if isinstance(currency, str):
            currency = one_line(currency)
        return money_text(value, currency, locale=self.locale)

    def when(self, path: str, value: Any) -> str | None:
        head, _, _last = path.rpartition(".")
        end = minutes = None
        if head:
            siblings = self.at(head)
            if isinstance(siblings, Mapping):
                end = first_present(siblings, ENDS)
                minutes = first_present(siblings, MINUTES)
        else:
            end = self.first_of(ENDS)
            minutes = self.first_of(MINUTES)
        return when_text(
            value, end=end, minutes=minutes, locale=self.locale, now=self.now, zone=self.zone
        )

    def binding_text(self, path: str, whole: bool = False) -> Any:
        """A binding of an authored headline: the value as `shown`, but an amount with
        its currency, a time humanised, a path home-shortened, a list said briefly.
        `whole`: nothing cut, every element of a list said (a fact, not a headline)."""
        limit = WHOLE if whole else VALUE_CHARS
        if self.known.is_secret(path):
            return SECRET_SHOWN
        value = self.at(path)
        if value is MISSING:
            counted = counted_array(path)
            if counted is not None:
                items = self.at(counted)
                return len(items) if isinstance(items, list) else MISSING
            return MISSING
        if names_an_amount(path) and as_amount(value) is not None:
            return self.money(path, value) or self.shown(path, value)
        if isinstance(value, str) and as_moment(value) is not None:
            return self.when(path, value) or self.shown(path, value)
        if looks_like_path(value):
            return cut_to(one_line(home_short(str(value), self.home)), limit)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            if whole:
                return ", ".join(self.shown(path, v, limit) for v in value)
            return some_of(self.shown(path, v, NAME_CHARS) for v in value)
        return self.shown(path, value, limit)


def _is_object(value: Any) -> bool:
    # JSON's scalars and lists first: the Mapping test goes through the ABC machinery.
    if isinstance(value, dict):
        return True
    return not isinstance(value, str | int | float | list) and isinstance(value, Mapping)


def first_present(mapping: Mapping[str, Any], names: Iterable[str]) -> Any:
    for name in names:
        value = mapping.get(name)
        if present(value):
            return value
    return None


def present(value: Any) -> bool:
    if value is MISSING or value is None or value is False:
        return False
    if isinstance(value, str | list | dict):
        return bool(value.strip() if isinstance(value, str) else value)
    return True


@functools.lru_cache(maxsize=4096)
def names_an_amount(path: str) -> bool:
    """The path's words name an amount ("amount", "total_price"). Kept per name."""
    return not set(AMOUNTS).isdisjoint(name_words(path))


@functools.lru_cache(maxsize=4096)
def is_narration(path: str) -> bool:
    """The path's words say the model wrote it as narration ("reason", "notes"). Kept
    per name: a headline asks it of the same few names after every keystroke."""
    return any(w in NARRATION for w in name_words(path))

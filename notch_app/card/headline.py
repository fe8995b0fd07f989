"""A card's headline: the action and its key facts in one plain sentence.

"Send email to Sam Lee (sam@example.com) and 2 others", "Pay €1,250.00 to Studio Nord
GmbH", "Book Design review · Tue 3 Jun, 14:00–14:30 (in 2 days)", "Delete 3 files in
~/Downloads", "Run `make` in ~/code/app". With it, the words of the confirm button: the
verb and its object ("Send to 3 people", "Pay €1,250.00").

An integration author writes it in the view (`confirmation.headline`, with bindings);
where they don't, it is generated from the tool's title and the arguments, found by what
they are called and hold (recipients, an amount beside a currency, a start time, paths,
a command). Either way every value is the final argument value, shown as the card shows
it: amounts with their currency in the person's locale, times humanised in the person's
zone, paths with the home folder as `~` and a shared folder said once, invisible
characters marked, each value cut to a length a line can hold.

`headline(tool, arguments)` never raises; a tool whose arguments say nothing it knows
gets its title. A card that follows the person's edits keeps a `LiveHeadline` (and a
`LiveFact` per folded value): each remembers which arguments it was made from, so a
keystroke in another field costs a few dictionary lookups, not a new sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from email.utils import parseaddr
from typing import Any, Final, TypeVar, cast
from urllib.parse import urlsplit

from notch_app.card.argument_changes import Changes, Reads
from notch_app.card.display_text import mark_invisible
from notch_app.card.interpolate import display_value, interpolate
from notch_app.card.path_text import (
    base_name,
    folder_and_names,
    home_short,
    looks_like_path,
    parent_folder,
)
from notch_app.card.paths import MISSING, get_path
from notch_app.card.person_locale import as_amount, as_moment, money_text, when_text
from notch_app.card.view_shape import view_shape
from notch_app.manifest.acting import ACTING_VERBS, leading_verb
from notch_app.manifest.facts import ToolFacts, counted_array, name_words, tool_facts
from notch_app.manifest.generated import words_of
from notch_app.manifest.model import CardBlock, Tool, WidgetBlock, walk_blocks
from notch_app.manifest.paths import MalformedBinding, find_bindings

MAX_HEADLINE_CHARS: Final = 160
"""A headline is one sentence; the card wraps it to at most two lines."""
MAX_CONFIRM_CHARS: Final = 36
"""The confirm button's words: a verb and a short object, never a sentence."""
_VALUE_CHARS: Final = 60
_WHOLE: Final = 1_000_000
_NAME_CHARS: Final = 48
_COMMAND_CHARS: Final = 64
_SECRET: Final = "••••••"

_SPACE = re.compile(r"\s+")
_AMOUNT_THEN_CURRENCY = re.compile(
    r"((?:\{\{|<<)\s*[\w.]*(?:amount|total|price|cost|sum|fee|value)\s*(?:\}\}|>>))"
    r"\s*(?:\{\{|<<)\s*[\w.]*(?:currency|currency_code|currencyCode|ccy)\s*(?:\}\}|>>)",
    re.IGNORECASE,
)
_ARTICLES: Final = frozenset({"a", "an", "the"})

_RECIPIENTS: Final = (
    "to", "recipients", "recipient", "attendees", "attendee", "invitees", "invitee",
    "participants", "members", "emails", "email", "phone", "phone_number", "phoneNumber",
    "number", "contacts", "contact", "users", "user", "channel", "chat",
)  # fmt: skip
_MORE_RECIPIENTS: Final = ("cc", "bcc")
_COUNTERPARTY: Final = (
    "payee", "beneficiary", "merchant", "vendor", "creditor", "recipient", "to", "supplier",
)  # fmt: skip
_AMOUNTS: Final = ("amount", "total", "price", "cost", "sum", "fee", "value")
_CURRENCIES: Final = ("currency", "currency_code", "currencyCode", "ccy")
_STARTS: Final = (
    "start", "start_time", "startTime", "starts_at", "startsAt", "start_at", "startAt",
    "send_at", "sendAt", "scheduled_at", "scheduledAt", "scheduled_for", "scheduledFor",
    "when", "at", "datetime", "date_time", "time", "date", "pay_on", "payOn", "run_at",
    "runAt", "publish_at", "publishAt", "due", "due_date", "dueDate",
)  # fmt: skip
_ENDS: Final = ("end", "end_time", "endTime", "ends_at", "endsAt", "end_at", "endAt")
_MINUTES: Final = (
    "duration_minutes", "durationMinutes", "duration_min", "minutes", "length_minutes",
)  # fmt: skip
_SUBJECTS: Final = ("title", "subject", "name", "summary", "topic", "label")
_PATH_LISTS: Final = ("paths", "files", "file_paths", "filePaths", "targets", "items")
_SOURCES: Final = (
    "source", "src", "from_path", "fromPath", "path", "file", "file_path", "filePath",
    "filename", "target",
)  # fmt: skip
_DESTINATIONS: Final = (
    "destination", "dest", "dst", "to_path", "toPath", "new_path", "newPath", "to",
    "target_path", "targetPath",
)  # fmt: skip
_FOLDERS: Final = ("folder", "directory", "dir", "cwd", "working_directory", "workdir")
_COMMANDS: Final = ("command", "cmd", "script", "shell_command", "shellCommand")
_URLS: Final = ("url", "link", "href", "uri", "address")
_WORDS: Final = ("text", "message", "body", "content", "prompt", "query")
# Objects that describe a person or a party, not the thing acted on: their `name` is
# nobody's subject ("organizer.name" is not the meeting's title).
_PARTIES: Final = frozenset(
    {"payee", "beneficiary", "merchant", "vendor", "creditor", "organizer", "owner",
     "author", "sender", "from", "user", "contact", "recipient", "supplier", "customer"}
)  # fmt: skip
# The model's own account of the call: never the headline's fact.
_NARRATION: Final = frozenset(
    {"description", "summary", "notes", "note", "reason", "explanation", "rationale"}
)
_SCHEDULING: Final = frozenset(
    {"book", "schedule", "reschedule", "create", "add", "invite", "reserve", "plan"}
)


@dataclass(frozen=True, slots=True)
class Headline:
    """What a card says first, and what its confirm button says."""

    text: str
    """One sentence, at most MAX_HEADLINE_CHARS: "Pay €1,250.00 to Studio Nord GmbH"."""
    confirm: str
    """Verb and object, at most MAX_CONFIRM_CHARS: "Pay €1,250.00", "Send to 3 people"."""
    authored: bool = False
    """The manifest wrote `text` (`confirmation.headline`); False when generated."""
    said: frozenset[str] = frozenset()
    """The argument paths whose whole value `text` states: a compact card need not
    repeat them as facts of their own."""


def headline(
    tool: Tool,
    arguments: Mapping[str, Any],
    *,
    locale: str | None = None,
    now: datetime | None = None,
    zone: tzinfo | None = None,
    home: str | None = None,
) -> Headline:
    """The headline of `tool` called with `arguments` (the card's final arguments).

    `locale` is a Babel locale ("en_GB", "de_DE"), the desktop's when None; `now` and
    `zone` fix the clock and the person's time zone (the system's when None); `home` is
    the folder written `~` (the person's home when None). Never raises.
    """
    facts = _Facts(tool, arguments, locale=locale, now=now, zone=zone, home=home)
    return _headline(facts)


def _headline(facts: _Facts) -> Headline:
    words = facts.words
    generated = _generated(facts, words.bare_verb)
    confirm = facts.part(_authored_confirm) or generated.confirm
    if words.template is not None:
        text = facts.part(_authored_text)
        if text:
            said = words.template_bound if len(text) <= MAX_HEADLINE_CHARS else frozenset()
            return Headline(_cut(text, MAX_HEADLINE_CHARS), confirm, True, said)
    return Headline(generated.text, confirm, False, generated.said)


def fact_words(
    tool: Tool,
    arguments: Mapping[str, Any],
    path: str,
    *,
    locale: str | None = None,
    now: datetime | None = None,
    zone: tzinfo | None = None,
    home: str | None = None,
) -> str:
    """One argument's value in the words a headline uses for it: an amount with its
    currency, a time humanised, a path with `~`, a secret masked ("" when absent)."""
    facts = _Facts(tool, arguments, locale=locale, now=now, zone=zone, home=home)
    return _fact_words(facts, path)


def _fact_words(facts: _Facts, path: str) -> str:
    value = facts.binding_text(path, whole=True)
    return "" if value is MISSING else str(value)


# --- following edits: said again only when what it was made from changed ---------------


class LiveHeadline:
    """The headline of one card as the person edits it (`said`): made again only when
    an argument it was made from changed; otherwise the last one is returned as is."""

    def __init__(self, tool: Tool) -> None:
        self._tool = tool
        self._arguments: Mapping[str, Any] | None = None
        self._reads = Reads(frozenset(), True)
        self._parts: dict[Callable[..., Any], _Part] = {}
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
        else:
            changes = None
        facts = _Facts(self._tool, arguments, locale=None, now=None, zone=None, home=None)
        # Each part of the sentence (the command, the payment, the people…) is made again
        # only when one of the arguments it read changed.
        facts.remember(self._parts, changes)
        if changes is not None and not changes.shape:
            facts.object_names = self._objects  # the same names hold objects
        self.current = _headline(facts)
        self._reads = facts.reads()
        self._objects = facts.object_names
        return self.current


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
        facts = _Facts(self._tool, arguments, locale=None, now=None, zone=None, home=None)
        words = _fact_words(facts, self.path)
        self.changed = words != self.words or before is None
        self.words = words
        self._reads = facts.reads()
        return words


# --- what the arguments hold ----------------------------------------------------------


_T = TypeVar("_T")


@dataclass(slots=True)
class _Part:
    """One part of a live headline as made last (see `_Facts.part`)."""

    made: Any
    reads: Reads
    said: frozenset[str]
    at: Mapping[str, Any]
    """The arguments it was made from, or last found still right for (updated)."""


@dataclass(frozen=True, slots=True)
class _ToolWords:
    """What a tool's headline takes from its manifest, read once per Tool object."""

    known: ToolFacts
    action: _Action
    bare_verb: str | None
    """The view's confirm label when it is one word ("Send")."""
    confirm: str | None
    """The view's confirm label when it says more than a bare verb ("Pay {{amount}}")."""
    template: str | None
    """The authored headline, its second currency binding dropped."""
    template_bound: frozenset[str]
    options: dict[str, dict[str, str]]
    """Per bound path of a choice input: value as shown → the option's label."""


_WORDS_KEPT: dict[int, tuple[Tool, _ToolWords]] = {}
_MAX_WORDS_KEPT: Final = 256
"""Tools are frozen; the entry holds its Tool, so an id is never reused while kept."""


def _tool_words(tool: Tool) -> _ToolWords:
    kept = _WORDS_KEPT.get(id(tool))
    if kept is not None and kept[0] is tool:
        return kept[1]
    words = _made_words(tool)
    if len(_WORDS_KEPT) >= _MAX_WORDS_KEPT:
        _WORDS_KEPT.pop(next(iter(_WORDS_KEPT)))
    _WORDS_KEPT[id(tool)] = (tool, words)
    return words


def _made_words(tool: Tool) -> _ToolWords:
    options: dict[str, dict[str, str]] = {}
    if tool.confirmation is not None:
        try:
            inputs = view_shape(tool).inputs
        except ValueError:
            inputs = ()
        for binding in inputs:
            choices = getattr(binding.block, "options", None)
            if choices:
                labels = {display_value(o.value): o.label for o in choices}
                options.setdefault(binding.path, labels)
    view = tool.confirmation
    raw = getattr(view, "headline", None) if view is not None else None
    template: str | None = None
    bound: frozenset[str] = frozenset()
    if isinstance(raw, str) and raw.strip():
        template = _currency_said_once(raw)
        try:
            bound = frozenset(b.path for b in find_bindings(raw))
        except MalformedBinding:
            bound = frozenset()
    label = _confirm_label(tool)
    bare = None
    if label and len(label.split()) == 1 and label.strip().isalpha():
        bare = label.strip()
    confirm = None
    if label:
        try:
            binds = bool(find_bindings(label))
        except MalformedBinding:
            binds = False
        if binds or len(label.split()) >= 2:
            confirm = _currency_said_once(label)
    return _ToolWords(tool_facts(tool), _action(tool), bare, confirm, template, bound, options)


class _Facts:
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
        self.words = words = _tool_words(tool)
        self.known = words.known
        """What the tool's arguments are: `known.is_secret` is the one rule for secrets."""
        self.said: set[str] = set()
        """Paths whose whole value the generated headline states (see Headline.said)."""
        self.options = words.options
        self._read: set[str] = set()
        self._listed = False
        self.object_names: list[str] | None = None
        """The top-level arguments that hold an object, once walked (see `objects`)."""
        self._parts: dict[Callable[..., Any], _Part] | None = None
        self._changes: Changes | None = None
        self._kept: list[Reads] = []

    def remember(self, parts: dict[Callable[..., Any], _Part], changes: Changes | None) -> None:
        """Keep each `part` in `parts`, and take a kept one whose reads `changes` leave
        unchanged instead of making it again."""
        self._parts = parts
        self._changes = changes

    def part(self, make: Callable[[_Facts, _Action], _T], act: _Action | None = None) -> _T:
        """`make(self, act)`, its reads and its stated paths noted apart (see `remember`)."""
        parts, args = self._parts, self._args
        kept = parts.get(make) if parts is not None else None
        if kept is not None:
            # A part kept from an earlier state than the last (one not reached then) is
            # compared with that state, not with the last.
            changes = self._changes
            if changes is None or changes.before is not kept.at or changes.after is not args:
                changes = Changes.between(kept.at, args)
            if kept.reads.unchanged(changes):
                kept.at = args
                self._kept.append(kept.reads)
                if kept.said:
                    self.said.update(kept.said)
                return cast("_T", kept.made)
        read, listed, said = self._read, self._listed, self.said
        self._read, self._listed, self.said = set(), False, set()
        try:
            made = make(self, act if act is not None else self.words.action)
            if parts is not None:
                own = Reads(frozenset(self._read), self._listed)
                parts[make] = _Part(made, own, frozenset(self.said), args)
        finally:
            read.update(self._read)
            said.update(self.said)
            self._read, self._listed, self.said = read, listed or self._listed, said
        return made

    def reads(self) -> Reads:
        """The arguments read so far (see `Reads`), kept parts' included."""
        kept = self._kept
        if not kept:
            return Reads(frozenset(self._read), self._listed)
        names = frozenset(self._read).union(*(r.names for r in kept))
        return Reads(names, self._listed or any(r.listed for r in kept))

    # -- reading the arguments (every read is noted, for `reads`) --

    def at(self, path: str) -> Any:
        """The raw value at `path`, MISSING when absent (secrets not masked)."""
        args = self._args
        if "." not in path:
            self._read.add(path)
            return args.get(path, MISSING)
        self._read.add(path.partition(".")[0])
        return get_path(args, path)

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
            if value is not MISSING and _present(value):
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
            if value is not MISSING and _present(value) and not secret(name):
                return name, value
        if not nested:
            return None
        for key, inner in self.objects():
            if key.lower() in _PARTIES or _narration(key):
                continue
            for name in names:
                if name in inner:
                    path = f"{key}.{name}"
                    value = self.value(path)
                    if _present(value):
                        return path, value
        return None

    def value(self, path: str) -> Any:
        value = self.at(path)
        if value is MISSING or self.known.is_secret(path):
            return MISSING
        return value

    # -- showing one value --

    def shown(self, path: str, value: Any, limit: int = _VALUE_CHARS) -> str:
        if self.known.is_secret(path):
            return _SECRET
        text = display_value(value)
        text = self.options.get(path, {}).get(text, text)
        return _cut(_one_line(text), limit)

    def stated(self, *paths: str, whole: bool = True) -> None:
        """The headline states these paths' values (whole: not cut)."""
        if whole:
            self.said.update(p for p in paths if p)

    def money(self, path: str, value: Any) -> str | None:
        head, _, _last = path.rpartition(".")
        currency: Any = None
        if isinstance(value, Mapping):  # {"value": 1250, "currency": "EUR"}
            for name in _AMOUNTS:
                if name in value:
                    currency = _first_of(value, _CURRENCIES)
                    value = value[name]
                    break
        else:
            if head:
                siblings = self.at(head)
                if isinstance(siblings, Mapping):
                    currency = _first_of(siblings, _CURRENCIES)
            if currency is None:
                currency = self.first_of(_CURRENCIES)
        if isinstance(currency, str):
            currency = _one_line(currency)
        return money_text(value, currency, locale=self.locale)

    def when(self, path: str, value: Any) -> str | None:
        head, _, _last = path.rpartition(".")
        end = minutes = None
        if head:
            siblings = self.at(head)
            if isinstance(siblings, Mapping):
                end = _first_of(siblings, _ENDS)
                minutes = _first_of(siblings, _MINUTES)
        else:
            end = self.first_of(_ENDS)
            minutes = self.first_of(_MINUTES)
        return when_text(
            value, end=end, minutes=minutes, locale=self.locale, now=self.now, zone=self.zone
        )

    def binding_text(self, path: str, whole: bool = False) -> Any:
        """A binding of an authored headline: the value as `shown`, but an amount with
        its currency, a time humanised, a path home-shortened, a list said briefly.
        `whole`: nothing cut, every element of a list said (a fact, not a headline)."""
        limit = _WHOLE if whole else _VALUE_CHARS
        if self.known.is_secret(path):
            return _SECRET
        value = self.at(path)
        if value is MISSING:
            counted = counted_array(path)
            if counted is not None:
                items = self.at(counted)
                return len(items) if isinstance(items, list) else MISSING
            return MISSING
        words = set(name_words(path))
        if words & set(_AMOUNTS) and as_amount(value) is not None:
            return self.money(path, value) or self.shown(path, value)
        if isinstance(value, str) and as_moment(value) is not None:
            return self.when(path, value) or self.shown(path, value)
        if looks_like_path(value):
            return _cut(_one_line(home_short(str(value), self.home)), limit)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            if whole:
                return ", ".join(self.shown(path, v, limit) for v in value)
            return _some(self.shown(path, v, _NAME_CHARS) for v in value)
        return self.shown(path, value, limit)


def _is_object(value: Any) -> bool:
    # JSON's scalars and lists first: the Mapping test goes through the ABC machinery.
    if isinstance(value, dict):
        return True
    return not isinstance(value, str | int | float | list) and isinstance(value, Mapping)


def _first_of(mapping: Mapping[str, Any], names: Iterable[str]) -> Any:
    for name in names:
        value = mapping.get(name)
        if _present(value):
            return value
    return None


def _present(value: Any) -> bool:
    if value is MISSING or value is None or value is False:
        return False
    if isinstance(value, str | list | dict):
        return bool(value.strip() if isinstance(value, str) else value)
    return True


def _narration(path: str) -> bool:
    return any(w in _NARRATION for w in name_words(path))


# --- the generated headline -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Action:
    verb: str
    """Capitalised: "Send"."""
    noun: str
    """The title after the verb, articles dropped: "email", "shell command"."""
    title: str


def _action(tool: Tool) -> _Action:
    title = _one_line(tool.display_title) or tool.name
    if title == tool.name:
        title = words_of(tool.name)  # `do_thing` → "Do thing"
    words = title.split(" ")
    first = words[0].lower() if words else ""
    if first in ACTING_VERBS or len(words) > 1:
        verb = words[0]
        rest = [w for w in words[1:] if w.lower() not in _ARTICLES]
    else:
        verb = leading_verb(tool.name)
        rest = words
    verb = verb[:1].upper() + verb[1:]
    noun = " ".join(rest)
    return _Action(verb, noun, title)


def _generated(facts: _Facts, verb: str | None = None) -> Headline:
    act = facts.words.action
    if verb and verb.lower() == act.verb.lower():
        verb = None  # the title's own verb: "Generate speech", not "Generate"
    if verb:
        # The author's own one-word confirm ("Send") names the verb; Notch adds the object.
        act = _Action(verb, act.noun, act.title)
    for compose in _COMPOSERS:
        made = facts.part(compose, act)
        if made is not None:
            text, confirm = made
            said = frozenset(facts.said) if len(text) <= MAX_HEADLINE_CHARS else frozenset()
            return Headline(_cut(text, MAX_HEADLINE_CHARS), _confirm_cut(confirm), False, said)
    text = facts.part(_plain, act)
    said = frozenset(facts.said) if len(text) <= MAX_HEADLINE_CHARS else frozenset()
    # With nothing to name, the author's own verb stands alone ("Allow", not "Allow tool").
    confirm = act.verb if verb else _verb_noun(act)
    return Headline(_cut(text, MAX_HEADLINE_CHARS), _confirm_cut(confirm), False, said)


def _verb_noun(act: _Action) -> str:
    return f"{act.verb} {act.noun}".strip()


def _command(facts: _Facts, act: _Action) -> tuple[str, str] | None:
    found = facts.find(_COMMANDS, nested=False)
    if found is None or not isinstance(found[1], str):
        return None
    command = facts.shown(found[0], found[1], _COMMAND_CHARS)
    facts.stated(found[0], whole=not command.endswith("…") and "\n" not in found[1].strip())
    verb = act.verb if act.verb.lower() in ("run", "execute", "exec", "start") else "Run"
    text = f"{verb} `{command}`"
    folder = facts.find(_FOLDERS, nested=False)
    if folder is not None and isinstance(folder[1], str):
        text += " in " + _cut(_one_line(home_short(folder[1], facts.home)), _VALUE_CHARS)
        facts.stated(folder[0])
    return text, f"{verb} command"


def _payment(facts: _Facts, act: _Action) -> tuple[str, str] | None:
    found = facts.find(_AMOUNTS)
    if found is None:
        return None
    money = facts.money(*found)
    if money is None:
        return None
    text = f"{act.verb} {money}"
    head = found[0].rpartition(".")[0]
    facts.stated(found[0], *(f"{head}.{c}" if head else c for c in _CURRENCIES))
    party = _counterparty(facts)
    if party:
        text += f" to {party}"
    when = _when(facts)
    if when:
        text += f" · {when}"
    return text, f"{act.verb} {money}"


def _counterparty(facts: _Facts) -> str | None:
    for name in _COUNTERPARTY:
        value = facts.value(name)
        if isinstance(value, Mapping):
            for key in ("name", "display_name", "displayName", "title", "email"):
                inner = value.get(key)
                if isinstance(inner, str) and inner.strip():
                    shown = facts.shown(f"{name}.{key}", inner, _NAME_CHARS)
                    facts.stated(f"{name}.{key}", whole=not shown.endswith("…"))
                    return shown
        elif isinstance(value, str) and value.strip() and not looks_like_path(value):
            facts.stated(name)
            return _person(value)
    return None


def _when(facts: _Facts) -> str | None:
    found = facts.find(_STARTS)
    if found is None:
        return None
    path, value = found
    head, _, _ = path.rpartition(".")
    # "send_at" beside an off "send_later" switch is not when it goes.
    if head:
        siblings = facts.at(head)
        if isinstance(siblings, Mapping):
            later = [k for k in siblings if isinstance(k, str) and "later" in k.lower()]
            if later and all(siblings.get(k) is False for k in later):
                return None
    else:
        later = [k for k in facts.top() if isinstance(k, str) and "later" in k.lower()]
        if later and all(facts.at(k) is False for k in later):
            return None
    said = facts.when(path, value)
    if said is not None:
        names = (*_ENDS, *_MINUTES)
        facts.stated(path, *(f"{head}.{n}" if head else n for n in names))
    return said


def _people(facts: _Facts, used: list[str] | None = None) -> list[str]:
    people: list[str] = []
    for names in (_RECIPIENTS, _MORE_RECIPIENTS):
        for name in names:
            value = facts.value(name)
            if value is MISSING:
                continue
            items = value if isinstance(value, list) else [value]
            before = len(people)
            for item in items:
                shown = _person(item)
                if shown and not looks_like_path(item):
                    people.append(shown)
            if used is not None and len(people) > before:
                used.append(name)
            if people and names is _RECIPIENTS:
                break
    return people


def _person(value: Any) -> str:
    """One recipient in words: "Sam Lee (sam@example.com)" for `Sam Lee <sam@…>` or
    `{name, email}`, the address alone otherwise. A display name that holds an address
    of its own is dropped: it would show an address that is not the one written to."""
    if isinstance(value, Mapping):
        name = _first_of(value, ("name", "display_name", "displayName"))
        address = _first_of(value, ("email", "address", "phone", "number", "id"))
        value = f"{name} <{address}>" if isinstance(name, str) and address else address or name
    if not isinstance(value, str) or not value.strip():
        return ""
    name, address = parseaddr(value)
    if address and "@" in address and "<" in value:
        name = _one_line(name)
        if name and "@" not in name and "<" not in name:
            return _cut(f"{name} ({_one_line(address)})", _NAME_CHARS)
        return _cut(_one_line(address), _NAME_CHARS)
    return _cut(_one_line(value), _NAME_CHARS)


def _others(count: int) -> str:
    return "1 other" if count == 1 else f"{count} others"


def _message(facts: _Facts, act: _Action) -> tuple[str, str] | None:
    used: list[str] = []
    people = _people(facts, used)
    if not people:
        return None
    facts.stated(*used, whole=len(people) == 1 and not people[0].endswith("…"))
    text = f"{_verb_noun(act)} to {people[0]}"
    if len(people) > 1:
        text += f" and {_others(len(people) - 1)}"
    when = _when(facts)
    if when:
        text += f" · {when}"
    if len(people) == 1:
        confirm = f"{act.verb} to {people[0]}"
        if len(confirm) > MAX_CONFIRM_CHARS:
            confirm = f"{act.verb} to 1 person"
    else:
        confirm = f"{act.verb} to {len(people)} people"
    return text, confirm


def _meeting(facts: _Facts, act: _Action) -> tuple[str, str] | None:
    if act.verb.lower() not in _SCHEDULING and leading_verb(facts.tool.name) not in _SCHEDULING:
        return None
    when = _when(facts)
    if when is None:
        return None
    subject = facts.find(_SUBJECTS)
    text = act.verb
    if subject:
        shown = facts.shown(subject[0], subject[1], _VALUE_CHARS)
        facts.stated(subject[0], whole=not shown.endswith("…"))
        text += f" {shown}"
    else:
        text += f" {act.noun}"
    text += f" · {when}"
    return text, _verb_noun(act)


def _paths(facts: _Facts, act: _Action) -> tuple[str, str] | None:
    for name in _PATH_LISTS:
        value = facts.value(name)
        if isinstance(value, list) and value and all(looks_like_path(v) for v in value):
            folder, names = folder_and_names([str(v) for v in value], facts.home)
            noun = act.noun or "files"
            if len(names) == 1:
                facts.stated(name)
                text = f"{act.verb} {_cut(_one_line(names[0]), _NAME_CHARS)}"
                confirm = f"{act.verb} {_one_line(base_name(names[0]))}"
            else:
                plural = noun if noun.endswith("s") else "files"
                text = f"{act.verb} {len(names)} {plural}"
                confirm = text
            if folder:
                text += f" in {_cut(_one_line(folder), _VALUE_CHARS)}"
            return text, confirm
    return None


def _move(facts: _Facts, act: _Action) -> tuple[str, str] | None:
    source = facts.find(_SOURCES, nested=False)
    target = facts.find(_DESTINATIONS, nested=False)
    if source is None or target is None:
        return None
    src, dst = source[1], target[1]
    if not (looks_like_path(src) and looks_like_path(dst)):
        return None
    name = base_name(src)
    place = home_short(dst, facts.home)
    if base_name(dst) == name:
        place = home_short(parent_folder(dst), facts.home) or place
    text = f"{act.verb} {_cut(_one_line(name), _NAME_CHARS)} to {_cut(_one_line(place), 72)}"
    facts.stated(source[0], target[0])
    return text, _verb_noun(act) or act.verb


def _one_path(facts: _Facts, act: _Action) -> tuple[str, str] | None:
    found = facts.find(_SOURCES, nested=False)
    if found is None or not looks_like_path(found[1]):
        return None
    path = str(found[1])
    facts.stated(found[0])
    name = _cut(_one_line(base_name(path)), _NAME_CHARS)
    text = f"{act.verb} {name}"
    folder = home_short(parent_folder(path), facts.home)
    if folder:
        text += f" in {_cut(_one_line(folder), _VALUE_CHARS)}"
    return text, f"{act.verb} {name}"


def _page(facts: _Facts, act: _Action) -> tuple[str, str] | None:
    found = facts.find(_URLS, nested=False)
    if found is None or not isinstance(found[1], str):
        return None
    try:
        parts = urlsplit(found[1].strip())
    except ValueError:
        return None
    if not parts.scheme or not parts.netloc:
        return None
    shown = _one_line(parts.netloc + (parts.path if parts.path != "/" else ""))
    facts.stated(found[0], whole=not parts.query and len(shown) <= _VALUE_CHARS)
    return f"{act.verb} {_cut(shown, _VALUE_CHARS)}", _verb_noun(act)


def _plain(facts: _Facts, act: _Action) -> str:
    """The title with the first fact that names the thing: a subject in quotes, else a
    short text or the first short value the model did not write as narration."""
    subject = facts.find(_SUBJECTS)
    if subject is not None and isinstance(subject[1], str):
        return f"{act.title} “{facts.shown(subject[0], subject[1], _VALUE_CHARS)}”"
    words = facts.find(_WORDS, nested=False)
    if words is not None and isinstance(words[1], str):
        return f"{act.title}: “{facts.shown(words[0], words[1], _VALUE_CHARS)}”"
    for key in facts.top():
        if not isinstance(key, str) or _narration(key) or facts.known.is_secret(key):
            continue
        value = facts.at(key)
        if isinstance(value, str) and 0 < len(value.strip()) <= 40 and "\n" not in value:
            return f"{act.title}: {facts.shown(key, value, 40)}"
    return act.title


_COMPOSERS: Final[tuple[Callable[[_Facts, _Action], tuple[str, str] | None], ...]] = (
    _command, _payment, _meeting, _message, _paths, _move, _one_path, _page,
)  # fmt: skip
"""The kinds of generated headline, most telling first: the first that applies says it."""


# --- the authored confirm ---------------------------------------------------------------


def _confirm_label(tool: Tool) -> str | None:
    view = tool.confirmation
    if view is None:
        return None
    root = view.root
    if isinstance(root, WidgetBlock):
        return root.confirm_label
    if isinstance(root, CardBlock):
        for visit in walk_blocks(root, action_items=True):
            node = visit.block
            if getattr(node, "role", None) == "confirm" and getattr(node, "label", None):
                return str(node.label)
    return None


def _authored_confirm(facts: _Facts, _act: _Action) -> str | None:
    """The view's own confirm words when they say more than a bare verb ("Pay
    {{amount}}", "Send message"); a one-word "Send" yields to the generated words
    (`_ToolWords.bare_verb`)."""
    label = facts.words.confirm
    if label is None:
        return None
    text = _one_line(interpolate(label, facts.binding_text))
    return text or None  # the author's words whole: a long label wraps in its pill


def _authored_text(facts: _Facts, _act: _Action) -> str:
    """The view's own headline (`confirmation.headline`) with the arguments in it."""
    template = facts.words.template
    return _one_line(interpolate(template, facts.binding_text)) if template else ""


def amount_pairs(template: str) -> list[tuple[int, int, str]]:
    """Where `template` writes an amount then its currency ("{{amount}} {{currency}}"):
    each pair's span and the amount's path, so a card's own text can say the pair as
    the headline does ("€1,250.00") instead of "1250 EUR"."""
    pairs: list[tuple[int, int, str]] = []
    for match in _AMOUNT_THEN_CURRENCY.finditer(template):
        try:
            found = find_bindings(match.group(1))
        except MalformedBinding:
            continue
        if found:
            pairs.append((match.start(), match.end(), found[0].path))
    return pairs


def _currency_said_once(template: str) -> str:
    """ "{{amount}} {{currency}}" without its second binding: the amount's binding
    already shows its currency ("€1,250.00", not "€1,250.00 EUR")."""

    def drop(match: re.Match[str]) -> str:
        return match.group(1)

    return _AMOUNT_THEN_CURRENCY.sub(drop, template)


# --- text -----------------------------------------------------------------------------


def _one_line(text: str) -> str:
    marked = mark_invisible(text)
    cleaned = "".join(c if c.isprintable() else " " for c in marked)
    return _SPACE.sub(" ", cleaned).strip()


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _confirm_cut(text: str) -> str:
    return _cut(text, MAX_CONFIRM_CHARS)


def _some(items: Iterable[str], shown: int = 2) -> str:
    values = [v for v in items if v]
    if len(values) <= shown + 1:
        return ", ".join(values)
    return ", ".join(values[:shown]) + f" and {len(values) - shown} more"


HeadlineFor = Callable[[Tool, Mapping[str, Any]], Headline]
"""The shape of `headline` with its defaults, for code that is handed one."""

__all__ = [
    "MAX_CONFIRM_CHARS",
    "MAX_HEADLINE_CHARS",
    "Changes",
    "Headline",
    "HeadlineFor",
    "LiveFact",
    "LiveHeadline",
    "Reads",
    "fact_words",
    "headline",
]

"""The generated headline: the first kind of sentence the arguments bear out (a command, a payment…)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from email.utils import parseaddr
from typing import Any, Final
from urllib.parse import urlsplit

from notch_app.card.headline.facts import Facts, first_present, is_narration
from notch_app.card.headline.manifest_words import Action
from notch_app.card.headline.names import (
    AMOUNTS,
    COMMANDS,
    COUNTERPARTY,
    CURRENCIES,
    DESTINATIONS,
    ENDS,
    FOLDERS,
    MINUTES,
    MORE_RECIPIENTS,
    PATH_LISTS,
    RECIPIENTS,
    SCHEDULING,
    SOURCES,
    STARTS,
    SUBJECTS,
    URLS,
    WORDS,
)
from notch_app.card.headline.text import (
    COMMAND_CHARS,
    MAX_CONFIRM_CHARS,
    MAX_HEADLINE_CHARS,
    NAME_CHARS,
    VALUE_CHARS,
    Headline,
    confirm_cut,
    cut_to,
    one_line,
)
from notch_app.card.path_text import (
    base_name,
    folder_and_names,
    home_short,
    looks_like_path,
    parent_folder,
)
from notch_app.card.paths import MISSING
from notch_app.manifest.acting import leading_verb


def generated_headline(facts: Facts, verb: str | None = None) -> Headline:
    act = facts.words.action
    if verb and verb.lower() == act.verb.lower():
        verb = None  # the title's own verb: "Generate speech", not "Generate"
    if verb:
        # The author's own one-word confirm ("Send") names the verb; Notch adds the object.
        act = Action(verb, act.noun, act.title)
    made = facts.part(_composed, act)
    if made is not None:
        text, confirm = made
        said = frozenset(facts.said) if len(text) <= MAX_HEADLINE_CHARS else frozenset()
        return Headline(cut_to(text, MAX_HEADLINE_CHARS), confirm_cut(confirm), False, said)
    text = facts.part(_plain, act)
    said = frozenset(facts.said) if len(text) <= MAX_HEADLINE_CHARS else frozenset()
    # With nothing to name, the author's own verb stands alone ("Allow", not "Allow tool").
    confirm = act.verb if verb else _verb_noun(act)
    return Headline(cut_to(text, MAX_HEADLINE_CHARS), confirm_cut(confirm), False, said)


def _composed(facts: Facts, act: Action) -> tuple[str, str] | None:
    """The first kind of sentence the arguments bear out, or None. One part made of the
    kinds' own parts: an edit none of them read is one look, not eight."""
    for compose in _COMPOSERS:
        made = facts.part(compose, act)
        if made is not None:
            return made
    return None


def _verb_noun(act: Action) -> str:
    return f"{act.verb} {act.noun}".strip()


def _command(facts: Facts, act: Action) -> tuple[str, str] | None:
    found = facts.find(COMMANDS, nested=False)
    if found is None or not isinstance(found[1], str):
        return None
    command = facts.shown(found[0], found[1], COMMAND_CHARS)
    facts.stated(found[0], whole=not command.endswith("…") and "\n" not in found[1].strip())
    verb = act.verb if act.verb.lower() in ("run", "execute", "exec", "start") else "Run"
    text = f"{verb} `{command}`"
    folder = facts.find(FOLDERS, nested=False)
    if folder is not None and isinstance(folder[1], str):
        text += " in " + cut_to(one_line(home_short(folder[1], facts.home)), VALUE_CHARS)
        facts.stated(folder[0])
    return text, f"{verb} command"


def _payment(facts: Facts, act: Action) -> tuple[str, str] | None:
    found = facts.find(AMOUNTS)
    if found is None:
        return None
    money = facts.money(*found)
    if money is None:
        return None
    text = f"{act.verb} {money}"
    head = found[0].rpartition(".")[0]
    facts.stated(found[0], *(f"{head}.{c}" if head else c for c in CURRENCIES))
    party = _counterparty(facts)
    if party:
        text += f" to {party}"
    when = _when(facts)
    if when:
        text += f" · {when}"
    return text, f"{act.verb} {money}"


def _counterparty(facts: Facts) -> str | None:
    for name in COUNTERPARTY:
        value = facts.value(name)
        if isinstance(value, Mapping):
            for key in ("name", "display_name", "displayName", "title", "email"):
                inner = value.get(key)
                if isinstance(inner, str) and inner.strip():
                    shown = facts.shown(f"{name}.{key}", inner, NAME_CHARS)
                    facts.stated(f"{name}.{key}", whole=not shown.endswith("…"))
                    return shown
        elif isinstance(value, str) and value.strip() and not looks_like_path(value):
            facts.stated(name)
            return _person(value)
    return None


def _when(facts: Facts) -> str | None:
    found = facts.find(STARTS)
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
        names = (*ENDS, *MINUTES)
        facts.stated(path, *(f"{head}.{n}" if head else n for n in names))
    return said


def _people(facts: Facts, used: list[str] | None = None) -> list[str]:
    people: list[str] = []
    for names in (RECIPIENTS, MORE_RECIPIENTS):
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
            if people and names is RECIPIENTS:
                break
    return people


def _person(value: Any) -> str:
    """One recipient in words: "Sam Lee (sam@example.com)" for `Sam Lee <sam@…>` or
    `{name, email}`, the address alone otherwise. A display name that holds an address
    of its own is dropped: it would show an address that is not the one written to."""
    if isinstance(value, Mapping):
        name = first_present(value, ("name", "display_name", "displayName"))
        address = first_present(value, ("email", "address", "phone", "number", "id"))
        value = f"{name} <{address}>" if isinstance(name, str) and address else address or name
    if not isinstance(value, str) or not value.strip():
        return ""
    name, address = parseaddr(value)
    if address and "@" in address and "<" in value:
        name = one_line(name)
        if name and "@" not in name and "<" not in name:
            return cut_to(f"{name} ({one_line(address)})", NAME_CHARS)
        return cut_to(one_line(address), NAME_CHARS)
    return cut_to(one_line(value), NAME_CHARS)


def _others(count: int) -> str:
    return "1 other" if count == 1 else f"{count} others"


def _message(facts: Facts, act: Action) -> tuple[str, str] | None:
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


def _meeting(facts: Facts, act: Action) -> tuple[str, str] | None:
    if act.verb.lower() not in SCHEDULING and leading_verb(facts.tool.name) not in SCHEDULING:
        return None
    when = _when(facts)
    if when is None:
        return None
    subject = facts.find(SUBJECTS)
    text = act.verb
    if subject:
        shown = facts.shown(subject[0], subject[1], VALUE_CHARS)
        facts.stated(subject[0], whole=not shown.endswith("…"))
        text += f" {shown}"
    else:
        text += f" {act.noun}"
    text += f" · {when}"
    return text, _verb_noun(act)


def _paths(facts: Facts, act: Action) -> tuple[str, str] | None:
    for name in PATH_LISTS:
        value = facts.value(name)
        if isinstance(value, list) and value and all(looks_like_path(v) for v in value):
            folder, names = folder_and_names([str(v) for v in value], facts.home)
            noun = act.noun or "files"
            if len(names) == 1:
                facts.stated(name)
                text = f"{act.verb} {cut_to(one_line(names[0]), NAME_CHARS)}"
                confirm = f"{act.verb} {one_line(base_name(names[0]))}"
            else:
                plural = noun if noun.endswith("s") else "files"
                text = f"{act.verb} {len(names)} {plural}"
                confirm = text
            if folder:
                text += f" in {cut_to(one_line(folder), VALUE_CHARS)}"
            return text, confirm
    return None


def _move(facts: Facts, act: Action) -> tuple[str, str] | None:
    source = facts.find(SOURCES, nested=False)
    target = facts.find(DESTINATIONS, nested=False)
    if source is None or target is None:
        return None
    src, dst = source[1], target[1]
    if not (looks_like_path(src) and looks_like_path(dst)):
        return None
    name = base_name(src)
    place = home_short(dst, facts.home)
    if base_name(dst) == name:
        place = home_short(parent_folder(dst), facts.home) or place
    text = f"{act.verb} {cut_to(one_line(name), NAME_CHARS)} to {cut_to(one_line(place), 72)}"
    facts.stated(source[0], target[0])
    return text, _verb_noun(act) or act.verb


def _one_path(facts: Facts, act: Action) -> tuple[str, str] | None:
    found = facts.find(SOURCES, nested=False)
    if found is None or not looks_like_path(found[1]):
        return None
    path = str(found[1])
    facts.stated(found[0])
    name = cut_to(one_line(base_name(path)), NAME_CHARS)
    text = f"{act.verb} {name}"
    folder = home_short(parent_folder(path), facts.home)
    if folder:
        text += f" in {cut_to(one_line(folder), VALUE_CHARS)}"
    return text, f"{act.verb} {name}"


def _page(facts: Facts, act: Action) -> tuple[str, str] | None:
    found = facts.find(URLS, nested=False)
    if found is None or not isinstance(found[1], str):
        return None
    try:
        parts = urlsplit(found[1].strip())
    except ValueError:
        return None
    if not parts.scheme or not parts.netloc:
        return None
    shown = one_line(parts.netloc + (parts.path if parts.path != "/" else ""))
    facts.stated(found[0], whole=not parts.query and len(shown) <= VALUE_CHARS)
    return f"{act.verb} {cut_to(shown, VALUE_CHARS)}", _verb_noun(act)


def _plain(facts: Facts, act: Action) -> str:
    """The title with the first fact that names the thing: a subject in quotes, else a
    short text or the first short value the model did not write as narration."""
    named = facts.part(_named, act)  # its own part: kept while typing in another field
    if named is not None:
        return named
    for key in facts.top():
        if not isinstance(key, str) or is_narration(key) or facts.known.is_secret(key):
            continue
        value = facts.at_if(key, _short_text)
        if value is not MISSING:
            return f"{act.title}: {facts.shown(key, value, 40)}"
    return act.title


def _named(facts: Facts, act: Action) -> str | None:
    """The title with a subject in quotes, else with a short text; None without."""
    subject = facts.find(SUBJECTS)
    if subject is not None and isinstance(subject[1], str):
        return f"{act.title} “{facts.shown(subject[0], subject[1], VALUE_CHARS)}”"
    words = facts.find(WORDS, nested=False)
    if words is not None and isinstance(words[1], str):
        return f"{act.title}: “{facts.shown(words[0], words[1], VALUE_CHARS)}”"
    return None


def _short_text(value: Any) -> bool:
    """A value a plain headline quotes: one short line of text."""
    return isinstance(value, str) and 0 < len(value.strip()) <= 40 and "\n" not in value


_COMPOSERS: Final[tuple[Callable[[Facts, Action], tuple[str, str] | None], ...]] = (
    _command, _payment, _meeting, _message, _paths, _move, _one_path, _page,
)  # fmt: skip
"""The kinds of generated headline, most telling first: the first that applies says it."""

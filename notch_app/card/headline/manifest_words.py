"""What a tool's headline takes from its manifest (verb, authored words), read once per tool."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final

from notch_app.card.headline.names import ARTICLES
from notch_app.card.headline.text import one_line
from notch_app.card.interpolate import display_value
from notch_app.card.view_shape import view_shape
from notch_app.manifest.acting import ACTING_VERBS, leading_verb
from notch_app.manifest.facts import ToolFacts, tool_facts
from notch_app.manifest.generated import words_of
from notch_app.manifest.model import CardBlock, Tool, WidgetBlock, walk_blocks
from notch_app.manifest.paths import MalformedBinding, find_bindings

_AMOUNT_THEN_CURRENCY = re.compile(
    r"((?:\{\{|<<)\s*[\w.]*(?:amount|total|price|cost|sum|fee|value)\s*(?:\}\}|>>))"
    r"\s*(?:\{\{|<<)\s*[\w.]*(?:currency|currency_code|currencyCode|ccy)\s*(?:\}\}|>>)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ToolWords:
    """What a tool's headline takes from its manifest, read once per Tool object."""

    known: ToolFacts
    action: Action
    bare_verb: str | None
    """The view's confirm label when it is one word ("Send")."""
    confirm: str | None
    """The view's confirm label when it says more than a bare verb ("Pay {{amount}}")."""
    template: str | None
    """The authored headline, its second currency binding dropped."""
    template_bound: frozenset[str]
    options: dict[str, dict[str, str]]
    """Per bound path of a choice input: value as shown → the option's label."""


_WORDS_KEPT: dict[int, tuple[Tool, ToolWords]] = {}
_MAX_WORDS_KEPT: Final = 256
"""Tools are frozen; the entry holds its Tool, so an id is never reused while kept."""


def tool_words(tool: Tool) -> ToolWords:
    kept = _WORDS_KEPT.get(id(tool))
    if kept is not None and kept[0] is tool:
        return kept[1]
    words = _made_words(tool)
    if len(_WORDS_KEPT) >= _MAX_WORDS_KEPT:
        _WORDS_KEPT.pop(next(iter(_WORDS_KEPT)))
    _WORDS_KEPT[id(tool)] = (tool, words)
    return words


def _made_words(tool: Tool) -> ToolWords:
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
    return ToolWords(tool_facts(tool), _action(tool), bare, confirm, template, bound, options)


@dataclass(frozen=True, slots=True)
class Action:
    verb: str
    """Capitalised: "Send"."""
    noun: str
    """The title after the verb, articles dropped: "email", "shell command"."""
    title: str


def _action(tool: Tool) -> Action:
    title = one_line(tool.display_title) or tool.name
    if title == tool.name:
        title = words_of(tool.name)  # `do_thing` → "Do thing"
    words = title.split(" ")
    first = words[0].lower() if words else ""
    if first in ACTING_VERBS or len(words) > 1:
        verb = words[0]
        rest = [w for w in words[1:] if w.lower() not in ARTICLES]
    else:
        verb = leading_verb(tool.name)
        rest = words
    verb = verb[:1].upper() + verb[1:]
    noun = " ".join(rest)
    return Action(verb, noun, title)


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


@functools.lru_cache(maxsize=1024)
def amount_pairs(template: str) -> tuple[tuple[int, int, str], ...]:
    """Where `template` writes an amount then its currency ("{{amount}} {{currency}}"):
    each pair's span and the amount's path, so a card's own text can say the pair as
    the headline does ("€1,250.00") instead of "1250 EUR". Kept per template: a card
    asks for each of its live texts after every keystroke."""
    pairs: list[tuple[int, int, str]] = []
    for match in _AMOUNT_THEN_CURRENCY.finditer(template):
        try:
            found = find_bindings(match.group(1))
        except MalformedBinding:
            continue
        if found:
            pairs.append((match.start(), match.end(), found[0].path))
    return tuple(pairs)


def _currency_said_once(template: str) -> str:
    """ "{{amount}} {{currency}}" without its second binding: the amount's binding
    already shows its currency ("€1,250.00", not "€1,250.00 EUR")."""

    def drop(match: re.Match[str]) -> str:
        return match.group(1)

    return _AMOUNT_THEN_CURRENCY.sub(drop, template)

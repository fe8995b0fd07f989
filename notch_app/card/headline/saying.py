"""A headline said for a tool's arguments: the author's own words, else the generated ones."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, tzinfo
from typing import Any

from notch_app.card.headline.facts import Facts
from notch_app.card.headline.generated import generated_headline
from notch_app.card.headline.manifest_words import Action
from notch_app.card.headline.text import MAX_HEADLINE_CHARS, Headline, cut_to, one_line
from notch_app.card.interpolate import interpolate
from notch_app.card.paths import MISSING
from notch_app.manifest.model import Tool


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
    facts = Facts(tool, arguments, locale=locale, now=now, zone=zone, home=home)
    return headline_of(facts)


def headline_of(facts: Facts) -> Headline:
    words = facts.words
    generated = generated_headline(facts, words.bare_verb)
    confirm = facts.part(_authored_confirm) or generated.confirm
    if words.template is not None:
        text = facts.part(_authored_text)
        if text:
            said = words.template_bound if len(text) <= MAX_HEADLINE_CHARS else frozenset()
            return Headline(cut_to(text, MAX_HEADLINE_CHARS), confirm, True, said)
    if confirm == generated.confirm:
        return generated  # the generated words whole: the same Headline, not a copy
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
    facts = Facts(tool, arguments, locale=locale, now=now, zone=zone, home=home)
    return fact_words_of(facts, path)


def fact_words_of(facts: Facts, path: str) -> str:
    value = facts.binding_text(path, whole=True)
    return "" if value is MISSING else str(value)


def _authored_confirm(facts: Facts, _act: Action) -> str | None:
    """The view's own confirm words when they say more than a bare verb ("Pay
    {{amount}}", "Send message"); a one-word "Send" yields to the generated words
    (`ToolWords.bare_verb`)."""
    label = facts.words.confirm
    if label is None:
        return None
    text = one_line(interpolate(label, facts.binding_text))
    return text or None  # the author's words whole: a long label wraps in its pill


def _authored_text(facts: Facts, _act: Action) -> str:
    """The view's own headline (`confirmation.headline`) with the arguments in it."""
    template = facts.words.template
    return one_line(interpolate(template, facts.binding_text)) if template else ""

"""Counts a card states that the list it acts on does not bear out.

A manifest or a bare server writes the card's words: "Delete 1 file" as the title, while
the call carries nine paths (issue 18). The words are literal, so nothing catches it when
the card is drawn. This module finds count phrases ("1 file", "three messages") in a
card's literal texts, pairs each with the lists bound next to it (in the same block,
else in its sibling blocks; the card's title with every list the card binds), and at
request time says where the count and the list's length disagree, for a warning on the
card.

Qt-free; the analysis of a tool's card is done once and kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from notch_app.card.paths import MISSING, get_path
from notch_app.manifest.model import CHILD_KEYS, Tool, walk_blocks
from notch_app.manifest.paths import BINDING_RE, PATH_RE

_NUMBER_WORDS: Final = {
    "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_COUNT_RE: Final = re.compile(
    r"(?<![\w.,:/$€£-])(\d{1,6}|" + "|".join(_NUMBER_WORDS) + r")\s+([A-Za-z]{2,24})\b",
    re.IGNORECASE,
)
_NOT_THINGS: Final = frozenset(
    {"min", "mins", "minute", "minutes", "hour", "hours", "hr", "hrs", "day", "days", "week",
     "weeks", "month", "months", "year", "years", "second", "seconds", "sec", "secs", "am",
     "pm", "percent", "times", "time", "kb", "mb", "gb", "tb", "px", "of", "more", "or",
     "and", "to", "by", "per", "step", "last", "first", "next", "at", "in", "on", "is"}
)  # fmt: skip
"""Words after a number that are no thing being counted ("2 days", "1 of 3")."""
_TEXT_KEYS: Final = ("title", "subtitle", "text", "label")
MAX_CLAIMS: Final = 32


@dataclass(frozen=True, slots=True)
class CountClaim:
    """A count phrase in a card's literal text and the lists it may be about."""

    phrase: str
    count: int
    noun: str
    paths: tuple[str, ...]
    """Argument paths bound next to the phrase; those holding a list at request time are
    compared with the count."""


def _singular(word: str) -> str:
    word = word.lower()
    for ending, back in (("ies", "y"), ("sses", "ss"), ("xes", "x"), ("s", "")):
        if word.endswith(ending) and len(word) > len(ending) + 1:
            return word[: -len(ending)] + back
    return word


def _paths_in(value: Any, out: set[str], depth: int = 0) -> None:
    """Every binding path in the strings of `value` (a block's own fields)."""
    if depth > 6:
        return
    if isinstance(value, str):
        for match in BINDING_RE.finditer(value):
            inner = (
                match.group("curly") if match.group("curly") is not None else match.group("angle")
            )
            found = PATH_RE.match(inner or "")
            if found is not None:
                path = found.group("path")
                out.add(path[: -len(".length")] if path.endswith(".length") else path)
    elif isinstance(value, list):
        for item in value[:200]:
            _paths_in(item, out, depth + 1)
    elif isinstance(value, dict):
        for item in list(value.values())[:200]:
            _paths_in(item, out, depth + 1)


def _own(block: dict[str, Any]) -> dict[str, Any]:
    """A block's fields without its child blocks."""
    children = CHILD_KEYS.get(str(block.get("type")), ())
    return {k: v for k, v in block.items() if k not in children}


def _phrases(text: str) -> Iterator[tuple[str, int, str]]:
    literal = BINDING_RE.sub(" ", text[:500])
    for match in _COUNT_RE.finditer(literal):
        word, noun = match.group(1), match.group(2)
        if noun.lower() in _NOT_THINGS or noun.lower() in _NUMBER_WORDS:
            continue
        count = int(word) if word.isdigit() else _NUMBER_WORDS[word.lower()]
        yield " ".join(match.group(0).split()), count, noun


def _analyse(tool: Tool) -> tuple[CountClaim, ...]:
    if tool.confirmation is None:
        return ()
    root = tool.confirmation.model_dump(mode="json", by_alias=True, exclude_none=True)["root"]
    everywhere: set[str] = set()
    subtree: dict[int, set[str]] = {}
    visits = list(walk_blocks(root))
    for visit in reversed(visits):  # children before parents: a subtree's paths add up
        block = visit.block
        found: set[str] = set()
        _paths_in(_own(block), found)
        for key in CHILD_KEYS.get(str(block.get("type")), ()):
            for child in block.get(key) or ():
                found |= subtree.get(id(child), set())
        subtree[id(block)] = found
        everywhere |= found
    claims: list[CountClaim] = []

    def add(text: object, paths: set[str]) -> None:
        if isinstance(text, str) and paths:
            for phrase, count, noun in _phrases(text):
                claim = CountClaim(phrase, count, noun, tuple(sorted(paths)))
                if len(claims) < MAX_CLAIMS and claim not in claims:
                    claims.append(claim)

    add(tool.title, everywhere)
    for visit in visits:
        block = visit.block
        if visit.parent is None:  # the card's own title speaks for the whole card
            add(block.get("title"), everywhere)
            add(block.get("subtitle"), everywhere)
            continue
        own: set[str] = set()
        _paths_in(_own(block), own)
        near = own
        if not near:
            siblings = [
                kid
                for key in CHILD_KEYS.get(str(visit.parent.get("type")), ())
                for kid in visit.parent.get(key) or ()
                if kid is not block and isinstance(kid, dict)
            ]
            near = set().union(*(subtree.get(id(s), set()) for s in siblings))
        for key in _TEXT_KEYS:
            add(block.get(key), near)
        for item in block.get("items") or ():
            if isinstance(item, dict):
                mine: set[str] = set()
                _paths_in(item, mine)
                add(item.get("label"), mine or near)
    return tuple(claims)


_ANALYSED: dict[int, tuple[Tool, tuple[CountClaim, ...]]] = {}


def count_claims(tool: Tool) -> tuple[CountClaim, ...]:
    """The count phrases of `tool`'s card (its title and its blocks' literal texts) with
    the lists bound next to each. Worked out once per tool; never raises."""
    hit = _ANALYSED.get(id(tool))
    if hit is not None and hit[0] is tool:
        return hit[1]
    try:
        claims = _analyse(tool)
    except Exception:  # a card this cannot read has no count to check: the card still shows
        claims = ()
    if len(_ANALYSED) > 4096:
        _ANALYSED.clear()
    _ANALYSED[id(tool)] = (tool, claims)
    return claims


def count_disagreements(tool: Tool, arguments: Mapping[str, Any]) -> list[str]:
    """One sentence per count on the card that no list next to it bears out for these
    arguments ("The card says “1 file”, but paths holds 9."). Empty when the card states
    no count, or every count matches. Never raises."""
    out: list[str] = []
    for claim in count_claims(tool):
        lists: list[tuple[str, int]] = []
        for path in claim.paths:
            try:
                value = get_path(arguments, path)
            except Exception:
                value = MISSING
            if isinstance(value, list):
                lists.append((path, len(value)))
        noun = _singular(claim.noun)
        related = [
            (p, n)
            for p, n in lists
            if noun in _singular(p.rsplit(".", 1)[-1]) or _singular(p.rsplit(".", 1)[-1]) in noun
        ]
        compared = related or lists
        if compared and all(n != claim.count for _, n in compared):
            path, length = compared[0]
            sentence = f"The card says “{claim.phrase}”, but {path} holds {length}."
            if sentence not in out:  # the title and the confirm often say the same
                out.append(sentence)
    return out[:3]


__all__ = ["CountClaim", "count_claims", "count_disagreements"]

"""Guards: "ask anyway when ARG is over N" and "ask anyway when ARG is not one of […]".

A guard only ever adds a card; it never lets anything run. So whenever a value cannot be
judged (not a number, not a plain value) the guard trips. A missing argument does not
trip: there is no amount over the limit and no recipient outside the list. A guard the
person sets is first checked against the tool's arguments (`check_guard`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from notch_app.manifest.model import Tool
from notch_app.manifest.paths import values_along
from notch_app.runtime.policy_book.schema_paths import argument_paths, nearest
from notch_app.runtime.settings import Guard, NotOneOfGuard, OverGuard, PolicyRefused


def values_at(arguments: Mapping[str, Any], path: str) -> list[Any]:
    """Every value at a dotted path; lists on the way (or at the end) fan out.

    `recipients` on `{"recipients": ["a", "b"]}` gives `["a", "b"]`;
    `to.email` on `{"to": [{"email": "a"}, {"email": "b"}]}` gives `["a", "b"]`.
    Missing keys and nulls give nothing; a value the path cannot be read through (or
    one too deep) gives a marker no guard can judge, so the guard trips. Bounded
    (`argument_path.values_along`, the one reader of declared paths).
    """
    return list(values_along(arguments, path))


def as_number(value: Any) -> Decimal | None:
    """A JSON number or a numeric string as a Decimal; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, str) and len(value) <= 64:
        try:
            number = Decimal(value.strip().replace(",", ""))
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


def plain_text(value: Any) -> str | None:
    """The text of a plain value, as a person would write it in an allow-list."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return str(int(value)) if value == int(value) else repr(value)
    return None


def trips(guard: Guard, arguments: Mapping[str, Any]) -> str | None:
    """Why this guard asks anyway for these arguments (e.g. "amount is over 500"), or None."""
    values = values_at(arguments, guard.argument)
    if isinstance(guard, OverGuard):
        return _over(guard, values)
    return _not_one_of(guard, values)


def _over(guard: OverGuard, values: list[Any]) -> str | None:
    limit = Decimal(repr(guard.limit))
    for value in values:
        number = as_number(value)
        if number is None:
            return f"{guard.argument} is not a number to compare with the limit"
        if number > limit:
            return guard.describe()
    return None


def _not_one_of(guard: NotOneOfGuard, values: list[Any]) -> str | None:
    allowed = set(guard.allowed)
    for value in values:
        text = plain_text(value)
        if text is None:
            return f"{guard.argument} is not a plain value to check against the list"
        if text not in allowed:
            return guard.describe()
    return None


def grouped(value: int | float) -> str:
    """5000 → "5,000", 12.5 → "12.5": a limit as a person reads it in a sentence."""
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return repr(value)


REFUSED_BY_RULE = "The person does not allow "
"""How every "refuses when" sentence for the agent begins (clients that word refusals
themselves, the gateway, pass these on as they are)."""


def refusal_line(title: str, refusal: Guard) -> str:
    """The one line the person reads when a "refuses when" rule refused a call (the
    glance, the log's message): "Refused Pay invoice: amount is over 5,000"."""
    return f"Refused {title}: {rule_text(refusal)}"


def refusal_sentence(title: str, refusal: Guard, why: str) -> str:
    """What the agent is told when a "refuses when" rule refused its call: what the
    person does not allow, that nothing ran, and what it can do instead. `why` is what
    `trips` said (the rule itself, or that the value could not be judged)."""
    rule = rule_text(refusal)
    head = f"{REFUSED_BY_RULE}{title} when {rule}; nothing ran."
    if why != refusal.describe():  # the value could not be compared with the rule
        return f"{head} {refusal.argument} could not be checked against that: send it as a plain value."
    if isinstance(refusal, OverGuard):
        return (
            f"{head} Ask them first, or lower {refusal.argument} to {grouped(refusal.limit)} "
            "or less."
        )
    shown = ", ".join(refusal.allowed[:5]) + (" …" if len(refusal.allowed) > 5 else "")
    return f"{head} Ask them first, or use one of the allowed values ({shown})."


def rule_text(refusal: Guard) -> str:
    """A rule as the person reads it, limits grouped: "amount is over 5,000"."""
    if isinstance(refusal, OverGuard):
        return f"{refusal.argument} is over {grouped(refusal.limit)}"
    return refusal.describe()


def check_guard(tool: Tool, guard: Guard) -> None:
    """Refuse a guard naming an argument the tool does not have, or an "over" guard on an
    argument the schema says is not a number. Raises PolicyRefused with the nearest name."""
    paths = argument_paths(tool)
    by_path = {p.path: p for p in paths}
    info = by_path.get(guard.argument)
    if info is None:
        if not paths and not tool.input_schema.get("properties"):
            return  # a schema without properties: any argument may come; trust the person
        hint = nearest(guard.argument, list(by_path))
        known = ", ".join(list(by_path)[:12])
        raise PolicyRefused(
            f"{tool.name} has no argument {guard.argument!r}"
            + (f"; did you mean {hint!r}?" if hint else "")
            + (f" (its arguments: {known})" if known else "")
        )
    if isinstance(guard, OverGuard) and info.numeric is False:
        words = {
            "string": "text",
            "boolean": "true/false",
            "array": "a list",
            "object": "an object",
        }
        kinds = " or ".join(sorted(words.get(t, t) for t in info.types))
        raise PolicyRefused(
            f"{guard.argument} in {tool.name} holds {kinds}, not a number: an 'over' guard "
            "needs a number; use a 'not one of' guard instead"
        )
    if isinstance(guard, NotOneOfGuard) and not guard.allowed:
        raise PolicyRefused("a 'not one of' guard needs at least one allowed value")

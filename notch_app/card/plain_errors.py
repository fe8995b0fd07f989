"""A value the tool refuses, said in the words a person uses, naming the value.

The schema's words are for authors ("must be a valid email", "has a problem at 0",
"must match the pattern ^[A-Z]{2}\\d+$"); a person editing a card reads "“sam@” is not an
email address" under the field, "To: “sam@” is not an email address" beside the held
confirm, and the chip that holds it is marked (`bad_value`). Pure functions; never raise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from notch_app.card.display_text import mark_invisible
from notch_app.card.paths import get_path
from notch_app.manifest.schema import ArgumentProblem

_FORMATS: Final = {
    "email": "an email address",
    "idn-email": "an email address",
    "uri": "a web address",
    "url": "a web address",
    "iri": "a web address",
    "date-time": "a date and time",
    "date": "a date",
    "time": "a time",
    "ipv4": "an IP address",
    "ipv6": "an IP address",
    "hostname": "a host name",
    "idn-hostname": "a host name",
    "uuid": "an id",
    "phone": "a phone number",
    "iban": "an IBAN",
}
_QUOTED_CHARS: Final = 40


def quoted(value: Any) -> str:
    """`value` as the error names it: “sam@”, cut past 40 characters, invisibles marked."""
    text = mark_invisible(str(value)).replace("\n", " ")
    if len(text) > _QUOTED_CHARS:
        text = text[: _QUOTED_CHARS - 1] + "…"
    return f"\u201c{text}\u201d"


def plain_problem(message: str, value: Any) -> str:
    """The schema's `message` about `value` in a person's words; the message as it is
    when it already reads plainly ("must be a number", "is required")."""
    named = isinstance(value, str) and value.strip() != ""
    if message.startswith("must be a valid "):
        kind = message.removeprefix("must be a valid ").strip()
        words = _FORMATS.get(kind.lower(), f"a valid {kind}")
        return f"{quoted(value)} is not {words}" if named else f"must be {words}"
    if message.startswith("must match the pattern "):
        return (
            f"{quoted(value)} is not in the form this field takes"
            if named
            else ("is not in the form this field takes")
        )
    if message == "needs at least one entry":
        return "needs at least one — add one"
    if message == "must not repeat an entry":
        return "has the same entry twice"
    if message == "has properties the tool does not accept":
        return "holds something the tool does not take"
    return message


def with_label(label: str, message: str) -> str:
    """The line beside a held confirm: "To: “sam@” is not an email address", "Subject is
    required"."""
    return f"{label}: {message}" if message.startswith("\u201c") else f"{label} {message}"


def bad_value(message: str | None) -> str | None:
    """The value a plain message names (the text between its quotes), or None."""
    if not message or not message.startswith("\u201c"):
        return None
    end = message.find("\u201d", 1)
    return message[1:end] if end > 0 else None


def lies_under(path: str, prefix: str) -> bool:
    """`path` is `prefix` or lies inside it (`tags.0` is under `tags`)."""
    return path == prefix or path.startswith(prefix + ".")


def problem_at(
    problems: list[ArgumentProblem], path: str, current: Mapping[str, Any] | None = None
) -> str | None:
    """The first problem at `path` or inside it, in a person's words, naming the value
    it is about ("“sam@” is not an email address") when `current` holds it."""
    values = current if current is not None else {}
    for problem in problems:
        if problem.path == path:
            return plain_problem(problem.message, get_path(values, path))
    for problem in problems:
        if lies_under(problem.path, path):
            inner = get_path(values, problem.path)
            said = plain_problem(problem.message, inner)
            if said.startswith("\u201c"):
                return said
            where = problem.path[len(path) + 1 :]
            return f"has a problem at {where}: {said}"
    return None


__all__ = ["bad_value", "lies_under", "plain_problem", "problem_at", "quoted", "with_label"]

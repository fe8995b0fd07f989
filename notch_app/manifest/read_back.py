"""What a read-back must say, and the rules for a manifest's own `confirmation.readBack`.

A read-back is the one sentence a voice agent says to ask for a call ("Send WhatsApp
message to Marc (+34 612 345 678): 'Running late'?"). Whatever writes it, the person must
hear where the action goes and what it costs: every phone number, IBAN, amount and
recipient the tool sends. Those arguments are found here by name and format (Qt-free, one
walk over the inputSchema), for the validator and for the card (`card/read_back.py`).

Rules on a `readBack` template (beside `binding-malformed` / `binding-unknown-argument`,
checked as for any display text):
- `read-back-incomplete`: it leaves out an argument that must be read back, or its only
  content is free text the model fills (a summary) with no words of its own;
- `read-back-secret`: it binds a secret (a passwordField, `format: password`, a PIN).
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from notch_app.manifest.argument_lookup import lookup
from notch_app.manifest.bindings import MalformedBinding, find_bindings, parse_single_binding
from notch_app.manifest.model import Tool
from notch_app.manifest.problems import Problem, join_pointer, quote
from notch_app.manifest.schema_navigator import navigator_for
from notch_app.manifest.source import SourceDocument
from notch_app.manifest.view import PasswordFieldBlock, walk_blocks

MustRead = Literal["recipient", "phone", "iban", "amount"]

MAX_READ_BACK_CHARS: Final = 300
"""A read-back is one sentence of at most this many characters, values cut with …"""

# Words in a property name (snake_case, camelCase or dotted) that say what it holds.
_MUST_WORDS: Final[Mapping[str, MustRead]] = {
    **dict.fromkeys(
        ("to", "recipient", "recipients", "cc", "bcc", "payee", "beneficiary", "email",
         "emails", "attendee", "attendees", "invitee", "invitees", "target", "addressee"),
        "recipient",
    ),
    **dict.fromkeys(
        ("phone", "phones", "mobile", "tel", "telephone", "msisdn", "whatsapp", "sms"), "phone"
    ),
    "iban": "iban",
    **dict.fromkeys(("amount", "amounts", "price", "cost", "fee", "fees"), "amount"),
}  # fmt: skip
_MUST_FORMATS: Final[Mapping[str, MustRead]] = {
    "email": "recipient",
    "idn-email": "recipient",
    "phone": "phone",
    "tel": "phone",
    "iban": "iban",
}
_SECRET_WORDS: Final = frozenset(
    {"password", "passwd", "passphrase", "passcode", "pin", "secret", "token", "otp", "cvv",
     "cvc", "apikey"}
)  # fmt: skip
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_LETTER = re.compile(r"[^\W\d_]{2,}")


def name_words(path: str) -> list[str]:
    """The words of a property path, lower-case: `payee.ibanNumber` → payee, iban, number;
    `api_key` → api, key, and `apikey` for the pair."""
    words = [w.lower() for w in _WORD.findall(path)]
    return words + [a + b for a, b in itertools.pairwise(words)]


def must_read_kind(path: str, schema: Mapping[str, Any]) -> MustRead | None:
    """What an argument is that every read-back must name (a recipient, a phone number,
    an IBAN, an amount), by its format or the words of its path; None for the rest."""
    kind = schema.get("type")
    if kind == "boolean" or kind == ["boolean"]:
        return None  # "notify_attendees": a switch, not who it goes to
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt.lower() in _MUST_FORMATS:
        return _MUST_FORMATS[fmt.lower()]
    for word in reversed(name_words(path)):  # the last word is the most specific one
        found = _MUST_WORDS.get(word)
        if found is not None:
            return found
    return None


def is_secret_argument(path: str, schema: Mapping[str, Any]) -> bool:
    """A value never read back: `format: password`, `writeOnly`, or a name that says
    password, PIN, token, secret..."""
    if schema.get("format") == "password" or schema.get("writeOnly") is True:
        return True
    return any(w in _SECRET_WORDS for w in name_words(path))


def is_free_text(schema: Mapping[str, Any]) -> bool:
    """Text the model writes as it likes (a summary, a message): a string with no enum,
    const, format or pattern to hold it to a shape."""
    kind = schema.get("type")
    if kind not in ("string", None) and not (isinstance(kind, list) and "string" in kind):
        return False
    return not any(k in schema for k in ("enum", "const", "format", "pattern"))


@dataclass(frozen=True, slots=True)
class ToolArguments:
    """What a read-back needs to know about a tool's arguments, in inputSchema order."""

    must_read: tuple[tuple[str, MustRead], ...]
    """Leaf argument paths every read-back names, with what each is."""
    secrets: frozenset[str]
    """Argument paths never read back (their values read as a mask)."""
    free_text: frozenset[str]
    """String arguments the model fills freely (see `is_free_text`)."""
    schemas: Mapping[str, Mapping[str, Any]]
    """Each declared path's schema (references followed, through arrays)."""


_ARGUMENTS: dict[int, tuple[Tool, ToolArguments]] = {}


def tool_arguments(tool: Tool) -> ToolArguments:
    """`ToolArguments` of `tool` (kept per Tool object: tools are frozen). Never raises."""
    kept = _ARGUMENTS.get(id(tool))
    if kept is not None and kept[0] is tool:
        return kept[1]
    must: list[tuple[str, MustRead]] = []
    secrets: set[str] = set()
    free: set[str] = set()
    schemas: dict[str, Mapping[str, Any]] = {}
    nav = navigator_for(tool.input_schema)
    for path, _written, inner in nav.argument_paths():
        schemas[path] = inner
        if is_secret_argument(path, inner) or any(s for s in secrets if path.startswith(s + ".")):
            secrets.add(path)
            continue
        if nav.properties(inner):
            continue  # an object: its leaves are judged one by one
        kind = must_read_kind(path, inner)
        if kind is not None:
            must.append((path, kind))
        elif is_free_text(inner):
            free.add(path)
    if tool.confirmation is not None:
        for block in walk_blocks(tool.confirmation.root):
            if isinstance(block, PasswordFieldBlock):
                with contextlib.suppress(MalformedBinding):
                    secrets.add(parse_single_binding(block.bind))
    found = ToolArguments(tuple(must), frozenset(secrets), frozenset(free), schemas)
    if len(_ARGUMENTS) >= 256:
        _ARGUMENTS.pop(next(iter(_ARGUMENTS)))
    _ARGUMENTS[id(tool)] = (tool, found)
    return found


def covered(path: str, bound: list[str]) -> bool:
    """A template that binds one of `bound` reads `path` out: the path or an ancestor."""
    return any(path == b or path.startswith(b + ".") for b in bound)


def is_secret_path(path: str, secrets: frozenset[str]) -> bool:
    """`path` is a secret, lies inside one or holds one."""
    return any(path == s or path.startswith(s + ".") or s.startswith(path + ".") for s in secrets)


def read_back_problems(
    doc: SourceDocument, tool: Tool, base: str, view: Mapping[str, Any], schema_ok: bool
) -> Iterator[Problem]:
    """Problems of the `readBack` template of the confirmation view at `base` (raw JSON),
    if it has one: malformed or unknown bindings, a secret, a missing phone number, IBAN,
    amount or recipient, or free text as the only content. Never raises."""
    template = view.get("readBack")
    if not isinstance(template, str):
        return
    pointer = join_pointer(base, "readBack")
    try:
        bindings = find_bindings(template)
    except MalformedBinding as exc:
        yield doc.problem(
            pointer,
            "binding-malformed",
            f"{quote(exc.raw)} in the readBack is not a binding; write a dotted argument "
            'path such as "{{to}}" or "<<user.name>>"',
        )
        return
    if not schema_ok:
        return
    paths = [b.path for b in bindings]
    unknown = False
    for path in paths:
        found = lookup(tool.input_schema, path)
        if found.rule is not None:
            unknown = True
            yield doc.problem(pointer, found.rule, f"in the readBack: {found.message}")
    if unknown:
        return
    args = tool_arguments(tool)
    for path in paths:
        if is_secret_path(path, args.secrets):
            yield doc.problem(
                pointer,
                "read-back-secret",
                f"the readBack binds {path!r}, a secret; a read-back is said aloud and sent "
                "to the agent, so secrets are never read back — remove the binding",
            )
    missing = [p for p, _kind in args.must_read if not covered(p, paths)]
    if missing:
        names = ", ".join("{{" + p + "}}" for p in missing[:6])
        more = f" (and {len(missing) - 6} more)" if len(missing) > 6 else ""
        yield doc.problem(
            pointer,
            "read-back-incomplete",
            f"the readBack leaves out {names}{more}: phone numbers, IBANs, amounts and "
            "recipients the tool sends are always read back, so the person hears where it "
            "goes and what it costs — add them to the sentence",
        )
    own_words = _LETTER.search(_literal_text(template, bindings)) is not None
    if paths and not own_words and all(p in args.free_text for p in paths):
        yield doc.problem(
            pointer,
            "read-back-incomplete",
            f"the readBack is only {', '.join(quote(b.raw) for b in bindings[:4])}: free "
            "text the model fills says whatever the model wants; say what the call does in "
            "your own words around it, e.g. \"Post '{{summary}}' to {{channel}}?\"",
        )


def _literal_text(template: str, bindings: list[Any]) -> str:
    out: list[str] = []
    pos = 0
    for b in bindings:
        out.append(template[pos : b.start])
        pos = b.end
    out.append(template[pos:])
    return " ".join(out)


__all__ = [
    "MAX_READ_BACK_CHARS",
    "MustRead",
    "ToolArguments",
    "covered",
    "is_free_text",
    "is_secret_argument",
    "is_secret_path",
    "must_read_kind",
    "name_words",
    "read_back_problems",
    "tool_arguments",
]

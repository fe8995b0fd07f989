"""The read-back: one sentence that asks for a call, built only from its final arguments.

A voice agent says it, and so does Notch with voice on: "Send WhatsApp message to Marc,
phone +34 612 345 678: 'Running late'?". It comes from the manifest's own
`confirmation.readBack` template when there is one, else from the card's title and the
arguments its inputs bind, in order. Either way:
- only the validated final arguments fill it (never the model's context or reason text);
- every phone number, IBAN, amount and recipient the tool sends is in it (a template that
  leaves one out, which validation refuses, still gets it appended);
- secrets are never read back, not even masked (a template's binding reads as ••••••);
- it is one line of at most 300 characters: values are cut with …, whitespace and
  control characters folded, invisible ones marked as on the card;
- a generated one follows the manifest's language (`Manifest.language`: en, es, de, fr;
  any other reads in English): its own few words ("and 2 more") and its punctuation
  ("¿…?" in Spanish, "… ?" in French). The values and labels are the author's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from notch_app.card.coerce import is_blank
from notch_app.card.display_text import mark_invisible
from notch_app.card.interpolate import display_value, interpolate
from notch_app.card.paths import MISSING, get_path
from notch_app.card.state import SECRET_MASK, CardState
from notch_app.card.view_shape import view_shape
from notch_app.manifest.facts import counted_array, shown_paths
from notch_app.manifest.model import CardBlock, Tool, WidgetBlock
from notch_app.manifest.paths import MalformedBinding, find_bindings
from notch_app.manifest.read_back import (
    MAX_READ_BACK_CHARS,
    ToolArguments,
    covered,
    tool_arguments,
)

MUST_VALUE_CHARS: Final = 60
"""A phone number, IBAN, amount or recipient is cut past this many characters."""
OTHER_VALUE_CHARS: Final = 48
"""Any other value (a subject, a message) is cut past this many characters."""
HEAD_CHARS: Final = 80
"""The card's title as it opens the sentence."""

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class ReadBackWords:
    """A language's few words and punctuation in a generated read-back."""

    more: str
    """What stands for the values left out: "and {n} more"."""
    opening: str = ""
    """Before the sentence ("¿" in Spanish)."""
    colon: str = ":"
    question: str = "?"
    lower_labels: bool = True
    """Labels lower-cased mid-sentence ("to"); German keeps its nouns ("Betrag")."""


_NBSP = "\u202f"  # French puts a narrow no-break space before : and ?
READ_BACK_WORDS: Final[dict[str, ReadBackWords]] = {
    "en": ReadBackWords(more="and {n} more"),
    "es": ReadBackWords(more="y {n} más", opening="¿"),
    "de": ReadBackWords(more="und {n} weitere", lower_labels=False),
    "fr": ReadBackWords(more="et {n} de plus", colon=_NBSP + ":", question=_NBSP + "?"),
}


def words_for(language: str | None) -> ReadBackWords:
    """The words for a BCP 47 `language` ("es-MX" reads as "es"); English otherwise."""
    primary = (language or "en").split("-")[0].lower()
    return READ_BACK_WORDS.get(primary, READ_BACK_WORDS["en"])


_ACRONYMS: Final = frozenset({"iban", "bic", "id", "url", "pin", "cc", "bcc", "sms", "ip"})
# Arguments in which the model explains itself ("what the agent says the command does"):
# a read-back says what runs, not the agent's account of it.
_NARRATION: Final = frozenset(
    {"description", "summary", "notes", "note", "reason", "explanation", "rationale", "prompt"}
)


def read_back(tool: Tool, final_arguments: Mapping[str, Any]) -> str:
    """The sentence that asks for `tool` called with `final_arguments` (validated): from
    the view's `readBack` template, else generated. Never raises; a tool without a view
    reads back as its title and the arguments that must be read back."""
    args = tool_arguments(tool)
    view = tool.confirmation
    template = view.read_back if view is not None else None
    if template:
        return _from_template(template, final_arguments, args)
    return _generated(tool, final_arguments, args)


def card_read_back(state: CardState) -> str:
    """`read_back` of the card's tool with its current final arguments."""
    return read_back(state.tool, state.arguments())  # read, not executed: no copy


# --- from the manifest's template ----------------------------------------------------


def _from_template(template: str, final: Mapping[str, Any], args: ToolArguments) -> str:
    must = {path for path, _kind in args.must_read}

    def lookup(path: str) -> Any:
        if args.is_secret(path):
            return SECRET_MASK
        value = _value(final, path)
        if value is MISSING:
            return MISSING
        limit = MUST_VALUE_CHARS if any(covered(m, [path]) for m in must) else OTHER_VALUE_CHARS
        return _cut(_one_line(display_value(value)), limit)

    said = _one_line(interpolate(template, lookup))
    # Validation refuses a template that leaves one out; a card is still never read back
    # without where it goes and what it costs.
    try:
        bound = [b.path for b in find_bindings(template)]
    except MalformedBinding:
        bound = []
    missing = [
        _Part(path, _label(path, args, None), _shown(final, path, MUST_VALUE_CHARS), True)
        for path, _kind in args.must_read
        if not covered(path, bound) and _present(final, path)
    ]
    if missing:
        said = said.rstrip(" ?.!") + " (" + "; ".join(p.text() for p in missing) + ")?"
    return _bounded(said)


# --- generated from the card --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Part:
    path: str
    label: str
    value: str
    must: bool
    quoted: bool = False

    def text(self) -> str:
        value = f"'{self.value}'" if self.quoted else self.value
        return f"{self.label} {value}" if self.label else value


def _generated(tool: Tool, final: Mapping[str, Any], args: ToolArguments) -> str:
    head = _one_line(_head(tool, final, args)).rstrip(" ?.!:") or tool.name
    head = _cut(head, HEAD_CHARS)
    must = dict(args.must_read)
    order, labels = _card_order(tool, args)
    for path, _kind in args.must_read:
        if path not in order:
            order.append(path)
    parts: list[_Part] = []
    taken: list[str] = []
    for path in order:
        if args.is_secret(path) or covered(path, taken):
            continue
        value = _value(final, path)
        if value is MISSING or is_blank(value) or value is False:
            continue
        is_must = any(covered(m, [path]) for m in must)
        shown = _shown(final, path, MUST_VALUE_CHARS if is_must else OTHER_VALUE_CHARS)
        if not shown or (shown in head and len(shown) > 2):
            continue  # the title says it already ("Pay invoice INV-2025-0142")
        label = _label(path, args, labels.get(path), words_for(tool.language).lower_labels)
        if value is True:
            parts.append(_Part(path, "", label, is_must))  # a switch that is on: its words
        else:
            quoted = not is_must and path in args.free_text
            parts.append(_Part(path, label, shown, is_must, quoted))
        taken.append(path)
    parts = _amounts_with_currency(parts, final)
    return _fit(head, parts, words_for(tool.language))


def _head(tool: Tool, final: Mapping[str, Any], args: ToolArguments) -> str:
    root = tool.confirmation.root if tool.confirmation is not None else None
    title: str | None = None
    if isinstance(root, CardBlock) and root.title:
        title = root.title
    elif isinstance(root, WidgetBlock):
        title = root.confirm_label or root.label
    if not title:
        return tool.display_title

    def lookup(path: str) -> Any:
        if args.is_secret(path):
            return SECRET_MASK
        value = _value(final, path)
        return value if value is MISSING else _cut(_one_line(display_value(value)), 40)

    return interpolate(title, lookup)


def _card_order(tool: Tool, args: ToolArguments) -> tuple[list[str], dict[str, str]]:
    """The paths a generated read-back reads, in order: what the inputs bind, then what
    the card displays (the agent's own narration left out; for a widget, every argument).
    With the inputs' labels."""
    if tool.confirmation is None:
        return [], {}
    root = tool.confirmation.root
    labels: dict[str, str] = {}
    order: list[str] = []
    try:
        inputs = view_shape(tool).inputs
    except ValueError:
        inputs = ()
    for binding in inputs:
        labels.setdefault(binding.path, binding.label)
        if binding.path not in order:
            order.append(binding.path)
    if isinstance(root, WidgetBlock):
        shown = list(args.schemas)
    else:
        shown = [s.path for s in shown_paths(root)]
    for path in shown:
        narration = any(w in _NARRATION for w in path.lower().split("."))
        if counted_array(path) is None and path not in order and not narration:
            order.append(path)
    return order, labels


def _amounts_with_currency(parts: list[_Part], final: Mapping[str, Any]) -> list[_Part]:
    """ "amount 1250" becomes "amount 1250 EUR" when a `currency` sits beside it (and the
    currency is not said again on its own)."""
    out: list[_Part] = []
    said: set[str] = set()
    for part in parts:
        head, _, last = part.path.rpartition(".")
        sibling = f"{head}.currency" if head else "currency"
        currency = _value(final, sibling)
        if part.must and last != "currency" and isinstance(currency, str) and currency.strip():
            part = _Part(
                part.path, part.label, f"{part.value} {_cut(_one_line(currency), 8)}", True
            )
            said.add(sibling)
        out.append(part)
    return [p for p in out if p.path not in said]


def _fit(head: str, parts: list[_Part], words: ReadBackWords = READ_BACK_WORDS["en"]) -> str:
    """`Head: part; part?` (in the manifest's language's punctuation) within
    MAX_READ_BACK_CHARS: other values go from the end first (said as "and N more"), then
    every value is cut shorter."""
    kept = list(parts)
    dropped = 0

    def sentence(body: str) -> str:
        if not body:
            return f"{words.opening}{head}{words.question}"
        return f"{words.opening}{head}{words.colon} {body}{words.question}"

    while True:
        body = "; ".join(p.text() for p in kept)
        if dropped:
            body += "; " + words.more.format(n=dropped)
        said = sentence(body)
        if len(said) <= MAX_READ_BACK_CHARS:
            return said
        others = [i for i, p in enumerate(kept) if not p.must]
        if not others:
            break
        del kept[others[-1]]
        dropped += 1
    squeezed = [_Part(p.path, p.label, _cut(p.value, 24), p.must, p.quoted) for p in kept]
    body = "; ".join(p.text() for p in squeezed)
    return _bounded(sentence(body), words.question)


# --- values ----------------------------------------------------------------------------


def _value(final: Mapping[str, Any], path: str) -> Any:
    value = get_path(final, path)
    if value is MISSING:
        counted = counted_array(path)
        if counted is not None:
            items = get_path(final, counted)
            return len(items) if isinstance(items, list) else MISSING
    return value


def _present(final: Mapping[str, Any], path: str) -> bool:
    value = _value(final, path)
    return value is not MISSING and not is_blank(value)


def _shown(final: Mapping[str, Any], path: str, limit: int) -> str:
    value = _value(final, path)
    return "" if value is MISSING else _cut(_one_line(display_value(value)), limit)


def _label(path: str, args: ToolArguments, input_label: str | None, lower: bool = True) -> str:
    """The input's label, else the schema's title, else the path in words, lower-case
    where a word is not an acronym: "to", "payee IBAN", "Approval PIN" → "approval PIN"."""
    schema = args.schemas.get(path, {})
    title = schema.get("title")
    text = input_label or (title if isinstance(title, str) else None)
    if not text:
        text = " ".join(path.replace("_", " ").replace("-", " ").split("."))
    words = _one_line(text).split(" ")
    for i, word in enumerate(words):
        if word.lower() in _ACRONYMS:
            words[i] = word.upper()
        elif lower and i == 0 and not (len(word) > 1 and word.isupper()):
            words[i] = word.lower()  # mid-sentence: "to", not "To"
    return _cut(" ".join(words), 32)


def _one_line(text: str) -> str:
    """Marked invisibles (as on the card), control characters and line breaks as spaces."""
    marked = mark_invisible(text)
    cleaned = "".join(c if c.isprintable() else " " for c in marked)
    return _SPACE.sub(" ", cleaned).strip()


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _bounded(said: str, question: str = "?") -> str:
    if len(said) <= MAX_READ_BACK_CHARS:
        return said
    return said[: MAX_READ_BACK_CHARS - 1 - len(question)].rstrip() + "…" + question


__all__ = ["MAX_READ_BACK_CHARS", "card_read_back", "read_back"]

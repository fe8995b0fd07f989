"""Untrusted text on a generated card: a schema's titles, descriptions and names made fit
to show (bounded, control characters removed, binding marks broken apart), and the
words that name the action.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Final

from notch_app.manifest.acting import name_words

MAX_DESCRIPTION_CHARS: Final = 400
"""The tool description shown on the card, cut at a word with '…'."""
MAX_LABEL_CHARS: Final = 80
MAX_HELP_CHARS: Final = 160

_SPACES_RE: Final = re.compile(r"[ \t]+")


def safe_text(value: Any, limit: int, *, one_line: bool = True) -> str:
    """Schema text made fit for a card: control characters removed, whitespace folded,
    binding marks broken apart (`{{x}}` shows as written, never as an argument), cut to
    `limit` characters at a word with '…'. Non-text values give ''."""
    if not isinstance(value, str):
        return ""
    text = value[: limit * 4]
    text = "".join(ch if ch == "\n" or unicodedata.category(ch) != "Cc" else " " for ch in text)
    if one_line:
        text = text.replace("\n", " ")
    text = "\n".join(_SPACES_RE.sub(" ", line).strip() for line in text.split("\n")).strip()
    # A binding needs two adjacent marks; a space between them keeps the text as written.
    for mark, broken in (("{{", "{ {"), ("}}", "} }"), ("<<", "< <"), (">>", "> >")):
        while mark in text:
            text = text.replace(mark, broken)
    if len(text) > limit:
        cut = text[: limit - 1]
        space = cut.rfind(" ")
        if space > limit // 2:
            cut = cut[:space]
        text = cut.rstrip() + "…"
    return text


def words_of(name: str) -> str:
    """A name in words: `open_pr` → "Open pr", `sendAs` → "Send as"."""
    words = name_words(name) or [name]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def title_of(tool: Mapping[str, Any]) -> str:
    ann = tool.get("annotations")
    for candidate in (
        tool.get("title"),
        ann.get("title") if isinstance(ann, dict) else None,
    ):
        text = safe_text(candidate, MAX_LABEL_CHARS)
        if text:
            return text
    name = tool.get("name")
    return safe_text(words_of(name), MAX_LABEL_CHARS) if isinstance(name, str) else "Tool call"


def confirm_label(tool: Mapping[str, Any]) -> str:
    """The confirm button's words: the action named, never "Confirm" — the tool's title
    ("Cancel agent"), else its name in words (`cancel_agent` → "Cancel agent")."""
    return title_of(tool)

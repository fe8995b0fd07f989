"""Which tools ask: the one rule, for `notch mcp`, `notch validate`, generated cards,
policy and the coding-agent hooks.

A call is confirmed by the person before it runs when its tool acts. What says a tool
acts, strongest first:

1. its annotations: `destructiveHint: true`, or `readOnlyHint: false` (with or without
   `openWorldHint`);
2. a card of its own (the author says it must be confirmed);
3. its name: an acting verb anywhere in it (`send_email`, `slack_send_message`), unless
   it starts with a read verb (`get_order`, `list_posts`: the first word says what it
   does, later ones are often nouns).

What says it only reads: `readOnlyHint: true`, or a name starting with a read verb. A
tool nothing speaks for either way (`phone_status`, `focus_repo`, `agent_status`) does not
ask: reads must work with Notch down. A bare MCP server's tool (no manifest: its hints
are all there is) asks unless it says `readOnlyHint: true`.

Where the evidence is mixed, it asks and says why: `readOnlyHint: true` beside
`destructiveHint: true`, or beside a name or description saying it deletes, sends, pays
or writes (`read_only_contradicted`), or a name starting with a read verb beside an
annotation saying it acts. The person's Asks first (policy) only loosens what has a card.

A tool that asks is described to the model with one more sentence, ASKS_FIRST
(`described_for_model`): calling it asks the person, and it ran only if the result says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol


class _Hints(Protocol):
    @property
    def read_only_hint(self) -> bool | None: ...
    @property
    def destructive_hint(self) -> bool | None: ...
    @property
    def open_world_hint(self) -> bool | None: ...


class Tool(Protocol):
    """What the rule reads of a manifest Tool (`manifest.model.Tool`), by its attributes:
    this module imports no models, so `notch mcp` can decide before pydantic loads."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def annotations(self) -> _Hints | None: ...
    @property
    def confirmation(self) -> object | None: ...


Kind = Literal["acting", "read", "unknown"]

ACTING_VERBS = frozenset(
    {
        "send", "create", "delete", "update", "post", "book", "pay", "publish", "open",
        "remove", "cancel", "write", "edit", "move", "rename", "transfer", "submit",
        "schedule", "reschedule", "reply", "forward", "archive", "upload", "generate",
        "invite", "share", "buy", "order", "purchase", "refund", "deploy", "merge", "trash",
        "overwrite", "erase", "wipe", "revoke", "grant", "reserve", "tweet", "unsubscribe",
        "charge", "add", "insert", "modify", "replace",
    }
)  # fmt: skip
READ_VERBS = frozenset(
    {
        "get", "list", "search", "fetch", "check", "read", "find", "lookup", "query",
        "show", "describe", "view", "count", "preview", "browse", "inspect", "status",
        "play", "pause", "skip", "resume", "peek",
    }
)  # fmt: skip
_VERB_RE = re.compile(r"^[A-Za-z]+?(?=[_.\-]|[A-Z]|$)")


def leading_verb(tool_name: str) -> str:
    """The first word of a tool name: `send_email` → `send`, `bookMeeting` → `book`."""
    m = _VERB_RE.match(tool_name)
    return (m.group(0) if m else tool_name).lower()


# An acronym first ("PR", "SMS" before "Sms"), so `merge_PR` reads "Merge pr", not "p r".
_WORDS_RE: Final = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]{2,}|[A-Za-z][a-z]*|[0-9]+")
_MAX_NAME_WORDS: Final = 12


@dataclass(frozen=True, slots=True)
class ActingVerdict:
    """Whether calls of a tool ask the person first, and why, in words for a warning."""

    asks: bool
    kind: Kind
    """acting (it asks), read (a hint or a read verb says so), unknown (nothing says it
    acts, so it does not ask)."""
    why: str
    """"its annotations say destructiveHint: true", "its name says 'send'", …"""
    mixed: bool = False
    """The evidence disagreed, so it asks (fail closed); `why` says what disagreed."""


def name_words(tool_name: str) -> list[str]:
    """The words of a tool name, lower case: `slack_sendMessage` → slack, send, message."""
    return [w.lower() for w in _WORDS_RE.findall(tool_name)]


def acting_verdict(
    tool: Mapping[str, Any] | Tool, *, has_card: bool | None = None, bare_server: bool = False
) -> ActingVerdict:
    """The verdict for `tool`: an MCP tool dict (`tools/list`, camelCase annotations) or
    a manifest Tool. `has_card` defaults to whether a manifest Tool carries a
    `confirmation` (False for a dict). `bare_server`: the tool comes from an MCP server
    with no manifest (its own hints are all there is). Never raises; bounded."""
    name, annotations = _name_and_annotations(tool)
    if has_card is None:
        has_card = not isinstance(tool, Mapping) and tool.confirmation is not None
    destructive = annotations.get("destructiveHint") is True
    read_only = annotations.get("readOnlyHint")
    words = name_words(name)[:_MAX_NAME_WORDS]
    first = words[0] if words else ""
    if read_only is True:
        if destructive:
            return ActingVerdict(
                True, "acting", "it says both readOnlyHint: true and destructiveHint: true", True
            )
        contradicted = read_only_contradicted(tool)
        if contradicted is not None:
            return ActingVerdict(
                True, "acting", f"it says readOnlyHint: true, but {contradicted}", True
            )
        return ActingVerdict(False, "read", "its annotations say readOnlyHint: true")
    if destructive or read_only is False:
        hint = "destructiveHint: true" if destructive else "readOnlyHint: false"
        if annotations.get("openWorldHint") is True:
            hint += " and openWorldHint: true"
        if first in READ_VERBS:
            return ActingVerdict(
                True, "acting",
                f"its name starts with {first!r}, a read, but its annotations say {hint}",
                True,
            )  # fmt: skip
        return ActingVerdict(True, "acting", f"its annotations say {hint}")
    acting_word = next((w for w in words if w in ACTING_VERBS), None)
    if has_card:
        return ActingVerdict(True, "acting", "it has a confirmation card")
    if first in READ_VERBS:
        if bare_server:
            return ActingVerdict(
                True, "acting",
                f"its name starts with {first!r}, but a server without a manifest asks for "
                "every tool not marked readOnlyHint: true",
            )  # fmt: skip
        return ActingVerdict(False, "read", f"its name starts with {first!r}")
    if acting_word is not None:
        return ActingVerdict(True, "acting", f"its name says {acting_word!r}")
    if bare_server:
        return ActingVerdict(
            True, "acting",
            "a server without a manifest asks for every tool not marked readOnlyHint: true",
        )  # fmt: skip
    return ActingVerdict(
        False, "unknown", "nothing says it acts (no acting verb in its name, no hint)"
    )


def must_ask(tool: Mapping[str, Any] | Tool, *, has_card: bool, bare_server: bool = False) -> bool:
    """Whether a call of `tool` must be confirmed before it runs (`acting_verdict`)."""
    return acting_verdict(tool, has_card=has_card, bare_server=bare_server).asks


def tool_kind(tool: Tool) -> Kind:
    """acting, read or unknown, card aside (what the tool itself says it does)."""
    return acting_verdict(tool, has_card=False).kind


def acting_looking(tool_name: str) -> bool:
    """Whether a name alone reads like an action (`acting_verdict` of the bare name)."""
    return acting_verdict({"name": tool_name}).asks


ASKS_FIRST: Final = (
    "Calling this asks the person first (Notch shows them the call); it has run only "
    "if the result says so, so do not tell them it is done before that."
)
"""The one sentence every acting tool's description carries for the model (`notch mcp`'s
`tools/list`, the connectors' ToolNames): calling it asks the person, and success is only
what the result says (the voice-confirm seed: "the model is told that calling the tool
asks the caller" and not to claim success)."""


def described_for_model(description: str | None, asks: bool) -> str | None:
    """A tool's description as the model is given it: the author's words, then, for a tool
    that asks the person first, ASKS_FIRST (once, however often this is applied). A
    read-only tool's description is left as it is."""
    text = (description or "").rstrip()
    if not asks or ASKS_FIRST in text:
        return description
    if text and text[-1] not in ".!?…":
        text += "."
    return f"{text} {ASKS_FIRST}" if text else ASKS_FIRST


_CONTRADICTING_VERBS: Final = {
    "deletes": ("delete", "remove", "erase", "wipe", "trash", "destroy", "purge", "unlink",
                "rm"),
    "sends": ("send", "email", "forward", "reply", "publish", "tweet"),
    "pays": ("pay", "charge", "transfer", "purchase", "buy", "refund"),
    "writes": ("write", "overwrite", "upload", "create", "update", "modify", "edit", "move",
               "rename", "insert", "replace", "execute", "kill", "revoke", "grant", "deploy",
               "install", "uninstall"),
}  # fmt: skip
"""What a tool named or described with these verbs does, whatever its hints say."""
_CONTRADICTING: Final = {
    verb: what for what, verbs in _CONTRADICTING_VERBS.items() for verb in verbs
}
_NEGATIONS: Final = frozenset({"never", "not", "without", "no", "nor", "doesn't", "won't"})
_BEFORE_FORM: Final = frozenset(
    {"it", "this", "that", "which", "and", "then", "also", "tool", "permanently",
     "immediately", "silently", "actually", "really"}
)  # fmt: skip
"""Words after which "deletes" / "sending" is the tool's own verb ("it deletes")."""
_BEFORE_BARE: Final = frozenset({"will", "can", "may", "might", "would", "then", "also", "and"})
"""Words after which a bare "delete" is a verb ("will delete"), not a noun."""
_ENDINGS: Final = (("ies", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e"))
"""What it does now ("deletes", "sending"); "was last updated" says nothing of the tool."""


def _verb_of(word: str, *, base: bool) -> str | None:
    """The contradicting verb `word` is a form of (deletes, deleting → delete). A name's
    words count only bare (`base`: `delete_all`, never `last_updated`); a description's
    also as "deletes", "deleting", and bare as its first word ("Delete every file")."""
    word = word.lower()
    if word in _CONTRADICTING:
        return word
    for ending, back in () if base else _ENDINGS:
        stem = word[: -len(ending)] + back
        if word.endswith(ending) and stem in _CONTRADICTING:
            return stem
    return None


def read_only_contradicted(tool: Mapping[str, Any] | Tool) -> str | None:
    """Why `tool`'s `readOnlyHint: true` is not believed, or None: its name, or the first
    sentence of its description, says it deletes, sends, pays or writes ("its name says
    it deletes (delete_all)"). A verb after "never", "not", "without" does not count.
    Never raises; bounded (a description's first 300 characters)."""
    name, annotations = _name_and_annotations(tool)
    if annotations.get("readOnlyHint") is not True:
        return None
    for word in name_words(name)[:_MAX_NAME_WORDS]:
        verb = _verb_of(word, base=True)
        if verb is not None:
            return f"its name says it {_CONTRADICTING[verb]} ({name})"
    description = tool.get("description") if isinstance(tool, Mapping) else tool.description
    if not isinstance(description, str):
        return None
    first = re.split(r"(?<=[.!?;])\s", description[:300], maxsplit=1)[0]
    words = re.findall(r"[A-Za-z']+", first)
    for index, word in enumerate(words):
        verb = _verb_of(word, base=False)
        if verb is None:
            continue
        before = words[index - 1].lower() if index else ""
        if before in _NEGATIONS:
            continue
        # Mid-sentence a verb's form is a noun as often as not ("an update", "progress
        # updates"): it counts only where a verb stands ("it deletes", "will send").
        bare = word.lower() == verb
        if index == 0 or (before in _BEFORE_BARE if bare else before in _BEFORE_FORM):
            return f"its description says it {_CONTRADICTING[verb]} ({word!r})"
    return None


def _name_and_annotations(tool: Mapping[str, Any] | Tool) -> tuple[str, dict[str, Any]]:
    if not isinstance(tool, Mapping):
        ann = tool.annotations
        found: dict[str, Any] = {}
        if ann is not None:
            found = {
                "readOnlyHint": ann.read_only_hint,
                "destructiveHint": ann.destructive_hint,
                "openWorldHint": ann.open_world_hint,
            }
        return tool.name, found
    name = tool.get("name")
    raw = tool.get("annotations")
    return (name if isinstance(name, str) else ""), (raw if isinstance(raw, dict) else {})

"""What Notch knows about one loaded tool, worked out once: `ToolFacts`.

Redaction (the decision log, the SQLite file), the keyed digest, the sentence told to
the model, the read-back, the card, a widget's staged arguments, generated cards, the
`notch mcp` gateway, policy and the hooks all ask the same questions of a tool — which
arguments are secret, which must a read-back name, does it act, what did the person
agree to — so they ask its facts, made once per Tool object, and cannot disagree.

**Secrets: one rule.** An argument's value is secret when
- the tool's card binds it to a `passwordField`, or
- its schema says `format: password` or `writeOnly: true` in any branch: through `$ref`,
  `allOf`/`anyOf`/`oneOf`, array `items`/`prefixItems` (a list's path stands for its
  elements), or an open object's `additionalProperties` (then the whole object), or
- its name says so (`SECRET_WORDS`: password, PIN, token, API key, …), unless it holds
  only true or false.
Paths are found in the schema once (`secrets`); an argument the schema does not declare
is judged by its name in the call itself (`secrets_in`). A path is secret, lies inside
one, or holds one (`is_secret`); what is secret is masked everywhere it would be shown,
stored or told, and keyed in the digest.

**Acting** is `acting.acting_verdict`, the one rule, read here once per tool. The
**fingerprint** of the card and schema is taken over RFC 8785 JSON, the spelling the
approval digest uses (`canonical_json`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, Literal

from notch_app.manifest.acting import ActingVerdict, acting_verdict
from notch_app.manifest.canonical_json import NotDigestible, canonical_json
from notch_app.manifest.paths import (
    MAX_DEPTH,
    MAX_VALUES,
    MISSING,
    MalformedBinding,
    Relation,
    declared_form,
    declared_matches,
    declared_rest,
    get_path,
    parse_single_binding,
    present_along,
    set_path,
)
from notch_app.manifest.schema.navigator import SchemaNavigator, navigator_for

if TYPE_CHECKING:  # the model loads pydantic: `listed_tool_facts` (a hook's call of a
    # tool Notch has no card for, the gateway) reads none of it
    from notch_app.manifest.model import Tool

MustRead = Literal["recipient", "phone", "iban", "amount"]

SECRET_WORDS: Final = frozenset(
    {"password", "passwd", "passphrase", "passcode", "pin", "secret", "token", "otp", "cvv",
     "cvc", "apikey", "credential", "credentials", "privatekey", "accesskey"}
)  # fmt: skip
"""Words of an argument's path that make its value a secret (`api_token`, `user.pin`,
`apiKey`; a pair of words counts joined: `api_key` says `apikey`)."""

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
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")

MAX_SECRET_DEPTH: Final = 16
"""Nesting of a schema read for secrets (a `$ref` cycle is cut here)."""
MAX_SCHEMA_VISITS: Final = 4000
"""Schema nodes looked at for one tool's secrets."""
_MAX_RELATIONS: Final = 4096


def name_words(path: str) -> list[str]:
    """The words of a property path, lower-case: `payee.ibanNumber` → payee, iban, number;
    `api_key` → api, key, and `apikey` for the pair."""
    words = [w.lower() for w in _WORD.findall(path)]
    return words + [a + b for a, b in itertools.pairwise(words)]


@functools.lru_cache(maxsize=4096)
def secret_name(path: str) -> bool:
    """The path's words say it holds a secret (`SECRET_WORDS`). Kept per name: a call's
    list of objects repeats the same few keys."""
    return any(w in SECRET_WORDS for w in name_words(path))


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


def is_free_text(schema: Mapping[str, Any]) -> bool:
    """Text the model writes as it likes (a summary, a message): a string with no enum,
    const, format or pattern to hold it to a shape."""
    kind = schema.get("type")
    if kind not in ("string", None) and not (isinstance(kind, list) and "string" in kind):
        return False
    return not any(k in schema for k in ("enum", "const", "format", "pattern"))


# --- the schema half of the rule ----------------------------------------------------------


def schema_secrets(input_schema: Any) -> frozenset[str]:
    """The declared paths of `input_schema` whose values are secret by the schema and
    the names (a list's path standing for its elements); the card's passwordFields are
    added by `tool_facts`. Never raises; bounded for any schema."""
    nav = navigator_for(input_schema)
    walk = _SecretWalk(nav)
    root = nav.schema(input_schema)
    if root is not None:
        walk.below(root, "", 0)
    return frozenset(walk.found)


def marked_secret(nav: SchemaNavigator, node: Any) -> bool:
    """`node` (or a branch of it: `$ref`, allOf/anyOf/oneOf) says `format: password` or
    `writeOnly: true`."""
    return any(
        b.get("format") == "password" or b.get("writeOnly") is True for b in nav.branches(node)
    )


def _only_switches(nav: SchemaNavigator, node: Any) -> bool:
    types = nav.types(node)
    return bool(types) and types <= {"boolean", "null"}


class _SecretWalk:
    def __init__(self, nav: SchemaNavigator) -> None:
        self.nav = nav
        self.found: set[str] = set()
        self.seen: set[tuple[str, int]] = set()

    def judge(self, written: Any, path: str, depth: int) -> None:
        """The property `written` at `path`: secret, or looked into."""
        key = (path, id(written))
        if key in self.seen or len(self.seen) >= MAX_SCHEMA_VISITS or depth > MAX_SECRET_DEPTH:
            return
        self.seen.add(key)
        node = self.nav.schema(written)
        if node is None:
            return
        if marked_secret(self.nav, node) or (
            secret_name(path) and not _only_switches(self.nav, node)
        ):
            self.found.add(path)
            return  # everything inside a secret is secret
        self.below(node, path, depth + 1)

    def below(self, node: Any, path: str, depth: int) -> None:
        nav = self.nav
        for branch in nav.branches(node):
            for name, written in (nav.properties(branch) or {}).items():
                if isinstance(name, str):
                    self.judge(written, f"{path}.{name}" if path else name, depth)
            prefix = branch.get("prefixItems")
            if isinstance(prefix, list):
                for index in range(min(len(prefix), 64)):
                    self.judge(nav.items(branch, index), path, depth)
            if isinstance(branch.get("items"), dict):
                self.judge(nav.items(branch), path, depth)  # elements stand at the list's path
            extra = branch.get("additionalProperties")
            if path and isinstance(extra, dict):
                resolved = nav.schema(extra)
                if resolved is not None and marked_secret(nav, resolved):
                    self.found.add(path)  # keys unknown: the whole open object is secret


# --- the facts -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class ToolFacts:
    """What Notch knows about one tool, made once (`tool_facts`). Paths are dotted, as
    declared: a list's path stands for its elements (`attendees.email`)."""

    name: str
    argument_paths: tuple[str, ...]
    """Every declared property path, in inputSchema order (nested objects and list
    elements included)."""
    schemas: Mapping[str, Mapping[str, Any]]
    """Each declared path's schema (references followed, through arrays)."""
    secrets: frozenset[str]
    """Declared paths whose values are secret (the rule above)."""
    must_read: tuple[tuple[str, MustRead], ...]
    """Leaf argument paths every read-back names (recipients, phone numbers, IBANs,
    amounts), with what each is; never a secret."""
    free_text: frozenset[str]
    """String arguments the model fills freely (`is_free_text`)."""
    acting: ActingVerdict
    """Whether calls ask the person, the tool's card counted (`acting_verdict`)."""
    own_acting: ActingVerdict
    """The same with its card aside: what the tool itself says it does."""
    fingerprint: str
    """`sha256:<hex>` of the RFC 8785 JSON of the card and the inputSchema: what a person
    agreed to when they turned Asks first off."""
    danger_confirm: bool = False
    """The card's confirm is drawn as dangerous (`color: danger`): never "Always allow"."""
    danger_badge: bool = False
    """The card shows a danger badge on every call (none behind a `visibleIf`): its
    destructive hint is said there, not in a risk line too."""
    _declared: frozenset[str] = field(default=frozenset(), repr=False)
    _relations: dict[str, Relation | None] = field(default_factory=dict, repr=False)

    # --- one path ----------------------------------------------------------------------

    def secret_relation(self, path: str) -> Relation | None:
        """How `path` (declared, or of the arguments with indices) stands to the secrets:
        "is" a secret, lies "inside" one, "holds" one, or None. An argument the schema
        does not declare is a secret when its name says so."""
        if path in self._relations:
            return self._relations[path]
        found: Relation | None = None
        for secret in self.secrets:
            relation = declared_matches(secret, path)
            if relation in ("is", "inside"):
                found = relation
                break
            if relation == "holds":
                found = "holds"
        if found is None and path and not self._is_declared(path) and secret_name(path):
            found = "is"
        if len(self._relations) < _MAX_RELATIONS:
            self._relations[path] = found
        return found

    def is_secret(self, path: str) -> bool:
        """`path` is a secret, lies inside one or holds one: never quoted or read back."""
        return self.secret_relation(path) is not None

    def masks(self, path: str) -> bool:
        """The whole value at `path` is secret (it is one, or lies inside one)."""
        return self.secret_relation(path) in ("is", "inside")

    def _is_declared(self, path: str) -> bool:
        if path in self._declared:
            return True
        return declared_form(path) in self._declared

    # --- a call's arguments -------------------------------------------------------------

    def value(self, arguments: Mapping[str, Any], path: str) -> Any:
        """The value at dotted `path` (indices where lists are), else MISSING."""
        return get_path(arguments, path)

    def secrets_in(self, arguments: Any, at: str = "") -> tuple[str, ...]:
        """The paths of `arguments` (indices spelled out) holding a secret value, sorted,
        none inside another. With `at`, `arguments` is the value found at that path and
        the paths returned are relative to it ("" when the value itself is secret)."""
        if at and self.masks(at):
            return ("",)
        found: set[str] = set()
        for secret in self.secrets:
            rest = secret if not at else declared_rest(secret, at)
            if rest is not None:
                found.update(present_along(arguments, rest))
        for path in _named_paths(arguments, at):
            if not self._is_declared(_joined(at, path)):
                found.add(path)
        return _outermost(found) if found else ()

    def masked(self, arguments: Mapping[str, Any], mask: Any) -> dict[str, Any]:
        """A copy of `arguments` with every secret value (`secrets_in`) replaced by
        `mask`. Only the containers along those paths are copied."""
        out = dict(arguments)
        for path in self.secrets_in(arguments):
            if path:
                out = set_path(out, path, mask)
        return out

    def masked_value(self, value: Any, at: str, mask: Any) -> Any:
        """`value`, found at `at`, with every secret in it replaced by `mask` (the whole
        of it when it is one). The same object when nothing in it is secret."""
        paths = self.secrets_in(value, at)
        if not paths:
            return value
        if paths == ("",):
            return mask
        wrapped: dict[str, Any] = {"v": value}
        for path in paths:
            wrapped = set_path(wrapped, "v." + path, mask)
        return wrapped["v"]


def _named_paths(node: Any, at: str, prefix: str = "", depth: int = 0) -> Iterator[str]:
    """Paths below `node` whose own name says they hold a secret (not true/false/null),
    relative to `node`, outermost only."""
    if depth > MAX_DEPTH:
        return
    if type(node) is dict or isinstance(node, Mapping):  # a dict skips the ABC's check
        items: Iterator[tuple[str, Any]] = ((str(k), v) for k, v in node.items())
    elif isinstance(node, list):
        items = ((str(i), v) for i, v in enumerate(node[:MAX_VALUES]))
    else:
        return
    for key, child in items:
        if not key.isdigit() and secret_name(key) and not isinstance(child, bool | None):
            yield f"{prefix}.{key}" if prefix else key
        elif not isinstance(child, _SCALARS):  # nothing below a scalar: no call for one
            yield from _named_paths(child, at, f"{prefix}.{key}" if prefix else key, depth + 1)


_SCALARS: Final = (str, int, float, type(None))


def _joined(at: str, path: str) -> str:
    return f"{at}.{path}" if at and path else (at or path)


def _outermost(paths: set[str]) -> tuple[str, ...]:
    out: list[str] = []
    for path in sorted(paths, key=lambda p: (p.count("."), p)):
        if not any(path == o or path.startswith(o + ".") or o == "" for o in out):
            out.append(path)
    return tuple(sorted(out))


_FACTS: dict[int, tuple[Tool, ToolFacts]] = {}
_MAX_FACTS: Final = 512


def tool_facts(tool: Tool) -> ToolFacts:
    """The facts of `tool`, made once per Tool object (tools are frozen; the entry holds
    its Tool, so an id is never reused while kept). Never raises for any manifest."""
    kept = _FACTS.get(id(tool))
    if kept is not None and kept[0] is tool:
        return kept[1]
    facts = _made(tool)
    if len(_FACTS) >= _MAX_FACTS:
        _FACTS.pop(next(iter(_FACTS)))
    _FACTS[id(tool)] = (tool, facts)
    return facts


def listed_tool_facts(listed: Mapping[str, Any], *, bare_server: bool = False) -> ToolFacts:
    """The facts of an MCP tool as `tools/list` carries it (`name`, `inputSchema`,
    `annotations`, no card of its own): for the gateway and the hooks, which see tools
    Notch has no manifest for. Not kept: the caller keeps it with the tool."""
    schema = listed.get("inputSchema")
    schema = schema if isinstance(schema, dict) else {}
    name = listed.get("name")
    return _facts(
        name if isinstance(name, str) else "",
        schema,
        frozenset(),
        acting_verdict(listed, has_card=False, bare_server=bare_server),
        acting_verdict(listed, has_card=False, bare_server=bare_server),
        _fingerprint(None, schema),
    )


def _made(tool: Tool) -> ToolFacts:
    from notch_app.manifest.model import PasswordFieldBlock, iter_blocks

    bound: set[str] = set()
    view: Any = None
    if tool.confirmation is not None:
        for block in iter_blocks(tool.confirmation.root):
            if isinstance(block, PasswordFieldBlock):
                # A malformed bind is reported by `notch validate`; nothing to mask then.
                with contextlib.suppress(MalformedBinding):
                    bound.add(parse_single_binding(block.bind))
        # Defaults left out, so a new optional field in the view model does not by itself
        # reset everybody's choices.
        view = tool.confirmation.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    facts = _facts(
        tool.name,
        tool.input_schema,
        frozenset(bound),
        acting_verdict(tool),
        acting_verdict(tool, has_card=False),
        _fingerprint(view, tool.input_schema),
    )
    if tool.confirmation is None:
        return facts
    # Read from the card once per tool, not on every card and keystroke (the risk lines
    # and the scope choices follow every edit).
    danger = _card_danger(tool.confirmation.root)
    return replace(facts, danger_confirm=danger[0], danger_badge=danger[1])


def _card_danger(root: Any) -> tuple[bool, bool]:
    """(a confirm drawn as dangerous, a danger badge shown on every call) in a card."""
    from notch_app.manifest.model import ActionItem, BadgeBlock, ButtonBlock, walk_blocks

    confirm = any(
        isinstance(v.block, ActionItem | ButtonBlock)
        and v.block.role == "confirm"
        and v.block.color == "danger"
        for v in walk_blocks(root, action_items=True)
    )
    hidden: set[int] = set()
    badge = False
    for visit in walk_blocks(root, pruned=hidden):
        block = visit.block
        if getattr(block, "visible_if", None):
            hidden.add(id(block))
        elif isinstance(block, BadgeBlock) and block.tone == "danger":
            badge = True
            break
    return confirm, badge


def _facts(
    name: str,
    schema: Any,
    bound_secrets: frozenset[str],
    acting: ActingVerdict,
    own_acting: ActingVerdict,
    fingerprint: str,
) -> ToolFacts:
    secrets = schema_secrets(schema) | bound_secrets
    nav = navigator_for(schema)
    paths: list[str] = []
    schemas: dict[str, Mapping[str, Any]] = {}
    must: list[tuple[str, MustRead]] = []
    free: set[str] = set()
    for path, _written, inner in nav.argument_paths():
        paths.append(path)
        schemas[path] = inner
        if any(declared_matches(s, path) in ("is", "inside") for s in secrets):
            continue
        if nav.properties(inner):
            continue  # an object: its leaves are judged one by one
        kind = must_read_kind(path, inner)
        if kind is not None:
            must.append((path, kind))
        elif is_free_text(inner):
            free.add(path)
    return ToolFacts(
        name=name,
        argument_paths=tuple(paths),
        schemas=schemas,
        secrets=secrets,
        must_read=tuple(must),
        free_text=frozenset(free),
        acting=acting,
        own_acting=own_acting,
        fingerprint=fingerprint,
        _declared=frozenset(paths),
    )


def _fingerprint(view: Any, schema: Any) -> str:
    document = {"confirmation": view, "inputSchema": schema}
    try:
        text = canonical_json(document, "fingerprint")
    except NotDigestible:  # NaN or a huge int in a schema built in memory: still one spelling
        text = canonical_json(_spellable(document), "fingerprint")
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _spellable(value: Any, depth: int = 0) -> Any:
    """`value` with what RFC 8785 cannot spell written as text (bounded)."""
    if depth > 64:
        return None
    if isinstance(value, Mapping):
        return {str(k): _spellable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_spellable(v, depth + 1) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if abs(value) <= 2**53 - 1 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return str(value)


__all__ = [
    "MISSING",
    "SECRET_WORDS",
    "MustRead",
    "ToolFacts",
    "is_free_text",
    "listed_tool_facts",
    "marked_secret",
    "must_read_kind",
    "name_words",
    "schema_secrets",
    "secret_name",
    "tool_facts",
]

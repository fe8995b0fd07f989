"""A decision: how one confirmation request ended, as sent to the executor and stored.

The same shape travels over the socket (`Decision.to_wire()` / `Decision.from_wire()`),
is returned by `notch_app.client` and printed by `notch ask`.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal, get_args

import orjson
import rfc8785

from notch_app.runtime.presenter import DecidedBy, Outcome, Scope

RUNS: Final = frozenset({"approved", "autoApproved", "notRequired"})
"""Outcomes after which the executor runs the tool (with `Decision.arguments`)."""

OUTCOMES: Final = frozenset(get_args(Outcome))
DECIDED_BY: Final = frozenset(get_args(DecidedBy))
SCOPES: Final = frozenset(get_args(Scope))
MAX_FOR_MODEL_CHARS: Final = 600
"""The longest `for_model` sentence (values in it are cut with … well before that)."""
MAX_FEEDBACK_CHARS: Final = 500
Reason = Literal["revise"]
"""Why a decline carries words: the person asked the agent for a change."""
REASONS: Final = frozenset(get_args(Reason))


class NotDigestible(ValueError):
    """A value with no RFC 8785 spelling: NaN or ±Infinity, an integer outside ±(2**53 - 1),
    text that is not valid Unicode (a lone surrogate), a key that is not text, or a type
    JSON does not have. `path` is where, as `arguments.a.0.b` (the root is `where`)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def canonical_json(value: Any, where: str = "arguments") -> str:
    """The one JSON spelling digests are computed over: RFC 8785 (JCS), so an executor in
    any language recomputes the same bytes (JavaScript: sorted keys and JSON.stringify).

    Raises NotDigestible, naming the place under `where`, for a value JCS cannot spell.
    """
    if _plain(value):
        # For these trees orjson's sorted output is the JCS spelling (a Hypothesis test
        # holds them equal), at C speed: rfc8785 is pure Python, ~10x slower.
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")
        except orjson.JSONEncodeError:
            pass  # a lone surrogate: rfc8785 below refuses it, naming the place
    try:
        return rfc8785.dumps(value).decode("utf-8")
    except rfc8785.CanonicalizationError:
        # The library does not say where; find the place so the message can name it.
        path, problem = _first_problem(value, where)
        raise NotDigestible(path, problem) from None


def _plain(value: Any) -> bool:
    """True for a tree of objects with ASCII keys, arrays, text, booleans, null and
    integers within ±(2**53 - 1): no floats (JCS spells them as JavaScript does) and no
    key whose UTF-16 order could differ from its code-point order."""
    stack = [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is str or kind is bool or node is None:
            continue
        if kind is int:
            if -_SAFE_INT <= node <= _SAFE_INT:
                continue
            return False
        if kind is dict:
            for key in node:
                if type(key) is not str or not key.isascii():
                    return False
            stack.extend(node.values())
        elif kind is list:
            stack.extend(node)
        else:
            return False
    return True


def arguments_digest(
    arguments: Mapping[str, Any], keyed: Sequence[str] = (), salt: bytes | None = None
) -> str:
    """`sha256:<hex>` of the canonical JSON (RFC 8785) of `arguments`.

    An executor recomputes it over what it is about to run and compares: approval is
    bound to exactly these arguments. With `keyed` (dotted paths of secret values: a PIN,
    a password), the value at each is first replaced by `keyed_value(salt, value)`, so a
    copy of the digest beside the masked arguments (the store, `confirm.get`) cannot be
    turned back into the secret by trying every PIN: the salt travels only with the live
    decision. Raises NotDigestible (see `canonical_json`; also for a keyed path that holds
    no value), ValueError for `keyed` without a salt.
    """
    if keyed:
        if salt is None:
            raise ValueError("a digest over secret values needs the salt they are keyed with")
        arguments = _with_keyed_values(arguments, keyed, salt)
    return "sha256:" + hashlib.sha256(canonical_json(dict(arguments)).encode("utf-8")).hexdigest()


KEYED_PREFIX: Final = "hmac-sha256:"
DIGEST_SALT_BYTES: Final = 32
"""A fresh 256-bit salt per request whose decision holds secret values (hex on the wire)."""


def new_digest_salt() -> bytes:
    """A fresh salt for keying the secret values of one request's decision."""
    return secrets.token_bytes(DIGEST_SALT_BYTES)


def keyed_value(salt: bytes, value: Any, where: str = "arguments") -> str:
    """What a secret value is replaced by in the digest: `hmac-sha256:` + the hex
    HMAC-SHA256, keyed by `salt`, of the value's canonical JSON (a PIN "4711" is the six
    bytes `"4711"`, quotes included). Raises NotDigestible, naming `where`."""
    mac = hmac.new(salt, canonical_json(value, where).encode("utf-8"), hashlib.sha256)
    return KEYED_PREFIX + mac.hexdigest()


def _with_keyed_values(
    arguments: Mapping[str, Any], keyed: Sequence[str], salt: bytes
) -> dict[str, Any]:
    """A copy of `arguments` with the value at each dotted path of `keyed` replaced by its
    keyed hash. Only the objects along those paths are copied; `arguments` is unchanged."""
    out = dict(arguments)
    for path in keyed:
        node = out
        parts = path.split(".")
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, Mapping):
                raise NotDigestible(f"arguments.{path}", "is keyed but holds no value")
            node[part] = child = dict(child)
            node = child
        last = parts[-1]
        if last not in node:
            raise NotDigestible(f"arguments.{path}", "is keyed but holds no value")
        node[last] = keyed_value(salt, node[last], f"arguments.{path}")
    return out


def _first_problem(value: Any, path: str) -> tuple[str, str]:
    """Where and why `value` has no JCS spelling (depth-first, keys in sorted order)."""
    found = _problem_at(value, path)
    return found if found is not None else (path, "cannot be written as RFC 8785 JSON")


def _problem_at(value: Any, path: str) -> tuple[str, str] | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        if abs(value) <= _SAFE_INT:
            return None
        return path, (
            f"the integer {value} is beyond ±(2**53 - 1), which a JSON number cannot carry "
            "exactly; send it as a string"
        )
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return path, f"{value} is not a JSON number; send a finite number"
    if isinstance(value, str):
        bad = next((c for c in value if 0xD800 <= ord(c) <= 0xDFFF), None)
        if bad is None:
            return None
        return path, (
            f"text holds a lone surrogate (U+{ord(bad):04X}), which is not Unicode; "
            "send valid UTF-8"
        )
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _problem_at(item, f"{path}.{index}")
            if found is not None:
                return found
        return None
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                return path, f"the key {key!r} is not text"
            found = _problem_at(key, f"{path} (a key)")
            if found is not None:
                return found
        for key in sorted(value):
            found = _problem_at(value[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    return path, f"a {type(value).__name__} is not a JSON value"


_SAFE_INT: Final = 2**53 - 1
"""The largest integer a JSON number (an IEEE double) carries exactly; RFC 8785 stops there."""


class DecisionNotVerified(ValueError):
    """A decision an executor must not act on: its digest is missing or wrong."""


class SecretsWithheld(DecisionNotVerified):
    """An approval whose secret values were not kept (`Decision.secrets_withheld`)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """How the request `call_id` ended.

    `arguments` are what to run with (the final, possibly edited arguments) when
    `outcome` is approved, autoApproved or notRequired, and None otherwise: nothing runs.
    `already_decided` is True when this decision was made before the message that
    returned it (a repeated callId, a reconnect): it is the same single decision reported
    again, never a second approval.
    """

    call_id: str
    outcome: Outcome
    integration_id: str
    tool_name: str
    arguments: dict[str, Any] | None = field(default=None, repr=False)  # may hold secrets
    edited_paths: tuple[str, ...] = ()
    digest: str | None = None
    decided_by: DecidedBy = "service"
    decided_at: float = 0.0
    message: str | None = None
    """Why, in words, for outcomes other than approved (e.g. which card superseded it)."""
    already_decided: bool = False
    secrets_withheld: tuple[str, ...] = ()
    """Argument paths whose secret values (passwordField, `format: password`) were never
    stored, so this replay carries `REDACTED` there instead: the approval stands, but the
    executor must ask the person for those values again. Empty for a live decision."""
    scope: Scope | None = None
    """For an approval, how far it reaches: "once" (this call), "session" (approved for
    the rest of the asker's session, or run without a card under such an approval),
    "always" (the person turned the action's Asks first off). None when nothing ran."""
    for_model: str = ""
    """One ready sentence to hand the model as the tool's result when it did not run, or
    beside the result when it did: built by Notch from this decision alone (never from the
    model's words or context), secret values never quoted, at most MAX_FOR_MODEL_CHARS."""
    feedback: str | None = None
    """The person's own words with a decline ("make it shorter"), when they gave some."""
    reason: Reason | None = None
    """Why a decline: "revise" when the person asked for a change in words (the agent is
    expected to send a new request with `supersedes`), else None."""
    words: str | None = None
    """The words that gave the decision, when it was said or typed ("yes, send it"), as
    heard: for the log, so the person can see how each decision was given."""
    digest_keyed: tuple[str, ...] = ()
    """Argument paths of secret values that `digest` covers keyed (`keyed_value`) with
    `digest_salt`, not as they are: empty when the arguments hold no secret value."""
    digest_salt: str | None = field(default=None, repr=False)
    """The salt (hex) of `digest_keyed`, only ever in the live decision sent to the asker:
    never stored, so a stored digest cannot be brute-forced back into a short secret."""

    @property
    def runs(self) -> bool:
        """True when the executor may run the tool (once) with `arguments`."""
        return self.outcome in RUNS

    def verify(self) -> None:
        """What an executor checks before it runs anything: a decision that runs must
        carry a digest equal to the digest of its arguments, and all of its secret
        values. Call it on every decision from the socket (`notch ask` does).

        Raises SecretsWithheld when the approval stands but secret values must be asked
        for again (a replay after a restart), DecisionNotVerified when the digest is
        missing or wrong (not Notch's decision, or altered): never run then.
        """
        if not self.runs:
            return
        where = f"decision for {self.call_id!r} ({self.outcome})"
        if self.arguments is None:
            raise DecisionNotVerified(f"{where} has no arguments; do not run it")
        if self.secrets_withheld:
            raise SecretsWithheld(
                f"{where}: the approval stands, but Notch never stores secret values, so "
                f"{', '.join(self.secrets_withheld)} must be asked for again: send a new "
                "request (a new callId) for the person to type them"
            )
        if not self.digest:
            raise DecisionNotVerified(f"{where} carries no digest; do not run it")
        salt: bytes | None = None
        if self.digest_keyed:
            try:
                salt = bytes.fromhex(self.digest_salt or "")
            except ValueError:
                salt = b""
            if not salt:
                raise DecisionNotVerified(
                    f"{where}: its digest keys {', '.join(self.digest_keyed)} but it carries "
                    "no digestSalt to key them with; do not run it"
                )
        try:
            recomputed = arguments_digest(self.arguments, self.digest_keyed, salt)
        except NotDigestible as exc:
            raise DecisionNotVerified(f"{where}: {exc}; do not run it") from None
        if recomputed != self.digest:
            raise DecisionNotVerified(
                f"{where}: its digest {self.digest} is not the digest of its arguments "
                f"({recomputed}); the arguments are not what was approved, do not run them"
            )

    def replayed(self) -> Decision:
        """This decision as reported again for a repeated callId."""
        return replace(self, already_decided=True)

    def to_wire(self) -> dict[str, Any]:
        """The JSON object sent over the socket and printed by `notch ask`."""
        out: dict[str, Any] = {
            "callId": self.call_id,
            "outcome": self.outcome,
            "arguments": self.arguments,
            "integration": self.integration_id,
            "tool": self.tool_name,
            "editedPaths": list(self.edited_paths),
            "digest": self.digest,
            "decidedBy": self.decided_by,
            "decidedAt": self.decided_at,
        }
        if self.message is not None:
            out["message"] = self.message
        if self.already_decided:
            out["alreadyDecided"] = True
        if self.secrets_withheld:
            out["secretsWithheld"] = list(self.secrets_withheld)
        out["scope"] = self.scope
        out["forModel"] = self.for_model
        if self.feedback is not None:
            out["feedback"] = self.feedback
        if self.reason is not None:
            out["reason"] = self.reason
        if self.words is not None:
            out["words"] = self.words
        if self.digest_keyed:
            out["digestKeyedPaths"] = list(self.digest_keyed)
            out["digestSalt"] = self.digest_salt
        return out

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Decision:
        """Parse `to_wire()` output. Raises ValueError when a field is missing or wrong."""
        try:
            get = data.get
            outcome = data["outcome"]
            if outcome not in OUTCOMES:
                raise ValueError(f"unknown outcome {outcome!r}")
            decided_by = get("decidedBy", "service")
            if decided_by not in DECIDED_BY:
                raise ValueError(f"unknown decidedBy {decided_by!r}")
            arguments = get("arguments")
            if arguments is not None and not isinstance(arguments, dict):
                raise ValueError("arguments must be an object or null")
            edited = get("editedPaths")
            withheld = get("secretsWithheld")
            scope = get("scope")
            if scope is not None and scope not in SCOPES:
                raise ValueError(f"unknown scope {scope!r}")
            for_model = get("forModel") or ""
            feedback = get("feedback")
            if not isinstance(for_model, str) or not isinstance(feedback, str | None):
                raise ValueError("forModel and feedback must be text")
            reason = get("reason")
            if reason is not None and reason not in REASONS:
                raise ValueError(f"unknown reason {reason!r}")
            words = get("words")
            if not isinstance(words, str | None):
                raise ValueError("words must be text")
            keyed = get("digestKeyedPaths") or []
            salt = get("digestSalt")
            if not isinstance(keyed, list) or not all(isinstance(p, str) for p in keyed):
                raise ValueError("digestKeyedPaths must be a list of argument paths")
            if not isinstance(salt, str | None):
                raise ValueError("digestSalt must be hex text")
            return cls(
                str(data["callId"]),
                outcome,
                str(get("integration", "")),
                str(get("tool", "")),
                arguments,
                tuple(map(str, edited)) if edited else (),
                get("digest"),
                decided_by,
                float(get("decidedAt") or 0.0),
                get("message"),
                bool(get("alreadyDecided", False)),
                tuple(map(str, withheld)) if withheld else (),
                scope,
                for_model[:MAX_FOR_MODEL_CHARS],
                None if feedback is None else feedback[:MAX_FEEDBACK_CHARS],
                reason,
                None if words is None else words[:MAX_FEEDBACK_CHARS],
                tuple(keyed),
                salt,
            )
        except KeyError as exc:
            raise ValueError(f"a decision needs {exc.args[0]!r}") from None
        except TypeError as exc:
            raise ValueError(str(exc)) from None


def changed_paths(before: Any, after: Any, prefix: str = "") -> list[str]:
    """Dotted paths whose value differs between two argument trees (leaves and
    added/removed keys), so an edit is never hidden even if the card forgot to report it.
    """
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in before or key not in after:
                out.append(path)
            else:
                out.extend(changed_paths(before[key], after[key], path))
        return out
    if before == after and type(before) is type(after):
        return []
    return [prefix] if prefix else [""]

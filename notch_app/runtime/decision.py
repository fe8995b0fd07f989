"""A decision: how one confirmation request ended, as sent to the executor and stored.

The same shape travels over the socket (`Decision.to_wire()` / `Decision.from_wire()`),
is returned by `notch_app.client` and printed by `notch ask`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal, get_args

from notch_app.manifest.canonical_json import NotDigestible as NotDigestible  # re-exported
from notch_app.manifest.canonical_json import canonical_json as canonical_json  # re-exported
from notch_app.manifest.paths import MISSING, get_path, set_path
from notch_app.runtime.outcomes import DecidedBy, Outcome, Scope

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
    """A copy of `arguments` with the value at each dotted path of `keyed` (indices where
    lists are: `attendees.0.pin`) replaced by its keyed hash. Only the containers along
    those paths are copied (`set_path`); `arguments` is unchanged."""
    out = dict(arguments)
    for path in keyed:
        value = get_path(out, path)
        if value is MISSING:
            raise NotDigestible(f"arguments.{path}", "is keyed but holds no value")
        out = set_path(out, path, keyed_value(salt, value, f"arguments.{path}"))
    return out


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

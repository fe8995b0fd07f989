"""A decision: how one confirmation request ended, as sent to the executor and stored.

The same shape travels over the socket (`Decision.to_wire()` / `Decision.from_wire()`),
is returned by `notch_app.client` and printed by `notch ask`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, get_args

from notch_app.runtime.presenter import DecidedBy, Outcome

RUNS: Final = frozenset({"approved", "autoApproved", "notRequired"})
"""Outcomes after which the executor runs the tool (with `Decision.arguments`)."""

OUTCOMES: Final = frozenset(get_args(Outcome))
DECIDED_BY: Final = frozenset(get_args(DecidedBy))


_CANONICAL: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
# One encoder for every call: `json.dumps` with options builds a new one each time.


def canonical_json(value: Any) -> str:
    """The one JSON spelling of `value` that digests are computed over."""
    return _CANONICAL.encode(value)


def arguments_digest(arguments: Mapping[str, Any]) -> str:
    """`sha256:<hex>` of the canonical JSON of `arguments`.

    An executor recomputes it over what it is about to run and compares: approval is
    bound to exactly these arguments.
    """
    return "sha256:" + hashlib.sha256(canonical_json(arguments).encode("utf-8")).hexdigest()


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
    arguments: dict[str, Any] | None = None
    edited_paths: tuple[str, ...] = ()
    digest: str | None = None
    decided_by: DecidedBy = "service"
    decided_at: float = 0.0
    message: str | None = None
    """Why, in words, for outcomes other than approved (e.g. which card superseded it)."""
    already_decided: bool = False

    @property
    def runs(self) -> bool:
        """True when the executor may run the tool (once) with `arguments`."""
        return self.outcome in RUNS

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

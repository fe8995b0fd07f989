"""What of a call's arguments reaches the file: plain JSON, secret values REDACTED, and
the paths withheld (which a decision read back asks for again)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from notch_app.runtime.redaction import redact_paths

if TYPE_CHECKING:  # the facts load pydantic and jsonschema; `notch log` reads without them
    from notch_app.manifest.facts import ToolFacts

SecretsOf: TypeAlias = Callable[[str, str], "ToolFacts | None"]
"""(integration id, tool name) → the tool's facts, which say which argument values are
secret (`ToolFacts.secrets_in`); None when that tool is not installed (so which values
are secret is unknown)."""


def no_secrets(_integration: str, _tool: str) -> ToolFacts | None:
    return None


def to_json(value: Any) -> str:
    # Plain JSON (1250.0 stays a float when read back); never NaN, which is not JSON.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def kept(arguments: dict[str, Any], secrets: ToolFacts | None) -> tuple[str, str]:
    """(JSON of `arguments` with secret values REDACTED, JSON list of the paths withheld)."""
    shown, withheld = masked(arguments, secrets)
    return to_json(shown), to_json(list(withheld))


def masked(
    arguments: dict[str, Any], secrets: ToolFacts | None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """(`arguments` with secret values REDACTED, the paths withheld)."""
    withheld = secrets.secrets_in(arguments) if secrets is not None else ()
    return (redact_paths(arguments, withheld) if withheld else arguments), withheld

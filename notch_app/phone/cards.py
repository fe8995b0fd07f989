"""What of a waiting request the phone page shows: the headline, the facts that matter,
what will run (the read-back), who asks, and whether it may be approved there.

Built only from the request as the service holds it and the tool as installed: a secret
value (a password field, `format: password`) is never sent to the phone, and a card that
holds a secret field cannot be approved from it (decline and words still can)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from notch_app.card.read_back import read_back
from notch_app.manifest.facts import ToolFacts, tool_facts
from notch_app.manifest.model import Tool
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.decision import NotDigestible, arguments_digest
from notch_app.runtime.policy_book.hook import glance_text
from notch_app.runtime.presenter import ConfirmationRequest

MAX_FACTS: Final = 12
MAX_VALUE_CHARS: Final = 160
SECRET_SHOWN: Final = "•••••• (on the desktop only)"


@dataclass(frozen=True, slots=True)
class PhoneCard:
    call_id: str
    digest: str
    """The arguments' digest when listed: an answer names it, and is refused once the
    request's arguments are no longer these."""
    integration: str
    headline: str
    read_back: str
    facts: tuple[tuple[str, str], ...]
    asker: str
    holds_secret: bool
    note: str | None
    """Why it asks although Asks first is off, or "Updated by the agent: …"."""
    batch: str | None

    def to_json(self, nonce: str) -> dict[str, Any]:
        return {
            "callId": self.call_id,
            "digest": self.digest,
            "nonce": nonce,
            "integration": self.integration,
            "headline": self.headline,
            "readBack": self.read_back,
            "facts": [list(f) for f in self.facts],
            "asker": self.asker,
            "approvable": not self.holds_secret,
            "note": self.note,
            "batch": self.batch,
        }


def request_digest(request: ConfirmationRequest) -> str:
    """The digest an answer from the phone is bound to: of the request's arguments as the
    service holds them now ("" when they have none, which no answer can name)."""
    try:
        return arguments_digest(request.arguments)
    except NotDigestible:
        return ""


def phone_card(catalog: Catalog, request: ConfirmationRequest) -> PhoneCard | None:
    """The phone's view of `request`, or None when its integration or tool is not
    loaded (such a card is answered on the desktop)."""
    manifest = catalog.integration(request.integration_id)
    tool = catalog.tool(request.integration_id, request.tool_name)
    if manifest is None or tool is None:
        return None
    secrets = tool_facts(tool)
    try:
        said = read_back(tool, request.arguments)
    except Exception:  # the card says it all on the desktop; the phone shows the facts
        said = ""
    agent = request.context.get("agent") if isinstance(request.context, dict) else None
    batch = (
        f"{(request.batch_index or 0) + 1} of {request.batch_size}"
        if request.batch_id and request.batch_size
        else None
    )
    return PhoneCard(
        call_id=request.call_id,
        digest=request_digest(request),
        integration=manifest.name,
        headline=glance_text(tool, request.arguments),
        read_back=said,
        facts=tuple(_facts(tool, request.arguments, secrets)),
        asker=_line(agent, 60) if isinstance(agent, str) and agent.strip() else "An agent",
        holds_secret=bool(secrets.secrets or secrets.secrets_in(request.arguments)),
        note=request.reason,
        batch=batch,
    )


def _facts(tool: Tool, arguments: Mapping[str, Any], secrets: ToolFacts) -> list[tuple[str, str]]:
    titles = {
        name: str(spec.get("title") or name)
        for name, spec in (tool.input_schema.get("properties") or {}).items()
        if isinstance(spec, Mapping)
    }
    out: list[tuple[str, str]] = []
    for path, value in _leaves(arguments, ""):
        top = path.split(".", 1)[0]
        label = titles.get(top, top) + path[len(top) :]
        secret = secrets.masks(path)
        out.append(
            (_line(label, 40), SECRET_SHOWN if secret else _line(_text(value), MAX_VALUE_CHARS))
        )
        if len(out) == MAX_FACTS:
            more = sum(1 for _ in _leaves(arguments, "")) - MAX_FACTS
            if more > 0:
                out.append(("…", f"{more} more on the desktop card"))
            break
    return out


def _leaves(node: Any, prefix: str, depth: int = 0) -> Any:
    if isinstance(node, Mapping) and depth < 6:
        for key, value in node.items():
            yield from _leaves(value, f"{prefix}.{key}" if prefix else str(key), depth + 1)
    else:
        yield prefix or "arguments", node


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(str(v) for v in value) or "(none)"  # a list of names reads as one
    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    except ValueError:
        return str(value)


def _line(text: str, limit: int) -> str:
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"

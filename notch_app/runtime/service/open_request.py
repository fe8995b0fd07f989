"""A request waiting for the person, a planned one, and the digest its decision is sealed with."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from notch_app.manifest.facts import tool_facts
from notch_app.manifest.model import Manifest, Tool
from notch_app.runtime.decision import (
    Decision,
    arguments_digest,
    new_digest_salt,
)
from notch_app.runtime.policy import PolicyVerdict
from notch_app.runtime.presenter import (
    ConfirmationRequest,
    Scope,
)
from notch_app.runtime.service.calls import (
    Event,
    EventListener,
    ServiceError,
)

log = logging.getLogger("notch.service")


@dataclass(slots=True, eq=False)
class OpenRequest:
    """A request waiting for the person."""

    request: ConfirmationRequest
    integration: Manifest
    tool: Tool
    digest: str
    future: asyncio.Future[Decision]
    timer: asyncio.TimerHandle | None = None
    listeners: list[EventListener] = field(default_factory=list)
    ending: Decision | None = None
    """Set while its decision is being written: no other decision can take its place."""
    stored: bool = True
    """False while its request row is being written (its card is already shown)."""
    held: list[tuple[Event, dict[str, Any]]] | None = None
    """Events from the card before the request was stored, sent after confirmationRequired."""
    owner: str | None = None
    """The hash of its asker's token; None when the app itself asked."""
    source: str | None = None
    """Where its integration came from when it was asked (`integration_source`): what an
    "Always allow" on its card is bound to, even if another attach replaced it since."""
    salt: bytes | None = None
    """Keys the secret values in its decision's digest (made once, at its first decision
    holding one: a retried write of the same decision has the same digest)."""
    keyed: tuple[str, ...] | None = None
    """The secret paths of `request.arguments` (`keyed_paths`), worked out once when it
    was planned: `sealed` reuses them for a decision that runs with those arguments."""


@dataclass(slots=True)
class Planned:
    """A checked call of `submit` about to be decided by policy or shown as a card."""

    item: OpenRequest
    verdict: PolicyVerdict
    old: OpenRequest | None
    scope: Scope | None


def done_future(loop: asyncio.AbstractEventLoop, decision: Decision) -> asyncio.Future[Decision]:
    done: asyncio.Future[Decision] = loop.create_future()
    done.set_result(decision)
    return done


def keyed_paths(tool: Tool | None, arguments: Mapping[str, Any]) -> tuple[str, ...]:
    """The paths in `arguments` holding a secret value of `tool` (`ToolFacts.secrets_in`:
    the same the store withholds)."""
    if tool is None or tool is GONE_TOOL:
        return ()
    return tool_facts(tool).secrets_in(arguments)


def sealed(
    decision: Decision,
    tool: Tool,
    item: OpenRequest | None = None,
    keyed: tuple[str, ...] | None = None,
) -> Decision:
    """`decision` with the digest its executor checks: the plain digest of its arguments,
    unless they hold secret values; then keyed (decision.py: `arguments_digest`) with the
    request's salt, which only this live decision carries. Nothing else changes.
    `keyed`: the secret paths of `decision.arguments` when the caller already has them."""
    arguments = decision.arguments
    if not decision.runs or arguments is None:
        return decision
    if keyed is None:
        if item is not None and item.keyed is not None and arguments is item.request.arguments:
            keyed = item.keyed  # the arguments it was planned with, not edited ones
        else:
            keyed = keyed_paths(tool, arguments)
    if not keyed:
        return decision
    salt = new_digest_salt() if item is None else item.salt or new_digest_salt()
    if item is not None:
        item.salt = salt
    return replace(
        decision,
        digest=arguments_digest(arguments, keyed, salt),
        digest_keyed=keyed,
        digest_salt=salt.hex(),
    )


def fail_future(future: asyncio.Future[Decision], error: ServiceError) -> None:
    """End `future` with `error`, marked as seen: a request asked with `wait: false`, or
    whose client went away, has nobody awaiting it, and asyncio would log "Future exception
    was never retrieved" for it. Anyone awaiting it still gets the error."""
    if not future.done():
        future.set_exception(error)
        future.exception()


# Stand-ins for a stored request whose integration was removed before a restart.
GONE_TOOL: Final = Tool(name="gone", input_schema={"type": "object"})
GONE_INTEGRATION: Final = Manifest(
    schema_version=1, id="gone.gone", version="0", name="gone", tools=[]
)

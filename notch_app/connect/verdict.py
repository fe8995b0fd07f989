"""Asking Notch about the tool calls of one model turn, for every connector.

A framework hands over its pending calls (its own call id, tool name, arguments); each
comes back as a `Verdict`: run it with these arguments (maybe the person's edits), or
do not, with the sentence the model reads instead of a result. A bad call (a name no
route knows, arguments Notch refuses) gets its own refusal; the rest of the turn is
still asked about.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final, Protocol

from notch_app.connect.tools import ToolNames, UnknownToolName
from notch_app.ipc.blocking import NotchClient
from notch_app.ipc.client import (
    AsyncNotchClient,
    BatchCall,
    NotchDecisionRefused,
    NotchError,
    NotchRequestError,
)
from notch_app.runtime.decision import Decision

MAX_CALL_ID: Final = 128
"""Notch's limit on a callId; longer framework ids are hashed."""
_SHOWN_PATHS: Final = 20
_SHOWN_MESSAGE: Final = 300


class NotchConnectorError(NotchError):
    """A connector was used in a way it cannot answer safely (named in the message, with
    the fix). Nothing ran."""


class Route(Protocol):
    """Where a framework's tool name lives in Notch."""

    def resolve(self, name: object) -> tuple[str, str]:
        """(integration, tool); raises UnknownToolName."""
        ...


@dataclass(frozen=True, slots=True)
class OneIntegration:
    """Every tool name is a tool of `integration`, under the same name."""

    integration: str

    def resolve(self, name: object) -> tuple[str, str]:
        if not isinstance(name, str) or not name:
            raise UnknownToolName(name, [])
        return self.integration, name


@dataclass(frozen=True, slots=True)
class NamedRoutes:
    """An explicit map: framework name → (integration, tool)."""

    routes: Mapping[str, tuple[str, str]]

    def resolve(self, name: object) -> tuple[str, str]:
        found = self.routes.get(name) if isinstance(name, str) else None
        if found is None:
            raise UnknownToolName(name, sorted(self.routes))
        return found


Routing = Route | ToolNames | str | Mapping[str, tuple[str, str]]
"""What a connector takes as `tools=`: a ToolNames from the catalog, an integration id
(the framework's tool names are that integration's), or an explicit map."""


def route_of(tools: Routing) -> Route:
    """`tools=` as a Route. Raises NotchConnectorError for anything else."""
    if isinstance(tools, str):
        return OneIntegration(tools)
    if isinstance(tools, Mapping):
        return NamedRoutes(dict(tools))
    if callable(getattr(tools, "resolve", None)):
        return tools
    raise NotchConnectorError(
        f"tools={tools!r} says nothing about where the tools live in Notch: pass an "
        "integration id, a ToolNames, or a map of tool name to (integration, tool)"
    )


@dataclass(frozen=True, slots=True)
class PendingCall:
    """One tool call a framework is holding until the person answers."""

    call_id: str
    """Notch's callId for it (see `CallIds`)."""
    name: str
    """The tool name the framework (and the model) knows."""
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What to do with one pending call."""

    call: PendingCall
    runs: bool
    arguments: dict[str, Any] | None = field(repr=False)
    """What to run it with (the person's edits included) when it runs; None otherwise."""
    edited: bool
    """It runs with arguments other than the model's."""
    for_model: str
    """The sentence the model reads: what ran and with which edits, or why nothing ran."""
    decision: Decision | None = None
    """Notch's decision; None when the call never reached a card (refused, unknown)."""


class CallIds:
    """Notch callIds for a framework's call ids: `<session>:<id>`, so the same model call
    id in two runs (a scripted model, a reused id) never picks up the other run's
    decision, while the same session after a crash picks up its own. Ids too long or
    with characters Notch refuses are hashed."""

    def __init__(self, session: str | None = None) -> None:
        self.session = session or uuid.uuid4().hex[:16]

    def __call__(self, framework_id: object) -> str:
        text = str(framework_id)
        call_id = f"{self.session}:{text}"
        if len(call_id) <= MAX_CALL_ID and call_id.isprintable():
            return call_id
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return f"{self.session[: MAX_CALL_ID - 34]}:#{digest}"


# --- asking ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Asked:
    call: PendingCall
    integration: str
    tool: str
    verdict: Verdict | None = None


def _routed(route: Route, calls: Iterable[PendingCall]) -> list[_Asked]:
    out: list[_Asked] = []
    seen: set[str] = set()
    for call in calls:
        if call.call_id in seen:
            out.append(_Asked(call, "", "", refused(call, "it repeats a call id of this turn")))
            continue
        seen.add(call.call_id)
        try:
            integration, tool = route.resolve(call.name)
        except UnknownToolName as exc:
            out.append(_Asked(call, "", "", refused(call, str(exc), exact=True)))
            continue
        if not isinstance(call.arguments, dict):
            out.append(
                _Asked(call, integration, tool, refused(call, "its arguments are not an object"))
            )
            continue
        out.append(_Asked(call, integration, tool))
    return out


def decide(
    client: NotchClient,
    tools: Routing,
    calls: Sequence[PendingCall],
    *,
    timeout: float | None = None,
    context: Mapping[str, Any] | None = None,
) -> list[Verdict]:
    """Ask the person about `calls` (one model turn) and return a verdict per call, in
    order. Two or more go as one batch (`confirm_many`: "1 of N" on the card, Approve
    all / Decline all), every card queued before any answer. After `timeout`
    seconds the unanswered ones are withdrawn (their cards go) and do not run.
    Raises NotchNotRunning / NotchConnectionLost / NotchUntrusted: then nothing runs."""
    asked = _routed(route_of(tools), calls)
    if len(asked) == 1 and asked[0].verdict is None:
        _confirm_one(client, asked[0], timeout, context)  # one round trip
        return [_done(asked[0])]
    waiting = [item for item in asked if item.verdict is None]
    if waiting:
        try:
            results = client.confirm_many(_batch(waiting), context=context, timeout=timeout)
        except TimeoutError:  # every open call was withdrawn; read how each ended
            results = [_ended(partial(client.withdraw, item.call.call_id)) for item in waiting]
        _give(waiting, results)
    return [_done(item) for item in asked]


def _confirm_one(
    client: NotchClient, item: _Asked, timeout: float | None, context: Mapping[str, Any] | None
) -> None:
    call = item.call
    try:
        try:
            decision = client.confirm(
                item.integration, item.tool, call.arguments,
                call_id=call.call_id, context=context, timeout=timeout,
            )  # fmt: skip
        except TimeoutError:
            decision = client.withdraw(call.call_id)
        item.verdict = verdict_of(call, decision)
    except (NotchRequestError, NotchDecisionRefused) as exc:
        item.verdict = refused(call, _notch_said(exc))


async def decide_async(
    client: AsyncNotchClient,
    tools: Routing,
    calls: Sequence[PendingCall],
    *,
    timeout: float | None = None,
    context: Mapping[str, Any] | None = None,
) -> list[Verdict]:
    """`decide` for an AsyncNotchClient: the answers are awaited together."""
    asked = _routed(route_of(tools), calls)

    async def one(item: _Asked) -> None:
        # confirm() is one round trip; the calls of a turn go out together on one connection.
        call = item.call
        try:
            try:
                decision = await client.confirm(
                    item.integration, item.tool, call.arguments,
                    call_id=call.call_id, context=context, timeout=timeout,
                )  # fmt: skip
            except TimeoutError:
                decision = await client.withdraw(call.call_id)
            item.verdict = verdict_of(call, decision)
        except (NotchRequestError, NotchDecisionRefused) as exc:
            item.verdict = refused(call, _notch_said(exc))

    waiting = [item for item in asked if item.verdict is None]
    if len(waiting) == 1:
        await one(waiting[0])  # one confirm round trip, no batch to show
    elif waiting:
        try:
            results = await client.confirm_many(_batch(waiting), context=context, timeout=timeout)
        except TimeoutError:  # every open call was withdrawn; read how each ended
            results = []
            for item in waiting:
                try:
                    results.append(await client.withdraw(item.call.call_id))
                except NotchError as exc:
                    results.append(exc)
        _give(waiting, results)
    return [_done(item) for item in asked]


def _batch(items: Sequence[_Asked]) -> list[BatchCall]:
    """The calls of one turn for `confirm_many`: the person sees "1 of N", Approve all."""
    return [BatchCall(i.integration, i.tool, i.call.arguments, i.call.call_id) for i in items]


def _ended(withdraw: Callable[[], Decision]) -> Decision | NotchError:
    try:
        return withdraw()
    except NotchError as exc:
        return exc


def _give(items: Sequence[_Asked], results: Sequence[Decision | NotchError]) -> None:
    """Each call its verdict from `confirm_many`'s entry: a decision, or why it was not asked."""
    for item, result in zip(items, results, strict=True):
        if isinstance(result, Decision):
            item.verdict = verdict_of(item.call, result)
        else:
            item.verdict = refused(item.call, _notch_said(result))


def _done(item: _Asked) -> Verdict:
    if item.verdict is None:  # every path above sets one; never run a call that has none
        return refused(item.call, "Notch gave no answer")
    return item.verdict


# --- verdicts and the model's sentences ----------------------------------------------------


def verdict_of(call: PendingCall, decision: Decision) -> Verdict:
    """The verdict Notch's `decision` gives `call`."""
    if decision.runs and decision.arguments is not None:
        arguments = dict(decision.arguments)
        edited = bool(decision.edited_paths) or arguments != call.arguments
        return Verdict(call, True, arguments, edited, for_model(decision, call.arguments), decision)
    return Verdict(call, False, None, False, for_model(decision, call.arguments), decision)


def refused(call: PendingCall, why: str, *, exact: bool = False) -> Verdict:
    """A call that never reached a card: nothing ran, and the model is told why."""
    sentence = why if exact else f"Notch did not ask about this call: {why}; nothing ran."
    return Verdict(call, False, None, False, sentence)


def for_model(decision: Decision, asked: Mapping[str, Any] | None = None) -> str:
    """The decision's own sentence for the model (`forModel`), or, from a Notch that does
    not send one, the same kind of sentence built from the decision alone."""
    sentence = getattr(decision, "for_model", None)
    if isinstance(sentence, str) and sentence:
        return sentence
    said = f": {_quoted(decision.message)}" if decision.message else ""
    outcome = decision.outcome
    if decision.runs:
        if decision.edited_paths:
            # Paths only: this Notch did not say which values are secret, so none is quoted.
            changed = ", ".join(f"`{p}`" for p in decision.edited_paths[:_SHOWN_PATHS])
            return f"The person changed {changed} before approving; it ran with their values."
        if outcome == "approved":
            return "The person approved; it ran as asked."
        return "It ran without a card (the person's settings allow it)."
    if outcome == "declined":
        return f"The person declined{said}; nothing ran. Do not retry unless they ask you to."
    if outcome == "blocked":
        return "Blocked in the person's settings; nothing ran. Do not retry."
    if outcome == "expired":
        return "Expired unanswered; nothing ran."
    if outcome == "superseded":
        return "Replaced by a newer request before the person answered; nothing ran."
    return f"Withdrawn before the person answered{said}; nothing ran."


def _quoted(text: str) -> str:
    text = " ".join(str(text).split())
    return f"'{text}'" if len(text) <= _SHOWN_MESSAGE else f"'{text[:_SHOWN_MESSAGE]}…'"


def _notch_said(exc: NotchError) -> str:
    text = exc.message if isinstance(exc, NotchRequestError) else str(exc)
    return text if len(text) <= _SHOWN_MESSAGE else text[:_SHOWN_MESSAGE] + "…"

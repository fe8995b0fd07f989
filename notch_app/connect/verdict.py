"""Asking Notch about the tool calls of one model turn, for every connector.

A framework hands over its pending calls (its own call id, tool name, arguments); each
comes back as a `Verdict`: run it with these arguments (maybe the person's edits), or
do not, with the sentence the model reads instead of a result. A bad call (a name no
route knows, arguments Notch refuses) gets its own refusal; the rest of the turn is
still asked about.

One call, one run: a connector's `CallIds` is its session. A framework call id asked
once in a session is never asked (nor run) again in it: a repeat, while the first is
open or after, is refused with a sentence saying so, and so is the same id with another
tool or other arguments. A new connector given the same `session` (a restart after a
crash) picks up the decisions Notch stored for it. Every wait is bounded: `timeout` for
the person, then the client's short withdraw (see `notch_app.ipc.client`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import inspect
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, TypeVar

from notch_app.connect.tools import ToolNames, UnknownToolName
from notch_app.ipc.blocking import NotchClient
from notch_app.ipc.client import (
    AsyncNotchClient,
    BatchCall,
    NotchDecisionRefused,
    NotchError,
    NotchRequestError,
    NotchTimeout,
)
from notch_app.runtime.call_ids import call_id_of
from notch_app.runtime.decision import Decision, canonical_json
from notch_app.runtime.waiting import (
    WAITING_AFTER_S,
    told_while_blocked,
    told_while_waiting,
    waiting_sentence,
)

_W = TypeVar("_W")

REMEMBERED_CALLS: Final = 100_000
"""Call ids a connector session remembers having asked. Past it the oldest are
forgotten; Notch still holds such a callId's decision (`already_decided`)."""
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
    """A connector's session: Notch callIds for a framework's call ids (`call_id_of`:
    `<session>:<id>`, hashed when it would not be one), so the same model call id in
    two runs (a scripted model, a reused id) never picks up the other run's decision,
    while the same session after a crash picks up its own; and the calls this session
    has asked, so none is asked or run twice in it (`claim`). Thread-safe."""

    def __init__(self, session: str | None = None) -> None:
        self.session = session or uuid.uuid4().hex[:16]
        self._asked: OrderedDict[str, bytes] = OrderedDict()
        """callId → the digest of what it asked (its tool and arguments)."""
        self._lock = threading.Lock()

    def __call__(self, framework_id: object) -> str:
        return call_id_of(self.session, str(framework_id))

    def claim(self, call: PendingCall, integration: str, tool: str) -> str | None:
        """None when `call` is new to this session (it is now asked: it may run once);
        else the sentence refusing it: its callId was asked before in this session,
        for this same call (a repeat, which never runs again) or for another one."""
        what = _what(integration, tool, call.arguments)
        with self._lock:
            had = self._asked.get(call.call_id)
            if had is None:
                self._asked[call.call_id] = what
                if len(self._asked) > REMEMBERED_CALLS:
                    self._asked.popitem(last=False)
                return None
        if had != what:
            return (
                f"Notch did not ask about this call: its call id was already used in this "
                f"session for another call ({_shown_id(call.call_id)}); nothing ran."
            )
        return (
            f"Notch did not ask about this call again: its call id was already asked in "
            f"this session ({_shown_id(call.call_id)}), and a call runs at most once; "
            "nothing ran for this repeat."
        )


# --- asking ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Asked:
    call: PendingCall
    integration: str
    tool: str
    verdict: Verdict | None = None


def _what(integration: str, tool: str, arguments: Any) -> bytes:
    """The digest of one call's identity for `CallIds.claim`: its tool and arguments."""
    try:
        text = canonical_json({"integration": integration, "tool": tool, "args": arguments})
    except ValueError:  # not JSON (NaN...): Notch refuses it anyway; its repr tells it apart
        text = repr((integration, tool, arguments))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _shown_id(call_id: str) -> str:
    return repr(call_id if len(call_id) <= 80 else call_id[:80] + "…")


def _routed(
    route: Route, calls: Iterable[PendingCall], session: CallIds | None = None
) -> list[_Asked]:
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
        repeat = None if session is None else session.claim(call, integration, tool)
        if repeat is not None:
            out.append(_Asked(call, integration, tool, refused(call, repeat, exact=True)))
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
    session: CallIds | None = None,
    on_waiting: Callable[[PendingCall, str], Any] | None = None,
    waiting_after: float = WAITING_AFTER_S,
) -> list[Verdict]:
    """Ask the person about `calls` (one model turn) and return a verdict per call, in
    order. Two or more go as one batch (`confirm_many`: "1 of N" on the card, Approve
    all / Decline all), every card queued before any answer. After `timeout`
    seconds the unanswered ones are withdrawn (their cards go) and do not run. With
    `session` (the CallIds that made the callIds), a call id it asked before is refused
    and never reaches a card (see `CallIds.claim`). With `on_waiting`, as in
    `decide_async`: each call still undecided after `waiting_after` seconds is handed to
    it once with the sentence its model reads meanwhile (called from a helper thread,
    while this one waits for the person; its errors are ignored).
    Raises NotchNotRunning / NotchConnectionLost / NotchUntrusted: then nothing runs."""
    asked = _routed(route_of(tools), calls, session)
    waiting = [item for item in asked if item.verdict is None]

    def told(work: Callable[[], _W]) -> _W:
        if on_waiting is None or not waiting:
            return work()

        def tell() -> None:
            for item in waiting:
                if item.verdict is None:
                    with contextlib.suppress(Exception):
                        on_waiting(item.call, waiting_sentence(item.tool))

        return told_while_blocked(work, tell, waiting_after)

    if len(asked) == 1 and asked[0].verdict is None:
        told(lambda: _confirm_one(client, asked[0], timeout, context))  # one round trip
        return [_done(asked[0])]
    if waiting:
        try:
            results = told(
                lambda: client.confirm_many(_batch(waiting), context=context, timeout=timeout)
            )
        except NotchTimeout as exc:  # every open call was withdrawn: how each ended
            results = _ended(exc, len(waiting))
        _give(waiting, results)
    return [_done(item) for item in asked]


def _confirm_one(
    client: NotchClient, item: _Asked, timeout: float | None, context: Mapping[str, Any] | None
) -> None:
    call = item.call
    try:
        decision = client.confirm(
            item.integration, item.tool, call.arguments,
            call_id=call.call_id, context=context, timeout=timeout,
        )  # fmt: skip
        item.verdict = verdict_of(call, decision)
    except NotchTimeout as exc:  # withdrawn first (or the withdraw got no answer)
        item.verdict = _timed_out(call, exc)
    except (NotchRequestError, NotchDecisionRefused) as exc:
        item.verdict = refused(call, _notch_said(exc))


async def decide_async(
    client: AsyncNotchClient,
    tools: Routing,
    calls: Sequence[PendingCall],
    *,
    timeout: float | None = None,
    context: Mapping[str, Any] | None = None,
    session: CallIds | None = None,
    on_waiting: Callable[[PendingCall, str], Any] | None = None,
    waiting_after: float = WAITING_AFTER_S,
) -> list[Verdict]:
    """`decide` for an AsyncNotchClient: the answers are awaited together. With
    `on_waiting`, every call still undecided after `waiting_after` seconds is handed to
    it once with the sentence its model reads meanwhile ("Waiting for the person to
    confirm … Nothing has run yet"): a status instead of silence (awaited when it returns
    an awaitable; its errors are ignored)."""
    asked = _routed(route_of(tools), calls, session)

    async def one(item: _Asked) -> None:
        # confirm() is one round trip; the calls of a turn go out together on one connection.
        call = item.call
        try:
            decision = await client.confirm(
                item.integration, item.tool, call.arguments,
                call_id=call.call_id, context=context, timeout=timeout,
            )  # fmt: skip
            item.verdict = verdict_of(call, decision)
        except NotchTimeout as exc:  # withdrawn first (or the withdraw got no answer)
            item.verdict = _timed_out(call, exc)
        except (NotchRequestError, NotchDecisionRefused) as exc:
            item.verdict = refused(call, _notch_said(exc))

    waiting = [item for item in asked if item.verdict is None]

    async def told(work: Any) -> Any:
        if on_waiting is None:
            return await work
        task = asyncio.ensure_future(work)

        async def tell() -> None:
            for item in waiting:
                if item.verdict is None:
                    said = on_waiting(item.call, waiting_sentence(item.tool))
                    if inspect.isawaitable(said):
                        await said

        return await told_while_waiting(task, tell, waiting_after)

    if len(waiting) == 1:
        await told(one(waiting[0]))  # one confirm round trip, no batch to show
    elif waiting:
        try:
            results = await told(
                client.confirm_many(_batch(waiting), context=context, timeout=timeout)
            )
        except NotchTimeout as exc:  # every open call was withdrawn: how each ended
            results = _ended(exc, len(waiting))
        _give(waiting, results)
    return [_done(item) for item in asked]


def _batch(items: Sequence[_Asked]) -> list[BatchCall]:
    """The calls of one turn for `confirm_many`: the person sees "1 of N", Approve all."""
    return [BatchCall(i.integration, i.tool, i.call.arguments, i.call.call_id) for i in items]


def _ended(timed_out: NotchTimeout, count: int) -> list[Decision | NotchError]:
    """How each call of a timed-out batch ended (its withdraw's answer), in order."""
    if len(timed_out.ended) == count:
        return list(timed_out.ended)
    return [timed_out] * count


def _timed_out(call: PendingCall, exc: NotchTimeout) -> Verdict:
    """The verdict of a call whose wait ran out: how its withdraw ended it (the person's
    decision if it came first), else a refusal saying Notch gave no answer."""
    if exc.decision is not None:
        return verdict_of(call, exc.decision)
    return refused(call, f"Notch gave no answer in time ({_notch_said(exc)})")


def _give(items: Sequence[_Asked], results: Sequence[Decision | NotchError]) -> None:
    """Each call its verdict from `confirm_many`'s entry: a decision, or why it was not asked."""
    for item, result in zip(items, results, strict=True):
        if isinstance(result, Decision):
            item.verdict = verdict_of(item.call, result)
        elif isinstance(result, NotchTimeout):
            item.verdict = _timed_out(item.call, result)
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

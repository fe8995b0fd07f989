"""Planning a call: checked, answered at once, or ruled on by the person's policy before any card."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from notch_app.manifest.facts import tool_facts
from notch_app.manifest.model import Manifest, Tool
from notch_app.manifest.schema import argument_problems, surely_valid
from notch_app.runtime.allowances import session_key
from notch_app.runtime.decision import (
    Decision,
    NotDigestible,
    arguments_digest,
    canonical_json,
)
from notch_app.runtime.model_sentence import read_only_sentence
from notch_app.runtime.ownership import owner_of
from notch_app.runtime.pause import PAUSED_REASON
from notch_app.runtime.policy import ASK, PolicyVerdict
from notch_app.runtime.policy_book.fingerprint import integration_source
from notch_app.runtime.presenter import (
    ConfirmationRequest,
    Scope,
)
from notch_app.runtime.redaction import redact_paths
from notch_app.runtime.repeats import updated_note
from notch_app.runtime.service.calls import (
    EventListener,
    ServiceError,
    ToolCall,
    check_call_id,
    check_holds,
    same_call,
)
from notch_app.runtime.service.limits import (
    MAX_CONTEXT_CHARS,
    MAX_EXPIRES_IN_MS,
    MAX_READS_KEPT,
)
from notch_app.runtime.service.notes import (
    with_count_check,
    with_update,
)
from notch_app.runtime.service.open_request import (
    OpenRequest,
    Planned,
    done_future,
    keyed_paths,
    sealed,
)
from notch_app.runtime.service.supersede import Superseding

log = logging.getLogger("notch.service")


class Planning(Superseding):
    """A call checked and ruled on, ready to be decided by policy or shown (a part of
    ConfirmationService)."""

    def _plan(
        self,
        call: ToolCall,
        listener: EventListener | None,
        queued: int = 0,
        *,
        repeat_replaces: bool = False,
    ) -> asyncio.Future[Decision] | Planned:
        """Check `call` (see `submit`): a future when it is answered without a card or a
        policy decision, else what `_launch` decides or shows. `queued` calls of the same
        batch are planned but not yet open (they count against MAX_PENDING). With
        `repeat_replaces` (a single call, not a batch), a call of a tool whose card its
        asker already has open replaces that card (repeats.py)."""
        loop = self._loop or asyncio.get_running_loop()
        self._loop = loop
        check_call_id(call.call_id, "callId")
        context = dict(call.context or {})
        args = dict(call.arguments)
        known_tool = self.catalog.tool(call.integration_id, call.tool_name)
        digest, keyed = _digest_of(context, args, known_tool)
        earlier = self._earlier(call, digest, known_tool, listener)
        if earlier is not None:
            return earlier
        integration, tool = self._validate(call, known_tool, args)
        now = self._clock()
        if tool.confirmation is None:
            return self._read_only(loop, call, tool, args, (digest, keyed), now)
        old = self._to_supersede(call, queued)
        updated: str | None = None
        if old is None and call.supersedes is None and repeat_replaces:
            old = self._repeat_of(call)
            if old is not None:
                updated = updated_note(old.request.arguments, args, tool_facts(tool))
        self._check_share(call, old, queued)
        source = integration_source(self.catalog.entry(integration.id), integration)
        verdict, scope = self._ruling(call, context, integration, tool, args, source)
        asks = verdict.verdict == "ask"
        request = ConfirmationRequest(
            call_id=call.call_id,
            integration_id=call.integration_id,
            tool_name=call.tool_name,
            arguments=args,
            context=context,
            created_at=now,
            expires_at=None if call.expires_in_ms is None else now + call.expires_in_ms / 1000,
            reason=with_update(verdict.reason if asks else None, updated),
            process=call.process,
            changes=tuple(self.memory.changes(integration.id, tool, args)) if asks else (),
        )
        item = OpenRequest(request, integration, tool, digest, loop.create_future(), keyed=keyed)
        item.owner = owner_of(call.token)
        item.source = source
        if listener is not None:
            item.listeners.append(listener)
        return Planned(item, verdict, old, scope)

    def _read_only(
        self,
        loop: asyncio.AbstractEventLoop,
        call: ToolCall,
        tool: Tool,
        args: dict[str, Any],
        known: tuple[str, tuple[str, ...]],
        now: float,
    ) -> asyncio.Future[Decision]:
        """A read-only call: answered notRequired at once and not logged (no card,
        nothing to decide); remembered for a glance of its result (`read_answered`).
        `known`: its digest and secret paths (`_digest_of`). Its decision is built once,
        sentence and all (`_told` would build it again)."""
        digest, keyed = known
        self._reads[call.call_id] = (owner_of(call.token), call.integration_id, tool.name)
        if len(self._reads) > MAX_READS_KEPT:
            self._reads.popitem(last=False)
        told = read_only_sentence(tool.display_title, call.tool_name)
        free = Decision(call.call_id, "notRequired", call.integration_id, call.tool_name,
                        args, (), digest, "service", now, for_model=told)  # fmt: skip
        return done_future(loop, sealed(free, tool, keyed=keyed))

    def _ruling(
        self,
        call: ToolCall,
        context: dict[str, Any],
        integration: Manifest,
        tool: Tool,
        args: dict[str, Any],
        source: str | None,
    ) -> tuple[PolicyVerdict, Scope | None]:
        """What the person's rules say of `call`, and the scope that lets it run: their
        policy, then an allowance for this session, the count check and the tray's pause.
        A call a rule lets run is noted for the Undo on its note (`undo_scope`)."""
        verdict = self._verdict(integration, tool, args, source)
        scope: Scope | None = "always" if verdict.verdict == "autoApprove" else None
        session = session_key(context, owner_of(call.token), integration.id)
        # Neither a block nor a guard that tripped (an ask with a reason): those win.
        plain_ask = verdict.verdict == "ask" and verdict.reason is None
        allowed = (
            self.allowances.find(session, integration.id, tool.name, args) if plain_ask else None
        )
        if allowed is not None:
            verdict = PolicyVerdict("autoApprove")
            scope = "session"
        verdict, scope = with_count_check(verdict, scope, tool, args)
        if verdict.verdict == "autoApprove" and self.pause.asks_for_everything:
            # The person paused their rules from the tray: it asks, and says why.
            verdict, scope = PolicyVerdict("ask", PAUSED_REASON), None
        if verdict.verdict == "autoApprove" and scope is not None:
            self._ran_by_rule[call.call_id] = allowed.id if allowed is not None else None
            while len(self._ran_by_rule) > MAX_READS_KEPT:
                self._ran_by_rule.popitem(last=False)
        return verdict, scope

    def _earlier(
        self, call: ToolCall, digest: str, tool: Tool | None, listener: EventListener | None
    ) -> asyncio.Future[Decision] | None:
        """The future of the same call asked before (open, or decided and stored), else
        None. A repeated callId never makes a second card, nor a second approval; one
        used for a different call raises ServiceError(callIdInUse)."""
        item = self._open.get(call.call_id)
        if item is not None:
            # Before the call is compared: a stranger learns nothing of what it asked.
            check_holds(call.call_id, call.token, item.owner)
            request = item.request
            same_call(call, digest, request.integration_id, request.tool_name, item.digest)
            if listener is not None:
                item.listeners.append(listener)
            return item.future
        if tool is not None and tool.confirmation is None:
            return None  # read-only tools never reach the store: nothing to decide twice
        stored = self.store.decision(call.call_id)
        if stored is None:
            return None
        check_holds(call.call_id, call.token, self.store.request_owner(call.call_id))
        known = self.store.request_digest(call.call_id)
        if known is not None:
            same_call(call, digest, *known)
        return done_future(self._loop or asyncio.get_running_loop(), self._replayed(stored))

    def _validate(
        self, call: ToolCall, tool: Tool | None, args: dict[str, Any]
    ) -> tuple[Manifest, Tool]:
        """The call's integration and tool, once its arguments pass the tool's
        inputSchema and its expiry is in range. Raises ServiceError(invalidParams)."""
        if tool is None:
            self._lookup(call.integration_id, call.tool_name)  # raises, naming what is unknown
        assert tool is not None
        problems = self.argument_checks.taken(call, tool)  # checked ahead, off the loop
        if problems is None:
            problems = [] if surely_valid(tool, args) else argument_problems(tool, args)
        if problems:
            first = problems[0]
            more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
            where = f"arguments.{first.path}" if first.path else "arguments"
            raise ServiceError(
                "invalidParams",
                f"{where} {first.message}, per the inputSchema of "
                f"{call.integration_id}/{call.tool_name}{more}",
                where,
            )
        expires_in_ms = call.expires_in_ms
        if expires_in_ms is not None and not (0 < expires_in_ms <= MAX_EXPIRES_IN_MS):
            raise ServiceError(
                "invalidParams",
                f"expiresInMs must be between 1 and {MAX_EXPIRES_IN_MS} (30 days)",
                "expiresInMs",
            )
        integration = self.catalog.integration(call.integration_id)
        assert integration is not None  # the tool was found in it
        return integration, tool

    def _lookup(self, integration_id: str, tool_name: str) -> tuple[Manifest, Tool]:
        integration = self.catalog.integration(integration_id)
        if integration is None:
            raise ServiceError(
                "invalidParams",
                f"unknown integration {integration_id!r}; known: {_names(self.catalog.ids())}",
                "integration",
            )
        tool = integration.tool(tool_name)
        if tool is None:
            raise ServiceError(
                "invalidParams",
                f"integration {integration_id!r} has no tool {tool_name!r}; its tools: "
                f"{_names([t.name for t in integration.tools])}",
                "tool",
            )
        return integration, tool

    def _verdict(
        self, integration: Manifest, tool: Tool, args: dict[str, Any], source: str | None = None
    ) -> PolicyVerdict:
        try:
            # A policy that binds allowances to sources (PersonPolicy) hears where from.
            from_source = getattr(self.policy, "verdict_from", None)
            verdict = (
                from_source(source, integration, tool, args)
                if from_source is not None
                else self.policy.verdict(integration, tool, args)
            )
        except Exception:  # a broken policy must fail safe: the person is asked
            log.exception("policy failed for %s/%s; asking", integration.id, tool.name)
            return ASK
        return verdict if verdict.verdict in ("ask", "autoApprove", "block") else ASK


def _names(items: list[str], limit: int = 20) -> str:
    shown = ", ".join(items[:limit]) or "none"
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _digest_of(
    context: dict[str, Any], args: dict[str, Any], tool: Tool | None
) -> tuple[str, tuple[str, ...]]:
    """The digest a call is known by (a repeat is told by what the store keeps: its
    secret values masked), and the paths of those secret values. Raises
    ServiceError(invalidParams) for a context over MAX_CONTEXT_CHARS, or anything without
    canonical JSON (NaN, lone surrogates, huge ints: RFC 8785)."""
    try:
        if context and len(canonical_json(context, "context")) > MAX_CONTEXT_CHARS:
            raise ServiceError(
                "invalidParams", f"context is over {MAX_CONTEXT_CHARS} characters", "context"
            )
        digest = arguments_digest(args)
    except NotDigestible as exc:
        raise ServiceError("invalidParams", str(exc), exc.path) from None
    keyed = keyed_paths(tool, args)
    return (arguments_digest(redact_paths(args, keyed)) if keyed else digest), keyed

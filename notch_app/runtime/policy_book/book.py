"""`PolicyBook`: the person's "Asks first" / Blocked / guards choice for every action.

The only writers are the person, through the Settings window or `notch policy`; nothing
arriving over the socket and nothing in a manifest can change a policy. The book is kept
in `notch-settings.json`, re-read on `reload()`, and tells subscribers about every change
so a running Notch applies it at once: that file, its copy in memory and the person's
other preferences are `runtime/settings/` (`KeptSettings`, which the book extends); this
module is the rules for each action.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from notch_app.manifest.facts import tool_facts
from notch_app.manifest.model import Manifest, Tool
from notch_app.runtime.policy_book.fingerprint import card_fingerprint, source_fingerprint
from notch_app.runtime.policy_book.guards import check_guard, refusal_line, refusal_sentence, trips
from notch_app.runtime.policy_book.verdict import (
    BLOCKED_REASON,
    CARD_CHANGED_REASON,
    OTHER_SOURCE_REASON,
    ActionState,
    Verdict,
)
from notch_app.runtime.settings import (
    ActionPolicy,
    Guard,
    KeptSettings,
    PolicyRefused,
    SettingsDocument,
)

log = logging.getLogger("notch.policy")


def has_policy(tool: Tool) -> bool:
    """Whether the person can set Asks first / Block / guards for this tool."""
    return tool.confirmation is not None


class PolicyBook(KeptSettings):
    """The person's per-action policy, kept in the settings file at `path` (with the rest
    of the person's settings: `KeptSettings`)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._fingerprints: dict[int, tuple[Tool, str]] = {}

    # --- reading -----------------------------------------------------------------------

    def stored(self, integration_id: str, tool_name: str) -> ActionPolicy | None:
        """The stored entry for an action, or None when it has the default."""
        return self._document.policies.get(integration_id, {}).get(tool_name)

    def entries(self) -> list[tuple[str, str, ActionPolicy]]:
        """Every stored entry (integration id, tool name, policy), sorted."""
        return sorted(
            (iid, name, policy)
            for iid, tools in self._document.policies.items()
            for name, policy in tools.items()
        )

    def verdict(
        self,
        manifest: Manifest,
        tool: Tool,
        arguments: Mapping[str, Any],
        source: str | None = None,
    ) -> Verdict:
        """Whether this call shows a card, runs at once, or is blocked. Never raises.

        A tool without a card never asks when it does not act (its facts' `own_acting`); an
        acting tool without a card (an invalid manifest) always asks: policy only loosens
        what it can show.
        `source` is where the integration comes from (`integration_source`): an "off"
        made for another source asks again (a Block and guards apply to every source).
        """
        if tool.confirmation is None:
            asks = tool_facts(tool).own_acting.asks
            return Verdict("ask") if asks else Verdict("notRequired")
        entry = self.stored(manifest.id, tool.name)
        if entry is None:
            return Verdict("ask")
        if entry.blocked:
            return Verdict("block", BLOCKED_REASON)
        refused = _refused(entry, manifest, tool, arguments)
        if refused is not None:
            return refused
        if entry.asks_first:
            return Verdict("ask")
        if entry.card != self._fingerprint(tool):
            return Verdict("ask", CARD_CHANGED_REASON)
        if entry.source is not None and (
            source is None or source_fingerprint(source) != entry.source
        ):
            shown = " ".join((source or "an unknown place").split())[:160]
            return Verdict("ask", OTHER_SOURCE_REASON.format(name=manifest.name, source=shown))
        for guard in entry.guards:
            try:
                why = trips(guard, arguments)
            except Exception:  # a guard that cannot be judged asks; it never lets run
                log.exception("guard %s on %s/%s failed", guard.kind, manifest.id, tool.name)
                why = f"{guard.argument} could not be checked"
            if why is not None:
                return Verdict("ask", f"Asks anyway: {why}")
        return Verdict("auto")

    def state(self, manifest: Manifest, tool: Tool) -> ActionState:
        """The action's setting as shown to the person."""
        entry = self.stored(manifest.id, tool.name) or ActionPolicy()
        changed = entry.card is not None and entry.card != self._fingerprint(tool)
        off_applies = not entry.asks_first and not changed
        return ActionState(
            manifest.id,
            tool.name,
            asks_first=not off_applies,
            blocked=entry.blocked,
            guards=tuple(entry.guards),
            card_changed=changed and (not entry.asks_first or entry.blocked),
            refusals=tuple(entry.refusals),
        )

    # --- changing (only the person: Settings window, `notch policy`) ------------------

    def set_asks_first(
        self, manifest: Manifest, tool: Tool, on: bool, source: str | None = None
    ) -> None:
        """Turn Asks first on or off for an action; turning it on or off also unblocks.
        Off is kept for the card as it is now and, given `source` (where the integration
        comes from: `integration_source`), for that source only.

        Raises PolicyRefused for a tool without a card, PolicyWriteError when the file
        cannot be written.
        """
        self._require_policy(manifest, tool)
        fingerprint = self._fingerprint(tool)
        where = None if on or source is None else source_fingerprint(source)

        def change(entry: ActionPolicy) -> ActionPolicy:
            return entry.model_copy(
                update={
                    "asks_first": on,
                    "blocked": False,
                    "card": None if on else fingerprint,
                    "source": where,
                }
            )

        self._change(manifest.id, tool.name, change)

    def block(self, manifest: Manifest, tool: Tool, blocked: bool = True) -> None:
        """Block an action (it never runs) or lift the block (back to its Asks first).

        Raises PolicyRefused for a tool without a card, PolicyWriteError on write failure.
        """
        self._require_policy(manifest, tool)
        fingerprint = self._fingerprint(tool)

        def change(entry: ActionPolicy) -> ActionPolicy:
            # An earlier "off" keeps the card it was made for: lifting a block later
            # must not turn it into an "off" for a card the person never saw.
            card = entry.card if not entry.asks_first else (fingerprint if blocked else None)
            return entry.model_copy(update={"blocked": blocked, "card": card})

        self._change(manifest.id, tool.name, change)

    def set_guards(self, manifest: Manifest, tool: Tool, guards: Sequence[Guard]) -> None:
        """Replace an action's guards. Raises PolicyRefused for an unknown argument path
        or an "over" guard on an argument that is not a number."""
        self._require_policy(manifest, tool)
        for guard in guards:
            check_guard(tool, guard)
        kept = tuple(guards)
        self._change(
            manifest.id, tool.name, lambda entry: entry.model_copy(update={"guards": list(kept)})
        )

    def block_by_name(
        self, integration_id: str, tool_name: str, blocked: bool = True, asks_first: bool = False
    ) -> None:
        """Block an action of an integration that is not loaded here (a `notch mcp`
        server's, before it attaches), or lift that block (with `asks_first`, also back
        to asking first): it applies to every source and every card that integration id
        and tool name will have. Raises PolicyWriteError."""

        def change(entry: ActionPolicy) -> ActionPolicy:
            update: dict[str, object] = {"blocked": blocked}
            if asks_first:
                update.update(asks_first=True, card=None, source=None)
            return entry.model_copy(update=update)

        self._change(integration_id, tool_name, change)

    def add_guard_by_name(self, integration_id: str, tool_name: str, guard: Guard) -> None:
        """Add a guard to an action of an integration that is not loaded here (its
        arguments cannot be checked until it is; a guard naming an argument the tool
        does not have never trips), replacing one of the same kind on the same argument.
        Raises PolicyWriteError."""
        current = self.stored(integration_id, tool_name) or ActionPolicy()
        others = [g for g in current.guards if (g.kind, g.argument) != (guard.kind, guard.argument)]
        self.set_guards_by_name(integration_id, tool_name, [*others, guard])

    def set_guards_by_name(
        self, integration_id: str, tool_name: str, guards: Sequence[Guard]
    ) -> None:
        """Replace the guards of an action of an integration not loaded here."""
        kept = list(guards)
        self._change(
            integration_id, tool_name, lambda entry: entry.model_copy(update={"guards": kept})
        )

    def set_refusals(self, manifest: Manifest, tool: Tool, refusals: Sequence[Guard]) -> None:
        """Replace an action's "refuses when" rules: a call one of them trips for is
        refused at once (no card), the agent told why. Raises PolicyRefused for an
        unknown argument path or an "over" rule on an argument that is not a number."""
        self._require_policy(manifest, tool)
        for refusal in refusals:
            check_guard(tool, refusal)
        kept = list(refusals)
        self._change(
            manifest.id, tool.name, lambda entry: entry.model_copy(update={"refusals": kept})
        )

    def add_refusal(self, manifest: Manifest, tool: Tool, refusal: Guard) -> None:
        """Add a "refuses when" rule, replacing one of the same kind on the same argument."""
        current = self.stored(manifest.id, tool.name) or ActionPolicy()
        others = [
            r for r in current.refusals if (r.kind, r.argument) != (refusal.kind, refusal.argument)
        ]
        self.set_refusals(manifest, tool, [*others, refusal])

    def remove_refusal(self, manifest: Manifest, tool: Tool, refusal: Guard) -> None:
        """Remove one "refuses when" rule (compared by value); no-op when it is not there."""
        current = self.stored(manifest.id, tool.name) or ActionPolicy()
        self.set_refusals(manifest, tool, [r for r in current.refusals if r != refusal])

    def add_refusal_by_name(self, integration_id: str, tool_name: str, refusal: Guard) -> None:
        """As `add_refusal`, for an integration not loaded here (a `notch mcp` server's):
        a rule naming an argument the tool does not have never trips. Raises
        PolicyWriteError."""
        current = self.stored(integration_id, tool_name) or ActionPolicy()
        others = [
            r for r in current.refusals if (r.kind, r.argument) != (refusal.kind, refusal.argument)
        ]
        kept = [*others, refusal]
        self._change(
            integration_id, tool_name, lambda entry: entry.model_copy(update={"refusals": kept})
        )

    def clear_refusals_by_name(self, integration_id: str, tool_name: str) -> None:
        """Remove every "refuses when" rule of an action (loaded here or not)."""
        self._change(
            integration_id, tool_name, lambda entry: entry.model_copy(update={"refusals": []})
        )

    def add_guard(self, manifest: Manifest, tool: Tool, guard: Guard) -> None:
        """Add a guard, replacing one of the same kind on the same argument."""
        current = self.stored(manifest.id, tool.name) or ActionPolicy()
        others = [g for g in current.guards if (g.kind, g.argument) != (guard.kind, guard.argument)]
        self.set_guards(manifest, tool, [*others, guard])

    def remove_guard(self, manifest: Manifest, tool: Tool, guard: Guard) -> None:
        """Remove one guard (compared by value); no-op when it is not there."""
        current = self.stored(manifest.id, tool.name) or ActionPolicy()
        self.set_guards(manifest, tool, [g for g in current.guards if g != guard])

    def reset(self, integration_id: str, tool_name: str | None = None) -> bool:
        """Back to the default (asks first, no guards) for one action or a whole
        integration. Returns whether anything was stored. Raises PolicyWriteError."""
        removed = False

        def change(document: SettingsDocument) -> SettingsDocument:
            nonlocal removed
            policies = {k: dict(v) for k, v in document.policies.items()}
            tools = policies.get(integration_id)
            if tools is None:
                return document
            if tool_name is None:
                del policies[integration_id]
                removed = True
            elif tool_name in tools:
                del tools[tool_name]
                removed = True
                if not tools:
                    del policies[integration_id]
            return document.model_copy(update={"policies": policies})

        self._mutate(change)
        return removed

    def _fingerprint(self, tool: Tool) -> str:
        hit = self._fingerprints.get(id(tool))
        if hit is not None and hit[0] is tool:
            return hit[1]
        if len(self._fingerprints) > 4096:
            self._fingerprints.clear()
        value = card_fingerprint(tool)
        self._fingerprints[id(tool)] = (tool, value)
        return value

    def _require_policy(self, manifest: Manifest, tool: Tool) -> None:
        if manifest.tool(tool.name) is None:
            raise PolicyRefused(f"{manifest.id} has no tool named {tool.name!r}")
        if not has_policy(tool):
            raise PolicyRefused(
                f"{tool.name} in {manifest.id} is read-only: it never asks, so it has no "
                "Asks first setting"
                if not tool_facts(tool).own_acting.asks
                else f"{tool.name} in {manifest.id} has no confirmation card, so it always "
                "asks; fix the manifest to give it one"
            )

    def _change(
        self, integration_id: str, tool_name: str, change: Callable[[ActionPolicy], ActionPolicy]
    ) -> None:
        def apply(document: SettingsDocument) -> SettingsDocument:
            policies = {k: dict(v) for k, v in document.policies.items()}
            tools = policies.setdefault(integration_id, {})
            entry = change(tools.get(tool_name) or ActionPolicy())
            if entry.is_default:
                tools.pop(tool_name, None)  # the default is not stored: the file stays short
            else:
                tools[tool_name] = entry
            if not tools:
                policies.pop(integration_id, None)
            return document.model_copy(update={"policies": policies})

        self._mutate(apply)


def _refused(
    entry: ActionPolicy, manifest: Manifest, tool: Tool, arguments: Mapping[str, Any]
) -> Verdict | None:
    """The refusal for a call one of `entry`'s "refuses when" rules trips for, else None.
    A value a rule cannot judge (not a number for "over") refuses too: the person said
    never past the limit, and the agent is told to send a plain value."""
    for refusal in entry.refusals:
        try:
            why = trips(refusal, arguments)
        except Exception:
            log.exception("refusal %s on %s/%s failed", refusal.kind, manifest.id, tool.name)
            why = f"{refusal.argument} could not be checked"
        if why is not None:
            title = tool.display_title
            return Verdict(
                "block", refusal_line(title, refusal), refusal_sentence(title, refusal, why)
            )
    return None

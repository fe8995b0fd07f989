"""`PolicyBook`: the person's "Asks first" / Blocked / guards choice for every action.

The only writers are the person, through the Settings window or `notch policy`; nothing
arriving over the socket and nothing in a manifest can change a policy. The book is kept
in `notch-settings.json` (see `settings_file`), re-read on `reload()`, and tells
subscribers about every change so a running Notch applies it at once.

Kept in one file (~470 lines) on purpose: reads, writes and change notices share one
in-memory copy of the settings file and the rule that only the person writes it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from notch_app.manifest.model import Manifest, Tool
from notch_app.manifest.tool_facts import tool_facts
from notch_app.runtime.policy_book.document import (
    ASKER_GRACE_MAX_S,
    ASKER_GRACE_MIN_S,
    GLANCE_SECONDS_CHOICES,
    PARK_AFTER_MAX_S,
    PARK_AFTER_MIN_S,
    ActionPolicy,
    AgentPreferences,
    Guard,
    IdleLook,
    IntegrationValues,
    NotOneOfGuard,
    OverGuard,
    OverlayPreferences,
    PhonePreferences,
    SettingsDocument,
)
from notch_app.runtime.policy_book.fingerprint import card_fingerprint, source_fingerprint
from notch_app.runtime.policy_book.guards import refusal_line, refusal_sentence, trips
from notch_app.runtime.policy_book.schema_paths import argument_paths, nearest
from notch_app.runtime.policy_book.settings_file import (
    default_data_dir,
    read_settings,
    settings_lock,
    settings_path,
    write_settings,
)
from notch_app.runtime.presenter import Outcome

log = logging.getLogger("notch.policy")

VerdictAction = Literal["ask", "auto", "block", "notRequired"]

BLOCKED_REASON = "You blocked this action in Notch's settings."
CARD_CHANGED_REASON = "Asks again: this action's card changed since you turned Asks first off."
OTHER_SOURCE_REASON = (
    "Asks again: you turned Asks first off for {name} from another source; this one comes "
    "from {source}."
)
"""An integration with the same name and id as the one allowed, from elsewhere."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the person's policy says about one tool call.

    `ask`: show the card. `auto`: run at once (outcome `autoApproved`). `block`: never
    run (outcome `blocked`). `notRequired`: a read-only tool. `reason` says why a card
    shows although Asks first is off (a guard tripped, the card changed), or why a call
    is blocked; it goes on the card as `ConfirmationRequest.reason`.
    """

    action: VerdictAction
    reason: str | None = None
    for_model: str | None = None
    """For a refusal (a "refuses when" rule that tripped): the sentence the agent is
    told, one it can act on ("... ask them, or lower amount to 5,000 or less")."""

    @property
    def outcome(self) -> Outcome | None:
        """The outcome to record without a card, or None when the card must show."""
        return {"auto": "autoApproved", "block": "blocked", "notRequired": "notRequired"}.get(
            self.action  # type: ignore[return-value]
        )


@dataclass(frozen=True, slots=True)
class ActionState:
    """One action's setting as the person sees it (Settings, `notch policy list`)."""

    integration_id: str
    tool_name: str
    asks_first: bool
    """Effective: True when the stored "off" no longer applies because the card changed."""
    blocked: bool
    guards: tuple[Guard, ...]
    card_changed: bool
    """A stored "off" (or block) was made for a different card than the manifest's now."""
    refusals: tuple[Guard, ...] = ()
    """"Refuses when": calls past these never run and show no card."""

    @property
    def label(self) -> str:
        if self.blocked:
            return "blocked"
        if self.card_changed:
            return "asks first (reset: the card changed)"
        return "asks first" if self.asks_first else "off"


class PolicyRefused(ValueError):
    """A policy change that does not apply: a read-only tool, an unknown argument…"""


class PolicyWriteError(OSError):
    """The settings file could not be written (message names the file and the fix)."""


def has_policy(tool: Tool) -> bool:
    """Whether the person can set Asks first / Block / guards for this tool."""
    return tool.confirmation is not None


class PolicyBook:
    """The person's per-action policy, backed by the settings file at `path`.

    Not thread-safe: use it from one thread (the app's event loop). Separate processes
    (`notch policy` and a running Notch) are kept consistent by a file lock and by
    re-reading the file before every change.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._listeners: list[Callable[[], None]] = []
        self._fingerprints: dict[int, tuple[Tool, str]] = {}
        loaded = read_settings(self.path)
        self._document = loaded.document
        self._writable = loaded.writable
        self.problem: str | None = loaded.problem
        """A note for the person when the file could not be used; shown in Settings."""

    @classmethod
    def in_data_dir(cls, data_dir: Path | None = None) -> PolicyBook:
        """The book in `data_dir` (default: $NOTCH_DATA_DIR, else the user data dir)."""
        return cls(settings_path(data_dir if data_dir is not None else default_data_dir()))

    # --- reading -----------------------------------------------------------------------

    @property
    def document(self) -> SettingsDocument:
        return self._document

    @property
    def overlay(self) -> OverlayPreferences:
        return self._document.overlay

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

    def set_overlay(self, preferences: OverlayPreferences) -> None:
        """Store all the overlay's preferences at once. Raises PolicyWriteError."""
        self._mutate(lambda document: document.model_copy(update={"overlay": preferences}))

    def set_glance(self, on: bool) -> None:
        """Turn the passive glance for actions that run without a card on or off.

        Raises PolicyWriteError when the file cannot be written."""
        self._change_overlay(glance=bool(on))

    def set_answer_by_voice(self, on: bool) -> None:
        """Turn "Answer by voice" on or off. Raises PolicyWriteError."""
        self._change_overlay(answer_by_voice=bool(on))

    def set_idle(self, idle: IdleLook) -> None:
        """What the notch shows while nothing is waiting: "pill" or "hidden".

        Raises PolicyRefused for any other value, PolicyWriteError on write failure."""
        if idle not in ("pill", "hidden"):
            raise PolicyRefused(f"the idle notch is 'pill' or 'hidden', not {idle!r}")
        self._change_overlay(idle=idle)

    def set_park_after(self, seconds: float) -> None:
        """Park a card left untouched this many seconds; 0 never parks.

        Raises PolicyRefused outside 0 or 5..3600 seconds, PolicyWriteError on write
        failure."""
        in_range = (
            isinstance(seconds, int | float)
            and not isinstance(seconds, bool)
            and math.isfinite(seconds)
            and (seconds == 0 or PARK_AFTER_MIN_S <= seconds <= PARK_AFTER_MAX_S)
        )
        if not in_range:
            raise PolicyRefused(
                f"park after is 0 (never park) or {PARK_AFTER_MIN_S} to {PARK_AFTER_MAX_S} "
                f"seconds, not {seconds!r}"
            )
        if isinstance(seconds, float) and seconds.is_integer():
            seconds = int(seconds)  # the file reads `60`, not `60.0`
        self._change_overlay(park_after_seconds=seconds)

    @property
    def agents(self) -> AgentPreferences:
        """How agents that ask are treated (the grace period of a closed connection)."""
        return self._document.agents

    def set_asker_grace(self, seconds: float) -> None:
        """How long an agent's open cards wait for it after its last connection closes.

        Raises PolicyRefused outside ASKER_GRACE_MIN_S..ASKER_GRACE_MAX_S seconds,
        PolicyWriteError on write failure."""
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not math.isfinite(seconds)
            or not ASKER_GRACE_MIN_S <= seconds <= ASKER_GRACE_MAX_S
        ):
            raise PolicyRefused(
                f"the asker grace period is {ASKER_GRACE_MIN_S} to {ASKER_GRACE_MAX_S} "
                f"seconds, not {seconds!r}"
            )
        if isinstance(seconds, float) and seconds.is_integer():
            seconds = int(seconds)  # the file reads `10`, not `10.0`
        kept = seconds
        self._mutate(
            lambda document: document.model_copy(
                update={"agents": document.agents.model_copy(update={"asker_grace_seconds": kept})}
            )
        )

    @property
    def phone(self) -> PhonePreferences:
        """Answer from your phone: whether the page is served, and on which port."""
        return self._document.phone

    def set_phone(self, enabled: bool, port: int | None = None) -> None:
        """Turn "Answer from your phone" on or off (and choose its port). Raises
        PolicyRefused for a port outside 1024..65535, PolicyWriteError on write failure."""
        update: dict[str, object] = {"enabled": bool(enabled)}
        if port is not None:
            update["port"] = port
        try:
            kept = PhonePreferences.model_validate({**self.phone.model_dump(), **update})
        except ValidationError as exc:
            raise PolicyRefused(f"phone: {exc.errors()[0]['msg']}") from None
        self._mutate(lambda document: document.model_copy(update={"phone": kept}))

    def set_glance_seconds(self, seconds: int) -> None:
        """Keep a tool result's glance this many seconds (one of 2, 4, 6, 10, 20).

        Raises PolicyRefused for any other value, PolicyWriteError on write failure."""
        if isinstance(seconds, bool) or seconds not in GLANCE_SECONDS_CHOICES:
            choices = ", ".join(str(c) for c in GLANCE_SECONDS_CHOICES)
            raise PolicyRefused(f"a glance stays {choices} seconds, not {seconds!r}")
        self._change_overlay(glance_seconds=int(seconds))

    def values(self, integration_id: str) -> IntegrationValues:
        """The person's preference values and non-secret auth fields for an integration."""
        return self._document.integrations.get(integration_id) or IntegrationValues()

    def set_value(
        self,
        integration_id: str,
        section: Literal["preferences", "auth"],
        name: str,
        value: str | bool | int | float | None,
    ) -> None:
        """Store one preference (or non-secret auth field) value; None forgets it.

        The caller checks the value fits the manifest's field first
        (`notch_app.runtime.secrets.preference_value`). Never for a secret: those live in
        the OS keyring. Raises PolicyRefused for a value the file cannot hold,
        PolicyWriteError when the file cannot be written.
        """

        def apply(document: SettingsDocument) -> SettingsDocument:
            integrations = dict(document.integrations)
            current = integrations.get(integration_id) or IntegrationValues()
            kept = dict(getattr(current, section))
            if value is None:
                kept.pop(name, None)
            else:
                kept[name] = value
            entry = current.model_copy(update={section: kept})
            if entry.is_empty:
                integrations.pop(integration_id, None)  # the file stays short
            else:
                integrations[integration_id] = entry
            return document.model_copy(update={"integrations": integrations})

        if value is not None:
            try:  # refused with the rule it broke before the file is touched
                IntegrationValues.model_validate({section: {name: value}})
            except ValidationError as exc:
                first = exc.errors()[0]
                raise PolicyRefused(f"{integration_id} {section} {name}: {first['msg']}") from None
        self._mutate(apply)

    def dismiss_problem(self) -> None:
        """The person has seen the note about an unusable settings file."""
        if self.problem is not None:
            self.problem = None
            self._notify()

    # --- file and listeners ------------------------------------------------------------

    def reload(self) -> bool:
        """Re-read the file (changed by `notch policy` or by hand). Returns whether anything
        changed; subscribers are told. A corrupt file is moved aside: everything asks."""
        loaded = read_settings(self.path)
        if loaded.problem is not None:
            self.problem = loaded.problem
        changed = loaded.document != self._document or loaded.problem is not None
        self._document = loaded.document
        self._writable = loaded.writable
        if changed:
            self._notify()
        return changed

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _notify(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:  # one broken listener must not stop the others
                log.exception("policy listener failed")

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

    def _change_overlay(self, **update: object) -> None:
        # Checked before the lock is taken, so a bad value is refused with the rule the
        # person broke, and never reaches the file.
        try:
            OverlayPreferences.model_validate({**self.overlay.model_dump(), **update})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = first["loc"][0] if first["loc"] else "overlay"
            raise PolicyRefused(f"overlay preference {where}: {first['msg']}") from None

        def apply(document: SettingsDocument) -> SettingsDocument:
            # Applied to the file as just re-read: another process's change to another
            # overlay preference is kept.
            return document.model_copy(
                update={"overlay": document.overlay.model_copy(update=update)}
            )

        self._mutate(apply)

    def _mutate(self, change: Callable[[SettingsDocument], SettingsDocument]) -> None:
        try:
            with settings_lock(self.path):
                loaded = read_settings(self.path)  # another process may have written since
                if loaded.problem is not None:
                    self.problem = loaded.problem
                if not loaded.writable:
                    self._document = loaded.document
                    self._writable = False
                    raise PolicyWriteError(
                        f"{self.path} was written by a newer Notch; not changing it. "
                        "Update Notch, or move the file away to start fresh."
                    )
                document = SettingsDocument.model_validate(change(loaded.document).model_dump())
                write_settings(self.path, document)
        except PolicyWriteError:
            self._notify()
            raise
        except OSError as exc:
            raise PolicyWriteError(
                f"could not write {self.path}: {exc.strerror or exc}; check that the folder "
                "exists and is writable, or pass --data-dir"
            ) from exc
        self._document = document
        self._writable = True
        self._notify()


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


def check_guard(tool: Tool, guard: Guard) -> None:
    """Refuse a guard naming an argument the tool does not have, or an "over" guard on an
    argument the schema says is not a number. Raises PolicyRefused with the nearest name."""
    paths = argument_paths(tool)
    by_path = {p.path: p for p in paths}
    info = by_path.get(guard.argument)
    if info is None:
        if not paths and not tool.input_schema.get("properties"):
            return  # a schema without properties: any argument may come; trust the person
        hint = nearest(guard.argument, list(by_path))
        known = ", ".join(list(by_path)[:12])
        raise PolicyRefused(
            f"{tool.name} has no argument {guard.argument!r}"
            + (f"; did you mean {hint!r}?" if hint else "")
            + (f" (its arguments: {known})" if known else "")
        )
    if isinstance(guard, OverGuard) and info.numeric is False:
        words = {
            "string": "text",
            "boolean": "true/false",
            "array": "a list",
            "object": "an object",
        }
        kinds = " or ".join(sorted(words.get(t, t) for t in info.types))
        raise PolicyRefused(
            f"{guard.argument} in {tool.name} holds {kinds}, not a number: an 'over' guard "
            "needs a number; use a 'not one of' guard instead"
        )
    if isinstance(guard, NotOneOfGuard) and not guard.allowed:
        raise PolicyRefused("a 'not one of' guard needs at least one allowed value")

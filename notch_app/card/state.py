"""CardState: the live form behind one confirmation card, without Qt.

It starts from the agent's proposed arguments, stages the person's edits (each coerced to
the bound property's type), decides what is visible and whether confirm is enabled, and
produces the final arguments that execute. The Qt card (notch_app/ui) draws it and
forwards keystrokes; `notch test` drives the same object through the real widgets.

Rules, from the spec (shared/seeds/confirmation-cards.txt):
- confirm is enabled only while every required, visible input holds a non-whitespace
  value; toggles never gate; hidden required inputs do not gate;
- `visibleIf` shows a block and its subtree only while its bound value is truthy;
- confirm also stays disabled while the final arguments fail the tool's inputSchema;
- passwordField values never appear in reprs, messages or interpolated text;
- a field that `visibleIf` hides when the person approves sends the agent's proposed value
  (or nothing), never what was typed into it while it showed (issue 8);
- display text marks invisible and bidi characters (`display_text.py`), and counts such as
  `{{paths.length}}` come from the arguments sent (issue 9);
- confirm stays closed while a value the card shows in a part that scrolls has not been
  on screen whole (`hold_until_seen`): nothing is approved unseen (issue 18).
What the tool alone decides (inputs, conditions) is `view_shape.py`; what the call sends
beyond what the card shows is `also_sends.py`.

Kept in one file (~480 lines) on purpose: gating, visibility and the final arguments
read and write the same staged values; split apart, each would reach into the others.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel

from notch_app.card.argument_changes import Changes, top_name
from notch_app.card.coerce import Coerced, coerce, is_blank, same_value
from notch_app.card.display_text import lookalike_warnings, mark_invisible
from notch_app.card.interpolate import interpolate, template_paths
from notch_app.card.paths import MISSING, PathError, delete_path, get_path, set_path
from notch_app.card.plain_errors import lies_under, problem_at, with_label
from notch_app.card.schema import is_argument_required, property_schema
from notch_app.card.validation import ArgumentCheck
from notch_app.card.view_shape import InputBinding, binding_path, view_shape
from notch_app.manifest.facts import counted_array, displayed, tool_facts
from notch_app.manifest.model import ConfirmationView, Tool
from notch_app.manifest.schema import ArgumentProblem

SECRET_MASK: Final = "••••••"
"""What a passwordField-bound value reads as anywhere in display text."""

REQUIRED_MESSAGE: Final = "is required"


def is_truthy(value: Any) -> bool:
    """`visibleIf` truthiness: non-blank text, a non-zero number, true, a non-empty list
    or object. Whitespace-only text, 0, false, null and an absent argument are falsy."""
    if value is None or value is MISSING or value is False:
        return False
    if isinstance(value, str):
        return value.strip() != ""
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, list | tuple | Mapping):
        return len(value) > 0
    return True


def holds_value(value: Any) -> bool:
    """What a required input needs: not absent or null, text not whitespace-only, a
    list or object not empty. 0 and false are values."""
    return not is_blank(value)


@dataclass(slots=True)
class _Gate:
    """Everything derived from the current values; recomputed lazily after each change."""

    problems: list[ArgumentProblem]
    errors: dict[str, str]
    blockers: list[str]
    shown: dict[str, str | None] | None = None
    """`field_error` of every input, made when first asked (`field_errors`)."""


class CardState:
    """The live state of one confirmation card for one tool call.

    Raises ValueError when the tool has no confirmation view or the view holds a `bind`
    or `visibleIf` that is not a single `{{path}}` binding.
    """

    def __init__(self, tool: Tool, arguments: Mapping[str, Any]) -> None:
        if tool.confirmation is None:
            raise ValueError(
                f"tool {tool.name!r} has no confirmation view: only acting tools that "
                "declare `confirmation` in their manifest get a card"
            )
        self.tool: Tool = tool
        self.view: ConfirmationView = tool.confirmation
        # Deep copy once, so the agent's dict can change without touching the card; str
        # values are shared, so a 1 MB argument costs nothing here.
        self.proposed: dict[str, Any] = copy.deepcopy(dict(arguments))
        self._edits: dict[str, Any] = {}
        self._coercion_errors: dict[str, str] = {}
        self._touched: set[str] = set()
        self._current: dict[str, Any] = self.proposed
        self._version = 0
        self._gate_cache: tuple[int, _Gate] | None = None
        self._check = ArgumentCheck(tool)
        self._texts: dict[str, tuple[str, Mapping[str, Any], frozenset[str]]] = {}
        """template → (its text, the arguments it was made from, the names it reads)."""
        self._notified: Mapping[str, Any] = self.proposed
        self._changes = Changes(self.proposed, self.proposed, frozenset(), False)
        self._subscribers: list[Callable[[], None]] = []
        shape = view_shape(tool)
        self._conditions = shape.conditions
        self.inputs: list[InputBinding] = list(shape.inputs)
        self.facts = tool_facts(tool)
        """What the tool's arguments are (`tool_facts.py`): which are secret, masked in
        every text and never quoted, by the one rule the log and the model go by."""
        self._gated = shape.gated
        self._needs_value = [(b, c) for b, c in shape.gated if b.required and b.kind != "toggle"]
        """The gated inputs that can hold confirm with nothing else wrong: required ones
        (toggles never gate: off is an answer)."""
        self._by_path = shape.by_path
        self._hidden_when = shape.hidden_when
        self._shown = shape.shown
        self._withheld: tuple[str, ...] = ()
        self._unseen: dict[str, str] = {}
        self._no_errors: dict[str, str | None] | None = None

    # --- reading -------------------------------------------------------------------------

    def value(self, path: str) -> Any:
        """The current value at `path`: the person's edit, else the agent's proposal,
        else MISSING. An edit that failed coercion reads as the raw text typed.

        The value is shared with the card's state (no copy per call, so 1 MB arguments
        stay cheap): treat it as read-only and hand changes to set()."""
        return get_path(self._current, path)

    def input_for(self, path: str) -> InputBinding | None:
        """The first input bound to `path`, or None."""
        return self._by_path.get(path)

    def visibility_paths(self, block: BaseModel) -> tuple[str, ...]:
        """The argument paths whether `block` shows depends on (its own and every
        ancestor's `visibleIf`)."""
        conditions = self._conditions.get(id(block))
        if conditions is None:
            own = getattr(block, "visible_if", None)
            return () if own is None else (binding_path(self.tool, own, block, "visibleIf"),)
        return tuple(conditions)

    def is_visible(self, block: BaseModel) -> bool:
        """Whether `block` (a model from `view`) shows: its own and every ancestor's
        `visibleIf` value is truthy. A block from elsewhere is judged by its own only."""
        conditions = self._conditions.get(id(block))
        if conditions is None:
            own = getattr(block, "visible_if", None)
            if own is None:
                return True
            conditions = (binding_path(self.tool, own, block, "visibleIf"),)
        return all(is_truthy(get_path(self._current, p)) for p in conditions)

    def is_touched(self, path: str) -> bool:
        """Whether the person has set this path since the card opened (or its revert).

        The UI can use it to hold back "is required" under an untouched field, so an
        untouched form never looks like it failed (the spec's permanent `*`)."""
        return path in self._touched

    def edited_paths(self) -> list[str]:
        """Paths the person set whose final value differs from the proposed one, in the
        order they were first edited."""
        return [
            p
            for p in self._edits
            if not same_value(get_path(self._current, p), get_path(self.proposed, p))
        ]

    def arguments(self) -> Mapping[str, Any]:
        """The arguments as they stand (the proposal with the edits), shared, not copied:
        read-only. Every change makes new containers along the edited path and shares the
        rest (copy-on-write), so a reader may keep what it read from and compare by
        identity (`card.headline.Reads`). For the arguments to execute, `final_arguments`."""
        return self._current

    def final_arguments(self) -> dict[str, Any]:
        """The arguments to execute: the proposal with the edits applied (a fresh copy).

        An optional argument the person never touched stays absent. An edit of a field
        that visibleIf hides right now is not applied: that argument is sent as proposed
        (or left out, if the agent sent nothing). While an edit has a coercion error this
        holds the raw text (and confirm is disabled)."""
        return copy.deepcopy(self._current)

    # --- editing -------------------------------------------------------------------------

    def set(self, path: str, raw: Any) -> None:
        """Stage the person's edit of `path`, coerced to the bound property's type.

        Clearing (blank text, no chips, None): the proposed value stays if it was blank
        too; else an argument the inputSchema does not require is removed; a required
        one gets the coerced blank (`""`, `[]`, null, or absent for numbers — then shown
        as "is required"). Typing back the proposed value drops the edit. Coercion
        errors are recorded, never raised. Notifies subscribers when anything changed.
        """
        binding = self._by_path.get(path)
        schema = binding.schema if binding is not None else self._schema_for(path)
        proposed = get_path(self.proposed, path)
        if is_blank(raw) and not isinstance(raw, bool):
            required = (
                binding.argument_required
                if binding is not None
                else is_argument_required(self.tool.input_schema, path)
            )
            if is_blank(proposed):
                result = Coerced(proposed)
            elif not required:
                result = Coerced(MISSING)
            else:
                result = coerce(raw, schema, self.tool.input_schema)
        else:
            result = coerce(raw, schema, self.tool.input_schema)

        before = (
            path in self._touched,
            self._edits.get(path, _UNSET),
            self._coercion_errors.get(path),
        )
        self._touched.add(path)
        self._edits.pop(path, None)  # re-inserted below: edits apply in the order made
        self._coercion_errors.pop(path, None)
        if result.error is not None or not same_value(result.value, proposed):
            self._edits[path] = result.value
            if result.error is not None:
                self._coercion_errors[path] = result.error
        after = (True, self._edits.get(path, _UNSET), self._coercion_errors.get(path))
        if not _same_snapshot(before, after):
            self._rebuild_current()
            self._changed()

    def revert(self, path: str) -> None:
        """Drop the person's edit of `path`; the proposed value shows again."""
        had = path in self._edits or path in self._coercion_errors or path in self._touched
        self._edits.pop(path, None)
        self._coercion_errors.pop(path, None)
        self._touched.discard(path)
        if had:
            self._rebuild_current()
            self._changed()

    def revert_all(self) -> None:
        """Drop every edit; the card shows the agent's proposal again."""
        if self._edits or self._coercion_errors or self._touched:
            self._edits.clear()
            self._coercion_errors.clear()
            self._touched.clear()
            self._rebuild_current()
            self._changed()

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback()` after every change; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def _schema_for(self, path: str) -> Mapping[str, Any]:
        return property_schema(self.tool.input_schema, path)

    def _rebuild_current(self) -> None:
        # An edit of a field that visibleIf hides is not sent (the person can no longer
        # see it): the agent's proposed value goes instead. Hiding one edit can hide
        # another field, so edits are withheld until none is hidden; each round only
        # withholds, so this ends.
        active = self._edits
        withheld: list[str] = []
        current = self._apply(active)
        while self._hidden_when:
            hidden = [p for p in active if p in self._hidden_when and self._hidden(p, current)]
            if not hidden:
                break
            withheld.extend(hidden)
            active = {p: v for p, v in active.items() if p not in hidden}
            current = self._apply(active)
        self._withheld = tuple(withheld)
        self._current = current

    def _hidden(self, path: str, current: Mapping[str, Any]) -> bool:
        return all(
            any(not is_truthy(get_path(current, c)) for c in conditions)
            for conditions in self._hidden_when[path]
        )

    def _apply(self, edits: Mapping[str, Any]) -> dict[str, Any]:
        # Copy-on-write along each edited path only: the untouched arguments (however
        # large) are shared with `proposed`, never copied per keystroke.
        current: dict[str, Any] = self.proposed
        for path, value in edits.items():
            try:
                if value is MISSING:
                    current = delete_path(current, path)
                else:
                    current = set_path(current, path, value)
            except PathError:
                self._coercion_errors[path] = "cannot be written at this place"
        return current

    def withheld_paths(self) -> list[str]:
        """Paths the person edited whose field is hidden now: their edit is kept (it shows
        again with the field) but not sent; the proposed value (or nothing) goes."""
        return list(self._withheld)

    def _changed(self) -> None:
        self._version += 1
        current = self._current
        self._changes = Changes.between(self._notified, current)
        self._notified = current
        for callback in list(self._subscribers):
            callback()

    def changes_since(self, before: Mapping[str, Any]) -> Changes:
        """What differs between `before` (arguments this state gave out) and now: what a
        subscriber that last read `before` must look at again. Cheap for the change
        being told (it is worked out once per change)."""
        changes, current = self._changes, self._current
        if changes.before is before and changes.after is current:
            return changes
        return Changes.between(before, current)

    # --- gating --------------------------------------------------------------------------

    def _gate(self) -> _Gate:
        cached = self._gate_cache
        if cached is not None and cached[0] == self._version:
            return cached[1]
        problems = self._check.problems(self._current)
        errors: dict[str, str] = {}
        blockers: list[str] = list(dict.fromkeys(self._unseen.values()))
        covered: set[str] = set()
        current = self._current
        coercion_errors = self._coercion_errors
        # With no schema problem and no coercion error (most keystrokes), only a required
        # input can say anything: the others are passed over, in the same order.
        quiet = not problems and not coercion_errors
        for binding, conditions in self._needs_value if quiet else self._gated:
            path = binding.path
            visible = True
            for condition in conditions:
                if not is_truthy(get_path(current, condition)):
                    visible = False
                    break
            message = coercion_errors.get(path)
            if message is None and problems:
                message = problem_at(problems, path, self._quotable(path))
            if (
                message is None
                and visible
                and binding.required
                and binding.kind != "toggle"  # toggles never gate: off is an answer
                and is_blank(get_path(current, path))
            ):
                message = REQUIRED_MESSAGE
            if message is not None:
                errors.setdefault(path, message)
            if visible:
                covered.add(path)
                reason = with_label(binding.label, message) if message is not None else None
                if reason is not None and reason not in blockers:
                    blockers.append(reason)
        # Schema problems nobody can see at a visible field still block confirm; name them
        # by their input's label when one exists, else by the argument path.
        for problem in problems:
            if problem.path in covered or any(lies_under(problem.path, p) for p in covered):
                continue
            owner = next((b for b in self.inputs if lies_under(problem.path, b.path)), None)
            name = owner.label if owner is not None else (problem.path or "The tool call")
            reason = f"{name} {problem.message}"
            if reason not in blockers:
                blockers.append(reason)
        gate = _Gate(problems, errors, blockers)
        self._gate_cache = (self._version, gate)
        return gate

    def _quotable(self, path: str) -> Mapping[str, Any] | None:
        """The values an error about `path` may quote: none for a secret."""
        if self.facts.is_secret(path):
            return None
        return self._current

    def field_errors(self) -> dict[str, str | None]:
        """`field_error` of every input's path, worked out once per change (a card shows
        them all after every keystroke). Read-only."""
        gate = self._gate()
        if gate.shown is None:
            if not (gate.problems or gate.errors or self._coercion_errors):
                # Nothing to say anywhere (most keystrokes): every field shows no error,
                # the same dict each time (a reader may compare it by identity).
                if self._no_errors is None:
                    self._no_errors = dict.fromkeys((b.path for b in self.inputs), None)
                gate.shown = self._no_errors
            else:
                gate.shown = {b.path: self._field_error(gate, b.path) for b in self.inputs}
        return gate.shown

    def field_error(self, path: str) -> str | None:
        """What to show under the field bound to `path`, or None: the coercion error,
        else the inputSchema's complaint about that path (or inside it) in a person's
        words ("“sam@” is not an email address": the value quoted, cut and marked, never
        a secret's), else "is required" for a required, visible input that is blank.

        A field the person has not touched that is blank (or missing) shows no error: an
        untouched form never looks like it failed (the spec's quiet, permanent `*`);
        blockers() still names it for the disabled confirm's tooltip.
        """
        return self._field_error(self._gate(), path)

    def _field_error(self, gate: _Gate, path: str) -> str | None:
        message = gate.errors.get(path)
        if message is None:
            message = self._coercion_errors.get(path)
            if message is None and gate.problems:
                message = problem_at(gate.problems, path, self._quotable(path))
        untouched = path not in self._touched
        if untouched and (message == REQUIRED_MESSAGE or is_blank(get_path(self._current, path))):
            return None
        return message

    def blockers(self) -> list[str]:
        """Why confirm is disabled, in the person's words ("Scroll to see all 42 lines
        first", "Text is required", "Count must be a whole number"), what must still be
        seen first, then visible inputs; empty exactly when confirm is enabled."""
        return list(self._gate().blockers)

    # --- what must be seen -----------------------------------------------------------

    def hold_until_seen(self, key: str, reason: str) -> None:
        """Keep confirm closed until `seen(key)`, saying `reason` ("Scroll to see all 42
        lines first"): for a value the card shows in a part too small for it, which the
        person must scroll through. A new reason for the same key replaces the old one.
        Every way to approve (a click, a key, a typed or spoken yes, "Approve all") reads
        `confirm_enabled`, so none gets past it. Notifies subscribers when it changed."""
        if self._unseen.get(key) != reason:
            self._unseen[key] = reason
            self._changed()

    def seen(self, key: str) -> None:
        """The value held by `hold_until_seen(key)` has now been on screen whole."""
        if self._unseen.pop(key, None) is not None:
            self._changed()

    def unseen(self) -> list[str]:
        """The reasons of every hold still waiting to be seen, in the order they came."""
        return list(self._unseen.values())

    @property
    def confirm_enabled(self) -> bool:
        """True while every required visible input (toggles aside) holds a value, no
        visible input has a coercion error, the final arguments fit the inputSchema and
        every value held by `hold_until_seen` has been on screen."""
        return not self._gate().blockers

    def problems(self) -> list[ArgumentProblem]:
        """The inputSchema problems of the current final arguments (never quoting values)."""
        return list(self._gate().problems)

    # --- display -------------------------------------------------------------------------

    def text(self, template: str) -> str:
        """`template` as the card shows it: bindings filled from the current values
        ("Delete {{paths.length}} files" follows edits live), invisible and bidi characters
        marked (`⟨U+202E⟩`), secret values read as SECRET_MASK. Never raises."""
        current = self._current
        kept = self._texts.get(template)
        if kept is not None:
            text, made_from, names = kept
            if made_from is current:
                return text
            if names.isdisjoint(self.changes_since(made_from).names):
                self._texts[template] = (text, current, names)  # still right: say so
                return text
            names_read = names
        else:
            names_read = frozenset(top_name(path) for path in template_paths(template))
        text = mark_invisible(interpolate(template, self.display_lookup))
        if kept is not None or len(self._texts) < 4096:
            self._texts[template] = (text, current, names_read)
        return text

    def raw_text(self, template: str) -> str:
        """`template` filled like `text()` but with every character as sent, invisible
        ones unmarked (secrets still masked): for what is not shown on the card, such as
        the clipboard text of a copy action. Never raises."""
        return interpolate(template, self.display_lookup)

    def text_warnings(self, template: str) -> list[str]:
        """Warning lines for `template` as filled now: each word that mixes Latin with
        look-alike letters ("‘exаmple.com’ mixes Latin and Cyrillic letters that look
        alike"). Empty for plain text. Never raises."""
        return lookalike_warnings(interpolate(template, self.display_lookup))

    def shown_now(self) -> list[str]:
        """The argument paths the card draws right now: bound or displayed by a block
        that is visible (counts such as `paths.length` draw no values)."""
        current = self._current
        return displayed(
            shown.path
            for shown in self._shown
            if all(is_truthy(get_path(current, c)) for c in shown.conditions)
        )

    def display_lookup(self, path: str) -> Any:
        """The current value of `path` for display: secrets (and objects holding them)
        are masked; `list.length` is the number of elements of an array argument. Absent
        reads as MISSING."""
        value = get_path(self._current, path)
        if value is MISSING:
            counted = counted_array(path)
            if counted is not None:
                items = get_path(self._current, counted)
                # `{{paths.length}}`: counts in labels come from the list that is sent.
                return len(items) if isinstance(items, list) else MISSING
        facts = self.facts
        if value is MISSING or (
            not facts.is_secret(path)  # scalars first: no trip through the Mapping ABC
            and (type(value) in (str, int, float, bool) or not isinstance(value, Mapping | list))
        ):
            return value
        if facts.masks(path):
            return SECRET_MASK if holds_value(value) else value
        wrapped: dict[str, Any] = {"v": value}
        for inner in facts.secrets_in(value, path):
            sub = f"v.{inner}"
            if holds_value(get_path(wrapped, sub)):
                wrapped = set_path(wrapped, sub, SECRET_MASK)
        return wrapped["v"]

    def __repr__(self) -> str:
        # Paths and counts only: values (passwords among them) never appear here.
        return (
            f"<CardState tool={self.tool.name!r} inputs={len(self.inputs)} "
            f"edited={list(self._edits)!r} errors={sorted(self._coercion_errors)!r}>"
        )

    __str__ = __repr__


_UNSET: Final = object()


def _same_snapshot(a: tuple[bool, Any, str | None], b: tuple[bool, Any, str | None]) -> bool:
    if a[0] != b[0] or a[2] != b[2]:
        return False
    if a[1] is _UNSET or b[1] is _UNSET:
        return a[1] is b[1]
    # Same JSON value and same Python type (so "4" typed over 4 still redraws).
    return same_value(a[1], b[1]) and type(a[1]) is type(b[1])


__all__ = [
    "REQUIRED_MESSAGE",
    "SECRET_MASK",
    "CardState",
    "InputBinding",
    "holds_value",
    "is_truthy",
]

"""A widget card's state: a sandboxed page stages edits, Notch decides and shows them.

A confirmation view whose root is a `widget` is an HTML page the integration drew. The
page may post `{"type": "voiceos:args", "arguments": {...}}` to stage edits; they are
staged here exactly as the person's inline edits are (`CardState.set`: coerced to the
property's type, the inputSchema checked on the final arguments), with what a page may
not do refused first, as a whole, with the reason shown while confirm stays closed:

- only properties the tool's inputSchema declares (top level), never one it lacks;
- never a secret (`ToolFacts.is_secret`: `format: password`, `writeOnly`, a PIN, …) the
  page was not given in `data`;
- plain JSON only, at most MAX_STAGED_BYTES, and values the property's type accepts.

The page never decides what the card shows: Notch lists every argument the call sends
under the page ("What will run", `what_will_run`), each staged change as `before → after`,
so `shown_now()` is empty here (no block of Notch's draws an argument). Qt-free.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from notch_app.card.also_sends import also_sends, argument_label
from notch_app.card.coerce import coerce, is_blank, same_value
from notch_app.card.display_text import mark_invisible
from notch_app.card.interpolate import display_value, interpolate
from notch_app.card.paths import MISSING, get_path
from notch_app.card.schema import property_schema
from notch_app.card.state import SECRET_MASK, CardState
from notch_app.manifest.model import Tool, WidgetBlock
from notch_app.manifest.paths import MalformedBinding, find_bindings, parse_single_binding
from notch_app.manifest.schema import navigator_for

MAX_STAGED_BYTES: Final = 256 * 1024
"""A page's staged arguments, as JSON: larger is refused before anything is looked at."""

MAX_STAGED_DEPTH: Final = 32
"""Deepest nesting of lists and objects in a staging."""

REFUSED: Final = "The widget's changes were refused"
"""How every refusal reason starts (confirm stays closed while one stands)."""


def card_state_for(tool: Tool, arguments: Mapping[str, Any]) -> CardState:
    """The state for `tool`'s card: a WidgetCardState when its view is a widget, else a
    CardState. Raises ValueError as CardState does."""
    if tool.confirmation is not None and isinstance(tool.confirmation.root, WidgetBlock):
        return WidgetCardState(tool, arguments)
    return CardState(tool, arguments)


@dataclass(frozen=True, slots=True)
class Staging:
    """What one `voiceos:args` did to the card."""

    changed: bool
    """The card changed (values, or a refusal came or went): confirm must be held."""
    refusal: str | None = None
    """Why it was refused ("The widget's changes were refused: ..."), else None."""


@dataclass(frozen=True, slots=True)
class RunLine:
    """One argument the call will send, as "What will run" lists it."""

    path: str
    label: str
    text: str
    """The value as it will be sent (display text, invisibles marked, secrets masked);
    "" when a staged change removes it."""
    before: str | None = None
    """The proposed value's text when the page changed it (None: unchanged)."""
    warnings: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.before is not None


class WidgetCardState(CardState):
    """CardState for a widget view: the page's stagings, refusals and the data it gets.

    Raises ValueError when the tool's view is not a widget."""

    def __init__(self, tool: Tool, arguments: Mapping[str, Any]) -> None:
        super().__init__(tool, arguments)
        root = self.view.root
        if not isinstance(root, WidgetBlock):
            raise ValueError(f"tool {tool.name!r}: its confirmation is not a widget view")
        self.widget: WidgetBlock = root
        schema = tool.input_schema
        props = navigator_for(schema).properties(schema) or {}
        self._properties: dict[str, Mapping[str, Any]] = {
            name: property_schema(schema, name) for name in props if isinstance(name, str)
        }
        self._bound: frozenset[str] = frozenset(_data_paths(root.data))
        # A secret, or an object holding one, by the tool's one rule (tool_facts.py).
        self._page_secrets = frozenset(n for n in self._properties if self.facts.is_secret(n))
        self._refusal: str | None = None
        self._page_watchers: list[Callable[[], None]] = []

    # --- what the page gets --------------------------------------------------------

    def page_data(self) -> dict[str, Any]:
        """The widget's `data` for `voiceos:init`, bindings filled from the current
        values: a string that is one binding becomes the value (typed; null when
        absent), other text has its bindings filled in as text. A fresh copy."""
        return dict(_fill(self.widget.data, self._value_or_none, 0))

    def _value_or_none(self, path: str) -> Any:
        value = self.value(path)
        return None if value is MISSING else value

    # --- what the page stages ------------------------------------------------------

    def stage(self, arguments: Any) -> Staging:
        """Stage the page's `arguments` (a `voiceos:args` message's) as edits, all or
        none. A refused staging keeps confirm closed with its reason (first of
        `blockers()`) until a staging is accepted or `revert_all()`. Never raises; never
        quotes a value."""
        version = self._version
        reason = self._refusal_of(arguments)
        if reason is not None:
            self._refuse(f"{REFUSED}: {reason}")
            refused = Staging(self._version != version, self._refusal)
            if refused.changed:
                self.page_changed()
            return refused
        assert isinstance(arguments, dict)
        had_refusal = self._refusal is not None
        self._refusal = None
        before = self._current  # copy-on-write: never changed in place
        for name, value in arguments.items():
            self.set(name, value)
        if had_refusal and self._version == version:
            self._changed()  # the refusal went: confirm may open
        staged = Staging(had_refusal or not same_value(before, self._current), None)
        if staged.changed:
            self.page_changed()
        return staged

    def on_page_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback()` whenever the page changed the card (a staging that changed
        it, or `page_changed`): the overlay holds confirm again. Returns an unsubscribe."""
        self._page_watchers.append(callback)

        def unsubscribe() -> None:
            if callback in self._page_watchers:
                self._page_watchers.remove(callback)

        return unsubscribe

    def page_changed(self) -> None:
        """Say the page changed the card (its staging, or it stopped responding and was
        replaced): every `on_page_change` callback is called."""
        for callback in list(self._page_watchers):
            callback()

    def _refusal_of(self, arguments: Any) -> str | None:
        if not isinstance(arguments, dict):
            return "they are not arguments by name (a JSON object)"
        try:
            size = len(json.dumps(arguments, ensure_ascii=False, allow_nan=False))
        except (TypeError, ValueError, RecursionError):
            return "they are not plain JSON"
        if size > MAX_STAGED_BYTES or _depth(arguments) > MAX_STAGED_DEPTH:
            return f"they are larger than {MAX_STAGED_BYTES // 1024} KiB or nested too deep"
        title = self.tool.title or self.tool.name
        for name, value in arguments.items():
            schema = self._properties.get(name)
            if schema is None or "." in name:
                return f"{_quoted(name)} is not an argument {title} takes"
            if name in self._page_secrets and name not in self._bound:
                return f"{_quoted(name)} is a secret the widget was never shown"
            if not is_blank(value):
                result = coerce(value, schema, self.tool.input_schema)
                if result.error is not None:
                    return f"{argument_label(self, name)} {result.error}"
        return None

    def _refuse(self, reason: str) -> None:
        if reason != self._refusal:
            self._refusal = reason
            self._changed()

    @property
    def refusal(self) -> str | None:
        """Why the page's last staging was refused, while that stands; else None."""
        return self._refusal

    def revert_all(self) -> None:
        """Drop every staged edit and any refusal; the agent's proposal goes again."""
        had = self._refusal is not None
        self._refusal = None
        version = self._version
        super().revert_all()
        if had and self._version == version:
            self._changed()

    # --- gating and display --------------------------------------------------------

    def blockers(self) -> list[str]:
        """As CardState's, a standing refusal first."""
        found = super().blockers()
        return [self._refusal, *found] if self._refusal is not None else found

    @property
    def confirm_enabled(self) -> bool:
        return not self.blockers()

    def shown_now(self) -> list[str]:
        """Nothing: the page is not trusted to show anything; Notch lists every argument."""
        return []

    def what_will_run(self) -> list[RunLine]:
        """Every argument the call sends now, each staged change with its proposed value
        (an argument the page removed reads as the proposed value → ""). Argument order,
        removed ones last. Never raises."""
        changed = set(self.edited_paths())
        lines: list[RunLine] = []
        for entry in also_sends(self):
            before = self._proposed_text(entry.path) if entry.path in changed else None
            lines.append(
                RunLine(entry.path, entry.label, entry.text, before, tuple(entry.warnings))
            )
        listed = {line.path for line in lines}
        for path in self.edited_paths():
            if path not in listed and not is_blank(get_path(self.proposed, path)):
                lines.append(
                    RunLine(path, argument_label(self, path), "", self._proposed_text(path))
                )
        return lines

    def _proposed_text(self, path: str) -> str:
        value = get_path(self.proposed, path)
        if self.facts.masks(path):
            return SECRET_MASK if not is_blank(value) else ""
        if self.facts.is_secret(path):  # an object holding a secret: shown with it masked
            value = self.facts.masked_value(value, path, SECRET_MASK)
        return mark_invisible(display_value(value))

    def __repr__(self) -> str:
        return super().__repr__().replace("<CardState", "<WidgetCardState", 1)

    __str__ = __repr__


def _quoted(name: str) -> str:
    shown = mark_invisible(name if len(name) <= 60 else name[:59] + "…")
    return f"\u201c{shown}\u201d"


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_STAGED_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def _data_paths(data: Any) -> set[str]:
    """The top-level argument names bound anywhere in a widget's `data`."""
    found: set[str] = set()
    stack: list[Any] = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str) and ("{{" in node or "<<" in node):
            try:
                found.update(b.path.split(".", 1)[0] for b in find_bindings(node))
            except MalformedBinding:
                continue  # validation reports it; nothing is bound
    return found


def _fill(node: Any, value_of: Any, depth: int) -> Any:
    if depth > MAX_STAGED_DEPTH:
        return None
    if isinstance(node, dict):
        return {k: _fill(v, value_of, depth + 1) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, value_of, depth + 1) for v in node]
    if isinstance(node, str) and ("{{" in node or "<<" in node):
        try:
            return value_of(parse_single_binding(node))
        except MalformedBinding:
            return interpolate(node, value_of)
    if isinstance(node, float) and not math.isfinite(node):
        return None
    return node


__all__ = [
    "MAX_STAGED_BYTES",
    "REFUSED",
    "RunLine",
    "Staging",
    "WidgetCardState",
    "card_state_for",
]

"""What a card derives from its tool alone: the inputs and the visibleIf conditions.

Made once per Tool object and shared by every card of that tool (`view_shape`), so opening
a card or typing a key never walks the view again. CardState (`state.py`) reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from pydantic import BaseModel

from notch_app.card.schema import is_argument_required, property_schema
from notch_app.manifest.facts import ShownPath, shown_paths
from notch_app.manifest.model import (
    ChipsBlock,
    InputBlock,
    PasswordFieldBlock,
    SelectBlock,
    TextFieldBlock,
    ToggleBlock,
    Tool,
    walk_blocks,
)
from notch_app.manifest.paths import MalformedBinding, parse_single_binding

_INPUT_CLASSES: Final = (
    TextFieldBlock,
    PasswordFieldBlock,
    SelectBlock,
    ToggleBlock,
    ChipsBlock,
)


@dataclass(frozen=True, slots=True)
class InputBinding:
    """One input block of the card and the argument it edits."""

    path: str
    """The bound argument path, without braces (`user.name`)."""
    block: InputBlock = field(repr=False)
    kind: str
    """The block type: textField, passwordField, select, toggle or chips."""
    label: str
    required: bool
    """The input's `required` (gates confirm while visible); not the schema's."""
    secret: bool
    """A passwordField: its value is masked in every text and never quoted."""
    schema: Mapping[str, Any] = field(repr=False)
    """The bound property's JSON Schema (`{}` when the inputSchema does not say)."""
    argument_required: bool = False
    """The inputSchema lists this argument as required (clearing it sends an empty value
    rather than leaving it out)."""


@dataclass(frozen=True, slots=True)
class ViewShape:
    """What a card derives from its tool alone (not from the values): the visibleIf
    paths of every block and its ancestors, and the inputs with their schemas. Shared by
    every card of the same Tool object and never changed after it is made."""

    conditions: dict[int, tuple[str, ...]]
    """For every block (by id), its own and its ancestors' visibleIf paths."""
    inputs: tuple[InputBinding, ...]
    secret_paths: tuple[str, ...]
    gated: tuple[tuple[InputBinding, tuple[str, ...]], ...]
    by_path: dict[str, InputBinding]
    hidden_when: dict[str, tuple[tuple[str, ...], ...]]
    """For each bound path with a visibleIf above some input bound to it: the conditions
    of every input bound to it (the path is hidden when each input has a falsy one)."""
    shown: tuple[ShownPath, ...]
    """What the view shows, with the conditions it shows under (for "Also sends")."""


_SHAPES: dict[int, tuple[Tool, ViewShape]] = {}
_MAX_SHAPES: Final = 64
"""Tools are frozen and few (one per acting tool of the loaded integrations); the entry
holds its Tool, so an id is never reused while its shape is kept."""


def view_shape(tool: Tool) -> ViewShape:
    """The shape of `tool`'s confirmation view, made once per Tool object (~0.3 ms for a
    20-input view: a binding parse and two schema look-ups per input). Raises ValueError
    as CardState does."""
    entry = _SHAPES.get(id(tool))
    if entry is not None and entry[0] is tool:
        return entry[1]
    shape = _make_view_shape(tool)
    if len(_SHAPES) >= _MAX_SHAPES:
        _SHAPES.pop(next(iter(_SHAPES)))
    _SHAPES[id(tool)] = (tool, shape)
    return shape


def _make_view_shape(tool: Tool) -> ViewShape:
    assert tool.confirmation is not None
    conditions: dict[int, tuple[str, ...]] = {}
    inputs: list[InputBinding] = []
    # Walk the view once, recording for every block the visibleIf paths of itself and
    # its ancestors, so is_visible() is a handful of dict lookups per call.
    for visit in walk_blocks(tool.confirmation.root, action_items=True):
        block = visit.block
        inherited = conditions[id(visit.parent)] if visit.parent is not None else ()
        own = getattr(block, "visible_if", None)
        here = inherited
        if own is not None:
            here = (*inherited, binding_path(tool, own, block, "visibleIf"))
        conditions[id(block)] = here
        if isinstance(block, _INPUT_CLASSES):
            path = binding_path(tool, block.bind, block, "bind")
            inputs.append(
                InputBinding(
                    path=path,
                    block=block,
                    kind=block.type,
                    label=block.label,
                    required=block.required,
                    secret=isinstance(block, PasswordFieldBlock),
                    schema=property_schema(tool.input_schema, path),
                    argument_required=is_argument_required(tool.input_schema, path),
                )
            )
    by_path: dict[str, InputBinding] = {}
    every: dict[str, list[tuple[str, ...]]] = {}
    for binding in inputs:
        by_path.setdefault(binding.path, binding)
        every.setdefault(binding.path, []).append(conditions[id(binding.block)])
    return ViewShape(
        conditions=conditions,
        inputs=tuple(inputs),
        secret_paths=tuple(sorted({i.path for i in inputs if i.secret})),
        gated=tuple((b, conditions[id(b.block)]) for b in inputs),
        by_path=by_path,
        hidden_when={p: tuple(c) for p, c in every.items() if all(c)},
        shown=tuple(shown_paths(tool.confirmation.root)),
    )


def binding_path(tool: Tool, raw: str, block: BaseModel, prop: str) -> str:
    try:
        return parse_single_binding(raw)
    except MalformedBinding:
        where = getattr(block, "label", None) or getattr(block, "type", "block")
        raise ValueError(
            f"tool {tool.name!r}: the {prop} of {where!r} is not a single "
            "binding; write it as '{{argument}}' or '{{object.property}}'"
        ) from None


__all__ = ["InputBinding", "ViewShape", "binding_path", "view_shape"]

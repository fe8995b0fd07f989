"""Qt-free card logic: bindings, form state, gating and the final arguments.

- `paths`: read and write dotted argument paths (copy-on-write).
- `interpolate`: display text with `{{path}}` / `<<path>>` filled in.
- `coerce`: what a person typed or picked → the bound property's JSON type.
- `schema`: the JSON Schema of one bound argument inside a tool's inputSchema.
- `state`: `CardState`, the live form behind one confirmation card.

`CardState` and `InputBinding` load on first use: `state` pulls in the manifest model
(pydantic, jsonschema), which `notch hook` — started on every tool call of a coding
agent — reads none of when it imports `card.input_text`.
"""

from typing import TYPE_CHECKING, Any

from notch_app.card.paths import MISSING

if TYPE_CHECKING:
    from notch_app.card.state import CardState, InputBinding

__all__ = ["MISSING", "CardState", "InputBinding"]

_FROM_STATE = frozenset({"CardState", "InputBinding"})


def __getattr__(name: str) -> Any:
    if name in _FROM_STATE:
        from notch_app.card import state

        return getattr(state, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Qt-free card logic: bindings, form state, gating and the final arguments.

- `paths`: read and write dotted argument paths (copy-on-write).
- `interpolate`: display text with `{{path}}` / `<<path>>` filled in.
- `coerce`: what a person typed or picked → the bound property's JSON type.
- `schema`: the JSON Schema of one bound argument inside a tool's inputSchema.
- `state`: `CardState`, the live form behind one confirmation card.
"""

from notch_app.card.paths import MISSING
from notch_app.card.state import CardState, InputBinding

__all__ = ["MISSING", "CardState", "InputBinding"]

"""A fingerprint of what a person agreed to when they turned Asks first off.

It covers the card (the confirmation view) and the arguments it can bind (the
inputSchema). A manifest update that changes either gets a new fingerprint, so an earlier
"off" no longer applies and the action asks again.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from notch_app.manifest.model import Tool


def card_fingerprint(tool: Tool) -> str:
    """`sha256:<hex>` of the canonical JSON of the tool's confirmation view and inputSchema."""
    view: Any = None
    if tool.confirmation is not None:
        # Defaults left out, so a new optional field in the view model does not by itself
        # reset everybody's choices.
        view = tool.confirmation.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    canonical = json.dumps(
        {"confirmation": view, "inputSchema": tool.input_schema},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()

"""The VoiceOS widget protocol as Notch speaks it, without Qt: what Notch posts to a page
(`voiceos:init`), what it accepts back (`voiceos:resize`, `voiceos:args`), and the bounds.

A page is untrusted: everything it sends is read here with a size bound, as JSON only, and
anything else (an unknown type, a fake `voiceos:approve`, a number that is not finite) is
dropped without a word to the page.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

MAX_WIDGET_HEIGHT = 600
"""The tallest a widget may grow by asking (`voiceos:resize`); taller asks are clamped."""
MIN_WIDGET_HEIGHT = 1
MAX_MESSAGE_BYTES = 256 * 1024
"""The largest staged-arguments message or init data carried across the bridge."""
MAX_DEPTH = 32
"""How deeply staged arguments may nest: deeper is dropped (no JSON argument needs more)."""
RESPONSE_BUDGET_MS = 2000
"""A shown page that does not answer the heartbeat for this long is stopped."""
HEARTBEAT_MS = 500
STOPPED_TEXT = "This widget stopped responding"

ThemeMode = Literal["dark", "light"]


class WidgetDataError(ValueError):
    """A widget's `data` cannot be handed to its page (not JSON, or too large)."""


@dataclass(frozen=True)
class Resize:
    """The page asked to be `height` pixels tall (already clamped)."""

    height: int


@dataclass(frozen=True)
class StagedArguments:
    """The page staged edits to the tool's arguments (JSON values, bounded)."""

    arguments: dict[str, Any]


PageMessage = Resize | StagedArguments


def clamp_height(value: float) -> int:
    """A requested height as the widget will take it: 1..MAX_WIDGET_HEIGHT pixels."""
    if not math.isfinite(value):
        return MAX_WIDGET_HEIGHT if value > 0 else MIN_WIDGET_HEIGHT
    return max(MIN_WIDGET_HEIGHT, min(MAX_WIDGET_HEIGHT, round(value)))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def read_page_message(text: str, *, accepts_arguments: bool) -> PageMessage | None:
    """The message a page's bridge forwarded, or None when it is to be dropped: longer than
    MAX_MESSAGE_BYTES, not JSON (NaN, Infinity), not one of the two kinds Notch accepts, or
    `voiceos:args` on a widget that takes no arguments (a glance)."""
    if len(text) > MAX_MESSAGE_BYTES + 64 or len(text.encode("utf-8")) > MAX_MESSAGE_BYTES + 64:
        return None
    try:
        message = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict):
        return None
    kind = message.get("type")
    if kind == "voiceos:resize":
        height = message.get("height")
        if isinstance(height, bool) or not isinstance(height, int | float):
            return None
        return Resize(clamp_height(height))
    if kind == "voiceos:args" and accepts_arguments:
        arguments = message.get("arguments")
        if not isinstance(arguments, dict) or _depth(arguments) > MAX_DEPTH:
            return None
        return StagedArguments(arguments)
    return None


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            break
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return deepest


def init_message(mode: ThemeMode, radius: int, data: Mapping[str, Any]) -> str:
    """`voiceos:init` as JSON text, ready to post to the page.

    Raises WidgetDataError when `data` is not JSON (a NaN, a set, a non-string key) or its
    JSON is over MAX_MESSAGE_BYTES."""
    try:
        encoded = json.dumps(
            {"type": "voiceos:init", "theme": {"mode": mode}, "radius": radius, "data": data},
            allow_nan=False,
            ensure_ascii=True,  # no U+2028/U+2029 or lone surrogates inside the script text
            separators=(",", ":"),
        )
    except (TypeError, ValueError) as exc:
        raise WidgetDataError(f"the widget's data is not JSON: {exc}") from None
    if len(encoded) > MAX_MESSAGE_BYTES:
        raise WidgetDataError(
            f"the widget's data is {len(encoded)} bytes as JSON; the limit is "
            f"{MAX_MESSAGE_BYTES} (send less, or let the page ask for more)"
        )
    return encoded

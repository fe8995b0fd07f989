"""Reading a glance: what a tool's result holds under `_voiceos_glance` turned into the
blocks that will show and, for each block that will not, the reason and the fix.

As in VoiceOS, a block that breaks any rule is dropped whole, never trimmed; unlike
VoiceOS, the author is told why (`notch glance check`, `notch validate` on fixtures).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError

from notch_app.manifest.glance.blocks import BLOCK_ADAPTER, CHARTS, GlanceBlock, RowBlock
from notch_app.manifest.glance.reasons import json_kind, quote, reason_for
from notch_app.manifest.limits import MAX_GLANCE_BLOCKS as MAX_GLANCE_BLOCKS  # re-exported

GLANCE_KEY: Final = "_voiceos_glance"
"""The key of a tool result (at its top level) that holds the glance."""
_MAX_BLOCKS_READ: Final = 32
"""Blocks past this position are not read one by one (a glance shows 3)."""


# --- reading a glance -------------------------------------------------------------------------


@dataclass(frozen=True)
class DroppedBlock:
    """A block that will not show, and why.

    `index` is its position in the author's `blocks` list (-1: the glance as a whole, e.g.
    `blocks` missing or empty); `kind` its `type` ("?" when it has none); `reason` one
    sentence naming the field and the fix."""

    index: int
    kind: str
    reason: str


@dataclass(frozen=True)
class GlanceReading:
    """What a glance shows (`blocks`, in order) and what it drops, with reasons."""

    blocks: tuple[GlanceBlock, ...]
    dropped: tuple[DroppedBlock, ...]


def read_glance(value: object) -> GlanceReading:
    """The blocks of `value` (what `_voiceos_glance` holds) that would show, and each one
    that would not, with the reason.

    Keeps at most MAX_GLANCE_BLOCKS valid blocks and at most one chart (charts inside rows
    count). Never raises, whatever `value` holds."""
    if not isinstance(value, dict):
        return _whole(
            f'_voiceos_glance: {json_kind(value)}, not an object; write {{"blocks": [...]}}'
        )
    blocks = value.get("blocks")
    notes = [
        DroppedBlock(
            -1,
            "?",
            f"_voiceos_glance.{_key_text(key)}: not a field of a glance; remove it (a glance "
            "holds only blocks)",
        )
        for key in list(value)[:_MAX_BLOCKS_READ]
        if key != "blocks"
    ]
    if not isinstance(blocks, list):
        what = "missing" if blocks is None else f"{json_kind(blocks)}, not a list"
        return _whole(f"blocks: {what}; write the blocks as a list of 1 to 3 objects", notes)
    if not blocks:
        return _whole("blocks: empty; a glance needs 1 to 3 blocks", notes)
    kept: list[Any] = []
    dropped: list[DroppedBlock] = list(notes)
    chart_at: int | None = None
    for index, raw in enumerate(blocks[:_MAX_BLOCKS_READ]):
        block = _block_or_drop(index, raw, chart_at, len(kept))
        if isinstance(block, DroppedBlock):
            dropped.append(block)
            continue
        if _charts_in(block):
            chart_at = index
        kept.append(block)
    if len(blocks) > _MAX_BLOCKS_READ:
        dropped.append(
            DroppedBlock(
                _MAX_BLOCKS_READ,
                "?",
                f"blocks: {len(blocks)} blocks, at "
                f"most {MAX_GLANCE_BLOCKS} show; blocks from "
                f"{_MAX_BLOCKS_READ} on were not read — send 1 to 3",
            )
        )
    return GlanceReading(tuple(kept), tuple(dropped))


def _block_or_drop(index: int, raw: object, chart_at: int | None, kept: int) -> Any:
    """The block `raw` is, or the DroppedBlock saying why it will not show: it is not an
    object or not a valid block, it is a second chart (the first is at `chart_at`), or
    `kept` blocks already fill the glance."""
    kind = _kind_of(raw)
    if not isinstance(raw, dict):
        return DroppedBlock(
            index,
            kind,
            f"block: {json_kind(raw)}, not an object "
            '{"type": ..., ...}; write the block as an object',
        )
    try:
        block = BLOCK_ADAPTER.validate_python(raw)
    except ValidationError as exc:
        return DroppedBlock(index, kind, reason_for(exc.errors(), kind))
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        return DroppedBlock(index, kind, f"block: cannot be read ({type(exc).__name__})")
    if _charts_in(block) and chart_at is not None:
        return DroppedBlock(
            index,
            kind,
            "chart: a glance shows at most one chart "
            f"(bars, line, splitBar) and block {chart_at} is one; "
            "remove this one or show its figures as stats",
        )
    if kept >= MAX_GLANCE_BLOCKS:
        return DroppedBlock(
            index,
            kind,
            f"blocks: a glance shows at most "
            f"{MAX_GLANCE_BLOCKS} blocks and 3 came before this "
            "one; remove it or fold it into another block",
        )
    return block


def glance_of(result: object) -> GlanceReading | None:
    """The glance of a tool's result object, or None when `result` is not an object holding
    GLANCE_KEY at its top level. Never raises."""
    if not isinstance(result, dict) or GLANCE_KEY not in result:
        return None
    return read_glance(result[GLANCE_KEY])


def _whole(reason: str, notes: list[DroppedBlock] | None = None) -> GlanceReading:
    return GlanceReading((), (*(notes or ()), DroppedBlock(-1, "?", reason)))


def _charts_in(block: Any) -> int:
    if isinstance(block, RowBlock):
        return sum(1 for child in block.children if child.type in CHARTS)
    return 1 if block.type in CHARTS else 0


def _kind_of(raw: object) -> str:
    kind = raw.get("type") if isinstance(raw, dict) else None
    if isinstance(kind, str) and 0 < len(kind) <= 32 and kind.isascii() and kind.isprintable():
        return kind
    return "?"


def _key_text(key: object) -> str:
    if isinstance(key, str) and key.isidentifier() and key.isascii() and len(key) <= 40:
        return key
    return quote(key)

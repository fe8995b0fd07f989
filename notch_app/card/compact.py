"""Which blocks a card shows in its first, compact view, and when it opens expanded.

A card opens at a notch's size: the headline, the few facts that matter, confirm and
decline, and "Details" that unfolds the full form in place. An author marks blocks with
`compact: true/false`; unmarked blocks follow the default here:
- facts a person reads at a glance show: keyValue, metadata, badges, titles and short
  text, a list, an image or progress beside them;
- what runs as written always shows, whatever the mark: code (a command, a diff) and
  fixed-width fields — a panel that holds confirm until it was seen cannot be folded;
- inputs, markdown, dividers and the rest fold; the value of each folded input is said in
  one line of the compact view (`FoldedFacts` in the UI), so nothing sent is out of view.

A card opens expanded (the whole form) when a required input is empty, a value is
refused by the schema, or Notch has something to say about this call (a guard, a risk,
a change since the last approval). Qt-free.
"""

from __future__ import annotations

from typing import Any, Final

from notch_app.manifest.model import (
    BadgeBlock,
    CardBlock,
    ChipsBlock,
    DividerBlock,
    ImageBlock,
    KeyValueBlock,
    ListBlock,
    ListItemBlock,
    MarkdownBlock,
    MetadataBlock,
    ProgressBlock,
    StackBlock,
    TextBlock,
    TextFieldBlock,
    walk_blocks,
)

_GLANCEABLE: Final = (
    KeyValueBlock,
    MetadataBlock,
    BadgeBlock,
    ImageBlock,
    ProgressBlock,
    ListBlock,
    ListItemBlock,
)


def runs_as_written(block: Any) -> bool:
    """Code a person must see before approving: a `code` text or a fixed-width field,
    anywhere under `block`. Such a block is in the compact view whatever its mark."""
    for visit in walk_blocks(block):
        node = visit.block
        if isinstance(node, TextBlock) and node.variant == "code":
            return True
        if isinstance(node, TextFieldBlock) and node.monospace:
            return True
    return False


def in_compact_view(block: Any) -> bool:
    """Whether the compact view shows `block` (a child of the card's root)."""
    if runs_as_written(block):
        return True
    mark = getattr(block, "compact", None)
    if mark is not None:
        return bool(mark)
    if isinstance(block, _GLANCEABLE):
        return True
    if isinstance(block, TextBlock):
        return len(block.text) <= 240  # a line or two; code is decided above
    if isinstance(block, StackBlock | CardBlock):
        kids = [v.block for v in walk_blocks(block)][1:]
        shown = [k for k in kids if not isinstance(k, StackBlock | CardBlock)]
        return bool(shown) and all(in_compact_view(k) for k in shown)
    if isinstance(block, MarkdownBlock | DividerBlock | ChipsBlock):
        return False
    return False


__all__ = ["in_compact_view", "runs_as_written"]

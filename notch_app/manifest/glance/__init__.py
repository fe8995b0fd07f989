"""Result glances: the card a tool's result carries for the person,
`{"_voiceos_glance": {"blocks": [...]}}`.

A glance is a 2-second read shown in the notch after a tool ran: display only, no inputs
and no buttons (the notch adds its own dismiss and pin). As in VoiceOS, a block that breaks
any rule is dropped whole, never trimmed; unlike VoiceOS, the author is told why (`notch
glance check`, `notch validate` on fixtures). Where the public VoiceOS integrations write a
field differently from the short spec, both spellings are read: `appIcon` is the app's own
name ("whatsapp", "cursor"), not one of the glance icons; `countdown.until` is an ISO 8601
time or a unix time (seconds, or milliseconds as JavaScript's `Date.now()` gives).

- `reading.py`: `read_glance` turns whatever a tool attached into the blocks that show and,
  for each one that does not, the reason and the fix;
- `result.py`: where the glance sits in a tool's result (top level, MCP structuredContent,
  a content text item) and where a dropped block is in that JSON;
- `blocks.py`: the block models, the readable spec of the VoiceOS glance set;
- `fields.py`: the text, numbers, icons and zones blocks are made of;
- `reasons.py`: why a block is dropped, in one sentence a person reads.

The runtime (a tool's result), the socket, the UI and `notch validate` (fixtures) read
glances from here.
"""

from notch_app.manifest.glance.blocks import (
    BadgesBlock,
    BarsBlock,
    ClockBlock,
    CountdownBlock,
    DividerBlock,
    GlanceBadge,
    GlanceBlock,
    HeaderBlock,
    KeyValueBlock,
    LineBlock,
    ListBlock,
    ListRow,
    ProgressBlock,
    RowBlock,
    SplitBarBlock,
    SplitSegment,
    Stat,
    StatsBlock,
    WidgetBlock,
)
from notch_app.manifest.glance.fields import GLANCE_ICONS, MAX_GLANCE_TITLE_CHARS, Tone
from notch_app.manifest.glance.reading import (
    GLANCE_KEY,
    MAX_GLANCE_BLOCKS,
    DroppedBlock,
    GlanceReading,
    glance_of,
    read_glance,
)
from notch_app.manifest.glance.result import (
    NO_GLANCE,
    TOP_LEVEL,
    GlanceSource,
    dropped_pointer,
    find_glance,
)

__all__ = [
    "GLANCE_ICONS",
    "GLANCE_KEY",
    "MAX_GLANCE_BLOCKS",
    "MAX_GLANCE_TITLE_CHARS",
    "NO_GLANCE",
    "TOP_LEVEL",
    "BadgesBlock",
    "BarsBlock",
    "ClockBlock",
    "CountdownBlock",
    "DividerBlock",
    "DroppedBlock",
    "GlanceBadge",
    "GlanceBlock",
    "GlanceReading",
    "GlanceSource",
    "HeaderBlock",
    "KeyValueBlock",
    "LineBlock",
    "ListBlock",
    "ListRow",
    "ProgressBlock",
    "RowBlock",
    "SplitBarBlock",
    "SplitSegment",
    "Stat",
    "StatsBlock",
    "Tone",
    "WidgetBlock",
    "dropped_pointer",
    "find_glance",
    "glance_of",
    "read_glance",
]

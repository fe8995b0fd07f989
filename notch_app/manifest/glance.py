"""The glance card a tool's result carries for the person: `{"_voiceos_glance": {"blocks": [...]}}`.

A glance is a 2-second read shown in the notch after a tool ran: display only, no inputs
and no buttons (the notch adds its own dismiss and pin). These frozen models are the
readable spec of the VoiceOS glance set; `read_glance` turns whatever a tool attached into
the blocks that will show and, for each block that will not, the reason and the fix.

As in VoiceOS, a block that breaks any rule (an over-long string, too many rows, an unknown
icon) is dropped whole, never trimmed; unlike VoiceOS, the author is told why
(`notch glance check`, `notch validate` on fixtures). Where the public VoiceOS integrations
write a field differently from the short spec, both spellings are read: `appIcon` is the
app's own name ("whatsapp", "cursor"), not one of the glance icons; `countdown.until` is an
ISO 8601 time or a unix time (seconds, or milliseconds as JavaScript's `Date.now()` gives).
"""

from __future__ import annotations

import functools
import json
import math
import re
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Final, Literal, Union, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Strict,
    StringConstraints,
    Tag,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

GLANCE_KEY: Final = "_voiceos_glance"
"""The key of a tool result (at its top level) that holds the glance."""
MAX_GLANCE_BLOCKS: Final = 3
MAX_GLANCE_TITLE_CHARS: Final = 60

_IconName = Literal[
    "calendar", "clock", "timer", "bed", "car", "mail", "message", "music", "sun", "moon",
    "cloud", "rain", "star", "folder", "file", "globe", "pin", "phone", "person", "heart",
    "bolt", "check", "x", "mic", "note", "list", "battery", "chart", "dollar", "home", "wifi",
    "coffee", "plane", "sparkle",
]  # fmt: skip
GLANCE_ICONS: Final[tuple[str, ...]] = get_args(_IconName)
"""The icon names a glance may use, each drawn by the notch in both themes."""

Tone = Literal["neutral", "good", "bad"]

# --- bounds (each one a whole-block drop with a reason, as VoiceOS drops over-cap blocks) --

_MAX_SUBTITLE_CHARS: Final = 80  # the public integrations trim subtitles to 72
_MAX_VALUE_CHARS: Final = 80  # ... and keyValue values to 64
_MAX_LABEL_CHARS: Final = 32
_MAX_TRAILING_CHARS: Final = 40  # header trailing: trimmed to 24 and 40 in the wild
_MAX_BADGE_CHARS: Final = 32
_MAX_DELTA_CHARS: Final = 24
_MAX_UNIT_CHARS: Final = 12
_MAX_APP_ICON_CHARS: Final = 64
_MAX_TZ_CHARS: Final = 64
_MAX_ROWS: Final = 6
_MAX_STATS: Final = 3
_MAX_PAIRS: Final = 5
_MAX_BADGES: Final = 3
_MAX_BARS: Final = 12
_MAX_POINTS: Final = 120
_MAX_SEGMENTS: Final = 6
_MAX_NUMBER: Final = 1e15
"""Numbers to draw stay within ±1e15 (beyond it a float no longer counts in ones)."""
_MAX_COUNTDOWN_SECONDS: Final = 366 * 24 * 3600
_MAX_WIDGET_HTML_BYTES: Final = 256 * 1024
_MAX_WIDGET_DATA_BYTES: Final = 64 * 1024
_MAX_WIDGET_DATA_DEPTH: Final = 32
_MAX_WIDGET_HEIGHT: Final = 600
_MAX_BLOCKS_READ: Final = 32
"""Blocks past this position are not read one by one (a glance shows 3)."""

_CHARTS: Final = frozenset({"bars", "line", "splitBar"})

# --- text -------------------------------------------------------------------------------

# C0 controls other than tab/newline/CR, DEL, and lone UTF-16 surrogates (not characters).
_UNSHOWABLE: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")
_APP_ICON: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_TZ_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*")
_ICON_SET: Final = frozenset(GLANCE_ICONS)


def _showable(text: str) -> str:
    found = _UNSHOWABLE.search(text)
    if found is not None:
        what = "a lone surrogate" if "\ud800" <= found.group() <= "\udfff" else "a control"
        raise PydanticCustomError(
            "glance_text", f"holds {what} character; remove it (plain text only)"
        )
    return text


def _number_as_text(value: object) -> object:
    """A JSON number written where text is shown (a stat's value, a trailing count) reads as
    the text JavaScript would print; anything else goes on to the text check unchanged."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) > _MAX_NUMBER:
            raise PydanticCustomError(
                "glance_number", "a number too large to show; write it as text"
            )
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) > _MAX_NUMBER:
            raise PydanticCustomError("glance_number", "not a finite number; write it as text")
        return str(int(value)) if value.is_integer() else repr(value)
    return value


def _glance_icon(name: str) -> str:
    if name not in _ICON_SET:
        raise PydanticCustomError(
            "glance_icon",
            "{name} is not a glance icon; use one of " + ", ".join(GLANCE_ICONS),
            {"name": repr(name[:40])},
        )
    return name


def _app_icon(name: str) -> str:
    if _APP_ICON.fullmatch(name) is None:
        raise PydanticCustomError(
            "glance_app_icon", "is an app's name (letters, digits, . _ -), like 'whatsapp'"
        )
    return name


@functools.lru_cache(maxsize=256)
def _zone_known(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def _time_zone(name: str) -> str:
    if _TZ_NAME.fullmatch(name) is None or ".." in name or not _zone_known(name):
        raise PydanticCustomError(
            "glance_tz",
            "{name} is not a time zone this machine knows; write an IANA name like "
            "'Europe/Madrid' or 'UTC'",
            {"name": repr(name[:40])},
        )
    return name


def _finite(value: float) -> float:
    if not math.isfinite(value) or abs(value) > _MAX_NUMBER:
        raise PydanticCustomError("glance_number", "must be a finite number within ±1e15")
    return value


# Text fields: strictly text (a number is not coerced), bounded, plain characters only.
Title = Annotated[
    str,
    Strict(),
    StringConstraints(min_length=1, max_length=MAX_GLANCE_TITLE_CHARS),
    AfterValidator(_showable),
]
Subtitle = Annotated[
    str, Strict(), StringConstraints(max_length=_MAX_SUBTITLE_CHARS), AfterValidator(_showable)
]
Label = Annotated[
    str,
    Strict(),
    StringConstraints(min_length=1, max_length=_MAX_LABEL_CHARS),
    AfterValidator(_showable),
]
ChartLabel = Annotated[
    str, Strict(), StringConstraints(max_length=_MAX_LABEL_CHARS), AfterValidator(_showable)
]
Unit = Annotated[
    str, Strict(), StringConstraints(max_length=_MAX_UNIT_CHARS), AfterValidator(_showable)
]
BadgeText = Annotated[
    str,
    Strict(),
    StringConstraints(min_length=1, max_length=_MAX_BADGE_CHARS),
    AfterValidator(_showable),
]
# Values to display: a JSON number is read as the text JavaScript would print.
Trailing = Annotated[
    str,
    Strict(),
    StringConstraints(max_length=_MAX_TRAILING_CHARS),
    BeforeValidator(_number_as_text),
    AfterValidator(_showable),
]
ShownValue = Annotated[
    str,
    Strict(),
    StringConstraints(max_length=_MAX_VALUE_CHARS),
    BeforeValidator(_number_as_text),
    AfterValidator(_showable),
]
StatValue = Annotated[
    str,
    Strict(),
    StringConstraints(max_length=_MAX_LABEL_CHARS),
    BeforeValidator(_number_as_text),
    AfterValidator(_showable),
]
Delta = Annotated[
    str,
    Strict(),
    StringConstraints(max_length=_MAX_DELTA_CHARS),
    BeforeValidator(_number_as_text),
    AfterValidator(_showable),
]
Icon = Annotated[str, Strict(), AfterValidator(_glance_icon)]
AppIcon = Annotated[
    str,
    Strict(),
    StringConstraints(min_length=1, max_length=_MAX_APP_ICON_CHARS),
    AfterValidator(_app_icon),
]
Number = Annotated[float, Strict(), AfterValidator(_finite)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class _Block(_Model):
    pass


# --- text blocks -------------------------------------------------------------------------


class HeaderBlock(_Block):
    """The glance's title line: an icon, the app's icon, a title and a short note."""

    type: Literal["header"] = "header"
    icon: Icon | None = None
    app_icon: AppIcon | None = Field(default=None, alias="appIcon")
    title: Title
    trailing: Trailing | None = None


def _badge_from_text(value: object) -> object:
    return {"text": value} if isinstance(value, str) else value


class GlanceBadge(_Model):
    """A small coloured label; a bare string reads as a neutral badge."""

    text: BadgeText
    tone: Tone = "neutral"


Badge = Annotated[GlanceBadge, BeforeValidator(_badge_from_text)]


class ListRow(_Model):
    """One row of a list: icon, title, subtitle, a note on the right, a badge."""

    icon: Icon | None = None
    title: Title
    subtitle: Subtitle | None = None
    trailing: Trailing | None = None
    badge: Badge | None = None


class ListBlock(_Block):
    """Up to six rows under an optional header."""

    type: Literal["list"] = "list"
    header: Title | None = None
    rows: tuple[ListRow, ...] = Field(min_length=1, max_length=_MAX_ROWS)


class Stat(_Model):
    """A figure with its label, an optional change and a tone."""

    label: Label
    value: StatValue
    delta: Delta | None = None
    tone: Tone = "neutral"


class StatsBlock(_Block):
    """Up to three figures side by side."""

    type: Literal["stats"] = "stats"
    items: tuple[Stat, ...] = Field(min_length=1, max_length=_MAX_STATS)


class KeyValueBlock(_Block):
    """Up to five `[label, value]` facts."""

    type: Literal["keyValue"] = "keyValue"
    pairs: tuple[tuple[Label, ShownValue], ...] = Field(min_length=1, max_length=_MAX_PAIRS)


# --- charts (at most one per glance) ------------------------------------------------------


class BarsBlock(_Block):
    """A bar chart: one value per label."""

    type: Literal["bars"] = "bars"
    labels: tuple[ChartLabel, ...] = Field(min_length=1, max_length=_MAX_BARS)
    values: tuple[Number, ...] = Field(min_length=1, max_length=_MAX_BARS)
    unit: Unit | None = None

    @model_validator(mode="after")
    def _one_value_per_label(self) -> BarsBlock:
        if len(self.values) != len(self.labels):
            raise PydanticCustomError(
                "glance_bars",
                "values: {values} values for {labels} labels; give one value per label",
                {"values": len(self.values), "labels": len(self.labels)},
            )
        return self


class LineBlock(_Block):
    """A sparkline through the points, with an optional dashed baseline."""

    type: Literal["line"] = "line"
    points: tuple[Number, ...] = Field(min_length=2, max_length=_MAX_POINTS)
    tone: Tone = "neutral"
    baseline: Number | None = None


class SplitSegment(_Model):
    """One share of a split bar."""

    label: ChartLabel
    value: Annotated[Number, Field(ge=0)]
    tone: Tone = "neutral"


class SplitBarBlock(_Block):
    """One bar split into shares."""

    type: Literal["splitBar"] = "splitBar"
    segments: tuple[SplitSegment, ...] = Field(min_length=1, max_length=_MAX_SEGMENTS)

    @model_validator(mode="after")
    def _something_to_split(self) -> SplitBarBlock:
        if sum(s.value for s in self.segments) <= 0:
            raise PydanticCustomError(
                "glance_split", "segments: every value is 0; give at least one a share"
            )
        return self


# --- the rest ------------------------------------------------------------------------------


class ProgressBlock(_Block):
    """How far along something is, as a bar or a ring."""

    type: Literal["progress"] = "progress"
    value: Annotated[Number, Field(ge=0)]
    max: Annotated[Number, Field(gt=0)] = 100
    label: Title | None = None
    style: Literal["bar", "ring"] = "bar"

    @model_validator(mode="after")
    def _within_max(self) -> ProgressBlock:
        if self.value > self.max:
            raise PydanticCustomError(
                "glance_progress",
                "value: {value} is over max {max}; give a value from 0 to max",
                {"value": _number_as_text(self.value), "max": _number_as_text(self.max)},
            )
        return self


class BadgesBlock(_Block):
    """Up to three badges in a line."""

    type: Literal["badges"] = "badges"
    items: tuple[Badge, ...] = Field(min_length=1, max_length=_MAX_BADGES)


class ClockBlock(_Block):
    """The time now in a zone; ticks only while shown."""

    type: Literal["clock"] = "clock"
    tz: Annotated[
        str,
        Strict(),
        StringConstraints(min_length=1, max_length=_MAX_TZ_CHARS),
        AfterValidator(_time_zone),
    ]


class CountdownBlock(_Block):
    """Time left until a moment (`until`) or for a number of `seconds` from when it shows."""

    type: Literal["countdown"] = "countdown"
    until: datetime | None = None
    seconds: Annotated[Number, Field(ge=0, le=_MAX_COUNTDOWN_SECONDS)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _until_is_a_time(cls, data: Any) -> Any:
        # pydantic reads true as 1 and 'now' fails with a long list; keep it to times.
        if isinstance(data, dict):
            until = data.get("until")
            if isinstance(until, bool) or (isinstance(until, float) and not math.isfinite(until)):
                raise PydanticCustomError(
                    "glance_until",
                    "until: not a time; write an ISO 8601 time like "
                    "'2025-06-01T18:00:00Z' or a unix time in milliseconds",
                )
        return data

    @model_validator(mode="after")
    def _exactly_one(self) -> CountdownBlock:
        if (self.until is None) == (self.seconds is None):
            raise PydanticCustomError(
                "glance_countdown",
                "until, seconds: give exactly one of them (a time to count down to, or "
                "a number of seconds)",
            )
        return self

    def ends_at(self, now: float) -> float:
        """The unix time at which the countdown reaches zero, when shown at `now`.

        A naive `until` (no offset) is local time, as JavaScript reads it."""
        if self.until is not None:
            return self.until.timestamp()
        return now + (self.seconds or 0.0)


class DividerBlock(_Block):
    """A thin line between blocks."""

    type: Literal["divider"] = "divider"


def _html_fits(html: str) -> str:
    if _SURROGATE.search(html) is not None:
        raise PydanticCustomError("glance_text", "holds a lone surrogate character; remove it")
    if len(html.encode("utf-8")) > _MAX_WIDGET_HTML_BYTES:
        raise PydanticCustomError(
            "glance_html",
            "larger than 256 KiB as UTF-8; move data into `data` and keep the page small",
        )
    return html


def _data_fits(data: dict[str, Any]) -> dict[str, Any]:
    why = _json_data_problem(data)
    if why is not None:
        raise PydanticCustomError("glance_data", why)
    return data


def _json_data_problem(data: object) -> str | None:
    """Why `data` is not plain JSON within the widget's bounds, or None (iterative walk, so
    deep nesting is refused without recursion)."""
    pending: list[tuple[object, int]] = [(data, 0)]
    seen = 0
    while pending:
        value, depth = pending.pop()
        seen += 1
        if depth > _MAX_WIDGET_DATA_DEPTH or seen > _MAX_WIDGET_DATA_BYTES:
            return f"nested deeper than {_MAX_WIDGET_DATA_DEPTH} levels or too many values"
        if isinstance(value, dict):
            for key, child in value.items():
                if not isinstance(key, str):
                    return "has a key that is not text; JSON object keys are strings"
                pending.append((child, depth + 1))
        elif isinstance(value, list | tuple):
            pending.extend((child, depth + 1) for child in value)
        elif isinstance(value, float) and not math.isfinite(value):
            return "holds NaN or infinity, which JSON cannot carry; send a number or null"
        elif value is not None and not isinstance(value, str | int | float | bool):
            return f"holds a {type(value).__name__}, which is not JSON"
    try:
        encoded = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        return "holds a lone surrogate character; remove it"
    if len(encoded) > _MAX_WIDGET_DATA_BYTES:
        return f"{len(encoded)} bytes as JSON, at most 64 KiB; send less data"
    return None


class WidgetBlock(_Block):
    """A sandboxed HTML page; its data reaches it in the `voiceos:init` message."""

    type: Literal["widget"] = "widget"
    html: Annotated[
        str,
        Strict(),
        StringConstraints(min_length=1, max_length=_MAX_WIDGET_HTML_BYTES),
        AfterValidator(_html_fits),
    ]
    height: Annotated[int, Strict(), Field(ge=1, le=_MAX_WIDGET_HEIGHT)]
    label: Title
    data: Annotated[dict[str, Any], AfterValidator(_data_fits)] = Field(default_factory=dict)


# --- rows and the union ---------------------------------------------------------------------


def _block_type(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if isinstance(kind, str) else None


_RowChild = Annotated[
    Annotated[HeaderBlock, Tag("header")]
    | Annotated[ListBlock, Tag("list")]
    | Annotated[StatsBlock, Tag("stats")]
    | Annotated[KeyValueBlock, Tag("keyValue")]
    | Annotated[BarsBlock, Tag("bars")]
    | Annotated[LineBlock, Tag("line")]
    | Annotated[SplitBarBlock, Tag("splitBar")]
    | Annotated[ProgressBlock, Tag("progress")]
    | Annotated[BadgesBlock, Tag("badges")]
    | Annotated[ClockBlock, Tag("clock")]
    | Annotated[CountdownBlock, Tag("countdown")]
    | Annotated[DividerBlock, Tag("divider")],
    Discriminator(_block_type),
]


class RowBlock(_Block):
    """Two or three blocks side by side (no rows or widgets inside)."""

    type: Literal["row"] = "row"
    children: tuple[_RowChild, ...] = Field(min_length=2, max_length=3)

    @model_validator(mode="after")
    def _one_chart(self) -> RowBlock:
        charts = sum(1 for child in self.children if child.type in _CHARTS)
        if charts > 1:
            raise PydanticCustomError(
                "glance_chart",
                "children: {charts} charts in one row; a glance shows at most one chart "
                "(bars, line, splitBar)",
                {"charts": charts},
            )
        return self


GlanceBlock = Annotated[
    Union[  # noqa: UP007  (the tagged members read better one per line)
        Annotated[HeaderBlock, Tag("header")],
        Annotated[ListBlock, Tag("list")],
        Annotated[StatsBlock, Tag("stats")],
        Annotated[KeyValueBlock, Tag("keyValue")],
        Annotated[BarsBlock, Tag("bars")],
        Annotated[LineBlock, Tag("line")],
        Annotated[SplitBarBlock, Tag("splitBar")],
        Annotated[ProgressBlock, Tag("progress")],
        Annotated[BadgesBlock, Tag("badges")],
        Annotated[ClockBlock, Tag("clock")],
        Annotated[CountdownBlock, Tag("countdown")],
        Annotated[DividerBlock, Tag("divider")],
        Annotated[RowBlock, Tag("row")],
        Annotated[WidgetBlock, Tag("widget")],
    ],
    Discriminator(_block_type),
]
"""Any one glance block, told apart by its `type`."""

_BLOCK_MODELS: Final[dict[str, type[BaseModel]]] = {
    "header": HeaderBlock,
    "list": ListBlock,
    "stats": StatsBlock,
    "keyValue": KeyValueBlock,
    "bars": BarsBlock,
    "line": LineBlock,
    "splitBar": SplitBarBlock,
    "progress": ProgressBlock,
    "badges": BadgesBlock,
    "clock": ClockBlock,
    "countdown": CountdownBlock,
    "divider": DividerBlock,
    "row": RowBlock,
    "widget": WidgetBlock,
}
_KINDS_TEXT: Final = ", ".join(_BLOCK_MODELS)
_ROW_KINDS_TEXT: Final = ", ".join(k for k in _BLOCK_MODELS if k not in ("row", "widget"))

# Built once: reading a glance happens on every tool result.
_BLOCK_ADAPTER: Final[TypeAdapter[Any]] = TypeAdapter(GlanceBlock)


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
            f'_voiceos_glance: {_json_kind(value)}, not an object; write {{"blocks": [...]}}'
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
        what = "missing" if blocks is None else f"{_json_kind(blocks)}, not a list"
        return _whole(f"blocks: {what}; write the blocks as a list of 1 to 3 objects", notes)
    if not blocks:
        return _whole("blocks: empty; a glance needs 1 to 3 blocks", notes)
    kept: list[Any] = []
    dropped: list[DroppedBlock] = list(notes)
    chart_at: int | None = None
    for index, raw in enumerate(blocks[:_MAX_BLOCKS_READ]):
        kind = _kind_of(raw)
        if not isinstance(raw, dict):
            dropped.append(
                DroppedBlock(
                    index,
                    kind,
                    f"block: {_json_kind(raw)}, not an object "
                    '{"type": ..., ...}; write the block as an object',
                )
            )
            continue
        try:
            block = _BLOCK_ADAPTER.validate_python(raw)
        except ValidationError as exc:
            dropped.append(DroppedBlock(index, kind, _reason(exc.errors(), kind)))
            continue
        except (RecursionError, ValueError, TypeError, OverflowError) as exc:
            dropped.append(
                DroppedBlock(index, kind, f"block: cannot be read ({type(exc).__name__})")
            )
            continue
        charts = _charts_in(block)
        if charts and chart_at is not None:
            dropped.append(
                DroppedBlock(
                    index,
                    kind,
                    "chart: a glance shows at most one chart "
                    f"(bars, line, splitBar) and block {chart_at} is one; "
                    "remove this one or show its figures as stats",
                )
            )
            continue
        if len(kept) >= MAX_GLANCE_BLOCKS:
            dropped.append(
                DroppedBlock(
                    index,
                    kind,
                    f"blocks: a glance shows at most "
                    f"{MAX_GLANCE_BLOCKS} blocks and 3 came before this "
                    "one; remove it or fold it into another block",
                )
            )
            continue
        if charts:
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
        return sum(1 for child in block.children if child.type in _CHARTS)
    return 1 if block.type in _CHARTS else 0


def _kind_of(raw: object) -> str:
    kind = raw.get("type") if isinstance(raw, dict) else None
    if isinstance(kind, str) and 0 < len(kind) <= 32 and kind.isascii() and kind.isprintable():
        return kind
    return "?"


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _key_text(key: object) -> str:
    if isinstance(key, str) and key.isidentifier() and key.isascii() and len(key) <= 40:
        return key
    return _quote(key)


def _quote(value: object) -> str:
    text = repr(value)
    if _SURROGATE.search(text) is not None:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= 40 else text[:39] + "…"


# --- reasons a person reads -------------------------------------------------------------------


def _where(loc: tuple[int | str, ...]) -> str:
    """`('list', 'rows', 7, 'title')` → `rows[7].title`; tags of nested blocks read as
    `children[1] (list).rows`."""
    out = ""
    after_index = False
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
            after_index = True
            continue
        if i == 0 and part in _BLOCK_MODELS:
            continue  # the outer tag is the block's kind, said already
        if after_index and part in _BLOCK_MODELS and i >= 2 and loc[i - 2] == "children":
            out += f" ({part})"
        else:
            out += ("." if out else "") + str(part)
        after_index = False
    return out or "block"


def _fields_of(kind: str) -> str:
    model = _BLOCK_MODELS.get(kind)
    if model is None:
        return ""
    names = [f.alias or name for name, f in model.model_fields.items() if name != "type"]
    return ", ".join(names) or "no fields"


_Reason = Callable[[ErrorDetails, str, str], str]


def _too_many(err: ErrorDetails, where: str, kind: str) -> str:
    ctx = err.get("ctx", {})
    if where.endswith("]"):  # a [label, value] pair
        return f"{where}: {ctx.get('actual_length')} items; write a pair as [label, value]"
    noun = where.rsplit(".", 1)[-1].split("[")[0]
    most = ctx.get("max_length")
    return f"{where}: {ctx.get('actual_length', 'too many')} {noun}, at most {most} show; keep the first {most}"


def _too_few(err: ErrorDetails, where: str, kind: str) -> str:
    ctx = err.get("ctx", {})
    if where.endswith("]"):  # a [label, value] pair
        return f"{where}: {ctx.get('actual_length')} item; write a pair as [label, value]"
    noun = where.rsplit(".", 1)[-1].split("[")[0]
    return (
        f"{where}: {ctx.get('actual_length', 0)} {noun}, needs at least "
        f"{ctx.get('min_length')}; add more or remove the block"
    )


def _too_long(err: ErrorDetails, where: str, kind: str) -> str:
    most = err.get("ctx", {}).get("max_length")
    got = err.get("input")
    n = len(got) if isinstance(got, str) else "too many"
    return f"{where}: {n} characters, at most {most} show; shorten it to {most}"


def _too_short(err: ErrorDetails, where: str, kind: str) -> str:
    return f"{where}: empty; write some text or leave {where} out"


def _lone_surrogate(err: ErrorDetails, where: str, kind: str) -> str:
    return f"{where}: holds a lone surrogate character; remove it (plain text only)"


def _missing(err: ErrorDetails, where: str, kind: str) -> str:
    field = where.rsplit(".", 1)[-1]
    if "." in where or "[" in where:
        return f"{where}: missing; add {field}"
    return f"{where}: missing; {kind} needs {field}"


def _unknown_field(err: ErrorDetails, where: str, kind: str) -> str:
    takes = _fields_of(kind) if "." not in where and "[" not in where else ""
    hint = f" ({kind} takes {takes})" if takes else ""
    return f"{where}: not a field of {kind}; remove it{hint}"


def _tag_invalid(err: ErrorDetails, where: str, kind: str) -> str:
    tag = err.get("ctx", {}).get("tag", "")
    if where.startswith("children"):
        if tag in ("row", "widget"):
            return (
                f"{where}.type: a {tag} cannot sit inside a row; a row holds 2–3 of "
                f"{_ROW_KINDS_TEXT}"
            )
        return (
            f"{where}.type: {_quote(tag)} is not a block a row holds; use one of {_ROW_KINDS_TEXT}"
        )
    return f"type: {_quote(tag)} is not a glance block; use one of {_KINDS_TEXT}"


def _tag_missing(err: ErrorDetails, where: str, kind: str) -> str:
    at = f"{where}." if where != "block" else ""
    return f"{at}type: missing or not text; every block names its kind, one of {_KINDS_TEXT}"


def _wrong_type(expected: str) -> _Reason:
    def reason(err: ErrorDetails, where: str, kind: str) -> str:
        return f"{where}: {_json_kind(err.get('input'))}, not {expected}; write {expected}"

    return reason


def _bound(word: str) -> _Reason:
    def reason(err: ErrorDetails, where: str, kind: str) -> str:
        ctx = err.get("ctx", {})
        limit = next(iter(ctx.values()), "?")
        return f"{where}: {_number_as_text_safe(err.get('input'))} {word} {limit}; change it"

    return reason


def _literal(err: ErrorDetails, where: str, kind: str) -> str:
    expected = str(err.get("ctx", {}).get("expected", ""))
    return f"{where}: {_quote(err.get('input'))} is not one of {expected}; use one of them"


def _number_as_text_safe(value: object) -> str:
    try:
        shown = _number_as_text(value)
    except PydanticCustomError:
        return "a number"
    return shown if isinstance(shown, str) else _quote(shown)


_REASONS: Final[dict[str, _Reason]] = {
    "too_long": _too_many,
    "too_short": _too_few,
    "string_too_long": _too_long,
    "string_too_short": _too_short,
    "string_unicode": _lone_surrogate,
    "missing": _missing,
    "extra_forbidden": _unknown_field,
    "union_tag_invalid": _tag_invalid,
    "union_tag_not_found": _tag_missing,
    "string_type": _wrong_type("text"),
    "float_type": _wrong_type("a number"),
    "int_type": _wrong_type("a whole number"),
    "int_from_float": _wrong_type("a whole number"),
    "model_type": _wrong_type("an object"),
    "model_attributes_type": _wrong_type("an object"),
    "dict_type": _wrong_type("an object"),
    "tuple_type": _wrong_type("a list"),
    "list_type": _wrong_type("a list"),
    "greater_than_equal": _bound("is below"),
    "greater_than": _bound("must be over"),
    "less_than_equal": _bound("is over"),
    "less_than": _bound("must be under"),
    "literal_error": _literal,
}


def _reason(errors: list[ErrorDetails], kind: str) -> str:
    """One sentence for the first thing wrong with a block (the block is dropped whole)."""
    if not errors:
        return "block: not valid"
    err = errors[0]
    where = _where(tuple(err.get("loc", ())))
    explain = _REASONS.get(err.get("type", ""))
    if explain is not None:
        return explain(err, where, kind)
    msg = str(err.get("msg", "not valid"))
    if err.get("type", "") in _NAMES_ITS_FIELD and where == "block":
        return msg  # a whole-block rule whose message starts with the field it is about
    return f"{where}: {msg}"


_NAMES_ITS_FIELD: Final = frozenset(
    {
        "glance_bars",
        "glance_split",
        "glance_progress",
        "glance_countdown",
        "glance_chart",
        "glance_until",
    }
)


__all__ = [
    "GLANCE_ICONS",
    "GLANCE_KEY",
    "MAX_GLANCE_BLOCKS",
    "MAX_GLANCE_TITLE_CHARS",
    "BadgesBlock",
    "BarsBlock",
    "ClockBlock",
    "CountdownBlock",
    "DividerBlock",
    "DroppedBlock",
    "GlanceBadge",
    "GlanceBlock",
    "GlanceReading",
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
    "glance_of",
    "read_glance",
]

"""The glance blocks as frozen models: the readable spec of the VoiceOS glance set.

Text blocks (header, list, stats, keyValue), charts (bars, line, splitBar: at most one per
glance), progress, badges, clock, countdown, divider, a sandboxed widget, and a row of two
or three of the others. `GlanceBlock` is any one of them, told apart by its `type`.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Annotated, Any, Final, Literal, Union

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
    model_validator,
)
from pydantic_core import PydanticCustomError

from notch_app.manifest.glance.fields import (
    SURROGATE,
    AppIcon,
    BadgeText,
    ChartLabel,
    Delta,
    Icon,
    Label,
    Number,
    ShownValue,
    StatValue,
    Subtitle,
    Title,
    Tone,
    Trailing,
    Unit,
    number_as_text,
    time_zone,
)

# --- bounds (each one a whole-block drop with a reason, as VoiceOS drops over-cap blocks) --

_MAX_ROWS: Final = 6
_MAX_STATS: Final = 3
_MAX_PAIRS: Final = 5
_MAX_BADGES: Final = 3
_MAX_BARS: Final = 12
_MAX_POINTS: Final = 120
_MAX_SEGMENTS: Final = 6
_MAX_TZ_CHARS: Final = 64
_MAX_COUNTDOWN_SECONDS: Final = 366 * 24 * 3600
_MAX_WIDGET_HTML_BYTES: Final = 256 * 1024
_MAX_WIDGET_DATA_BYTES: Final = 64 * 1024
_MAX_WIDGET_DATA_DEPTH: Final = 32
_MAX_WIDGET_HEIGHT: Final = 600

CHARTS: Final = frozenset({"bars", "line", "splitBar"})


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
                {"value": number_as_text(self.value), "max": number_as_text(self.max)},
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
        AfterValidator(time_zone),
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
    if SURROGATE.search(html) is not None:
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
        charts = sum(1 for child in self.children if child.type in CHARTS)
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

BLOCK_MODELS: Final[dict[str, type[BaseModel]]] = {
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

# Built once: reading a glance happens on every tool result.
BLOCK_ADAPTER: Final[TypeAdapter[Any]] = TypeAdapter(GlanceBlock)

"""The glance model: what a tool result's `_voiceos_glance` shows in the notch, and for
every block that would not show, the reason an author reads."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.manifest.glance import (
    GLANCE_ICONS,
    GLANCE_KEY,
    MAX_GLANCE_BLOCKS,
    MAX_GLANCE_TITLE_CHARS,
    BadgesBlock,
    CountdownBlock,
    DroppedBlock,
    GlanceBadge,
    GlanceReading,
    HeaderBlock,
    KeyValueBlock,
    ListBlock,
    RowBlock,
    StatsBlock,
    WidgetBlock,
    glance_of,
    read_glance,
)

VALID: dict[str, dict[str, Any]] = {
    "header": {
        "type": "header",
        "icon": "message",
        "appIcon": "whatsapp",
        "title": "WhatsApp",
        "trailing": "Sent",
    },
    "list": {
        "type": "list",
        "header": "Unread",
        "rows": [
            {
                "icon": "person",
                "title": "Family",
                "subtitle": "See you at 8",
                "trailing": "18:02",
                "badge": {"text": "3", "tone": "good"},
            }
        ],
    },
    "stats": {"type": "stats", "items": [{"label": "Steps", "value": 8123, "delta": "+4%"}]},
    "keyValue": {"type": "keyValue", "pairs": [["To", "Ana · +34612345678"], ["Count", 3]]},
    "bars": {"type": "bars", "labels": ["Mon", "Tue"], "values": [3, 4.5], "unit": "h"},
    "line": {"type": "line", "points": [1, 2, 1.5], "tone": "good", "baseline": 1},
    "splitBar": {
        "type": "splitBar",
        "segments": [{"label": "Done", "value": 3, "tone": "good"}, {"label": "Left", "value": 1}],
    },
    "progress": {"type": "progress", "value": 40, "max": 80, "label": "Upload", "style": "ring"},
    "badges": {"type": "badges", "items": [{"text": "Delivered", "tone": "good"}, "Plain"]},
    "clock": {"type": "clock", "tz": "Europe/Madrid"},
    "countdown": {"type": "countdown", "seconds": 90},
    "divider": {"type": "divider"},
    "row": {
        "type": "row",
        "children": [{"type": "clock", "tz": "UTC"}, {"type": "countdown", "seconds": 5}],
    },
    "widget": {
        "type": "widget",
        "html": "<p>hi</p>",
        "height": 240,
        "label": "Cursor session",
        "data": {"events": [{"label": "editing", "kind": "edit"}]},
    },
}


def reason_for(block: Any) -> str:
    """The one reason a lone block is dropped (fails the test when it would show)."""
    reading = read_glance({"blocks": [block]})
    assert reading.blocks == (), f"expected {block!r} to be dropped"
    assert len(reading.dropped) == 1
    return reading.dropped[0].reason


def with_(kind: str, **changes: Any) -> dict[str, Any]:
    return {**VALID[kind], **changes}


# --- every kind, valid -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(VALID))
def test_every_block_kind_shows(kind: str) -> None:
    reading = read_glance({"blocks": [VALID[kind]]})
    assert reading.dropped == ()
    assert [b.type for b in reading.blocks] == [kind]


def test_the_contract_constants() -> None:
    assert GLANCE_KEY == "_voiceos_glance"
    assert (MAX_GLANCE_BLOCKS, MAX_GLANCE_TITLE_CHARS) == (3, 60)
    assert len(GLANCE_ICONS) == 34
    assert GLANCE_ICONS[:3] == ("calendar", "clock", "timer")
    assert GLANCE_ICONS[-1] == "sparkle"


def test_what_the_widgets_read() -> None:
    reading = read_glance({"blocks": [VALID["header"], VALID["keyValue"], VALID["badges"]]})
    header, pairs, badges = reading.blocks
    assert isinstance(header, HeaderBlock)
    assert (header.icon, header.app_icon, header.title, header.trailing) == (
        "message",
        "whatsapp",
        "WhatsApp",
        "Sent",
    )
    assert isinstance(pairs, KeyValueBlock)
    assert pairs.pairs == (("To", "Ana · +34612345678"), ("Count", "3"))
    assert isinstance(badges, BadgesBlock)
    assert badges.items == (GlanceBadge(text="Delivered", tone="good"), GlanceBadge(text="Plain"))


def test_numbers_to_show_are_kept_as_text_as_javascript_prints_them() -> None:
    stats = read_glance({"blocks": [{"type": "stats", "items": [
        {"label": "a", "value": 3.0}, {"label": "b", "value": 2.5}, {"label": "c", "value": -7}
    ]}]}).blocks[0]  # fmt: skip
    assert isinstance(stats, StatsBlock)
    assert [s.value for s in stats.items] == ["3", "2.5", "-7"]
    row = read_glance({"blocks": [{"type": "list", "rows": [{"title": "x", "trailing": 12}]}]})
    assert isinstance(row.blocks[0], ListBlock)
    assert row.blocks[0].rows[0].trailing == "12"


def test_a_real_whatsapp_result_reads_whole() -> None:
    # Shaped like the public WhatsApp integration's unread_messages result.
    result = {
        "unreadChats": 1,
        GLANCE_KEY: {
            "blocks": [
                {"type": "header", "title": "WhatsApp", "appIcon": "whatsapp",
                 "icon": "message", "trailing": "2 unread"},
                {"type": "list", "rows": [{"icon": "message", "title": "Ana",
                 "subtitle": "On my way", "trailing": "18:02",
                 "badge": {"text": "2", "tone": "good"}}]},
            ]
        },
    }  # fmt: skip
    reading = glance_of(result)
    assert reading is not None
    assert reading.dropped == ()
    assert [b.type for b in reading.blocks] == ["header", "list"]


def test_glance_of_needs_the_key_at_the_top_level() -> None:
    assert glance_of({"data": {GLANCE_KEY: {"blocks": [VALID["divider"]]}}}) is None
    assert glance_of([GLANCE_KEY]) is None
    assert glance_of("x") is None
    assert glance_of({GLANCE_KEY: {"blocks": [VALID["divider"]]}}) == GlanceReading(
        blocks=(read_glance({"blocks": [VALID["divider"]]}).blocks[0],), dropped=()
    )


def test_countdown_ends_at() -> None:
    seconds = read_glance({"blocks": [VALID["countdown"]]}).blocks[0]
    assert isinstance(seconds, CountdownBlock)
    assert seconds.ends_at(1000.0) == 1090.0
    iso = read_glance({"blocks": [{"type": "countdown", "until": "2030-01-01T00:00:00Z"}]})
    until = datetime(2030, 1, 1, tzinfo=UTC).timestamp()
    assert isinstance(iso.blocks[0], CountdownBlock)
    assert iso.blocks[0].ends_at(0) == until
    # JavaScript's Date.now() + N: unix milliseconds
    ms = read_glance({"blocks": [{"type": "countdown", "until": int(until * 1000)}]})
    assert isinstance(ms.blocks[0], CountdownBlock)
    assert ms.blocks[0].ends_at(0) == until


def test_models_can_be_built_in_python_by_field_name() -> None:
    header = HeaderBlock(title="Cursor", app_icon="cursor", icon="bolt")
    assert header.type == "header" and header.app_icon == "cursor"
    widget = WidgetBlock(html="<p>", height=10, label="w", data={})
    assert widget.type == "widget"


# --- limits and their exact reasons ------------------------------------------------------------


def test_too_many_rows() -> None:
    rows = [{"title": f"r{i}"} for i in range(8)]
    assert reason_for(with_("list", rows=rows)) == "rows: 8 rows, at most 6 show; keep the first 6"
    six = read_glance({"blocks": [with_("list", rows=rows[:6])]})
    assert six.dropped == ()


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        (with_("stats", items=[{"label": "a", "value": "1"}] * 4),
         "items: 4 items, at most 3 show; keep the first 3"),
        (with_("keyValue", pairs=[["a", "b"]] * 6),
         "pairs: 6 pairs, at most 5 show; keep the first 5"),
        (with_("badges", items=["a", "b", "c", "d"]),
         "items: 4 items, at most 3 show; keep the first 3"),
        (with_("row", children=[VALID["divider"]] * 4),
         "children: 4 children, at most 3 show; keep the first 3"),
        (with_("row", children=[VALID["divider"]]),
         "children: 1 children, needs at least 2; add more or remove the block"),
        (with_("list", rows=[]),
         "rows: 0 rows, needs at least 1; add more or remove the block"),
        (with_("keyValue", pairs=[["a", "b", "c"]]),
         "pairs[0]: 3 items; write a pair as [label, value]"),
        (with_("header", title="x" * 61),
         "title: 61 characters, at most 60 show; shorten it to 60"),
        (with_("header", title=""), "title: empty; write some text or leave title out"),
        (with_("header", trailing="t" * 41),
         "trailing: 41 characters, at most 40 show; shorten it to 40"),
        (with_("list", rows=[{"title": "x", "subtitle": "s" * 81}]),
         "rows[0].subtitle: 81 characters, at most 80 show; shorten it to 80"),
        (with_("header", colour="red"),
         "colour: not a field of header; remove it (header takes icon, appIcon, title, trailing)"),
        ({"type": "header"}, "title: missing; header needs title"),
        (with_("list", rows=[{"subtitle": "x"}]), "rows[0].title: missing; add title"),
        (with_("header", title=7), "title: a number, not text; write text"),
        (with_("stats", items=[{"label": "a", "value": "1", "tone": "warn"}]),
         "items[0].tone: 'warn' is not one of 'neutral', 'good' or 'bad'; use one of them"),
        (with_("progress", style="pie"),
         "style: 'pie' is not one of 'bar' or 'ring'; use one of them"),
        (with_("progress", value=120, max=100),
         "value: 120 is over max 100; give a value from 0 to max"),
        (with_("progress", value=-1), "value: -1 is below 0; change it"),
        (with_("bars", values=[1, 2, 3]),
         "values: 3 values for 2 labels; give one value per label"),
        (with_("line", points=[1]),
         "points: 1 points, needs at least 2; add more or remove the block"),
        (with_("splitBar", segments=[{"label": "a", "value": 0}]),
         "segments: every value is 0; give at least one a share"),
        (with_("widget", height=601), "height: 601 is over 600; change it"),
        (with_("widget", height=0), "height: 0 is below 1; change it"),
        (with_("countdown", until="2030-01-01T00:00:00Z"),
         "until, seconds: give exactly one of them (a time to count down to, or a number "
         "of seconds)"),
        ({"type": "countdown"},
         "until, seconds: give exactly one of them (a time to count down to, or a number "
         "of seconds)"),
    ],
)  # fmt: skip
def test_each_limit_drops_the_block_with_its_reason(block: dict[str, Any], reason: str) -> None:
    assert reason_for(block) == reason


def test_an_icon_outside_the_set_is_named_with_the_set() -> None:
    reason = reason_for(with_("header", icon="rocket"))
    assert reason.startswith("icon: 'rocket' is not a glance icon; use one of calendar, clock")
    assert reason.endswith("plane, sparkle")
    # A row's icon too; the app icon is the app's own name, not one of the set.
    assert reason_for(with_("list", rows=[{"title": "x", "icon": "rocket"}])).startswith(
        "rows[0].icon: 'rocket' is not a glance icon"
    )
    assert reason_for(with_("header", appIcon="../../etc/passwd")) == (
        "appIcon: is an app's name (letters, digits, . _ -), like 'whatsapp'"
    )


def test_unknown_and_missing_types() -> None:
    assert reason_for({"type": "table"}).startswith(
        "type: 'table' is not a glance block; use one of header, list, stats, keyValue, bars"
    )
    assert reason_for({"title": "x"}).startswith("type: missing or not text;")
    assert reason_for({"type": 3}).startswith("type: missing or not text;")


def test_a_time_zone_must_be_one_this_machine_knows() -> None:
    for tz in ("Mars/Olympus", "../../etc/passwd", "/etc/localtime", "", "Europe/" + "x" * 80):
        assert reason_for(with_("clock", tz=tz)).startswith("tz: "), tz
    assert reason_for(with_("clock", tz="Mars/Olympus")) == (
        "tz: 'Mars/Olympus' is not a time zone this machine knows; write an IANA name like "
        "'Europe/Madrid' or 'UTC'"
    )


def test_widget_bounds() -> None:
    big_html = "<p>" + "é" * (128 * 1024) + "</p>"  # under 256 Ki characters, over 256 KiB
    assert reason_for(with_("widget", html=big_html)) == (
        "html: larger than 256 KiB as UTF-8; move data into `data` and keep the page small"
    )
    big_data = {"text": "x" * (64 * 1024)}
    assert reason_for(with_("widget", data=big_data)).startswith("data: 65547 bytes as JSON")
    deep: Any = "leaf"
    for _ in range(40):
        deep = {"d": deep}
    assert reason_for(with_("widget", data=deep)).startswith("data: nested deeper than 32")
    assert reason_for(with_("widget", data={"n": float("nan")})).startswith("data: holds NaN")
    assert reason_for(with_("widget", height=240.5)) == (
        "height: a number, not a whole number; write a whole number"
    )


# --- the glance-wide rules ---------------------------------------------------------------------


def test_at_most_three_blocks_show_the_rest_are_named() -> None:
    blocks = [VALID["header"], VALID["divider"], VALID["keyValue"], VALID["badges"]]
    reading = read_glance({"blocks": blocks})
    assert [b.type for b in reading.blocks] == ["header", "divider", "keyValue"]
    assert reading.dropped == (
        DroppedBlock(
            3,
            "badges",
            "blocks: a glance shows at most 3 blocks and 3 came before this one; remove it "
            "or fold it into another block",
        ),
    )


def test_an_invalid_block_does_not_take_a_place() -> None:
    blocks = [with_("header", icon="rocket"), VALID["divider"], VALID["stats"], VALID["list"]]
    reading = read_glance({"blocks": blocks})
    assert [b.type for b in reading.blocks] == ["divider", "stats", "list"]
    assert [(d.index, d.kind) for d in reading.dropped] == [(0, "header")]


def test_at_most_one_chart_counting_charts_in_rows() -> None:
    row_with_chart = {"type": "row", "children": [VALID["line"], VALID["divider"]]}
    reading = read_glance({"blocks": [row_with_chart, VALID["bars"], VALID["splitBar"]]})
    assert [b.type for b in reading.blocks] == ["row"]
    assert [(d.index, d.kind) for d in reading.dropped] == [(1, "bars"), (2, "splitBar")]
    assert reading.dropped[0].reason == (
        "chart: a glance shows at most one chart (bars, line, splitBar) and block 0 is one; "
        "remove this one or show its figures as stats"
    )
    two_in_a_row = {"type": "row", "children": [VALID["line"], VALID["bars"]]}
    assert reason_for(two_in_a_row) == (
        "children: 2 charts in one row; a glance shows at most one chart (bars, line, splitBar)"
    )


@pytest.mark.parametrize("inner", ["row", "widget"])
def test_rows_refuse_rows_and_widgets_inside(inner: str) -> None:
    block = {"type": "row", "children": [VALID[inner], VALID["divider"]]}
    assert reason_for(block) == (
        f"children[0].type: a {inner} cannot sit inside a row; a row holds 2–3 of header, "
        "list, stats, keyValue, bars, line, splitBar, progress, badges, clock, countdown, divider"
    )


def test_a_row_child_error_names_the_child() -> None:
    block = {
        "type": "row",
        "children": [VALID["divider"], with_("list", rows=[{"title": "x"}] * 7)],
    }
    assert reason_for(block) == "children[1] (list).rows: 7 rows, at most 6 show; keep the first 6"
    reading = read_glance({"blocks": [VALID["row"]]})
    assert isinstance(reading.blocks[0], RowBlock)
    assert [c.type for c in reading.blocks[0].children] == ["clock", "countdown"]


def test_the_glance_itself_when_it_is_not_a_glance() -> None:
    assert read_glance([]).dropped == (
        DroppedBlock(-1, "?", '_voiceos_glance: a list, not an object; write {"blocks": [...]}'),
    )
    assert read_glance({}).dropped[-1].reason == (
        "blocks: missing; write the blocks as a list of 1 to 3 objects"
    )
    assert read_glance({"blocks": []}).dropped == (
        DroppedBlock(-1, "?", "blocks: empty; a glance needs 1 to 3 blocks"),
    )
    extra = read_glance({"blocks": [VALID["divider"]], "theme": "dark"})
    assert [b.type for b in extra.blocks] == ["divider"]
    assert extra.dropped == (
        DroppedBlock(
            -1, "?", "_voiceos_glance.theme: not a field of a glance; remove it (a glance "
            "holds only blocks)"
        ),
    )  # fmt: skip


# --- hostile input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("header", 'block: text, not an object {"type": ..., ...}; write the block as an object'),
        (None, 'block: null, not an object {"type": ..., ...}; write the block as an object'),
        ([VALID["header"]], 'block: a list, not an object {"type": ..., ...}; write the block '
         "as an object"),
        (with_("header", title="a\ud800b"),
         "title: holds a lone surrogate character; remove it (plain text only)"),
        (with_("header", title="a\x00b"),
         "title: holds a control character; remove it (plain text only)"),
        (with_("line", points=[1, float("nan")]),
         "points[1]: must be a finite number within ±1e15"),
        (with_("bars", values=[float("inf"), 1]),
         "values[0]: must be a finite number within ±1e15"),
        (with_("stats", items=[{"label": "a", "value": float("nan")}]),
         "items[0].value: not a finite number; write it as text"),
        (with_("stats", items=[{"label": "a", "value": 10**400}]),
         "items[0].value: a number too large to show; write it as text"),
        (with_("line", points=[True, 2]), "points[0]: true, not a number; write a number"),
        (with_("header", title=True), "title: true, not text; write text"),
        (with_("countdown", seconds=None, until=True),
         "until: not a time; write an ISO 8601 time like '2025-06-01T18:00:00Z' or a unix "
         "time in milliseconds"),
    ],
)  # fmt: skip
def test_hostile_blocks_are_dropped_with_a_reason(raw: Any, reason: str) -> None:
    assert reason_for(raw) == reason


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_huge_arrays_are_refused_fast() -> None:
    start = time.perf_counter()
    rows = read_glance({"blocks": [with_("list", rows=[{"title": "x"}] * 1_000_000)]})
    blocks = read_glance({"blocks": [VALID["divider"]] * 1_000_000})
    assert time.perf_counter() - start < 2.0
    assert rows.dropped[0].reason == "rows: 1000000 rows, at most 6 show; keep the first 6"
    assert len(blocks.blocks) == 3
    assert len(blocks.dropped) <= 40  # not one line per block of a million
    assert blocks.dropped[-1] == DroppedBlock(
        32, "?", "blocks: 1000000 blocks, at most 3 show; blocks from 32 on were not read — "
        "send 1 to 3"
    )  # fmt: skip


def test_deep_nesting_never_recurses() -> None:
    deep: Any = {"type": "divider"}
    for _ in range(100_000):
        deep = [deep]
    reading = read_glance({"blocks": [deep, with_("widget", data={"d": deep})]})
    assert reading.blocks == ()
    assert [d.index for d in reading.dropped] == [0, 1]


def test_a_hostile_type_name_is_not_echoed_raw() -> None:
    reading = read_glance({"blocks": [{"type": "x" * 10_000 + "\n\x1b[31m"}]})
    assert reading.dropped[0].kind == "?"
    assert len(reading.dropped[0].reason) < 300


_json_leaf = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=80)
    | st.sampled_from([*VALID, *GLANCE_ICONS, "neutral", "good", "bad", "UTC"])
)
_json = st.recursive(
    _json_leaf,
    lambda children: st.lists(children, max_size=8)
    | st.dictionaries(
        st.sampled_from(
            ["type", "title", "rows", "items", "pairs", "children", "blocks", "value", "tz",
             "icon", "html", "height", "label", "data", "until", "seconds", "tone", "text",
             "points", "labels", "values", "segments", "badge", "max", "style"]
        )
        | st.text(max_size=8),
        children,
        max_size=8,
    ),
    max_leaves=25,
)  # fmt: skip
_mutated_block = st.sampled_from(list(VALID.values())).flatmap(
    lambda block: st.dictionaries(st.sampled_from([*block, "x"]), _json, max_size=3).map(
        lambda changes: {**block, **changes}
    )
)


@settings(max_examples=120, deadline=None)
@given(st.one_of(_json, st.lists(_mutated_block | _json, max_size=6).map(lambda b: {"blocks": b})))
def test_fuzz_read_glance_never_raises_and_keeps_its_promises(value: Any) -> None:
    reading = read_glance(value)
    assert len(reading.blocks) <= MAX_GLANCE_BLOCKS
    charts = sum(
        1
        for b in reading.blocks
        for t in ([c.type for c in b.children] if isinstance(b, RowBlock) else [b.type])
        if t in ("bars", "line", "splitBar")
    )
    assert charts <= 1
    for drop in reading.dropped:
        assert drop.reason and "\n" not in drop.reason
        drop.reason.encode("utf-8")  # printable to any UTF-8 stream
    if isinstance(value, dict) and isinstance(value.get("blocks"), list):
        assert len(reading.blocks) + sum(d.index >= 0 for d in reading.dropped) == min(
            len(value["blocks"]), 32
        )


def test_shown_blocks_are_frozen() -> None:
    block = read_glance({"blocks": [VALID["header"]]}).blocks[0]
    assert isinstance(block, HeaderBlock)
    with pytest.raises(Exception, match="frozen"):
        block.title = "changed"  # type: ignore[misc]  # frozen: the write is the test


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_reading_is_fast() -> None:
    value = {"blocks": [VALID["header"], VALID["list"], VALID["badges"]]}
    json.dumps(value)
    start = time.perf_counter()
    for _ in range(1000):
        read_glance(value)
    assert (time.perf_counter() - start) / 1000 < 0.002  # well under a frame

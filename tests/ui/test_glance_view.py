"""What a person sees in a glance: the words and figures, at most six rows, charts drawn,
clocks that tick only while shown, a countdown that ends at "Now", nothing that takes
the keyboard, and hostile text that stays inside the glass."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QWidget

from notch_app.manifest.glance import GLANCE_ICONS, ListBlock, ListRow, WidgetBlock, read_glance
from notch_app.manifest.model import Manifest
from notch_app.ui.glance import GlanceView, glance_icon_pixmap
from notch_app.ui.glance._text import GlanceText
from notch_app.ui.glance.clocks import ClockFace, CountdownFace, countdown_text
from notch_app.ui.glance.icons import ICON_DRAWINGS
from notch_app.ui.snapshot import card_image
from notch_app.ui.theme import look
from notch_app.ui.widgets.integration_icon import InstalledIcon


def _blocks(*blocks: dict[str, Any]) -> tuple[Any, ...]:
    reading = read_glance({"blocks": list(blocks)})
    assert reading.dropped == (), reading.dropped
    return reading.blocks


def _view(qtbot: Any, *blocks: Any, **options: Any) -> GlanceView:
    view = GlanceView(blocks, **options)
    qtbot.addWidget(view)
    return view


def _texts(view: QWidget) -> list[str]:
    return [t.text() for t in view.findChildren(GlanceText)]


def _count_near(image: QImage, color: QColor, within: int = 40) -> int:
    """How many pixels of `image` are close to `color` (opaque)."""
    rgba = image.convertToFormat(QImage.Format.Format_RGBA8888)
    data = bytes(rgba.constBits())
    target = (color.red(), color.green(), color.blue())
    count = 0
    for i in range(0, len(data), 4):
        if data[i + 3] > 200 and all(abs(data[i + k] - target[k]) <= within for k in range(3)):
            count += 1
    return count


# ---- words and figures -------------------------------------------------------------------


def test_a_glance_shows_its_words_and_figures(qtbot: Any) -> None:
    view = _view(
        qtbot,
        *_blocks(
            {"type": "header", "icon": "mail", "title": "3 new emails", "trailing": "9:41"},
            {
                "type": "list",
                "rows": [
                    {
                        "title": "Quarterly numbers",
                        "subtitle": "Dana",
                        "trailing": 2,
                        "badge": {"text": "New", "tone": "good"},
                    },
                ],
            },
            {
                "type": "stats",
                "items": [{"label": "Unread", "value": 12, "delta": "+3", "tone": "bad"}],
            },
        ),
    )
    texts = _texts(view)
    for expected in (
        "3 new emails",
        "9:41",
        "Quarterly numbers",
        "Dana",
        "2",
        "Unread",
        "12",
        "+3",
    ):
        assert expected in texts
    badges = [w for w in view.findChildren(QWidget) if w.objectName() == "GlanceBadge"]
    assert [b.text() if isinstance(b, QLabel) else b for b in badges] == ["New"]
    delta = next(t for t in view.findChildren(GlanceText) if t.text() == "+3")
    assert delta.property("tone") == "bad"


def test_the_glance_is_as_wide_as_asked_in_the_cards_glass(qtbot: Any) -> None:
    view = _view(qtbot, *_blocks({"type": "header", "title": "Done"}), width=360)
    image = card_image(view)
    assert image.width() == 360
    assert view.findChild(QWidget, "NotchGlance") is not None


def test_a_list_shows_at_most_six_rows(qtbot: Any) -> None:
    rows = tuple(ListRow(title=f"Row {i}") for i in range(9))
    # A list read from a result never has more than six (the reading drops it, saying so);
    # a list made another way is still cut at six.
    view = _view(qtbot, ListBlock.model_construct(type="list", header=None, rows=rows))
    shown = [t for t in _texts(view) if t.startswith("Row ")]
    assert shown == [f"Row {i}" for i in range(6)]
    dropped = read_glance({"blocks": [{"type": "list", "rows": [{"title": "r"}] * 8}]})
    assert dropped.blocks == ()
    assert "at most 6 show" in dropped.dropped[0].reason


def test_only_three_blocks_show(qtbot: Any) -> None:
    headers = [
        read_glance({"blocks": [{"type": "header", "title": f"H{i}"}]}).blocks[0] for i in range(5)
    ]
    view = _view(qtbot, *headers)
    assert _texts(view) == ["H0", "H1", "H2"]


def test_a_row_gives_its_children_equal_shares(qtbot: Any) -> None:
    view = _view(
        qtbot,
        *_blocks(
            {
                "type": "row",
                "children": [
                    {"type": "stats", "items": [{"label": "A", "value": "1"}]},
                    {"type": "header", "title": "A much longer title than the other " * 1},
                    {"type": "progress", "value": 5},
                ],
            }
        ),
    )
    card_image(view)
    row = view.findChild(QWidget, "GlanceRow")
    assert row is not None
    widths = [w.width() for w in row.children() if isinstance(w, QWidget)]
    assert len(widths) == 3 and len(set(widths)) == 1


# ---- charts ------------------------------------------------------------------------------


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_charts_are_drawn_in_the_themes_colours(qtbot: Any, theme: str) -> None:
    colours = look(theme)
    bars = card_image(
        _view(
            qtbot,
            *_blocks(
                {"type": "bars", "labels": ["a", "b", "c"], "values": [1, 5, 3], "unit": "km"}
            ),
            theme=theme,
        )
    )
    assert _count_near(bars, colours.color("progress_fill"), 12) > 300  # the tallest bar
    line = card_image(
        _view(qtbot, *_blocks({"type": "line", "points": [1, 4, 2, 8], "tone": "bad"}), theme=theme)
    )
    assert _count_near(line, colours.color("danger_fill"), 30) > 40
    split = card_image(
        _view(
            qtbot,
            *_blocks(
                {
                    "type": "splitBar",
                    "segments": [
                        {"label": "Won", "value": 3, "tone": "good"},
                        {"label": "Lost", "value": 1, "tone": "bad"},
                    ],
                }
            ),
            theme=theme,
        )
    )
    assert _count_near(split, colours.color("success_fill"), 20) > 200
    assert _count_near(split, colours.color("danger_fill"), 20) > 50


def test_chart_labels_and_values_are_there_to_read(qtbot: Any) -> None:
    from notch_app.ui.glance.charts import BarsChart, SplitBar

    view = _view(
        qtbot,
        *_blocks(
            {"type": "bars", "labels": ["Mon", "Tue"], "values": [1200, 3.5], "unit": "kWh"},
        ),
    )
    chart = view.findChild(BarsChart)
    assert chart is not None
    assert chart.accessibleName() == "Mon 1,200 kWh, Tue 3.5 kWh"
    split_view = _view(
        qtbot,
        *_blocks(
            {
                "type": "splitBar",
                "segments": [{"label": "A", "value": 999}, {"label": "B", "value": 1}],
            }
        ),
    )
    split = split_view.findChild(SplitBar)
    assert split is not None and split.accessibleName() == "A 100%, B <1%"


def test_progress_says_its_share_as_a_bar_and_as_a_ring(qtbot: Any) -> None:
    bar = _view(qtbot, *_blocks({"type": "progress", "value": 2, "max": 3, "label": "Copying"}))
    assert "66%" in _texts(bar) and "Copying" in _texts(bar)
    ring = _view(qtbot, *_blocks({"type": "progress", "value": 3, "max": 4, "style": "ring"}))
    assert "3 of 4" in _texts(ring)
    progress = ring.findChild(QWidget, "GlanceProgress")
    assert progress is not None and progress.accessibleName() == "Progress: 75%"


# ---- icons -------------------------------------------------------------------------------


def test_every_glance_icon_is_drawn_and_no_two_alike(qtbot: Any) -> None:
    assert tuple(ICON_DRAWINGS) == GLANCE_ICONS
    seen: dict[bytes, str] = {}
    for name in GLANCE_ICONS:
        pixmap = glance_icon_pixmap(name, 24, QColor("#ffffff"))
        image = pixmap.toImage().convertToFormat(QImage.Format.Format_RGBA8888)
        data = bytes(image.constBits())
        inked = sum(1 for i in range(3, len(data), 4) if data[i] > 128)
        assert 20 < inked < 24 * 24 * 0.6, f"{name}: {inked} inked pixels"
        assert data not in seen, f"{name} looks like {seen.get(data)}"
        seen[data] = name


def test_icons_are_sharp_at_the_screens_pixel_ratio(qtbot: Any) -> None:
    pixmap = glance_icon_pixmap("heart", 18, QColor("#000000"), 2.0)
    assert pixmap.devicePixelRatio() == 2.0
    assert (pixmap.width(), pixmap.height()) == (36, 36)


def test_icons_take_the_themes_text_colour(qtbot: Any) -> None:
    for theme in ("dark", "light"):
        view = _view(
            qtbot, *_blocks({"type": "header", "icon": "star", "title": "Saved"}), theme=theme
        )
        image = card_image(view)
        assert _count_near(image, look(theme).color("text"), 40) > 30


# ---- the app's icon ----------------------------------------------------------------------


def _installed(tmp_path: Any) -> InstalledIcon:
    manifest = Manifest.model_validate(
        {
            "schemaVersion": 1,
            "id": "com.example.notes",
            "name": "Notes",
            "version": "1.0.0",
            "tools": [],
        }
    )
    return InstalledIcon.of(manifest, tmp_path)


def test_the_app_icon_is_the_installed_integrations_never_the_authors(
    qtbot: Any, tmp_path: Any
) -> None:
    blocks = _blocks({"type": "header", "appIcon": "whatsapp", "title": "Message sent"})
    with_icon = _view(qtbot, *blocks, app_icon=_installed(tmp_path))
    drawn = [
        w.accessibleName()
        for w in with_icon.findChildren(QWidget)
        if type(w).__name__ == "_AppIcon"
    ]
    assert drawn == ["Notes"]
    # Without an installed icon, the author's name draws nothing (no other app's logo).
    without = _view(qtbot, *blocks)
    assert not [w for w in without.findChildren(QWidget) if type(w).__name__ == "_AppIcon"]
    assert "whatsapp" not in " ".join(w.accessibleName() for w in without.findChildren(QWidget))


# ---- the HTML widget block ---------------------------------------------------------------


def test_a_widget_without_the_web_engine_is_a_quiet_line(qtbot: Any) -> None:
    view = _view(
        qtbot, *_blocks({"type": "widget", "html": "<b>x</b>", "height": 80, "label": "Radar"})
    )
    assert _texts(view) == ["Radar (HTML widget)"]


def test_a_widget_is_built_by_the_factory_and_still_takes_no_focus(qtbot: Any) -> None:
    calls: list[tuple[WidgetBlock, str]] = []

    def factory(block: WidgetBlock, theme: str) -> QWidget:
        calls.append((block, theme))
        return QLineEdit("a page that wants the keyboard")

    view = _view(
        qtbot,
        *_blocks({"type": "widget", "html": "<b>x</b>", "height": 80, "label": "Radar"}),
        theme="light",
        widget_factory=factory,
    )
    assert [(b.label, t) for b, t in calls] == [("Radar", "light")]
    field = view.findChild(QLineEdit)
    assert field is not None and field.focusPolicy().name == "NoFocus"


# ---- no keyboard -------------------------------------------------------------------------


def test_nothing_in_a_glance_takes_the_keyboard(qtbot: Any) -> None:
    view = _view(
        qtbot,
        *_blocks(
            {"type": "header", "icon": "check", "title": "Paid"},
            {"type": "list", "rows": [{"title": "Invoice 12", "badge": "Paid"}]},
            {
                "type": "row",
                "children": [{"type": "clock", "tz": "UTC"}, {"type": "countdown", "seconds": 30}],
            },
        ),
    )
    view.show()
    qtbot.waitExposed(view)
    widgets = [view, *view.findChildren(QWidget)]
    assert all(w.focusPolicy().name == "NoFocus" for w in widgets)
    view.activateWindow()
    view.setFocus()
    focused = QApplication.focusWidget()
    assert focused is None or focused not in widgets


# ---- clock and countdown -----------------------------------------------------------------


def test_countdown_words() -> None:
    assert countdown_text(300) == "5:00"
    assert countdown_text(299.2) == "5:00"  # never shows less time than is left
    assert countdown_text(299) == "4:59"
    assert countdown_text(3900) == "1 h 05 m"
    assert countdown_text(2 * 86400 + 3 * 3600) == "2 d 03 h"
    assert countdown_text(0) == "Now"
    assert countdown_text(-12) == "Now"


def test_a_clock_shows_its_zones_time_and_city(qtbot: Any, fake_clock: Any) -> None:
    view = _view(qtbot, *_blocks({"type": "clock", "tz": "America/New_York"}), clock=fake_clock)
    texts = _texts(view)
    assert "11:06" in texts and "New York" in texts and "Sun · UTC-4" in texts


def test_an_idle_glance_has_no_timer(qtbot: Any, fake_clock: Any) -> None:
    view = _view(
        qtbot,
        *_blocks({"type": "clock", "tz": "UTC"}, {"type": "countdown", "seconds": 60}),
        clock=fake_clock,
    )
    assert not view.ticking
    assert not [t for t in view.findChildren(QTimer) if t.isActive()]


def test_clock_and_countdown_tick_while_shown_and_stop_when_hidden(
    qtbot: Any, fake_clock: Any
) -> None:
    view = _view(
        qtbot,
        *_blocks({"type": "clock", "tz": "UTC"}, {"type": "countdown", "seconds": 300}),
        clock=fake_clock,
    )
    clock = view.findChild(ClockFace)
    countdown = view.findChild(CountdownFace)
    assert clock is not None and countdown is not None
    assert (clock.time_shown(), countdown.time_shown()) == ("15:06", "5:00")
    view.show()
    qtbot.waitExposed(view)
    assert view.ticking
    fake_clock.advance(61)
    qtbot.waitUntil(lambda: countdown.time_shown() == "3:59", timeout=3000)
    assert clock.time_shown() == "15:07"
    view.hide()
    assert not view.ticking
    assert not [t for t in view.findChildren(QTimer) if t.isActive()]
    fake_clock.advance(60)
    view.show()  # shown again: the right time at once, and ticking again
    assert countdown.time_shown() == "2:59"
    assert view.ticking


def test_a_countdown_reaches_now_and_its_timer_stops(qtbot: Any, fake_clock: Any) -> None:
    view = _view(qtbot, *_blocks({"type": "countdown", "seconds": 2}), clock=fake_clock)
    countdown = view.findChild(CountdownFace)
    assert countdown is not None
    view.show()
    qtbot.waitExposed(view)
    fake_clock.advance(5)
    qtbot.waitUntil(lambda: countdown.time_shown() == "Now", timeout=3000)
    qtbot.waitUntil(lambda: not view.ticking, timeout=3000)
    assert view.isVisible()


def test_a_countdown_until_a_past_time_is_now_at_once(qtbot: Any, fake_clock: Any) -> None:
    view = _view(
        qtbot, *_blocks({"type": "countdown", "until": "2020-01-01T00:00:00Z"}), clock=fake_clock
    )
    assert "Now" in _texts(view)
    view.show()
    qtbot.waitExposed(view)
    assert not view.ticking  # nothing left to count: no timer at all


# ---- hostile text ------------------------------------------------------------------------

_HOSTILE = [
    "W" * 10_000,
    "invoice\u202efdp.exe",
    "pay\u200b\u200b\u200bpal " * 300,
    "مرحبا بالعالم " * 500,
    "line one\nline two\r\n\tline three",
]


@pytest.mark.parametrize("text", _HOSTILE, ids=["10k", "rlo", "zero-width", "rtl", "breaks"])
def test_hostile_text_is_elided_inside_the_glass(qtbot: Any, text: str) -> None:
    # Past the reading's own bounds (which drop such blocks): the view still holds.
    from notch_app.manifest.glance import HeaderBlock, Stat, StatsBlock

    header = HeaderBlock.model_construct(
        type="header", icon="x", app_icon=None, title=text, trailing=text
    )
    stats = StatsBlock.model_construct(
        type="stats",
        items=(Stat.model_construct(label=text, value=text, delta=text, tone="good"),),
    )
    rows = ListBlock.model_construct(type="list", header=text, rows=(ListRow.model_construct(
        icon=None, title=text, subtitle=text, trailing=text, badge=None),))  # fmt: skip
    view = _view(qtbot, header, stats, rows, width=440)
    image = card_image(view)
    assert image.width() == 440
    assert image.height() < 400
    for label in view.findChildren(GlanceText):
        assert (
            "\n" not in label.text()
            and "\u202e" not in label.text()
            and "\u200b" not in label.text()
        )
        assert len(label.text()) <= 200
        assert label.geometry().right() <= 440
        assert label.fontMetrics().horizontalAdvance(label.shown_text()) <= label.width() + 1
    if text.startswith("invoice"):
        assert "invoice⟨U+202E⟩fdp.exe" in _texts(view)


def test_hostile_text_in_a_row_stays_in_its_share(qtbot: Any) -> None:
    view = _view(
        qtbot,
        *_blocks(
            {
                "type": "row",
                "children": [
                    {"type": "header", "title": "W" * 60, "trailing": "W" * 40},
                    {"type": "keyValue", "pairs": [["W" * 32, "W" * 80]]},
                ],
            }
        ),
    )
    card_image(view)
    row = view.findChild(QWidget, "GlanceRow")
    assert row is not None
    share = (440 - 40 - 14) // 2
    for child in (w for w in row.children() if isinstance(w, QWidget)):
        assert child.width() == share
        for label in child.findChildren(GlanceText):
            assert label.mapTo(child, label.rect().bottomRight()).x() <= share
            assert label.shown_text().endswith("…")

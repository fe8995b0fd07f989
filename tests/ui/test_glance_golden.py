"""Golden images of every glance block kind, both themes, and of a combined 3-block glance.

Same tolerance method as the card goldens (`differing_share` in conftest): a pixel
differs when any channel is off by more than 24, and a golden fails past 0.5 % of pixels
(or a changed size). The clock is fixed (Sunday 15 June 2025, 15:06:40 UTC). Regenerate
after an intended change of the look:

    NOTCH_UPDATE_GOLDEN=1 .venv/bin/pytest tests/ui/test_glance_golden.py

then look at tests/ui/golden/glance-*.png before committing them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

from notch_app.manifest.glance import read_glance
from notch_app.ui.snapshot import glance_image
from notch_app.ui.theme import ThemeName

GOLDEN = Path(__file__).resolve().parent / "golden"
MAX_DIFFERING = 0.005
NOW = 1_750_000_000.0

GLANCES: dict[str, list[dict[str, Any]]] = {
    "header": [
        {"type": "header", "icon": "calendar", "title": "Meeting booked", "trailing": "Tue 14:00"}
    ],
    "list": [
        {
            "type": "list",
            "header": "Inbox",
            "rows": [
                {
                    "icon": "mail",
                    "title": "Quarterly numbers are in",
                    "subtitle": "Dana Whitfield · 2 attachments",
                    "trailing": "9:41",
                    "badge": {"text": "New", "tone": "good"},
                },
                {
                    "icon": "message",
                    "title": "Lunch on Friday?",
                    "subtitle": "Sam",
                    "trailing": "Yesterday",
                },
                {
                    "icon": "file",
                    "title": "Contract_v3_final.pdf",
                    "trailing": 2,
                    "badge": {"text": "Overdue", "tone": "bad"},
                },
            ],
        }
    ],
    "stats": [
        {
            "type": "stats",
            "items": [
                {"label": "Revenue", "value": "$12.4k", "delta": "+8%", "tone": "good"},
                {"label": "Refunds", "value": 3, "delta": "+2", "tone": "bad"},
                {"label": "Orders", "value": "148", "delta": "same"},
            ],
        }
    ],
    "keyValue": [
        {
            "type": "keyValue",
            "pairs": [
                ["Flight", "LH 1234"],
                ["Departs", "07:45 · Gate B12"],
                ["Seat", "14C"],
                ["Bags", 2],
            ],
        }
    ],
    "bars": [
        {
            "type": "bars",
            "labels": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
            "values": [6.2, 7.8, 5.1, 8.4, 4.9, 9.6, 7.0],
            "unit": "h",
        }
    ],
    "line": [
        {
            "type": "line",
            "points": [21, 22.5, 22, 24, 23.6, 25.2, 26.8, 26, 27.4, 28.1],
            "tone": "good",
            "baseline": 24,
        }
    ],
    "splitBar": [
        {
            "type": "splitBar",
            "segments": [
                {"label": "Housing", "value": 1200},
                {"label": "Food", "value": 420},
                {"label": "Travel", "value": 260, "tone": "bad"},
                {"label": "Savings", "value": 600, "tone": "good"},
            ],
        }
    ],
    "progress": [{"type": "progress", "value": 62, "label": "Uploading photos"}],
    "progress-ring": [
        {"type": "progress", "value": 7, "max": 10, "label": "Steps goal", "style": "ring"}
    ],
    "badges": [
        {
            "type": "badges",
            "items": [
                "Draft",
                {"text": "Shipped", "tone": "good"},
                {"text": "2 failed", "tone": "bad"},
            ],
        }
    ],
    "clock": [{"type": "clock", "tz": "Asia/Tokyo"}],
    "countdown": [{"type": "countdown", "seconds": 299}],
    "divider": [
        {"type": "header", "icon": "check", "title": "Sent"},
        {"type": "divider"},
        {"type": "header", "icon": "clock", "title": "Reply expected", "trailing": "in 2 days"},
    ],
    "row": [
        {
            "type": "row",
            "children": [
                {"type": "clock", "tz": "Europe/Madrid"},
                {"type": "progress", "value": 40, "label": "Battery", "style": "ring"},
            ],
        }
    ],
    "widget": [
        {
            "type": "widget",
            "html": "<p>radar</p>",
            "height": 120,
            "label": "Weather radar",
            "data": {},
        }
    ],
    "combined": [
        {"type": "header", "icon": "sun", "title": "Madrid today", "trailing": "Updated 9:40"},
        {
            "type": "stats",
            "items": [
                {"label": "Now", "value": "24°"},
                {"label": "High", "value": "31°", "delta": "+3° vs. yesterday", "tone": "bad"},
                {"label": "Rain", "value": "10%"},
            ],
        },
        {"type": "line", "points": [18, 19, 21, 24, 27, 29, 31, 30, 28, 25], "baseline": 25},
    ],
}
"""One sample glance per block kind (a divider between two headers; a ring beside the bar)."""


def test_every_block_kind_has_a_golden() -> None:
    from notch_app.ui.glance import GLANCE_BUILDERS

    assert set(GLANCE_BUILDERS) <= {name.split("-")[0] for name in GLANCES}


@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize("name", list(GLANCES))
def test_glance_matches_its_golden_image(
    qtbot: Any,
    name: str,
    theme: ThemeName,
    tmp_path: Path,
    differing_share: Callable[[QImage, QImage], float],
) -> None:
    reading = read_glance({"blocks": GLANCES[name]})
    assert reading.dropped == (), reading.dropped
    image = glance_image(reading.blocks, theme=theme, clock=lambda: NOW)
    golden = GOLDEN / f"glance-{name}-{theme}.png"
    if os.environ.get("NOTCH_UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        image.save(str(golden), "PNG")  # type: ignore[call-overload]  # str works; stubs say bytes
        return
    if not golden.exists():
        pytest.fail(f"{golden.name} is missing: run with NOTCH_UPDATE_GOLDEN=1, then look at it")
    expected = QImage(str(golden))
    share = differing_share(image, expected)
    if share > MAX_DIFFERING:
        actual = tmp_path / golden.name
        image.save(str(actual), "PNG")  # type: ignore[call-overload]  # str works; stubs say bytes
        pytest.fail(
            f"{golden.name}: {share:.2%} of pixels differ (now {image.width()}×"
            f"{image.height()}, golden {expected.width()}×{expected.height()}); see {actual}"
        )

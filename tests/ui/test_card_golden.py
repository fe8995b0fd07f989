"""Golden images of the bundled cards as a screen shows them, and of long content.

Each bundled card (preview fixture arguments) at 1280×720 and 1920×1080, dark and light,
drawn as the notch opens it: the compact first view, the body folded within 70 % of the
screen. Then the cases that broke the old card: 30 recipients, 50 paths and a
2,000-character message. The clock, locale, zone and home folder are fixed so "(in 2
days)" and "~/Downloads" read the same on every machine.

Compared with a tolerance (the `differing_share` fixture in conftest.py): a pixel differs
when any channel is off by more than 24, and the test fails when more than MAX_DIFFERING
of pixels differ (or the size changed). Regenerate after an intended change of the look:

    NOTCH_UPDATE_GOLDEN=1 .venv/bin/pytest tests/ui/test_card_golden.py

then look at tests/ui/golden/*.png before committing them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from PySide6.QtGui import QImage

from notch_app.card import person_locale
from notch_app.manifest.integration import load_integration
from notch_app.ui.card_view import SCREEN_SHARE, CardView
from notch_app.ui.snapshot import card_image
from notch_app.ui.widgets.asker_strip import asker_for

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
MAX_DIFFERING = 0.005  # 0.5 % of the pixels
SCREENS = {"1280x720": 720, "1920x1080": 1080}
COMPACT_MAX = 400
"""A card with its gates open and nothing marked opens at most this tall (issue 22)."""
NOW = datetime(2025, 6, 1, 9, 0, tzinfo=ZoneInfo("Europe/London"))


def _cards() -> list[tuple[str, str]]:
    out = []
    for folder in sorted((ROOT / "manifests").iterdir()):
        integration, _ = load_integration(folder)
        if integration is None or integration.fixtures is None:
            continue
        for tool in integration.manifest.tools:
            if tool.confirmation is not None and tool.name in integration.fixtures.tools:
                out.append((folder.name, tool.name))
    return out


CARDS = _cards()

PATHS_50 = [
    f"/home/maya/Documents/reports/2024/quarter-{i % 4 + 1}/monthly-report-{i:02d}-final.pdf"
    for i in range(50)
]
LONG_CASES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "recipients-30": (
        "mail",
        "send_email",
        {"to": [f"person{i:02d}.longname@example-company.com" for i in range(30)]},
    ),
    "paths-50": (
        "files",
        "delete_files",
        {"paths": PATHS_50, "count": 50, "folder": "/home/maya/Documents/reports"},
    ),
    "message-2000": (
        "mail",
        "send_email",
        {"body": ("We went through the quarter's numbers and agreed the next steps. " * 40)[:2000]},
    ),
}


@pytest.fixture(autouse=True)
def _a_fixed_person(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Sunday 1 June 2025, 09:00 in London, en_GB, home /home/maya."""
    monkeypatch.setattr(person_locale, "current_time", lambda: NOW)
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")
    monkeypatch.setenv("HOME", "/home/maya")
    yield


def _view(integration: str, tool_name: str, theme: str, height: int, **more: Any) -> CardView:
    loaded, _ = load_integration(ROOT / "manifests" / integration)
    assert loaded is not None and loaded.fixtures is not None
    tool = loaded.manifest.tool(tool_name)
    assert tool is not None
    args = {**loaded.fixtures.tools[tool_name].args, **more}
    return CardView(
        tool,
        args,
        base_dir=loaded.folder,
        network_domains=loaded.manifest.network_domains,
        theme=theme,
        asker=asker_for(loaded.manifest, loaded.folder),
        scopes=True,
        live_pages=False,
        screen_height=height,
    )


def _compare(
    image: QImage, name: str, tmp_path: Path, differing_share: Callable[[QImage, QImage], float]
) -> None:
    golden = GOLDEN / f"{name}.png"
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


def test_the_bundled_cards_are_found() -> None:
    assert len(CARDS) >= 15


@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize("screen", sorted(SCREENS))
@pytest.mark.parametrize(("integration", "tool_name"), CARDS)
def test_bundled_card_on_a_screen_matches_its_golden_image(
    qtbot: Any,
    integration: str,
    tool_name: str,
    screen: str,
    theme: str,
    tmp_path: Path,
    differing_share: Callable[[QImage, QImage], float],
) -> None:
    height = SCREENS[screen]
    view = _view(integration, tool_name, theme, height)
    qtbot.addWidget(view)
    image = card_image(view, whole=False)
    # Never taller than 70 % of the screen, whatever it holds.
    assert image.height() <= int(height * SCREEN_SHARE) + 2, image.height()
    _compare(image, f"{integration}-{tool_name}-{theme}-{screen}", tmp_path, differing_share)


@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize("screen", sorted(SCREENS))
@pytest.mark.parametrize("case", sorted(LONG_CASES))
def test_long_content_fits_the_screen_and_matches_its_golden_image(
    qtbot: Any,
    case: str,
    screen: str,
    theme: str,
    tmp_path: Path,
    differing_share: Callable[[QImage, QImage], float],
) -> None:
    integration, tool_name, more = LONG_CASES[case]
    height = SCREENS[screen]
    view = _view(integration, tool_name, theme, height, **more)
    qtbot.addWidget(view)
    image = card_image(view, whole=False)
    assert image.height() <= int(height * SCREEN_SHARE) + 2, image.height()
    _compare(image, f"long-{case}-{theme}-{screen}", tmp_path, differing_share)

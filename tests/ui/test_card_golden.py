"""Golden images of the bundled cards (preview fixture arguments), both themes.

Compared with a tolerance (the `differing_share` fixture in conftest.py): a pixel differs
when any channel is off by more than 24, and the test fails when more than MAX_DIFFERING
of pixels differ (or the size changed). Regenerate after an intended change of the look:

    NOTCH_UPDATE_GOLDEN=1 .venv/bin/pytest tests/ui/test_card_golden.py

then look at tests/ui/golden/*.png before committing them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

from notch_app.manifest.integration import load_integration
from notch_app.ui.card_view import CardView
from notch_app.ui.snapshot import card_image
from notch_app.ui.widgets.asker_strip import asker_for

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
MAX_DIFFERING = 0.005  # 0.5 % of the pixels


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


def test_the_bundled_cards_are_found() -> None:
    assert len(CARDS) >= 5


@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize(("integration", "tool_name"), CARDS)
def test_bundled_card_matches_its_golden_image(
    qtbot: Any,
    integration: str,
    tool_name: str,
    theme: str,
    tmp_path: Path,
    differing_share: Callable[[QImage, QImage], float],
) -> None:
    loaded, _ = load_integration(ROOT / "manifests" / integration)
    assert loaded is not None and loaded.fixtures is not None
    tool = loaded.manifest.tool(tool_name)
    assert tool is not None
    view = CardView(
        tool,
        loaded.fixtures.tools[tool_name].args,
        base_dir=loaded.folder,
        network_domains=loaded.manifest.network_domains,
        theme=theme,
        asker=asker_for(loaded.manifest, loaded.folder),
    )
    qtbot.addWidget(view)
    image = card_image(view)
    golden = GOLDEN / f"{integration}-{tool_name}-{theme}.png"
    if os.environ.get("NOTCH_UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        image.save(str(golden), "PNG")
        return
    if not golden.exists():
        pytest.fail(f"{golden.name} is missing: run with NOTCH_UPDATE_GOLDEN=1, then look at it")
    expected = QImage(str(golden))
    share = differing_share(image, expected)
    if share > MAX_DIFFERING:
        actual = tmp_path / golden.name
        image.save(str(actual), "PNG")
        pytest.fail(
            f"{golden.name}: {share:.2%} of pixels differ (now {image.width()}×"
            f"{image.height()}, golden {expected.width()}×{expected.height()}); see {actual}"
        )

"""Issue 22: Settings' pages fit their window. At its narrowest (560 px) the guard builder's
one row and an action's one-line summary widened every integration page past the window,
cutting its right edge (the Asks first switch, the fields of API keys); an integration's
summary showed its markdown backticks."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from notch_app.runtime.catalog import Catalog, bundled_manifests_dir
from notch_app.runtime.policy_book import PolicyBook
from notch_app.ui.settings import SettingsWindow

BUNDLED_IDS = sorted(
    json.loads(path.read_text(encoding="utf-8"))["id"]
    for path in bundled_manifests_dir().glob("*/manifest.json")
)  # read off the files: loading and checking them all is for the tests, not for collecting
MIN_WIDTH, MIN_HEIGHT = 560, 420


@functools.cache
def bundled_catalog() -> Catalog:
    catalog, _problems = Catalog.load([bundled_manifests_dir()])
    return catalog


def test_the_pages_tried_are_every_bundled_integration() -> None:
    assert bundled_catalog().ids() == BUNDLED_IDS


def _past_the_edge(window: SettingsWindow) -> list[str]:
    """What on the page on screen ends right of its scroll area's viewport."""
    page = window.stack.currentWidget()
    assert page is not None
    area = page if isinstance(page, QScrollArea) else page.findChild(QScrollArea)
    assert area is not None
    content = area.widget()
    assert content is not None
    right = area.viewport().width()
    cut = []
    for widget in content.findChildren(QWidget):
        if widget.isVisible():
            edge = widget.mapTo(content, widget.rect().topRight()).x()
            if edge > right + 1:
                name = widget.text()[:30] if isinstance(widget, QLabel) else type(widget).__name__
                cut.append(f"{name!r} ends at {edge} > {right}")
    return cut


@pytest.mark.parametrize("integration", BUNDLED_IDS)
def test_every_integration_page_fits_settings_at_its_narrowest(
    qtbot: QtBot, tmp_path: Path, integration: str
) -> None:
    window = SettingsWindow(PolicyBook.in_data_dir(tmp_path), bundled_catalog, tmp_path / "i")
    qtbot.addWidget(window)
    window.resize(MIN_WIDTH, MIN_HEIGHT)
    window.show()
    qtbot.waitExposed(window)
    assert window.width() == MIN_WIDTH
    window.open_integration(integration)
    qtbot.waitUntil(lambda: window.stack.currentIndex() == 1, timeout=3000)
    assert _past_the_edge(window) == []
    texts = [label.text() for label in window.findChildren(QLabel) if label.isVisible()]
    assert not any("`" in text for text in texts), "manifest markdown shown as backticks"

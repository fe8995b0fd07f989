"""What a card makes only when first needed keeps working as it did when made up front
(issue 19: the card's build, session 6).

The headline becomes selectable when the pointer first comes over it, as the card's other
labels do (a selectable label makes a text document up front, ~0.3 ms of every card):
the mouse still selects its words, and Tab still never stops on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QEnterEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from notch_app.manifest.integration import load_integration
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.asker_strip import asker_for

ROOT = Path(__file__).resolve().parents[2]


def _view(integration: str, tool_name: str) -> CardView:
    loaded, _ = load_integration(ROOT / "manifests" / integration)
    assert loaded is not None and loaded.fixtures is not None
    tool = loaded.manifest.tool(tool_name)
    assert tool is not None
    return CardView(
        tool,
        dict(loaded.fixtures.tools[tool_name].args),
        base_dir=loaded.folder,
        asker=asker_for(loaded.manifest, loaded.folder),
        scopes=True,
        live_pages=False,
        screen_height=1080,
    )


def _tab_stops(view: CardView) -> list[QWidget]:
    """The card's widgets Tab reaches, in the window's focus chain order."""
    stops: list[QWidget] = []
    widget = view.nextInFocusChain()
    while widget is not None and widget is not view and widget not in stops:
        if widget.focusPolicy().value & Qt.FocusPolicy.TabFocus.value and view.isAncestorOf(widget):
            stops.append(widget)
        widget = widget.nextInFocusChain()
    return stops


def test_the_headline_is_selected_with_the_mouse_once_pointed_at(qtbot: Any) -> None:
    view = _view("mail", "send_email")
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    headline = view.headline_line
    stops = _tab_stops(view)
    assert headline not in stops
    # Nothing made for selection until a pointer comes: no text document per card.
    assert not headline.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    y = headline.height() // 2
    start, end = QPoint(2, y), QPoint(headline.width() - 2, y)
    at = QPointF(start)
    # Sent to the label itself (see test_card_blocks' selection test for why).
    QApplication.sendEvent(headline, QEnterEvent(at, at, QPointF(headline.mapToGlobal(start))))
    QTest.mouseMove(headline, start)
    QTest.mousePress(headline, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(headline, end)
    QTest.mouseRelease(headline, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    selected = headline.selectedText()
    assert selected and selected in headline.text()
    # Selectable by the mouse only: Tab stops where it stopped before the pointer came.
    assert _tab_stops(view) == stops

"""Issue 22, a defect left from the review: on a short screen a long diff or command made
the card scroll around a panel that scrolls itself, and the card's "More below ↓" pill sat
at the panel's cut edge. Now the panel shows fewer lines there (never fewer than a few),
the card does not scroll, and the panel's own "scroll to see all" hold keeps confirm
closed until every line was on screen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from notch_app.manifest.integration import load_integration
from notch_app.ui.blocks.inputs import TextArea
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.code_view import MAX_VISIBLE_LINES, SHORTEST_ROWS, CodePanel

ROOT = Path(__file__).resolve().parents[2]
LINES = [f"line {i}: const value{i} = compute({i});" for i in range(1, 121)]
LONG_WRITE = {
    "file_path": "/home/maya/shop/src/big.ts",
    "change": "New file, 120 lines",
    "diff": "--- /dev/null\n+++ b/src/big.ts\n@@ -0,0 +1,120 @@\n"
    + "\n".join("+" + line for line in LINES),
}
LONG_BASH = {
    "command": " && ".join(f"echo step{i} > /tmp/out{i}.txt" for i in range(60)),
    "cwd": "/home/maya/shop",
}


def _card(qtbot: QtBot, tool_name: str, args: dict[str, Any], height: int) -> CardView:
    loaded, _ = load_integration(ROOT / "manifests" / "claude-code")
    assert loaded is not None
    tool = loaded.manifest.tool(tool_name)
    assert tool is not None
    view = CardView(tool, json.loads(json.dumps(args)), scopes=True, screen_height=height)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def _settled(qtbot: QtBot, view: CardView) -> None:
    body = view._body
    assert body is not None
    # The band of "More below" comes and goes with the layout: wait until it is still.
    qtbot.waitUntil(lambda: body.verticalScrollBar().maximum() == 0, timeout=3000)


def test_a_long_diff_on_a_720_line_screen_scrolls_in_its_panel_not_the_card(
    qtbot: QtBot,
) -> None:
    view = _card(qtbot, "Write", LONG_WRITE, 720)
    _settled(qtbot, view)
    body = view._body
    assert body is not None and not body.more_below.isVisible()
    panel = view.findChild(CodePanel)
    assert panel is not None
    line = panel.fontMetrics().lineSpacing()
    shown_rows = (panel.height() - panel.height_for_rows(0)) // line
    assert SHORTEST_ROWS <= shown_rows < MAX_VISIBLE_LINES
    assert panel.verticalScrollBar().maximum() > 0  # it scrolls inside itself
    assert "Scroll to see all 123 lines first" in view.state().blockers()
    bar = panel.verticalScrollBar()
    while bar.value() < bar.maximum():  # the person scrolls through it, a page at a time
        bar.setValue(bar.value() + bar.pageStep())
    assert not any("Scroll" in b for b in view.state().blockers())


def test_on_a_tall_screen_the_diff_panel_keeps_its_full_height(qtbot: QtBot) -> None:
    view = _card(qtbot, "Write", LONG_WRITE, 2160)
    panel = view.findChild(CodePanel)
    assert panel is not None
    assert panel.height() == panel.height_for_rows(MAX_VISIBLE_LINES)


def test_a_long_command_on_a_720_line_screen_scrolls_in_its_field_not_the_card(
    qtbot: QtBot,
) -> None:
    view = _card(qtbot, "Bash", LONG_BASH, 720)
    _settled(qtbot, view)
    body = view._body
    assert body is not None and not body.more_below.isVisible()
    area = view.findChild(TextArea)
    assert area is not None and area.height() < area.natural_height()
    assert area.height() >= area.shortest_height()
    assert any("Scroll to see all" in b for b in view.state().blockers())

"""Nothing hidden under a yes (issue 20, finding 2): the card of a 50-row MCP insert shows
its table first and every row, and holds confirm, saying why, until every line of the
input has been on screen."""

from __future__ import annotations

import functools
from typing import Any

from PySide6.QtWidgets import QPlainTextEdit

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.card.input_text import readable_input
from notch_app.runtime.catalog import Catalog
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.code_view import CodeView


@functools.cache
def bundled_catalog() -> Catalog:
    """The bundled integrations, loaded by the first test that needs them, not while pytest
    collects this file (every worker collects every file)."""
    catalog, _problems = Catalog.load([BUNDLED_MANIFESTS])
    return catalog


ROWS = [{"id": i, "name": f"Customer {i}", "email": f"c{i}@example.com"} for i in range(1, 51)]


def test_the_whole_input_holds_confirm_until_it_was_all_on_screen(qtbot: Any, watch: Any) -> None:
    tool = bundled_catalog().tool("dev.notch.agents.claude-code", "Other")
    assert tool is not None
    text = readable_input({"rows": ROWS, "table": "customers"})
    view = CardView(tool, {"tool_name": "insert_rows", "server": "db", "input": text})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    got = watch(view)
    (code,) = view.findChildren(CodeView)
    reason = "Scroll to see all 53 lines first"
    assert reason in view.state().blockers()
    button = view.confirm_button()
    assert button is not None and not button.isEnabled() and reason in button.toolTip()
    assert not view.press("confirm") and not view.reply("yes") and got == []
    area = code.findChild(QPlainTextEdit)
    assert area is not None
    first = area.cursorForPosition(area.viewport().rect().topLeft()).block().text()
    assert first == 'table: "customers"', "the table it writes to, on screen from the start"
    bar = area.verticalScrollBar()
    while bar.value() < bar.maximum():
        bar.setValue(bar.value() + 3)
    qtbot.waitUntil(lambda: view.state().confirm_enabled)
    assert view.press("confirm") and got[0][0] is True

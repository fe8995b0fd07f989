"""A card taller than it may grow holds confirm from the moment it is built until its
body has been scrolled through, with no moment open in between (issue 19).

Before, the hold put on at build was let go on the body's first, empty scroll range
(shown, not laid out yet) and put back a layout later: confirm was open for that moment,
and every release and hold was one more pass over the whole card.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication

from notch_app.manifest.model import Tool
from notch_app.ui.card_view import BODY_SCROLL_REASON, CardView

ROWS = 40


def _tall_card() -> Tool:
    items = [{"label": f"Line {i}", "value": f"{{{{line_{i}}}}}"} for i in range(ROWS)]
    return Tool.model_validate(
        {
            "name": "send_lines",
            "inputSchema": {
                "type": "object",
                "properties": {f"line_{i}": {"type": "string"} for i in range(ROWS)},
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Send these lines",
                    "children": [{"type": "keyValue", "items": items}],
                    "footer": [
                        {
                            "type": "actions",
                            "items": [
                                {"label": "Cancel", "role": "cancel"},
                                {"label": "Send", "role": "confirm"},
                            ],
                        }
                    ],
                },
            },
        }
    )


def test_a_tall_body_is_never_open_before_it_is_scrolled(qtbot: Any) -> None:
    view = CardView(
        _tall_card(),
        {f"line_{i}": f"value {i}" for i in range(ROWS)},
        live_pages=False,
        screen_height=720,
    )
    qtbot.addWidget(view)
    state = view.state()
    assert BODY_SCROLL_REASON in state.blockers()  # held from the start, not yet shown
    opened: list[list[str]] = []
    state.subscribe(lambda: opened.append(state.blockers()) if state.confirm_enabled else None)
    with qtbot.assertNotEmitted(view.decided):
        view.show()
        for _ in range(5):  # shown, laid out, the "More below" band placed
            QApplication.processEvents()
            assert view.press("confirm") is False
    assert opened == []  # not for a moment
    body = view._body
    assert body is not None
    bar = body.verticalScrollBar()
    assert bar.maximum() > 0
    while bar.value() < bar.maximum():  # the person scrolls through it
        bar.setValue(bar.value() + bar.pageStep())
    assert state.confirm_enabled

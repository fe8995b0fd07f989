"""The strip's "Decline all from this asker" is made when a crowd first needs it (issue
19: one button built and polished hidden with every card), and Tab reaches it where it
would have stood had it been built with the card: right after the strip, first."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from notch_app.manifest.model import Tool
from notch_app.runtime.askers import AskingProcess
from notch_app.runtime.catalog import Catalog, bundled_manifests_dir
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets import asker_strip
from notch_app.ui.widgets.asker_strip import BUNDLED, Asker, AskerStrip, source_of
from notch_app.ui.widgets.buttons import PillButton


def _tool() -> Tool:
    return Tool.model_validate(
        {
            "name": "send_note",
            "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}},
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Send a note to {{to}}",
                    "children": [{"type": "textField", "bind": "{{to}}", "label": "To"}],
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


def _tab_stops(card: CardView) -> list[QWidget]:
    """The card's widgets in the window's focus chain that Tab stops at, in order."""
    stops: list[QWidget] = []
    widget = card.nextInFocusChain()
    while widget is not None and widget is not card:
        tab = widget.focusPolicy().value & Qt.FocusPolicy.TabFocus.value
        if tab and card.isAncestorOf(widget):
            stops.append(widget)
        widget = widget.nextInFocusChain()
    return stops


def test_the_button_is_made_with_the_crowd_and_tab_reaches_it_first(qtbot: Any) -> None:
    card = CardView(_tool(), {"to": "sam@example.com"}, asker=Asker("Mail", BUNDLED), compact=False)
    qtbot.addWidget(card)
    card.show()
    QApplication.processEvents()
    strip = card.asker_strip
    assert isinstance(strip, AskerStrip)
    assert strip.findChildren(PillButton) == []  # no crowd: nothing made
    before = _tab_stops(card)
    strip.set_crowd(4, AskingProcess(4242, 1, "python3"))
    button = strip.decline_all
    assert button.isVisible() and strip.findChildren(PillButton) == [button]
    assert _tab_stops(card) == [button, *before]
    strip.set_crowd(1, AskingProcess(4242, 1, "python3"))
    assert not button.isVisible() and strip.decline_all is button


def test_where_an_integration_came_from_is_read_once_per_loaded_entry(
    monkeypatch: Any,
) -> None:
    catalog, _ = Catalog.load([bundled_manifests_dir() / "mail"])
    entry = catalog.entry("dev.notch.examples.mail")
    assert entry is not None
    assert source_of(entry) == BUNDLED
    asked: list[Any] = []

    def installed_from(*args: Any) -> str:
        asked.append(args)
        return "?"

    monkeypatch.setattr(asker_strip, "installed_from", installed_from)
    assert source_of(entry) == BUNDLED and asked == []  # the same loaded entry
    reloaded, _ = Catalog.load([bundled_manifests_dir() / "mail"])
    again = reloaded.entry("dev.notch.examples.mail")
    assert again is not None and source_of(again) == "?" and asked  # a reload: looked at again

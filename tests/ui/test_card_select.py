"""A `select` holds its options in Python until the person reaches for it (the popup is
nine widgets nobody may open), and then behaves as a combo box in every way."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from notch_app.ui.card_driver import CardDriver, key_click
from notch_app.ui.widgets.fields import ChoiceBox

VOICE = [
    {
        "type": "select",
        "bind": "{{voice}}",
        "label": "Voice",
        "options": [
            {"label": "Rachel", "value": "rachel"},
            {"label": "Adam", "value": "adam"},
            {"label": "Bella", "value": "bella"},
        ],
    }
]
PROPS = {"voice": {"type": "string"}}


def _combo(view: Any) -> ChoiceBox:
    combo = view.input_widget("voice")
    assert isinstance(combo, ChoiceBox)
    return combo


def test_a_select_shows_the_proposed_option_without_making_its_popup(qtbot: Any, card: Any) -> None:
    view = card(VOICE, PROPS, {"voice": "adam"})
    qtbot.addWidget(view)
    view.show()
    combo = _combo(view)
    assert combo.currentText() == "Adam" and combo.count() == 3
    assert combo.findChildren(QWidget) == []  # no popup made while the card builds
    assert "Adam" in CardDriver(view).visible_text().splitlines()


def test_keys_on_a_focused_select_pick_the_next_option(qtbot: Any, card: Any) -> None:
    view = card(VOICE, PROPS, {"voice": "adam"})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    combo = _combo(view)
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    key_click(combo, Qt.Key.Key_Down)
    assert combo.currentText() == "Bella"
    assert view.state().value("voice") == "bella"
    assert view.state().edited_paths() == ["voice"]


def test_focus_alone_changes_nothing(qtbot: Any, card: Any) -> None:
    view = card(VOICE, PROPS, {"voice": "adam"})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    combo = _combo(view)
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    assert combo.currentText() == "Adam"
    assert not view.state().is_touched("voice") and view.state().edited_paths() == []


def test_a_value_outside_the_options_shows_until_the_person_picks(qtbot: Any, card: Any) -> None:
    view = card(VOICE, PROPS, {"voice": "attacker"})
    qtbot.addWidget(view)
    view.show()
    combo = _combo(view)
    assert combo.currentText() == "attacker" and combo.count() == 4
    CardDriver(view).set("voice", "bella")
    assert combo.currentText() == "Bella"
    assert view.state().value("voice") == "bella"
    combo.load_options()  # the Qt combo box then holds exactly the same
    items = [combo.itemText(i) for i in range(combo.count())]
    assert items == ["attacker", "Rachel", "Adam", "Bella"]
    assert combo.currentText() == "Bella" and combo.currentIndex() == 3

"""What the card shows is what runs (issue 9): arguments the card does not show are listed
under "Also sends", hidden characters and look-alike letters are flagged, and a list
never hides items the confirm acts on without a control to see them. Each test is the
agent trying to slip something past the person."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from notch_app.manifest.integration import load_integration
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.also_sends import FOLD_AT, AlsoSendsSection

ROOT = Path(__file__).resolve().parents[2]
NINE = [
    "/home/maya/Downloads/a.dmg",
    "/home/maya/Downloads/b.dmg",
    "/home/maya/Downloads/c.dmg",
    "/home/maya/Downloads/d.dmg",
    "/home/maya/Downloads/e.dmg",
    "/home/maya/Downloads/f.dmg",
    "~/.ssh/id_ed25519",
    "~/.gnupg",
    "/etc/passwd",
]


def _button(view: CardView, text: str) -> QPushButton:
    found = [b for b in view.findChildren(QPushButton) if b.text() == text and b.isVisibleTo(view)]
    assert found, f"no visible {text!r} control on the card"
    return found[0]


def test_delete_files_never_hides_paths_behind_and_3_more(qtbot: Any) -> None:
    files, _ = load_integration(ROOT / "manifests" / "files")
    assert files is not None
    tool = files.manifest.tool("delete_files")
    assert tool is not None
    view = CardView(tool, {"paths": NINE, "count": 1, "folder": "/home/maya/Downloads"})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    driver = CardDriver(view)
    text = driver.visible_text()
    assert "Delete 9 files" in text.splitlines()  # counted from the paths shown
    more = _button(view, "Show 3 more")
    qtbot.mouseClick(more, Qt.MouseButton.LeftButton)
    lines = driver.visible_text().splitlines()
    assert all(path in lines for path in NINE)
    assert not more.isVisibleTo(view)


def test_a_fixed_list_past_max_visible_can_be_opened(qtbot: Any, card: Any) -> None:
    items = [{"type": "listItem", "title": f"Item {i}"} for i in range(5)]
    view = card([{"type": "list", "items": items, "maxVisible": 2}], {}, {})
    qtbot.addWidget(view)
    view.show()
    driver = CardDriver(view)
    assert "Item 4" not in driver.visible_text()
    qtbot.mouseClick(_button(view, "Show 3 more"), Qt.MouseButton.LeftButton)
    assert [f"Item {i}" for i in range(5)] == [
        line for line in driver.visible_text().splitlines() if line.startswith("Item")
    ]


MAIL_PROPS: dict[str, Any] = {
    "to": {"type": "string"},
    "bcc": {"type": "string"},
    "later": {"type": "boolean"},
    "when": {"type": "string"},
}
MAIL_CARD: list[dict[str, Any]] = [
    {"type": "textField", "bind": "{{to}}", "label": "To"},
    {"type": "toggle", "bind": "{{later}}", "label": "Send later"},
    {"type": "textField", "bind": "{{when}}", "label": "Send at", "visibleIf": "{{later}}"},
]


def _also_sends(view: CardView) -> AlsoSendsSection | None:
    section = view.findChild(AlsoSendsSection)
    return section if section is not None and section.isVisibleTo(view) else None


def test_an_argument_the_card_never_shows_is_listed_under_also_sends(qtbot: Any, card: Any) -> None:
    view = card(MAIL_CARD, MAIL_PROPS, {"to": "sam@example.com", "bcc": "attacker@evil.example"})
    qtbot.addWidget(view)
    view.show()
    section = _also_sends(view)
    assert section is not None
    lines = CardDriver(view).visible_text().splitlines()
    assert "Also sends 1 more argument, not shown above" in lines
    assert "attacker@evil.example" in lines
    final = view.state().final_arguments()
    assert final["bcc"] == "attacker@evil.example"  # it does go: so it is shown


def test_a_hidden_field_with_a_proposed_value_is_listed_until_shown(qtbot: Any, card: Any) -> None:
    view = card(MAIL_CARD, MAIL_PROPS, {"to": "sam@example.com", "when": "03:00 tonight"})
    qtbot.addWidget(view)
    view.show()
    driver = CardDriver(view)
    assert "03:00 tonight" in driver.visible_text().splitlines()  # in Also sends
    driver.set("later", True)  # the field shows it now: no second copy
    assert _also_sends(view) is None
    assert driver.visible_text().count("03:00 tonight") == 1


def test_a_card_that_shows_everything_has_no_also_sends(qtbot: Any, card: Any) -> None:
    view = card(MAIL_CARD, MAIL_PROPS, {"to": "sam@example.com", "later": False})
    qtbot.addWidget(view)
    view.show()
    assert _also_sends(view) is None


def test_many_unshown_arguments_fold_behind_a_control_but_are_never_hidden(
    qtbot: Any, card: Any
) -> None:
    props = {f"extra_{i:02}": {"type": "string"} for i in range(20)}
    args = {name: f"value {name}" for name in props}
    view = card([{"type": "text", "text": "Nothing bound"}], props, args)
    qtbot.addWidget(view)
    view.show()
    driver = CardDriver(view)
    lines = driver.visible_text().splitlines()
    assert "Also sends 20 more arguments, not shown above" in lines
    assert sum(line.startswith("value extra_") for line in lines) == FOLD_AT
    qtbot.mouseClick(_button(view, f"Show {20 - FOLD_AT} more"), Qt.MouseButton.LeftButton)
    lines = driver.visible_text().splitlines()
    assert all(f"value {name}" in lines for name in props)


def test_a_bidi_override_in_a_shown_value_is_marked(qtbot: Any, card: Any) -> None:
    payee = "Acme \u202eLtd evil"
    view = card(
        [{"type": "keyValue", "items": [{"label": "Payee", "value": "{{payee}}"}]}],
        {"payee": {"type": "string"}},
        {"payee": payee},
    )
    qtbot.addWidget(view)
    view.show()
    text = CardDriver(view).visible_text()
    assert "\u202e" not in text  # never drawn as a control that reverses the line
    assert "U+202E" in text


def test_a_bidi_override_in_a_field_is_flagged_above_the_card(qtbot: Any, card: Any) -> None:
    view = card(MAIL_CARD, MAIL_PROPS, {"to": "sam@example.com\u202e"})
    qtbot.addWidget(view)
    view.show()
    lines = CardDriver(view).visible_text().splitlines()
    flagged = [line for line in lines if "To holds hidden characters" in line]
    assert flagged and "U+202E" in flagged[0]


def test_a_look_alike_address_gets_a_warning_line(qtbot: Any, card: Any) -> None:
    view = card(MAIL_CARD, MAIL_PROPS, {"to": "sam@ex\u0430mple.com"})  # Cyrillic а
    qtbot.addWidget(view)
    view.show()
    driver = CardDriver(view)
    assert any("Cyrillic" in line for line in driver.visible_text().splitlines())
    driver.set("to", "sam@example.com")  # the person fixes it: the warning goes
    assert not any("Cyrillic" in line for line in driver.visible_text().splitlines())


def test_a_look_alike_in_display_text_gets_a_warning_line(qtbot: Any, card: Any) -> None:
    view = card(
        [{"type": "text", "text": "Pay {{payee}}"}],
        {"payee": {"type": "string"}},
        {"payee": "\u0410pple Inc"},  # Cyrillic А
    )
    qtbot.addWidget(view)
    view.show()
    assert any("Cyrillic" in line for line in CardDriver(view).visible_text().splitlines())


def test_agent_values_in_list_rows_chips_and_options_are_marked(qtbot: Any, card: Any) -> None:
    reversed_name = "invoice\u202efdp.exe"
    view = card(
        [
            {"type": "list", "itemsFrom": "{{paths}}"},
            {"type": "chips", "bind": "{{to}}", "label": "To"},
            {
                "type": "select",
                "bind": "{{voice}}",
                "label": "Voice",
                "options": [{"label": "Rachel", "value": "rachel"}],
            },
        ],
        {
            "paths": {"type": "array", "items": {"type": "string"}},
            "to": {"type": "array", "items": {"type": "string"}},
            "voice": {"type": "string"},
        },
        {"paths": [reversed_name, "/home/m\u0430ya/notes.txt"], "to": [reversed_name],
         "voice": reversed_name},
    )  # fmt: skip
    qtbot.addWidget(view)
    view.show()
    lines = CardDriver(view).visible_text().splitlines()
    assert not any("\u202e" in line for line in lines)
    marked = [line for line in lines if "invoice" in line and "U+202E" in line]
    assert len(marked) >= 3  # the row, the chip and the proposed option
    assert any("Cyrillic" in line for line in lines)  # the look-alike path in the list


def test_copy_puts_the_value_as_sent_on_the_clipboard(qtbot: Any, make_tool: Any) -> None:
    from PySide6.QtGui import QGuiApplication

    root = {
        "type": "card",
        "title": "Pay {{payee}}",
        "children": [],
        "footer": [
            {
                "type": "actions",
                "items": [
                    {"label": "Copy payee", "role": "copy", "value": "{{payee}}"},
                    {"label": "Pay", "role": "confirm"},
                ],
            }
        ],
    }
    payee = "Acme\u202eLtd"
    view = CardView(make_tool(root, {"payee": {"type": "string"}}), {"payee": payee})
    qtbot.addWidget(view)
    view.show()
    assert "U+202E" in CardDriver(view).visible_text()  # shown marked...
    qtbot.mouseClick(_button(view, "Copy payee"), Qt.MouseButton.LeftButton)
    clipboard = QGuiApplication.clipboard()
    assert clipboard is not None and clipboard.text() == payee  # ...copied as it is

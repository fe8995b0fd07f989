"""Every block of the vocabulary renders, and what it shows follows the arguments."""

from __future__ import annotations

import base64
from typing import Any

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QComboBox, QLineEdit, QPlainTextEdit, QProgressBar

from notch_app.manifest.model import BLOCK_TYPES
from notch_app.ui.blocks import BUILDERS
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.snapshot import card_image
from notch_app.ui.widgets.image_view import ImageView
from notch_app.ui.widgets.markdown_view import MarkdownView


def _png_base64() -> str:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QGuiApplication, QImage

    _app = QGuiApplication.instance()
    image = QImage(4, 4, QImage.Format.Format_ARGB32)
    image.fill(QColor("red"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # str works; stubs say bytes
    return base64.b64encode(bytes(data.data())).decode()


PNG_1PX = _png_base64()


PROPS: dict[str, Any] = {
    "title": {"type": "string"},
    "body": {"type": "string"},
    "secret": {"type": "string"},
    "voice": {"type": "string", "enum": ["a", "b"]},
    "loud": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "done": {"type": "number"},
    "files": {"type": "array", "items": {"type": "string"}},
}

EVERY_BLOCK: list[dict[str, Any]] = [
    {"type": "text", "text": "Title is {{title}}", "variant": "title"},
    {"type": "markdown", "text": "Some **bold** words"},
    {"type": "keyValue", "items": [{"label": "Key", "value": "Value of {{title}}"}]},
    {"type": "metadata", "items": [{"label": "Size", "value": "3 MB"}, {"value": "today"}]},
    {
        "type": "list",
        "itemsFrom": "{{files}}",
        "maxVisible": 2,
        "items": [],
    },
    {"type": "list", "items": [{"type": "listItem", "title": "Row one", "trailing": "1 KB"}]},
    {"type": "image", "src": f"data:image/png;base64,{PNG_1PX}", "alt": "A dot"},
    {"type": "badge", "text": "Careful", "tone": "danger"},
    {"type": "progress", "value": "{{done}}", "max": 10, "label": "Done so far"},
    {"type": "divider"},
    {
        "type": "stack",
        "direction": "horizontal",
        "gap": 4,
        "children": [
            {"type": "textField", "bind": "{{title}}", "label": "Title", "required": True},
            {"type": "select", "bind": "{{voice}}", "label": "Voice", "options": [
                {"label": "Voice A", "value": "a"}, {"label": "Voice B", "value": "b"}]},
        ],
    },
    {"type": "textField", "bind": "{{body}}", "label": "Body", "multiline": True},
    {"type": "passwordField", "bind": "{{secret}}", "label": "PIN"},
    {"type": "toggle", "bind": "{{loud}}", "label": "Loud"},
    {"type": "chips", "bind": "{{tags}}", "label": "Tags"},
    {"type": "card", "title": "Inner section", "children": [{"type": "text", "text": "inside"}]},
    {"type": "button", "label": "Copy title", "role": "copy", "value": "{{title}}"},
]  # fmt: skip

ARGS: dict[str, Any] = {
    "title": "Hello",
    "body": "Line one\nLine two",
    "secret": "1234",
    "voice": "b",
    "loud": True,
    "tags": ["x", "y"],
    "done": 5,
    "files": ["a.txt", "b.txt", "c.txt", "d.txt"],
}


def _types(blocks: list[dict[str, Any]]) -> set[str]:
    out: set[str] = set()
    for b in blocks:
        out.add(b["type"])
        out |= _types(
            b.get("children", []) + b.get("items", [])
            if b["type"] != "keyValue" and b["type"] != "metadata"
            else []
        )
    return out


def test_the_registry_covers_the_whole_vocabulary() -> None:
    assert set(BUILDERS) == set(BLOCK_TYPES)


def test_every_block_renders_what_the_arguments_say(qtbot: Any, card: Any) -> None:
    view = card(EVERY_BLOCK, PROPS, ARGS)
    qtbot.addWidget(view)
    view.show()
    assert _types(EVERY_BLOCK) | {"actions", "widget"} == set(BLOCK_TYPES)  # widget: a whole view
    text = CardDriver(view).visible_text()
    for shown in [
        "Title is Hello", "bold", "Value of Hello", "Size: 3 MB · today", "a.txt", "b.txt",
        "Show 2 more", "Row one", "1 KB", "Careful", "Done so far", "Voice B", "Loud",
        "Inner section", "inside", "Copy title", "Line one", "x", "y", "Cancel", "Do it",
    ]:  # fmt: skip
        assert shown in text, shown
    assert "1234" not in text  # the password is masked
    assert "c.txt" not in text  # folded behind "Show 2 more"
    assert isinstance(view.input_widget("title"), QLineEdit)
    assert isinstance(view.input_widget("body"), QPlainTextEdit)
    assert isinstance(view.input_widget("voice"), QComboBox)
    bar = view.findChild(QProgressBar)
    assert bar is not None and bar.value() == 500
    image = view.findChild(ImageView)
    assert image is not None and image.source_kind == "data"
    assert view.findChild(MarkdownView) is not None


def test_display_text_follows_edits_live(qtbot: Any, card: Any) -> None:
    view = card(
        [
            {"type": "text", "text": "Delete {{count}} files"},
            {"type": "textField", "bind": "{{count}}", "label": "Count"},
        ],
        {"count": {"type": "integer"}},
        {"count": 42},
        confirm_label="Delete {{count}} files",
    )
    qtbot.addWidget(view)
    CardDriver(view).set("count", "7")
    assert "Delete 7 files" in CardDriver(view).visible_text()
    assert view.confirm_button() is not None
    assert view.confirm_button().text() == "Delete 7 files"


def test_list_rows_follow_an_edited_array(qtbot: Any, card: Any) -> None:
    view = card(
        [
            {"type": "list", "itemsFrom": "{{who}}"},
            {"type": "chips", "bind": "{{who}}", "label": "Who"},
        ],
        {"who": {"type": "array", "items": {"type": "string"}}},
        {"who": ["sam"]},
    )
    qtbot.addWidget(view)
    CardDriver(view).set("who", ["sam", "lee"])
    assert view.state().value("who") == ["sam", "lee"]
    assert "lee" in CardDriver(view).visible_text().splitlines()
    CardDriver(view).set("who", ["lee"])
    assert view.state().final_arguments()["who"] == ["lee"]
    assert "sam" not in CardDriver(view).visible_text().splitlines()


def test_password_reveal_shows_the_value(qtbot: Any, card: Any) -> None:
    view = card(
        [{"type": "passwordField", "bind": "{{pin}}", "label": "PIN"}],
        {"pin": {"type": "string"}},
        {"pin": "9876"},
    )
    qtbot.addWidget(view)
    field = view.input_widget("pin")
    assert isinstance(field, QLineEdit)
    assert field.echoMode() == QLineEdit.EchoMode.Password
    assert "9876" not in CardDriver(view).visible_text()
    field.actions()[0].trigger()
    assert field.echoMode() == QLineEdit.EchoMode.Normal
    assert "9876" in CardDriver(view).visible_text()


def test_light_and_dark_themes_both_build(qtbot: Any, card: Any) -> None:
    lightness = {}
    for theme in ("dark", "light"):
        view = card(EVERY_BLOCK, PROPS, ARGS, theme=theme)
        qtbot.addWidget(view)
        image = card_image(view)
        # The glass in the middle of the card's top edge, and the text drawn on it.
        lightness[theme] = image.pixelColor(image.width() // 2, 6).lightness()
        text = view.input_widget("title").palette().color(QPalette.ColorRole.Text)
        assert (text.lightness() > 128) == (theme == "dark"), theme
    assert lightness["dark"] < 100 < lightness["light"]


def test_card_text_can_be_selected_with_the_mouse(qtbot: Any, card: Any) -> None:
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QEnterEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QLabel

    view = card([{"type": "text", "text": "Copy this reference"}], {}, {})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    label = next(w for w in view.findChildren(QLabel) if w.text() == "Copy this reference")
    start, end = QPoint(2, label.height() // 2), QPoint(label.width() - 2, label.height() // 2)
    # The pointer comes over the label (it turns selectable then). Sent to the label itself:
    # QTest's move gives the Enter to whichever window Qt last saw the pointer in, and
    # windows other tests left open in this process sit at the same offscreen spot.
    at = QPointF(start)
    QApplication.sendEvent(label, QEnterEvent(at, at, QPointF(label.mapToGlobal(start))))
    QTest.mouseMove(label, start)
    QTest.mousePress(label, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(label, end)
    QTest.mouseRelease(label, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    assert "reference" in label.selectedText()


def test_chips_read_as_text_on_the_card(qtbot: Any, card: Any) -> None:
    view = card(EVERY_BLOCK, PROPS, ARGS)
    qtbot.addWidget(view)
    lines = CardDriver(view).visible_text().splitlines()
    assert [v for v in ARGS["tags"] if v in lines] == list(ARGS["tags"])


def test_a_chip_added_on_a_shown_card_appears(qtbot: Any, card: Any) -> None:
    from notch_app.ui.widgets.chips_box import ChipsBox

    view = card(
        [{"type": "chips", "bind": "{{tags}}", "label": "Tags"}],
        {"tags": {"type": "array", "items": {"type": "string"}}},
        {"tags": ["a"]},
    )
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    CardDriver(view).set("tags", ["a", "b"])
    box = view.findChild(ChipsBox)
    assert box is not None
    qtbot.waitUntil(lambda: all(c.isVisible() for c in box.chips()))
    assert [c.value for c in box.chips()] == ["a", "b"]
    assert "b" in CardDriver(view).visible_text().splitlines()


def test_code_text_and_monospace_fields_are_fixed_width(qtbot: Any, card: Any) -> None:
    """A shell command or a diff lines up in columns; prose and other fields do not."""
    from PySide6.QtGui import QFontInfo
    from PySide6.QtWidgets import QLabel

    from notch_app.ui.widgets.code_view import CodeView

    view = card(
        [
            {"type": "text", "text": "Runs {{command}}"},
            {"type": "text", "text": "{{command}}", "variant": "code"},
            {"type": "textField", "bind": "{{command}}", "label": "Command", "monospace": True},
            {"type": "textField", "bind": "{{note}}", "label": "Note"},
            {
                "type": "textField",
                "bind": "{{script}}",
                "label": "Script",
                "multiline": True,
                "monospace": True,
            },
        ],
        {"command": {"type": "string"}, "note": {"type": "string"}, "script": {"type": "string"}},
        {"command": "git push origin main", "note": "hi", "script": "set -e\nmake"},
    )
    qtbot.addWidget(view)
    labels = {
        label.text(): label for label in view.findChildren(QLabel) if "git push" in label.text()
    }
    (code,) = view.findChildren(CodeView)
    assert code.text() == "git push origin main"
    assert QFontInfo(code.panel.font()).fixedPitch(), "the code text"
    assert not QFontInfo(labels["Runs git push origin main"].font()).fixedPitch(), "prose"
    assert QFontInfo(view.input_widget("command").font()).fixedPitch()
    assert QFontInfo(view.input_widget("script").font()).fixedPitch()
    assert not QFontInfo(view.input_widget("note").font()).fixedPitch()
    CardDriver(view).set("command", "git push --force")
    assert code.text() == "git push --force", "the code text follows the edit live"
    assert view.state().final_arguments()["command"] == "git push --force"

"""CardDriver: works a CardView the way a person would, for `notch test` and the tests.

It types into fields key by key, picks options, flips switches, adds and removes chips,
and reads back what the card shows. It lives apart from the card so that no production
widget carries a test API: keys are delivered as ordinary QKeyEvents through
`QApplication.sendEvent`, so nothing here needs QtTest either.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QWidget,
)

from notch_app.card.interpolate import display_value
from notch_app.card.paths import MISSING
from notch_app.ui.blocks.choices import ChipsEditor, SelectEditor, ToggleEditor
from notch_app.ui.blocks.inputs import InputEditor, TextEditor
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.asker_strip import AskerStrip
from notch_app.ui.widgets.chips_box import Chip
from notch_app.ui.widgets.details_fold import FoldedFacts
from notch_app.ui.widgets.fields import FieldFrame, LabeledLine, Switch
from notch_app.ui.widgets.label_text import unshown
from notch_app.ui.widgets.markdown_view import MarkdownView

TYPED_CHARS = 256
"""Values up to this long are typed key by key; longer ones are pasted (as a person
would), since a key event per character of a megabyte would take minutes."""


def key_click(widget: QWidget, key: Qt.Key, text: str = "") -> None:
    """Press and release `key` on `widget` (carrying `text`), as the keyboard would."""
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        QApplication.sendEvent(widget, QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text))


def click(widget: QWidget, at: QPoint) -> None:
    """Press and release the left mouse button at `at` (widget coordinates)."""
    where = QPointF(at)
    glob = QPointF(widget.mapToGlobal(at))
    for kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease):
        event = QMouseEvent(
            kind, where, glob, Qt.MouseButton.LeftButton,
            Qt.MouseButton.LeftButton if kind == QEvent.Type.MouseButtonPress
            else Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
        )  # fmt: skip
        QApplication.sendEvent(widget, event)


def type_text(widget: QWidget, text: str) -> None:
    """Type `text` into `widget` one key at a time."""
    for ch in text:
        code = ord(ch.upper()) if len(ch.upper()) == 1 and ord(ch.upper()) < 0x100 else 0
        key = Qt.Key(code) if code else Qt.Key.Key_unknown
        key_click(widget, key, ch)


def _as_text(value: Any) -> str:
    return "" if value is MISSING or value is None else display_value(value)


class CardDriver:
    """Drives one CardView through its real widgets and reads what it shows."""

    def __init__(self, view: CardView) -> None:
        self.view = view

    def read_through(self) -> None:
        """Scroll the card's body down half a page at a time to its end, as a person
        reads a card taller than its screen, and each shown text area or code panel that
        scrolls inside itself the same way (what confirm waits for); nothing when it all
        fits."""
        body = getattr(self.view, "_body", None)
        areas = [body] if isinstance(body, QAbstractScrollArea) else []
        areas += [
            a
            for a in self.view.findChildren(QAbstractScrollArea)
            if a is not body and a.isVisibleTo(self.view)
        ]
        for area in areas:
            if isinstance(body, QScrollArea) and area is not body:
                body.ensureWidgetVisible(area)
            bar = area.verticalScrollBar()
            while bar.value() < bar.maximum():
                bar.setValue(bar.value() + max(1, bar.pageStep() // 2))

    def set(self, path: str, value: Any) -> None:
        """Change the input bound to `path` through its real widget: type into the field,
        pick the option, flip the toggle, add or remove chips. Raises KeyError for an
        unbound path and ValueError for a hidden input or a value the widget cannot take
        (an option that does not exist, a blank chip)."""
        editor = self.view.editor(path)
        if not self.view.is_input_visible(path):
            raise ValueError(f"the input for {path!r} is hidden (its visibleIf is false)")
        if not editor.field.isVisibleTo(self.view):
            self.view.open_details()  # folded under Details: a person opens it first
        if isinstance(editor, TextEditor):
            self._type(editor, _as_text(value))
        elif isinstance(editor, SelectEditor):
            self._pick(editor, value)
        elif isinstance(editor, ToggleEditor):
            editor.box.setFocus()
            if editor.box.isChecked() != bool(value):
                editor.box.click()
        elif isinstance(editor, ChipsEditor):
            self._chips(editor, value)
        else:  # a new input kind must teach the driver how a person changes it
            raise TypeError(f"the card driver cannot work a {type(editor).__name__}")

    def press(self, role: str) -> bool:
        """Press confirm or cancel as the person would (see CardView.press)."""
        return self.view.press(role)

    def _type(self, editor: TextEditor, text: str) -> None:
        if editor.large:
            editor.push(text)  # a paste over the whole read-only preview's value
            editor.show_value(self.view.state().value(editor.path))
            return
        if editor.multiline:
            area = editor.area
            area.setFocus()
            area.selectAll()
            if text:
                area.insertPlainText(text)
            else:
                area.textCursor().removeSelectedText()
            return
        line = editor.line
        line.setFocus()
        line.selectAll()
        if text and len(text) <= TYPED_CHARS and text.isprintable():
            type_text(line, text)
        elif text:
            line.insert(text)  # a paste: emits textEdited like typing
        elif line.text():
            key_click(line, Qt.Key.Key_Backspace)
        else:
            editor.push("")

    @staticmethod
    def _pick(editor: SelectEditor, value: Any) -> None:
        index = editor.index_for(value)
        if index < 0:
            raise ValueError(f"{value!r} is not one of the options of {editor.label!r}")
        editor.combo.setFocus()
        if editor.combo.currentIndex() != index:
            editor.combo.setCurrentIndex(index)  # as if picked from the popup

    @staticmethod
    def _chips(editor: ChipsEditor, value: Any) -> None:
        wanted = [_as_text(v) for v in value] if isinstance(value, list | tuple) else []
        have = editor.box.values()
        keep = 0
        while keep < min(len(have), len(wanted)) and have[keep] == wanted[keep]:
            keep += 1
        # Remove from the end back to the common prefix, then type the rest, Enter each.
        for chip in reversed(editor.box.chips()[keep:]):
            click(chip, chip.remove_rect().center())  # on its ×
        entry = editor.box.entry
        for text in wanted[keep:]:
            if not text.strip():
                raise ValueError(f"a blank chip cannot be added to {editor.label!r}")
            entry.setFocus()
            entry.clear()
            if len(text) <= TYPED_CHARS and text.isprintable():
                type_text(entry, text)
            else:
                entry.setText(text)
            key_click(entry, Qt.Key.Key_Return)

    # --- reading -----------------------------------------------------------------------

    def blockers_text(self) -> str:
        """The line under the footer saying why confirm is unavailable, as shown ("" when
        it is not shown)."""
        line = self.view.findChild(QLabel, "Blockers")
        return line.text() if line is not None and line.isVisibleTo(self.view) else ""

    def visible_text(self) -> str:
        """Every piece of text currently shown on the card, one per line, in reading
        order (masked passwords excluded)."""
        view = self.view
        editors = {id(e.field): e for e in view.editors()}
        out: list[str] = []
        seen: set[int] = set()
        for w in view.findChildren(QWidget):
            if not w.isVisibleTo(view):
                continue
            if isinstance(w, FieldFrame | LabeledLine) and w.label:
                out.append(unshown(w.label))  # painted, not a QLabel
            if isinstance(w, FieldFrame):
                continue
            text = ""
            if isinstance(w, Chip | AskerStrip):
                text = w.text  # painted, not a QLabel
            elif isinstance(w, FoldedFacts):  # painted rows: "Tags: focus, instrumental"
                text = "\n".join(f"{k}: {v}" for k, v in w.drawn().items())
            elif isinstance(w, QLabel | QAbstractButton):
                text = w.text()
            elif isinstance(w, MarkdownView):  # drawn, or under its text browser
                text = w.toPlainText()
            elif isinstance(w, QComboBox):
                text = w.currentText()
            elif isinstance(w, QLineEdit | QPlainTextEdit):
                editor: InputEditor | None = editors.get(id(w))
                if editor is not None and id(editor) not in seen:
                    seen.add(id(editor))
                    text = editor.shown_text()
                elif isinstance(w, QLineEdit) and w.echoMode() == QLineEdit.EchoMode.Normal:
                    text = w.text()
            if text:
                out.append(unshown(text))
            if isinstance(w, LabeledLine | Switch) and w.error_text:
                out.append(unshown(w.error_text))
        return "\n".join(out)

"""Input blocks: `textField`, `passwordField`, `select`, `toggle` and `chips`.

Each input is an InputEditor: the label row (with the quiet, permanent `*` when
required), the editing widget, an optional help line and the error line. Edits go to
CardState.set() as the person makes them; CardView calls `sync()` after every change so
an editor follows values it did not type itself (a revert, a scenario step). Changing a
value the way a person would (typing, picking) is `notch_app.ui.card_driver`'s job.

Kept in one file (~480 lines) on purpose: the five kinds share InputEditor's label,
help and error rows and its `sync()` contract; each kind is a small editor + builder pair.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QAction, QTextOption
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSizePolicy,
    QWidget,
)

from notch_app.card.code_text import (
    has_hidden_blanks,
    has_hidden_characters,
    line_count,
    lines_said,
    shown_code,
)
from notch_app.card.interpolate import display_value
from notch_app.card.paths import MISSING
from notch_app.manifest.model import (
    PasswordFieldBlock,
    TextFieldBlock,
)
from notch_app.manifest.paths import parse_single_binding
from notch_app.ui import theme
from notch_app.ui.blocks._context import CardContext
from notch_app.ui.blocks.text import wrapped_label
from notch_app.ui.theme import Look
from notch_app.ui.widgets.code_view import MAX_CODE_CHARS, SeenScroll, faint_marks, scroll_reason
from notch_app.ui.widgets.details_fold import DETAILS_REASON
from notch_app.ui.widgets.fields import (
    FieldFrame,
    LabeledLine,
    Switch,
    field_text_margins,
)
from notch_app.ui.widgets.label_text import shown

_binding_path = cache(parse_single_binding)  # one regex match per distinct binding

LONG_VALUE_CHARS = 4096
"""A single-line field holding more than this becomes a bounded text area: QLineEdit
lays out its whole line on every paint, which freezes on a 1 MB string."""
LARGE_VALUE_CHARS = 20_000
"""Beyond this a text value is shown read-only, whole, in lines of at most
_PREVIEW_LINE_CHARS: Qt lays out a wrapped paragraph in quadratic time (200 k characters
take seconds), and nobody edits a megabyte in a card. The value is sent as proposed."""
_PREVIEW_LINE_CHARS = 200
_AREA_MIN, _AREA_MAX = 64, 168
_AREA_ROWS = 8
"""Lines a text area surely shows before it scrolls (at its tallest, in any theme): a
longer value holds confirm from the start, before the card is laid out."""
# Qt flags read once: `A | B` on Qt's enums makes Python enum objects on every call.
_WORD_WRAP = int(Qt.TextFlag.TextWordWrap)
_BLANKS_SHOWN = QTextOption.Flag.ShowTabsAndSpaces | QTextOption.Flag.ShowLineAndParagraphSeparators


def may_scroll(text: str) -> bool:
    """Whether a text area may scroll for `text`: confirm is held from the start, before
    it is laid out (and while a folded one is not built yet), and opened if it fits."""
    return line_count(text) > _AREA_ROWS or len(text) > _AREA_ROWS * 40


class InputEditor:
    """The widgets of one bound input and the glue to CardState."""

    field: QWidget
    """The widget a person edits (focus, accessible name, `CardView.input_widget`)."""

    container: FieldFrame | LabeledLine | Switch
    """What a visibleIf hides: the label, the field and its lines."""

    def __init__(
        self, block: Any, ctx: CardContext, *, label_row: bool = True, framed: bool = True
    ) -> None:
        self.block = block
        self.ctx = ctx
        self.path = _binding_path(block.bind)
        self.label = block.label
        self._pushing = False
        self._last: Any = ctx.state.value(self.path)
        self._error: str | None = None
        # One widget for the label, its quiet permanent `*` (an untouched form never looks
        # like it failed) and the field's box: they are painted, not three more widgets.
        # `framed=False`: the field is its own container (a LabeledLine, set by finish).
        if framed:
            self.container = FieldFrame(
                ctx.look,
                shown(block.label, 200) if label_row else None,
                bool(block.required),
                ctx.parent,
            )
        self._help: QLabel | None = None
        # Made on the first error only: most inputs never show one.
        self._error_label: QLabel | None = None

    def finish(
        self, field: QWidget, focus: QWidget | None = None, *, grows: bool = False
    ) -> QWidget:
        """Add `field` under the label (`grows`: its height follows its content), then
        the help line; register the editor."""
        self.field = field
        if isinstance(field, LabeledLine | Switch):
            self.container = field
        else:
            assert isinstance(self.container, FieldFrame)
            self.container.set_field(field, grows=grows)
        if self.block.help and isinstance(self.container, FieldFrame):
            self._help = wrapped_label(
                "FieldHelp", self.ctx.look, selectable=False, parent=self.container
            )
            self._help.setText(shown(self.block.help, 300))
            self.container.column.addWidget(self._help)
        description = self._description()
        for w in {field, focus or field}:
            w.setAccessibleName(self.label)
            if description:
                w.setAccessibleDescription(description)
        self.ctx.focusable(focus or field)
        self.ctx.editors[self.path] = self
        self.show_value(self._last)
        return self.container

    def _description(self) -> str:
        parts = []
        if self.block.required:
            parts.append("Required.")
        if self.block.help:
            parts.append(self.block.help)
        if self._error:
            parts.append(self._error)
        return " ".join(parts)

    def push(self, raw: Any) -> None:
        """Stage the person's edit; the CardState coerces it to the schema type."""
        self._pushing = True
        try:
            self.ctx.state.set(self.path, raw)
        finally:
            self._pushing = False

    def sync(self, value: Any) -> None:
        """Follow the state's value unless it came from this editor's own typing."""
        if value is self._last or (type(value) is type(self._last) and value == self._last):
            return
        self._last = value
        if not self._pushing:
            self.show_value(value)

    def set_error(self, message: str | None) -> None:
        """Show `message` under the field (None clears it) and mark the field invalid."""
        if message == self._error:
            return
        self._error = message
        self.field.setProperty("invalid", bool(message))
        self.container.set_invalid(bool(message))
        self.field.setAccessibleDescription(self._description())
        if isinstance(self.container, LabeledLine | Switch):
            self.container.set_error(shown(message or "", 300))
            return
        if self._error_label is None:
            if not message:
                return
            self._error_label = wrapped_label(
                "FieldError", self.ctx.look, selectable=False, parent=self.container
            )
            self.container.column.addWidget(self._error_label)
        self._error_label.setText(shown(message or "", 300))
        self._error_label.setVisible(bool(message))

    @property
    def error(self) -> str | None:
        return self._error

    def show_value(self, value: Any) -> None:
        raise NotImplementedError

    def shown_text(self) -> str:
        """What the person can read in this input right now."""
        return ""

    def error_shown(self) -> str:
        """The error line under the input as shown ("" when there is none)."""
        if isinstance(self.container, LabeledLine | Switch):
            return self.container.error_text
        if self._error_label is not None and not self._error_label.isHidden():
            return self._error_label.text()
        return ""


def _as_text(value: Any) -> str:
    return "" if value is MISSING or value is None else display_value(value)


# --- text ---------------------------------------------------------------------------


class TextArea(QPlainTextEdit):
    """A text area that grows with its content between two bounds, then scrolls."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Frameless and transparent: the FieldFrame around it draws the field box.
        self.setFrameShape(QFrame.Shape.NoFrame)
        a = look.metrics["area"]
        self.setViewportMargins(a["padding_x"] + 1, a["padding_y"] + 1,
                                a["padding_x"] + 1, a["padding_y"] + 1)  # fmt: skip
        self.viewport().setAutoFillBackground(False)
        self.setTabChangesFocus(True)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(_AREA_MIN)
        self.document().setDocumentMargin(4)
        self._cap: int | None = None
        """A lower top height on a short screen (the card's body sets it): the area
        scrolls inside itself instead of the card scrolling around it."""
        self.textChanged.connect(self.grow)

    def natural_height(self) -> int:
        """The height the area takes for its text, without a cap."""
        text = self.toPlainText()
        if len(text) > 20_000:  # do not measure megabytes: it is tall, it scrolls
            return _AREA_MAX
        margin = int(self.document().documentMargin())
        width = max(self.viewport().width() - 2 * margin, 40)
        fm = self.fontMetrics()
        rect = fm.boundingRect(QRect(0, 0, width, 10**6), _WORD_WRAP, text or " ")
        lines = max(1, text.count("\n") + 1)
        h = max(rect.height(), lines * fm.lineSpacing()) + 2 * margin + 12
        return min(max(h, _AREA_MIN), _AREA_MAX)

    def shortest_height(self) -> int:
        """As short as a cap may make it: _AREA_MIN (it never hides its first lines)."""
        return min(self.natural_height(), _AREA_MIN)

    def cap_height(self, height: int | None) -> None:
        """Be no taller than `height` (None: as tall as the text wants, up to the max)."""
        if height != self._cap:
            self._cap = height
            self.grow()

    def grow(self) -> None:
        wanted = self.natural_height()
        self.setFixedHeight(wanted if self._cap is None else min(wanted, self._cap))

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self.grow()


class TextEditor(InputEditor):
    def __init__(self, block: TextFieldBlock | PasswordFieldBlock, ctx: CardContext) -> None:
        value = ctx.state.value(_binding_path(block.bind))
        multiline = bool(getattr(block, "multiline", False))
        secret = isinstance(block, PasswordFieldBlock)
        monospace = bool(getattr(block, "monospace", False))
        # The plain one-line field (most inputs) is one widget; a password (its reveal
        # button), a text area, a help line or a fixed-width value need the frame.
        plain = (
            not secret
            and not multiline
            and not monospace
            and not block.help
            and not (isinstance(value, str) and len(value) > LONG_VALUE_CHARS)
        )
        super().__init__(block, ctx, framed=not plain)
        self.large = isinstance(value, str) and len(value) > LARGE_VALUE_CHARS
        self.multiline = not secret and (
            multiline or (isinstance(value, str) and len(value) > LONG_VALUE_CHARS)
        )
        self.secret = secret
        self.monospace = monospace
        self._showing = False
        self.line: QLineEdit
        self.seen: SeenScroll | None = None
        """Holds confirm until every line of a text area has been on screen."""
        self.marked = False
        """The area shows the value with its invisible characters marked, read-only."""
        field: QWidget
        if self.large:
            self.multiline = True
            self.area = TextArea(ctx.look, self.container)
            self.area.setReadOnly(True)
            self.area.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
            field = self.area
        elif self.multiline:
            self.area = TextArea(ctx.look, self.container)
            if block.placeholder:
                self.area.setPlaceholderText(block.placeholder)
            self.area.textChanged.connect(self._area_edited)
            field = self.area
        elif plain:
            self.line = LabeledLine(
                ctx.look, shown(block.label, 200), bool(block.required), ctx.parent
            )
        else:
            self.line = QLineEdit(self.container)
            self.line.setFrame(False)  # the FieldFrame draws the box
            px, py = field_text_margins(ctx.look)
            self.line.setTextMargins(px, py, px, py)
        if not self.multiline:
            self.line.setMaxLength(2**31 - 1)
            if block.placeholder:
                self.line.setPlaceholderText(block.placeholder)
            self.line.textEdited.connect(self.push)
            field = self.line
        if self.multiline:
            faint_marks(self.area.document(), ctx.look)
            self.seen = SeenScroll(
                self.area, ctx.state, f"field:{self.path}", self._seen_reason, self._say_lines
            )
        self._lines = 1
        if not plain:
            assert isinstance(self.container, FieldFrame)
            self.container.box_for(field)
        if monospace:
            field.setFont(ctx.look.font("code"))  # the value only: its label keeps the card's
        if secret and not self.large:
            self.line.setEchoMode(QLineEdit.EchoMode.Password)
            self.reveal = QAction(theme.icon("eye"), "Show", self.line)
            self.reveal.setCheckable(True)
            self.reveal.setToolTip("Show")
            self.reveal.toggled.connect(self._toggle_reveal)
            self.line.addAction(self.reveal, QLineEdit.ActionPosition.TrailingPosition)
        self.widget = self.finish(field, grows=self.multiline)

    folded = False
    """Set by the card while this field is folded under a closed "Details": its part that
    must still be seen is reached by opening Details first, and its reason says so."""

    def _seen_reason(self) -> str:
        """Why confirm waits for this text area: "Open Details to see all of Message"
        while folded; "Scroll to see all 42 lines of Script first" for code (whose lines
        are what counts), "Scroll to see all of Message first" for prose (one paragraph
        is one line however many it wraps to)."""
        label = shown(self.label, 60)
        if self.folded:
            return DETAILS_REASON.format(label=label)
        return scroll_reason(self._lines if self.monospace else None, label)

    def _toggle_reveal(self, on: bool) -> None:
        self.line.setEchoMode(QLineEdit.EchoMode.Normal if on else QLineEdit.EchoMode.Password)
        self.reveal.setIcon(theme.icon("eye-off" if on else "eye"))
        self.reveal.setToolTip("Hide" if on else "Show")
        self.reveal.setText("Hide" if on else "Show")

    def _area_edited(self) -> None:
        if not self._showing:
            if self.seen is not None:
                self.seen.mark_seen()  # what the person typed they have seen
            self._lines = line_count(self.area.toPlainText())
            self._say_lines()
            self.push(self.area.toPlainText())

    def _preview(self, text: str) -> str:
        """A value too long to edit, shown read-only and whole: long lines are broken
        (display only) so no paragraph is laid out in one giant piece; past
        MAX_CODE_CHARS the rest is counted and confirm held for good."""
        head = text[:MAX_CODE_CHARS]
        lines = [
            line[i : i + _PREVIEW_LINE_CHARS] or ""
            for line in shown_code(head).split("\n")
            for i in range(0, max(len(line), 1), _PREVIEW_LINE_CHARS)
        ]
        shown_text = "\n".join(lines)
        if len(text) > len(head):
            shown_text += f"\n… {len(text) - len(head):,} more characters, too long to show here"
        return shown_text

    def _say_lines(self) -> None:
        """The line count on the label row, and whether it must still be scrolled."""
        container = self.container
        if not isinstance(container, FieldFrame):
            return
        # Counted where lines matter (a command, a script) or while some are out of view.
        note = lines_said(self._lines) if self._lines > 1 and self.monospace else ""
        if self.seen is not None and not self.seen.complete:
            note = f"{lines_said(self._lines)} · scroll to see all"
        if self.marked:
            note = f"{note} · hidden characters marked" if note else "Hidden characters marked"
        container.set_note(note)

    def _set_area(self, text: str) -> None:
        """Show `text` in the area as the agent's value (not the person's typing): blanks
        drawn as marks when it holds some, and counted again from the first line."""
        flags = _BLANKS_SHOWN
        option = self.area.document().defaultTextOption()
        wanted = option.flags() | flags if has_hidden_blanks(text) else option.flags() & ~flags
        if option.flags() != wanted:
            option.setFlags(wanted)
            self.area.document().setDefaultTextOption(option)
        self._showing = True
        try:
            self.area.setPlainText(text)
        finally:
            self._showing = False
        self.area.verticalScrollBar().setValue(0)
        self._lines = line_count(text)
        if self.seen is not None:
            self.seen.reset()
            if may_scroll(text):
                self.seen.hold()  # it may scroll: closed before layout, opened if it fits
        self._say_lines()

    def show_value(self, value: Any) -> None:
        text = _as_text(value)
        if self.large:
            cut = len(text) > MAX_CODE_CHARS
            self._set_area(self._preview("*" * len(text) if self.secret else text))
            self._lines = line_count(text)
            state, key = self.ctx.state, f"field:{self.path}.whole"
            if cut:  # part of it can never be on screen: never approved from here
                state.hold_until_seen(key, f"{shown(self.label, 60)} is too long to show whole")
            else:
                state.seen(key)
            self._say_lines()
            return
        if self.multiline:
            # A value with characters that draw nothing or move the text (a carriage
            # return, an escape) is shown with them marked, and cannot be edited here:
            # editing the marked text would send the marks.
            marked = has_hidden_characters(text) and not self.secret
            if marked != self.marked:
                self.marked = marked
                self.area.setReadOnly(marked)
            shown_text = shown_code(text) if marked else text
            if self.area.toPlainText() != shown_text or self.seen is None:
                self._set_area(shown_text)
            self._lines = line_count(text)
            self._say_lines()
        elif self.line.text() != text:
            self.line.setText(text)
            self.line.setCursorPosition(0)

    def shown_text(self) -> str:
        if self.large:
            return self.area.toPlainText()
        if self.multiline:
            return shown(self.area.toPlainText())
        if self.secret and self.line.echoMode() != QLineEdit.EchoMode.Normal:
            return ""
        return shown(self.line.text())


class TextFieldBuilder:
    def build(self, block: TextFieldBlock, ctx: CardContext) -> QWidget:
        return TextEditor(block, ctx).widget


class PasswordFieldBuilder:
    def build(self, block: PasswordFieldBlock, ctx: CardContext) -> QWidget:
        return TextEditor(block, ctx).widget


# --- select -------------------------------------------------------------------------

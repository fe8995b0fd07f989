"""The quiet "Tell it what to change…" line under a card's footer, and what Notch heard.

Collapsed it is one line of quiet link-like text; a click (or Tab and Enter / Space) opens
a one-line field where the person types a reply: Enter hands it to the card (which
classifies it: yes, no, or words for the agent), Esc clears and closes it. The field
exists, enabled, only while open: a card without inputs must never take keyboard focus
because of it (`notch_window.card_has_inputs` counts enabled line edits).

Untrusted text never leaves this widget unbounded: at most `MAX_REPLY_CHARS`, one line,
control and direction-changing characters refused with a note.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from PySide6.QtCore import QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QAbstractButton, QLabel, QLineEdit, QVBoxLayout, QWidget

from notch_app.ui.theme import Look, style_text
from notch_app.ui.widgets.fields import field_text_margins
from notch_app.ui.widgets.label_text import shown
from notch_app.ui.widgets.shapes import paint_round

MAX_REPLY_CHARS = 500
"""A reply is a sentence or two for the agent; longer text is not typed here."""

MAX_HEARD_CHARS = 160
"""What Notch heard, as the card shows it (one line)."""

INVITATION = "Tell it what to change…"
PLACEHOLDER = "What should it do instead? (or yes / no) — Enter sends, Esc closes"

# Characters that change how text reads without being seen: refused, not silently dropped.
_DIRECTION = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def refusal(text: str) -> str | None:
    """Why `text` cannot be sent as a reply ("" is fine: nothing to send), else None."""
    if len(text) > MAX_REPLY_CHARS:
        return f"Keep it under {MAX_REPLY_CHARS} characters."
    for ch in text:
        if ch in _DIRECTION or (unicodedata.category(ch) == "Cc"):
            return "The reply holds control characters; type it again."
    return None


def _invitation_size(look: Look) -> QSize:
    """The invitation's size: the same words in the same font on every card, measured
    once per look (a card's layout passes ask for it several times)."""

    def measure() -> QSize:
        fm = look.font_metrics("caption")
        return QSize(fm.horizontalAdvance(INVITATION) + 4, fm.height() + 2)

    return look.kept("reply:invitation", measure)


class _Invitation(QAbstractButton):
    """The collapsed line: quiet text that reads as a link, underlined on hover or focus."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._look = look
        self.setText(INVITATION)
        self.setAccessibleName(INVITATION)
        self.setAccessibleDescription("Opens a field to tell the agent what to do instead")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click opens the field, not this
        self.setAttribute(Qt.WidgetAttribute.WA_Hover, True)
        self.setFont(look.font("caption"))

    def sizeHint(self) -> QSize:
        return QSize(_invitation_size(self._look))

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        font = self._look.font("caption")
        font.setUnderline(self.underMouse() or self.hasFocus())
        p.setFont(font)
        p.setPen(self._look.color("text_quiet"))
        fm = self._look.font_metrics("caption")
        p.drawText(QPoint(2, 1 + fm.ascent()), INVITATION)
        p.end()


class _ReplyLine(QLineEdit):
    """The open field: Enter and Esc are its own, never the card's (the card would take
    Enter as confirm and Esc as cancel)."""

    submitted = Signal()
    closed = Signal()

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._look = look
        self.setFrame(False)
        px, py = field_text_margins(look)
        self.setTextMargins(px, py, px, py)
        self.setMaxLength(MAX_REPLY_CHARS)
        self.setPlaceholderText(PLACEHOLDER)
        self.setAccessibleName("Reply to the agent")

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()
            if not event.isAutoRepeat():
                self.submitted.emit()
            return
        if key == Qt.Key.Key_Escape:
            event.accept()
            self.closed.emit()
            return
        super().keyPressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        look = self._look
        p = QPainter(self)
        focus = self.hasFocus()
        paint_round(
            p,
            QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5),
            look.radius["field"],
            look.color("field_fill_focus" if focus else "field_fill"),
            look.color("field_border_focus" if focus else "field_border"),
        )
        p.end()
        super().paintEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.update()


class ReplyField(QWidget):
    """`submitted(text)` when the person presses Enter on a reply that is not empty, one
    line, bounded and free of control characters (`refusal` says why otherwise, on the
    line). `show_note` says a short thing under the field; `show_heard` shows what Notch
    heard ("Heard: “yes, send it”"), None hides it."""

    submitted = Signal(str)
    closed = Signal()
    """The open field was closed while it had the keyboard (Esc)."""

    def __init__(
        self,
        look: Look,
        parent: QWidget | None = None,
        *,
        on_submit: Callable[[str], object] | None = None,
        on_close: Callable[[], object] | None = None,
    ) -> None:
        """`on_submit` and `on_close` are connected to `submitted` and `closed` when the
        field is first made (neither is sent before: most cards never open it, and each
        connection made with the card cost as much as a widget's property)."""
        super().__init__(parent)
        self.setObjectName("ReplyField")
        self._look = look
        self._on_submit = on_submit
        self._on_close = on_close
        self.invitation = _Invitation(look, self)
        self.invitation.clicked.connect(self.open)
        # The field, the note under it and the "Heard:" line are hidden on a new card and
        # most cards are decided without them: each is made when first needed, not built
        # and polished with every card (a hidden widget takes no room in the column), and
        # so is the column that holds them: until then the line is the invitation alone,
        # placed as the column places it (`resizeEvent`).
        self._column_made: QVBoxLayout | None = None
        self._line: _ReplyLine | None = None
        self._note: QLabel | None = None
        self._heard: QLabel | None = None

    @property
    def _column(self) -> QVBoxLayout:
        """The column of the invitation and the parts made later (made with the first)."""
        if self._column_made is None:
            column = self._column_made = QVBoxLayout(self)
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(4)
            column.addWidget(self.invitation, 0, Qt.AlignmentFlag.AlignLeft)
        return self._column_made

    def sizeHint(self) -> QSize:
        if self._column_made is None:
            return self.invitation.sizeHint()
        return super().sizeHint()

    def minimumSizeHint(self) -> QSize:
        if self._column_made is None:
            return self.invitation.minimumSizeHint()
        return super().minimumSizeHint()

    def resizeEvent(self, event: QResizeEvent) -> None:
        if self._column_made is None:
            # As the column lays it out: on the left at its own width, centred in the
            # height (its height is fixed: a button's).
            hint = self.invitation.sizeHint()
            width, height = min(self.width(), hint.width()), min(self.height(), hint.height())
            self.invitation.setGeometry(0, (self.height() - height) // 2, width, height)
        super().resizeEvent(event)

    @property
    def line(self) -> QLineEdit:
        """The one-line field (made on first need; hidden and disabled while closed)."""
        if self._line is None:
            line = self._line = _ReplyLine(self._look, self)
            line.submitted.connect(self._submit)
            line.closed.connect(self.collapse)
            if self._on_submit is not None:
                self.submitted.connect(self._on_submit)
            if self._on_close is not None:
                self.closed.connect(self._on_close)
            line.textEdited.connect(lambda _t: self.show_note(None))
            line.hide()
            line.setEnabled(False)  # a closed field is not an input (focus rules)
            self._column.insertWidget(self._column.indexOf(self.invitation) + 1, line)
        return self._line

    @property
    def note(self) -> QLabel:
        """The short line under the field (made on first need; hidden while empty)."""
        if self._note is None:
            note = self._note = QLabel(self)
            note.setObjectName("ReplyNote")
            note.setTextFormat(Qt.TextFormat.PlainText)
            note.setWordWrap(True)
            style_text(note, "FieldHelp", self._look)
            note.hide()
            self._column.addWidget(note)  # last: under the field
        return self._note

    @property
    def heard(self) -> QLabel:
        """The "Heard: …" line above the field (made on first need; hidden while empty)."""
        if self._heard is None:
            heard = self._heard = QLabel(self)
            heard.setObjectName("ReplyHeard")
            heard.setTextFormat(Qt.TextFormat.PlainText)
            style_text(heard, "caption", self._look)
            heard.hide()
            self._column.insertWidget(0, heard)  # first: above the invitation
        return self._heard

    @property
    def is_open(self) -> bool:
        """True while the field is open for typing."""
        return self._line is not None and not self._line.isHidden()

    def open(self) -> None:
        """Open the field and put the cursor in it. The notch takes keyboard focus only for
        cards with inputs; opening this is the person asking to type, so it lets it."""
        self.invitation.hide()
        self.line.setEnabled(True)
        self.line.show()
        window = self.window()
        accept_focus = getattr(window, "set_accepts_focus", None)
        if callable(accept_focus):
            accept_focus(True)
        window.activateWindow()
        self.line.setFocus(Qt.FocusReason.MouseFocusReason)

    def collapse(self) -> None:
        """Clear the field and fold it back to the quiet line (Esc; after a reply)."""
        line = self._line
        if line is not None:
            had_focus = line.hasFocus()
            line.clear()
            line.hide()
            line.setEnabled(False)  # a closed field is not an input (focus rules)
        else:
            had_focus = False
        self.show_note(None)
        self.invitation.show()
        if had_focus:
            self.closed.emit()  # the card takes focus back: Enter and Esc work on it again

    def show_note(self, text: str | None) -> None:
        """A short line under the field ("Not yet: fill in To first."); None hides it."""
        if not text and self._note is None:
            return  # nothing to say and nothing said yet
        self.note.setText(shown(text, 200) if text else "")
        self.note.setVisible(bool(text))

    def show_heard(self, text: str | None) -> None:
        """`Heard: “text”` above the line, bounded to one line; None hides it."""
        if text is None or not text.strip():
            if self._heard is not None:
                self._heard.hide()
                self._heard.clear()
            return
        one_line = " ".join("".join(" " if not c.isprintable() else c for c in text).split())
        self.heard.setText(f"Heard: \u201c{shown(one_line, MAX_HEARD_CHARS)}\u201d")
        self.heard.show()

    @property
    def heard_text(self) -> str:
        """The "Heard: …" line as shown ("" when hidden)."""
        heard = self._heard
        return heard.text() if heard is not None and not heard.isHidden() else ""

    def _submit(self) -> None:
        text = self.line.text()
        why = refusal(text)
        if why is not None:
            self.show_note(why)
            return
        text = " ".join(text.split())
        if text:
            self.submitted.emit(text)

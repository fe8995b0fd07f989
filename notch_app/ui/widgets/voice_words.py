"""The card's words for a spoken yes: "To approve by voice, say ( yes, zebra garden )".

Shown only while "Answer by voice" is on. The words are chosen by the overlay when the
card is built (`notch_app.ui.voice.approval_words`) and exist nowhere but here and in the
answer round until the card is decided: a person who can see the card can say them, audio
the agent plays cannot. A second, warm line under them says why a spoken yes did not
approve ("Say yes and the words on the card.").
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPainterPath, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from notch_app.ui.theme import Look
from notch_app.ui.widgets.label_text import shown
from notch_app.ui.widgets.shapes import paint_round

INVITATION = "To approve by voice, say"
MAX_NOTE_CHARS = 160

_ICON = 14


class _MicMark(QWidget):
    """A small microphone: "this is about speaking"."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._color = look.color("text_quiet")
        self.setFixedSize(_ICON, _ICON)

    def sizeHint(self) -> QSize:
        return QSize(_ICON, _ICON)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        s = _ICON / 14
        pen = QPen(self._color, 1.3 * s)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        p.setPen(pen)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(QRectF(4.8 * s, 1.2 * s, 4.4 * s, 7.2 * s), 2.2 * s, 2.2 * s)
        cup = QPainterPath()
        cup.moveTo(2.8 * s, 6.2 * s)
        cup.cubicTo(2.8 * s, 12.0 * s, 11.2 * s, 12.0 * s, 11.2 * s, 6.2 * s)
        p.drawPath(cup)
        p.drawLine(QPointF(7 * s, 10.6 * s), QPointF(7 * s, 12.8 * s))
        p.end()


class _WordsPill(QLabel):
    """The words to say, bold in a soft tinted pill: the one thing on the line to read."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("VoiceWordsPill")
        self._fill = look.color("badge_info")
        self._radius = look.radius["badge"]
        self.setTextFormat(Qt.TextFormat.PlainText)
        font = look.font("SmallButton")
        font.setBold(True)
        self.setFont(font)
        self.setPalette(
            look.tinted_palette("voice_words", QPalette.ColorRole.WindowText, "badge_info_text")
        )
        self.setContentsMargins(8, 2, 8, 2)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        paint_round(p, QRectF(self.rect()), self._radius, self._fill)
        p.end()
        super().paintEvent(event)


class VoiceWords(QWidget):
    """The words for a spoken yes, and a note when a spoken yes was not taken."""

    def __init__(self, look: Look, words: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("VoiceWords")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(3)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addWidget(_MicMark(look, self), 0, Qt.AlignmentFlag.AlignVCenter)
        invitation = QLabel(INVITATION, self)
        invitation.setTextFormat(Qt.TextFormat.PlainText)
        invitation.setFont(look.font("SmallButton"))
        invitation.setPalette(look.text_palette("caption"))
        row.addWidget(invitation, 0, Qt.AlignmentFlag.AlignVCenter)
        self.pill = _WordsPill(look, self)
        row.addWidget(self.pill, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addStretch(1)
        column.addLayout(row)
        self.note = QLabel(self)
        self.note.setObjectName("VoiceWordsNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setFont(look.font("LookalikeWarning"))
        self.note.setPalette(look.text_palette("LookalikeWarning"))
        self.note.hide()
        column.addWidget(self.note)
        self._words = ""
        self.set_words(words)

    @property
    def words(self) -> str:
        """The words as the card shows them ("zebra garden")."""
        return self._words

    @property
    def shown_text(self) -> str:
        """The line as a person reads it ("To approve by voice, say yes, zebra garden")."""
        return f"{INVITATION} {self.pill.text()}"

    def set_words(self, words: str) -> None:
        self._words = " ".join(words.split())
        self.pill.setText(f"yes, {self._words}")
        self.setAccessibleName(self.shown_text)

    def show_note(self, text: str | None) -> None:
        """A short line under the words ("Say yes and the words on the card."); None hides it."""
        self.note.setText(shown(" ".join(text.split()), MAX_NOTE_CHARS) if text else "")
        self.note.setVisible(bool(text))

    @property
    def note_text(self) -> str:
        """The note as shown ("" when hidden)."""
        return self.note.text() if not self.note.isHidden() else ""

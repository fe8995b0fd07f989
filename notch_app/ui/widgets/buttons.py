"""The card's buttons, painted from the theme: the primary glass pill and the quiet ghost
(PillButton). A chip's × is painted by the chip itself (`chips_box.Chip`).
"""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtCore import Property, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QPainter,
    QPaintEvent,
)
from PySide6.QtWidgets import (
    QPushButton,
    QSizePolicy,
    QWidget,
)

from notch_app.ui.theme import Look
from notch_app.ui.widgets.shapes import paint_round

_WRAP = int(Qt.TextFlag.TextWordWrap)  # long unbroken runs carry break hints (`shown`)
_CENTRED = int(Qt.AlignmentFlag.AlignCenter)
_HOVER = Qt.WidgetAttribute.WA_Hover
# May get narrower than its label (then it wraps and grows taller), never cut. One policy
# for every button (setSizePolicy copies it): made and set per button it was ~7 µs each.
_POLICY = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
_POLICY.setHeightForWidth(True)


class PillButton(QPushButton):
    """A rounded button: the primary glass pill (`kind="primary"`, tinted by `tone`) or a
    quiet ghost. `small` for the link prompt's buttons."""

    _PRIMARY: ClassVar[dict[str, tuple[str, str, str]]] = {  # tone: (fill, hover, text)
        "": ("primary_fill", "primary_fill_hover", "primary_text"),
        "accent": ("accent_fill", "accent_fill_hover", "accent_text"),
        "danger": ("danger_fill", "danger_fill_hover", "danger_text"),
        "success": ("success_fill", "success_fill", "accent_text"),
        "warning": ("warning_fill", "warning_fill", "primary_text"),
    }

    def __init__(
        self,
        look: Look,
        kind: str = "ghost",
        tone: str = "",
        *,
        small: bool = False,
        text: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(text, parent)
        self._look = look
        self._hint: tuple[str, int, int] | None = None
        """(label, width, height) of the last size measured: asked many times per
        layout pass, measured again only when the label changes."""
        self.kind = kind
        self.tone = tone if tone in self._PRIMARY else ""
        self.small = small
        # `kind` and `tone` are plain attributes: no style sheet reads them as properties.
        self.setAttribute(_HOVER, True)
        # Its height follows its width (`heightForWidth`): the policy says so, which is
        # what QWidget.hasHeightForWidth reads (no Python call per layout question).
        self.setSizePolicy(_POLICY)
        role = "SmallButton" if small else ("PrimaryButton" if kind == "primary" else "Button")
        self._role = role
        self._pad, self._narrow, self._text_h = look.kept(
            f"button-sizes:{role}", lambda: _sizes(look, role, small)
        )
        font = look.own_font(role)
        if font is not None:
            self.setFont(font)

    def _action_role(self) -> str:
        return self._action

    def _set_action_role(self, role: str) -> None:
        self._action = role

    _action = ""
    role = Property(str, _action_role, _set_action_role)
    """What a press does ("confirm", "cancel", "copy"…), read as the Qt property "role":
    a declared property is a plain attribute to set, where a dynamic one (setProperty)
    costs an event per button."""

    def _padding(self) -> tuple[int, int]:
        return self._pad

    def _size(self) -> tuple[int, int]:
        """The (width, height) the label asks for, kept until the label changes."""
        text = self.text()
        hint = self._hint
        if hint is not None and hint[0] == text:
            return hint[1], hint[2]
        px, py = self._pad
        width = self._look.font_metrics(self._role).horizontalAdvance(text) + 2 * px + 2
        height = self._text_h + 2 * py + 2
        self._hint = (text, width, height)
        return width, height

    def sizeHint(self) -> QSize:
        return QSize(*self._size())

    def minimumSizeHint(self) -> QSize:
        # Narrower than its label only when the card is: then the label wraps.
        width, height = self._size()
        return QSize(min(width, self._narrow), height)

    def heightForWidth(self, width: int) -> int:
        """Taller than one line when `width` is narrower than the label: an action's
        label wraps, it is never cut (the person must read what they approve)."""
        wide, high = self._size()
        if width >= wide:
            return high
        px, py = self._pad
        fm = self._look.font_metrics(self._role)
        text = fm.boundingRect(QRect(0, 0, max(width - 2 * px - 2, 10), 10**6), _WRAP, self.text())
        return max(high, text.height() + 2 * py + 2)

    def colors(self) -> tuple[QColor | None, QColor, QColor]:
        """(fill, border, text) for the button's current state."""
        c = self._look.colors
        hover = self.underMouse() and self.isEnabled()
        if self.kind == "primary":
            fill_t, hover_t, text_t = self._PRIMARY[self.tone]
            if not self.isEnabled():
                fill: QColor | None = c["disabled_fill"]
                text = c["disabled_text"]
                border = c["disabled_fill"]
            else:
                fill = c[hover_t if hover else fill_t]
                text = c[text_t]
                border = c[fill_t]
        else:
            fill = c["ghost_hover"] if hover else None
            border = c["ghost_border"]
            if not self.isEnabled():
                text = c["disabled_text"]
            else:
                text = c["field_error"] if self.tone == "danger" else c["text"]
        if self.hasFocus():
            border = c["field_border_focus"]
        return fill, border, text

    def paintEvent(self, event: QPaintEvent) -> None:
        fill, border, text = self.colors()
        p = QPainter(self)
        radius = self._look.radius["small_pill" if self.small else "pill"]
        rect = QRectF(self.rect())
        paint_round(p, rect, min(radius, rect.height() / 2), fill, border)
        p.setPen(text)
        px, _ = self._padding()
        # Never elided: a label too long for one line wraps (heightForWidth made room).
        # One line is drawn without the wrap flag, which lays the text out as a paragraph.
        fits = self.width() >= self._size()[0]
        p.drawText(
            self.rect().adjusted(px, 0, -px, 0),
            _CENTRED | (0 if fits else _WRAP),
            self.text(),
        )


def _sizes(look: Look, role: str, small: bool) -> tuple[tuple[int, int], int, int]:
    """A button's padding (across, down), its narrowest width (eight Ms: narrower only
    when the card is, then the label wraps) and its text line's height, per look and
    role."""
    b = look.metrics["button"]
    pad = (
        (b["small_padding_x"], b["small_padding_y"]) if small else (b["padding_x"], b["padding_y"])
    )
    fm = look.font_metrics(role)
    narrow = fm.horizontalAdvance("M" * 8) + 2 * pad[0] + 2
    return pad, narrow, max(fm.height(), b["min_text_height"])

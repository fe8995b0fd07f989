"""The card's input chrome, painted from the theme: the field box with its label and
quiet `*` (FieldFrame), the one-widget labelled line (LabeledLine), the switch and the
choice box, and the metrics that line their text up.

Kept in one file (~490 lines) on purpose: every field shape lines its text up with the
same metric functions; apart, the boxes would drift out of line with each other.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QFocusEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLineEdit,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from notch_app.ui import theme
from notch_app.ui.theme import Look
from notch_app.ui.widgets.shapes import paint_round

_AA = QPainter.RenderHint.Antialiasing
# Flags read once: `A | B` on Qt's enums makes Python enum objects on every paint.
_MIDDLE_LEFT = int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
_ELIDE = Qt.TextElideMode.ElideRight
_CHOICE_CHARS = 12


_FIELD_HEIGHTS: dict[str, int] = {}


def field_box_height(look: Look) -> int:
    """The height of a one-line field's box, the same for a text field and a choice box:
    measured once per theme from a frameless QLineEdit with the field's padding, so the
    two always line up whatever the style adds."""
    height = _FIELD_HEIGHTS.get(look.name)
    if height is None:
        probe = QLineEdit()
        probe.setFrame(False)
        probe.setFont(look.font("base"))
        px, py = field_text_margins(look)
        probe.setTextMargins(px, py, px, py)
        height = _FIELD_HEIGHTS[look.name] = probe.sizeHint().height()
        probe.deleteLater()
    return height


def field_text_margins(look: Look) -> tuple[int, int]:
    """Text margins (across, down) that put a frameless QLineEdit's text where a framed
    field's would be: inside the 1 px border and the padding, plus the 2 px across that
    QLineEdit always keeps (so text starts 12 px in). Down, the box's height is
    measured from the result (`field_box_height`)."""
    f = look.metrics["field"]
    return f["padding_x"] + 1, f["padding_y"] - 1


def field_text_inset(look: Look) -> int:
    """How far a field's text starts from the box's left edge (see field_text_margins)."""
    return field_text_margins(look)[0] + 2


class FieldFrame(QWidget):
    """One input's column: the label with its quiet `*` (painted, not two more widgets),
    the field, then help and error lines. Draws the rounded box behind a frameless text
    field (`box_for`), so focus and errors change one paint, not a style.

    A lone field of fixed height (most inputs) is placed by the frame itself; the
    column layout is made only when a help or error line or a growing field needs it
    (`column`): a layout per input is a good part of a card's build time."""

    def __init__(
        self, look: Look, label: str | None, required: bool, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._look = look
        self.label = label
        self.required = required
        self.invalid = False
        self._box_for: QWidget | None = None
        self._field: QWidget | None = None
        self._column: QVBoxLayout | None = None
        self.note = ""
        """A quiet fact drawn at the right of the label row ("42 lines")."""
        self._label_height = look.font_metrics("FieldLabel").height() if label else 0
        self._top = self._label_height + look.metrics["field"]["label_gap"] if label else 0
        if required and label:
            self.setMouseTracking(True)

    @property
    def column(self) -> QVBoxLayout:
        """The frame's column layout (made on first use, holding the field)."""
        if self._column is None:
            layout = QVBoxLayout(self)
            layout.setContentsMargins(0, self._top, 0, 0)
            layout.setSpacing(self._look.metrics["field"]["label_gap"])
            if self._field is not None:
                layout.addWidget(self._field)
            self._column = layout
            self.updateGeometry()
        return self._column

    def set_field(self, field: QWidget, *, grows: bool = False) -> None:
        """Put `field` under the label. `grows`: its height changes (a text area, chips),
        so it needs the column layout to follow it."""
        self._field = field
        if grows:
            self.column.addWidget(field)
        else:
            if field.parentWidget() is not self:
                field.setParent(self)
            field.move(0, self._top)

    def sizeHint(self) -> QSize:
        if self._column is not None or self._field is None:
            return super().sizeHint()
        hint = self._field.sizeHint()
        return QSize(hint.width(), self._top + hint.height())

    def minimumSizeHint(self) -> QSize:
        if self._column is not None or self._field is None:
            return super().minimumSizeHint()
        hint = self._field.minimumSizeHint()
        return QSize(hint.width(), self._top + self._field.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        field = self._field
        if self._column is None and field is not None:
            field.setGeometry(0, self._top, self.width(), field.sizeHint().height())

    def box_for(self, field: QWidget) -> None:
        """Draw the field box behind `field` (a frameless QLineEdit or text area)."""
        self._box_for = field

    def set_invalid(self, invalid: bool) -> None:
        if invalid != self.invalid:
            self.invalid = invalid
            self.update()

    def set_note(self, note: str) -> None:
        """Draw `note` at the right end of the label row ("" draws none)."""
        if note != self.note:
            self.note = note
            self.setAccessibleDescription(note)
            self.update()

    def _star_rect(self) -> QRect:
        fm = self._look.font_metrics("FieldLabel")
        x = fm.horizontalAdvance(self._shown_label()) + self._look.metrics["field"]["star_gap"]
        return QRect(x, 0, self._look.font_metrics("RequiredMark").horizontalAdvance("*") + 2,
                     self._label_height)  # fmt: skip

    def _shown_label(self) -> str:
        fm = self._look.font_metrics("FieldLabel")
        return fm.elidedText(self.label or "", _ELIDE, max(self.width() - 16, 40))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        # The `*` explains itself when hovered. Mouse tracking, not an event() override:
        # that would be a Python call for every event while the card builds.
        if self.required and self.label and self._star_rect().contains(event.position().toPoint()):
            QToolTip.showText(event.globalPosition().toPoint(), "Required", self)
        elif QToolTip.isVisible():
            QToolTip.hideText()
        super().mouseMoveEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        look = self._look
        p = QPainter(self)
        note_width = 0
        if self.note and self.label:
            fm = look.font_metrics("FieldHelp")
            note_width = fm.horizontalAdvance(self.note) + 12
            p.setFont(look.font("FieldHelp"))
            p.setPen(look.text_color("FieldHelp"))
            p.drawText(QPoint(self.width() - note_width + 12, fm.ascent() + 1), self.note)
        if self.label:
            _paint_label(p, look, self.label, self.required, self.width() - note_width)
        field = self._box_for
        if field is not None and not field.isHidden():
            focus = field.hasFocus()
            fill = look.color("field_fill_focus" if focus else "field_fill")
            if self.invalid:
                border = look.color("field_error")
            else:
                border = look.color("field_border_focus" if focus else "field_border")
            paint_round(p, QRectF(field.geometry()), look.radius["field"], fill, border)


class LabeledLine(QLineEdit):
    """A one-line text input as one widget: it paints its own label (with the quiet `*`),
    its box and its error line, and keeps its text inside the box with text margins.
    The common input of a card costs one widget instead of three."""

    def __init__(
        self, look: Look, label: str, required: bool, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._look = look
        self.label = label
        self.required = required
        self.invalid = False
        self.error_text = ""
        self.setFrame(False)
        self._pad = field_text_margins(look)
        self._label_height = look.font_metrics("FieldLabel").height()
        self._top = self._label_height + look.metrics["field"]["label_gap"]
        self._error_height = 0
        self._place_text()
        if required:
            self.setMouseTracking(True)

    def _place_text(self) -> None:
        px, py = self._pad
        self.setTextMargins(px, self._top + py, px, py + self._error_height)

    def set_invalid(self, invalid: bool) -> None:
        if invalid != self.invalid:
            self.invalid = invalid
            self.update()

    def set_error(self, message: str) -> None:
        """Show `message` under the box (one line, elided; "" hides it)."""
        self.error_text = message
        gap = self._look.metrics["field"]["label_gap"]
        height = self._look.font_metrics("FieldError").height() + gap if message else 0
        if height != self._error_height:
            self._error_height = height
            self._place_text()
        self.update()

    def box_rect(self) -> QRect:
        """Where the field's box is drawn (under the label, above the error line)."""
        return QRect(0, self._top, self.width(), self.height() - self._top - self._error_height)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        if self.required and pos.y() < self._label_height:
            fm = self._look.font_metrics("FieldLabel")
            x = fm.horizontalAdvance(self.label) + self._look.metrics["field"]["star_gap"]
            if x <= pos.x() <= x + 10:
                QToolTip.showText(event.globalPosition().toPoint(), "Required", self)
        super().mouseMoveEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        look = self._look
        p = QPainter(self)
        _paint_label(p, look, self.label, self.required, self.width())
        focus = self.hasFocus()
        fill = look.color("field_fill_focus" if focus else "field_fill")
        border = look.color(
            "field_error" if self.invalid else ("field_border_focus" if focus else "field_border")
        )
        box = self.box_rect()
        paint_round(p, QRectF(box), look.radius["field"], fill, border)
        if self.error_text:
            fm = look.font_metrics("FieldError")
            p.setFont(look.font("FieldError"))
            p.setPen(look.text_color("FieldError"))
            text = fm.elidedText(self.error_text, _ELIDE, self.width())
            y = box.bottom() + 1 + look.metrics["field"]["label_gap"] + fm.ascent()
            p.drawText(QPoint(0, y), text)
        p.end()
        super().paintEvent(event)


def _paint_label(p: QPainter, look: Look, label: str, required: bool, width: int) -> None:
    """An input's label at the top left, elided to `width`, with the quiet `*`."""
    fm = look.font_metrics("FieldLabel")
    p.setFont(look.font("FieldLabel"))
    p.setPen(look.text_color("FieldLabel"))
    text = fm.elidedText(label, _ELIDE, max(width - 16, 40))
    p.drawText(QPoint(0, fm.ascent()), text)
    if required:
        p.setFont(look.font("RequiredMark"))
        p.setPen(look.text_color("RequiredMark"))
        x = fm.horizontalAdvance(text) + look.metrics["field"]["star_gap"]
        p.drawText(QPoint(x, fm.ascent()), "*")


class Switch(QCheckBox):
    """A toggle drawn as a switch (the theme's switch images) followed by its label; it
    is its own input container, with its (rare) error line painted underneath."""

    label = None  # the text beside the switch is its label; no label row above
    required = False

    def __init__(self, look: Look, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self._look = look
        self.invalid = False
        self.error_text = ""
        self.setAttribute(Qt.WidgetAttribute.WA_Hover, True)

    def set_invalid(self, invalid: bool) -> None:
        if invalid != self.invalid:
            self.invalid = invalid
            self.update()

    def set_error(self, message: str) -> None:
        """Show `message` under the switch (one line, elided; "" hides it)."""
        if message != self.error_text:
            self.error_text = message
            self.updateGeometry()
            self.update()

    def _row_height(self) -> int:
        return max(self._look.metrics["switch"]["height"], self.fontMetrics().height())

    def _error_height(self) -> int:
        if not self.error_text:
            return 0
        gap = self._look.metrics["field"]["label_gap"]
        return self._look.font_metrics("FieldError").height() + gap

    def _images(self) -> tuple[QPixmap, QPixmap]:
        s = self._look.metrics["switch"]
        size = QSize(s["width"], s["height"])
        return (
            theme.icon(self._look.tokens["switch_off"].removesuffix(".svg")).pixmap(size),
            theme.icon(self._look.tokens["switch_on"].removesuffix(".svg")).pixmap(size),
        )

    def sizeHint(self) -> QSize:
        s = self._look.metrics["switch"]
        fm = self.fontMetrics()
        return QSize(
            s["width"] + s["spacing"] + fm.horizontalAdvance(self.text()) + 2,
            self._row_height() + self._error_height(),
        )

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def hitButton(self, pos: QPoint) -> bool:
        return pos.y() < self._row_height() and self.rect().contains(pos)

    def paintEvent(self, event: QPaintEvent) -> None:
        s = self._look.metrics["switch"]
        p = QPainter(self)
        p.setRenderHint(_AA)
        off, on = self._images()
        row = self._row_height()
        top = (row - s["height"]) // 2
        p.drawPixmap(0, top, on if self.isChecked() else off)
        if self.hasFocus() or self.invalid:
            r = QRectF(0, top, s["width"], s["height"]).adjusted(-1.5, -1.5, 1.5, 1.5)
            ring = "field_error" if self.invalid else "field_border_focus"
            p.setPen(QPen(self._look.color(ring), 1.0))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(r, r.height() / 2, r.height() / 2)
        p.setPen(self.palette().color(self.foregroundRole()))
        x = s["width"] + s["spacing"]
        text_rect = QRect(x, 0, self.width() - x, row)
        p.drawText(text_rect, _MIDDLE_LEFT, self.text())
        if self.error_text:
            fm = self._look.font_metrics("FieldError")
            p.setFont(self._look.font("FieldError"))
            p.setPen(self._look.text_color("FieldError"))
            text = fm.elidedText(self.error_text, _ELIDE, self.width())
            p.drawText(QPoint(0, row + self._look.metrics["field"]["label_gap"] + fm.ascent()),
                       text)  # fmt: skip


class ChoiceBox(QComboBox):
    """A combo box drawn as a field box with the current option and a chevron.

    Its options join the Qt combo box when the person first reaches for it (focus, a
    click, the wheel): a QComboBox that holds items makes its whole popup at once (nine
    widgets, ~250 µs), though few selects on a card are ever opened. Until then the
    item methods below keep the options in Python; the box paints and reads the same.
    """

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._look = look
        self._popup_styled = False
        self._options: list[str] | None = []  # None once they joined the combo box
        self._index = -1
        self.setAttribute(Qt.WidgetAttribute.WA_Hover, True)

    def load_options(self) -> None:
        """Hand the options to the Qt combo box (once); no change is reported."""
        options = self._options
        if options is None:
            return
        self._options = None
        blocked = self.blockSignals(True)
        try:
            super().addItems(options)
            super().setCurrentIndex(self._index)
        finally:
            self.blockSignals(blocked)

    def addItems(self, texts: Sequence[str]) -> None:
        if self._options is None:
            super().addItems(texts)
            return
        self._options.extend(texts)
        if self._index < 0 and self._options:
            self._index = 0  # as QComboBox: the first option is current

    def insertItem(self, index: int, text: str) -> None:  # type: ignore[override]
        if self._options is None:
            super().insertItem(index, text)
            return
        self._options.insert(index, text)
        if self._index >= index:
            self._index += 1
        elif self._index < 0:
            self._index = 0

    def removeItem(self, index: int) -> None:
        if self._options is None:
            super().removeItem(index)
            return
        if 0 <= index < len(self._options):
            del self._options[index]
            if self._index > index or self._index >= len(self._options):
                self._index -= 1

    def setCurrentIndex(self, index: int) -> None:
        if self._options is None:
            super().setCurrentIndex(index)
            return
        if index != self._index and -1 <= index < len(self._options):
            self._index = index
            self.update()
            self.currentIndexChanged.emit(index)  # as a pick in the popup would

    def currentIndex(self) -> int:
        return super().currentIndex() if self._options is None else self._index

    def currentText(self) -> str:
        options = self._options
        if options is None:
            return super().currentText()
        return options[self._index] if 0 <= self._index < len(options) else ""

    def count(self) -> int:
        return super().count() if self._options is None else len(self._options)

    def itemText(self, index: int) -> str:
        options = self._options
        if options is None:
            return super().itemText(index)
        return options[index] if 0 <= index < len(options) else ""

    def focusInEvent(self, event: QFocusEvent) -> None:
        self.load_options()  # keys (Up, Down, typing a letter) act on the real items
        super().focusInEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.load_options()
        super().mousePressEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        self.load_options()
        super().wheelEvent(event)

    def sizeHint(self) -> QSize:
        # Room for about 12 characters, the padding and the chevron, whatever the options
        # say: measuring every option (QComboBox's size policies) costs ~0.5 ms per box.
        pad = field_text_inset(self._look)
        width = self.fontMetrics().horizontalAdvance("x" * _CHOICE_CHARS) + pad + 24
        return QSize(width, field_box_height(self._look))

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def showPopup(self) -> None:
        # The popup is made when first opened; style it then, not while the card builds.
        self.load_options()
        if not self._popup_styled:
            self._popup_styled = True
            self.view().setPalette(self._look.popup_palette())
            self.view().window().setPalette(self._look.popup_palette())
        super().showPopup()

    def paintEvent(self, event: QPaintEvent) -> None:
        look = self._look
        p = QPainter(self)
        focus = self.hasFocus()
        fill = look.color("field_fill_focus" if focus else "field_fill")
        border = look.color("field_border_focus" if focus else "field_border")
        paint_round(p, QRectF(self.rect()), look.radius["field"], fill, border)
        pad = field_text_inset(look)
        arrow = 24
        icon = theme.icon("chevron-down")
        icon.paint(p, QRect(self.width() - arrow + 6, (self.height() - 12) // 2, 12, 12))
        p.setPen(self.palette().color(self.foregroundRole()))
        room = max(self.width() - pad - arrow, 10)
        text = self.fontMetrics().elidedText(self.currentText(), _ELIDE, room)
        p.drawText(QRect(pad, 0, room, self.height()), _MIDDLE_LEFT, text)

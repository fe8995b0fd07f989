"""Fixed-width values on a card, shown whole: the code panel and the "seen" tracker.

A shell command or a diff may be longer than the room a card gives it. Rather than cut
it, or let the card's own fold hide it, the value scrolls inside its own panel, with a
thin scroll bar and a fading bottom edge while more is below, its line count above it
("42 lines"), and blanks drawn as faint marks (`card.code_text`). `SeenScroll` follows
what of a scrolling part has been on screen and keeps the card's confirm closed
(`CardState.hold_until_seen`) until every line has been: jumping to the end by dragging
the scroll bar skips lines, and does not count.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QEvent, QObject, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QLinearGradient,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShowEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QFrame,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from notch_app.card.code_text import MARKS, line_count, lines_said, mark_blanks
from notch_app.card.diff_lines import DiffLine, folded, read_diff
from notch_app.card.state import CardState
from notch_app.ui.theme import Look, style_text
from notch_app.ui.widgets.shapes import ThinScrollBar, paint_round

MAX_VISIBLE_LINES = 14
SHORTEST_ROWS = 4
"""On a short screen a panel shows no fewer lines than this (then the card scrolls)."""
"""Lines a code panel shows before it scrolls inside itself."""
MAX_CODE_CHARS = 200_000
"""A panel holds at most this much text (the hooks send no more); past it the text is cut
with a last line saying how much, and confirm is held for good: nothing unseen is approved."""
_FADE_PX = 18
_MIN_PANEL_WIDTH = 240
"""The narrowest a code panel is laid out (the narrowest card, less its margins)."""
_MIN_LINE_CHARS = 40
"""Fewer characters than fit on one line of the narrowest panel: a value longer than this
many lines of them may wrap past the panel."""


def scroll_reason(count: int | None, label: str | None = None) -> str:
    """The line beside a held confirm: "Scroll to see all 42 lines first" ("… of Command");
    without a count (prose, whose wrapped lines are not its lines): "Scroll to see all of
    Message first"."""
    if count is None:
        return f"Scroll to see all of {label or 'it'} first"
    what = f"{lines_said(count)} of {label}" if label else lines_said(count)
    return f"Scroll to see all {what} first"


class SeenScroll(QObject):
    """Follows what of `area`'s content has been on screen, and holds the card's confirm
    until all of it has: `state.hold_until_seen(key, reason())` while part of it has not
    been in view, `state.seen(key)` once every part has.

    Seen parts count only while the area is visible. The count starts again when the
    content changes under it (`reset`) or its length changes; a person's own typing marks
    it seen (`mark_seen`): they wrote what is there."""

    def __init__(
        self,
        area: QAbstractScrollArea,
        state: CardState,
        key: str,
        reason: Callable[[], str],
        changed: Callable[[], None] | None = None,
        overflows: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__(area)
        self._overflows = overflows
        """Whether the content is taller than the area will be once laid out: a scroll
        range seen while the area is still being sized (shown, not yet laid out) holds
        nothing when this says it all fits."""
        self._area = area
        self._state = state
        self._key = key
        self._reason = reason
        self._changed = changed
        self._spans: list[tuple[int, int]] = []
        self._extent = -1
        self._done = False
        self._holding = False  # confirm is held for this content now
        bar = area.verticalScrollBar()
        bar.rangeChanged.connect(lambda _lo, _hi: self.check())
        bar.valueChanged.connect(lambda _v: self.check())
        area.installEventFilter(self)  # to look again once it is on screen
        # A taller viewport at the same scroll position shows more without moving the
        # scroll bar (its range may stay the same): look again, or a Page Down from
        # there would leave a gap between what was counted and what was shown.
        area.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Show or (
            kind == QEvent.Type.Resize and watched is self._area.viewport()
        ):
            self.check()
        return False

    @property
    def complete(self) -> bool:
        """Every line has been on screen (or all of it fits)."""
        bar = self._area.verticalScrollBar()
        return self._done or bar.maximum() <= bar.minimum()

    def hold(self) -> None:
        """Hold confirm now, before the area is laid out (when it will surely scroll)."""
        if not self._done:
            self._hold_now()
            self._tell()

    def reset(self) -> None:
        """The content changed under the person: what they saw before no longer counts."""
        self._spans.clear()
        self._extent = -1
        self._done = False
        self.check()

    def say_again(self) -> None:
        """While confirm is held for this content, say the reason as it reads now (the
        field was folded under Details, or unfolded)."""
        if self._holding:
            self._hold_now()

    def _hold_now(self) -> None:
        self._holding = True
        self._state.hold_until_seen(self._key, self._reason())

    def _release(self) -> None:
        self._holding = False
        self._state.seen(self._key)

    def mark_seen(self) -> None:
        """Count the whole content as seen (the person typed it)."""
        self._done = True
        self._release()
        self._tell()

    def check(self) -> None:
        """Note what is in view now, and hold or release confirm to match."""
        bar = self._area.verticalScrollBar()
        low, high, page = bar.minimum(), bar.maximum(), max(bar.pageStep(), 1)
        if self._done:
            return
        overflows = self._overflows
        if high <= low and self._holding and overflows is not None and overflows():
            return  # taller than it will be shown, not sized yet: the hold stays
        if high <= low or (overflows is not None and not overflows()):
            self._release()  # it all fits: nothing to scroll through
            self._tell()
            return
        if not self._area.isVisible():
            return  # not laid out yet: its range means little (`hold` covers a sure case)
        extent = high + page - low
        if extent != self._extent:
            # The same content laid out again (a scroll bar came, the lines rewrapped):
            # what was seen is carried over in the new units, rounded inwards so no
            # rounding can close a gap. New content starts over through `reset`.
            if self._extent > 0:
                ratio = extent / self._extent
                self._spans = [
                    (math.ceil(a * ratio), math.floor(b * ratio)) for a, b in self._spans
                ]
            self._extent = extent
        self._add(bar.value(), bar.value() + self._in_view(page))
        first = self._spans[0] if self._spans else (1, 0)
        if first[0] <= low and first[1] >= high + page:
            self._done = True
            self._release()
        else:
            self._hold_now()
        self._tell()

    def _tell(self) -> None:
        if self._changed is not None:
            self._changed()

    def _in_view(self, page: int) -> int:
        """How many scroll units are on screen at once. A text area counts in lines and
        its page step leaves out the line cut by its bottom edge, which Page Down then
        skips past: a line at least half in view counts as seen."""
        area = self._area
        if not isinstance(area, QPlainTextEdit):
            return page
        margin = 2 * int(area.document().documentMargin())
        lines = round(
            (area.viewport().height() - margin) / max(area.fontMetrics().lineSpacing(), 1)
        )
        return max(page, lines)

    def _add(self, start: int, end: int) -> None:
        spans = sorted([*self._spans, (start, end)])
        merged: list[tuple[int, int]] = []
        for a, b in spans:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        self._spans = merged


class _Marks(QSyntaxHighlighter):
    """Draws the blank marks (→ · ⏎) quieter than text, so they read as marks."""

    def __init__(self, document: QTextDocument, color: QColor) -> None:
        super().__init__(document)
        self._format = QTextCharFormat()
        self._format.setForeground(color)

    def highlightBlock(self, text: str) -> None:
        if not any(mark in text for mark in MARKS):
            return
        for i, ch in enumerate(text):
            if ch in MARKS:
                self.setFormat(i, 1, self._format)


def faint_marks(document: QTextDocument, look: Look) -> QSyntaxHighlighter:
    """Draw the blank marks in `document` in the theme's quiet text colour: plainly
    there, plainly not text."""
    return _Marks(document, look.color("text_quiet"))


_DIFF_TINTS: Final = {"add": "badge_success", "remove": "badge_danger", "fold": "badge_neutral"}
_DIFF_INK: Final = {"add": "badge_success_text", "remove": "badge_danger_text"}


class _Gutter(QWidget):
    """The line numbers left of a diff: tinted like their line, and continuing down a
    wrapped line (one tinted band for the whole block), so a wrapped `+` line is never
    read as a line of its own."""

    def __init__(self, panel: CodePanel) -> None:
        super().__init__(panel)
        self._panel = panel

    def paintEvent(self, event: QPaintEvent) -> None:
        self._panel.paint_gutter(self)


class CodePanel(QPlainTextEdit):
    """Read-only fixed-width text on the faint rounded panel of the `code` variant: as
    tall as its lines up to MAX_VISIBLE_LINES, then it scrolls inside itself, with a
    fading bottom edge while more is below."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._look = look
        self._fill = look.color("section_fill")
        self.setVerticalScrollBar(ThinScrollBar(look))
        self.setReadOnly(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # keys scroll it, for keyboard users
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.setFont(look.font("code"))
        f = look.metrics["field"]
        self.setViewportMargins(f["padding_x"] - 4, f["padding_y"] - 4, 2, f["padding_y"] - 4)
        self.document().setDocumentMargin(4)
        self._marks = faint_marks(self.document(), look)
        self._rows = 1
        self._row_cap: int | None = None
        """Fewer rows than MAX_VISIBLE_LINES on a short screen (set by the card's body):
        the panel scrolls inside itself instead of the card scrolling around it."""
        self.setFixedHeight(self._height_for(1))
        self._diff: list[DiffLine] | None = None
        self._gutter = _Gutter(self)
        self._gutter.hide()
        self._gutter_width = 0
        self.updateRequest.connect(self._follow_scroll)

    def set_diff(self, rows: list[DiffLine] | None) -> None:
        """Draw the text as a diff (`rows`, one per line): a numbered gutter, added lines
        green, removed red; None draws plain code."""
        self._diff = rows
        numbers = [r.number for r in rows or [] if r.number is not None]
        digits = len(str(max(numbers))) if numbers else 0
        width = self.fontMetrics().horizontalAdvance("9") * digits + 10 if rows else 0
        self._gutter_width = width
        f = self._look.metrics["field"]
        self.setViewportMargins(
            width + f["padding_x"] - 4, f["padding_y"] - 4, 2, f["padding_y"] - 4
        )
        self._gutter.setVisible(bool(rows))
        self._place_gutter()
        self.viewport().update()

    def _place_gutter(self) -> None:
        inner = self.contentsRect()
        self._gutter.setGeometry(inner.left(), inner.top(), self._gutter_width, inner.height())

    def _follow_scroll(self, rect: QRect, dy: int) -> None:
        if self._diff is not None:
            self._gutter.update()

    def _visible_rows(self) -> list[tuple[DiffLine, QRectF]]:
        """Each block on screen with its DiffLine and its rectangle (viewport coordinates)."""
        rows = self._diff or []
        out: list[tuple[DiffLine, QRectF]] = []
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        bottom = self.viewport().height()
        while block.isValid():
            box = self.blockBoundingGeometry(block).translated(offset)
            if box.top() > bottom:
                break
            index = block.blockNumber()
            if block.isVisible() and index < len(rows):
                out.append((rows[index], box))
            block = block.next()
        return out

    def paint_gutter(self, gutter: QWidget) -> None:
        painter = QPainter(gutter)
        painter.setFont(self.font())
        quiet = self._look.color("text_faint")
        top = self.viewport().geometry().top() - self.contentsRect().top()
        for row, box in self._visible_rows():
            band = QRectF(0, box.top() + top, gutter.width(), box.height())
            tint = _DIFF_TINTS.get(row.kind)
            if tint:
                painter.fillRect(band, self._look.color(tint))
            if row.number is not None:
                painter.setPen(
                    self._look.color(_DIFF_INK.get(row.kind, "text_faint"))
                    if row.kind in _DIFF_INK
                    else quiet
                )
                line = QRectF(
                    0, band.top(), gutter.width() - 5, self.fontMetrics().lineSpacing() + 4
                )
                painter.drawText(
                    line,
                    int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                    str(row.number),
                )
        painter.end()

    def show_text(self, text: str) -> None:
        """Show `text` (already marked) from its first line."""
        if self.toPlainText() != text:
            self.setPlainText(text)
            self._rows = 0
        self._fit()
        self.verticalScrollBar().setValue(0)

    def _height_for(self, rows: int) -> int:
        margins = self.viewportMargins()
        inner = 2 * int(self.document().documentMargin()) + margins.top() + margins.bottom()
        return rows * self.fontMetrics().lineSpacing() + inner + 2

    def cap_rows(self, rows: int | None) -> None:
        """Show at most `rows` lines at once (None: up to MAX_VISIBLE_LINES)."""
        if rows != self._row_cap:
            self._row_cap = rows
            self._fit()

    def height_for_rows(self, rows: int) -> int:
        """The panel's height showing `rows` lines."""
        return self._height_for(rows)

    def natural_height(self) -> int:
        """The panel's height without a cap."""
        return self._height_for(self.natural_rows())

    def shortest_height(self) -> int:
        """As short as a cap may make it: SHORTEST_ROWS lines (fewer if it has fewer)."""
        return self._height_for(min(self.natural_rows(), SHORTEST_ROWS))

    def cap_height(self, height: int | None) -> None:
        """Be no taller than `height` px, in whole lines (None: no cap)."""
        if height is None:
            self.cap_rows(None)
            return
        line = max(self.fontMetrics().lineSpacing(), 1)
        self.cap_rows(max(1, (height - self._height_for(0)) // line))

    def natural_rows(self) -> int:
        """The rows the panel shows without a cap: its lines, up to MAX_VISIBLE_LINES."""
        text = self.toPlainText()
        lines = line_count(text)
        if lines >= MAX_VISIBLE_LINES:
            return MAX_VISIBLE_LINES
        width = max(self.viewport().width() - 2 * int(self.document().documentMargin()), 40)
        if not self.isVisible():
            # Not laid out yet: its width is Qt's default, far narrower than any card.
            # Counting rows at that width makes a panel (and a card) too tall at first.
            width = max(width, _MIN_PANEL_WIDTH - self._gutter_width)
        rect = self.fontMetrics().boundingRect(
            QRect(0, 0, width, 10**6), int(Qt.TextFlag.TextWordWrap), text or " "
        )
        rows = max(lines, round(rect.height() / max(self.fontMetrics().lineSpacing(), 1)))
        return min(max(rows, 1), MAX_VISIBLE_LINES)

    def _fit(self) -> None:
        rows = self.natural_rows()
        if self._row_cap is not None:
            rows = min(rows, self._row_cap)
        if rows != self._rows:
            self._rows = rows
            self.setFixedHeight(self._height_for(rows))

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_gutter()
        if event.oldSize().width() != event.size().width():
            self._fit()

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._diff is not None:
            # Whole-width bands behind the text: green for added lines, red for removed.
            painter = QPainter(self.viewport())
            for row, box in self._visible_rows():
                tint = _DIFF_TINTS.get(row.kind)
                if tint:
                    painter.fillRect(
                        QRectF(0, box.top(), self.viewport().width(), box.height()),
                        self._look.color(tint),
                    )
            painter.end()
        super().paintEvent(event)
        bar = self.verticalScrollBar()
        if bar.value() >= bar.maximum():
            return
        # More below: the text fades into the panel at the bottom edge.
        viewport = self.viewport()
        painter = QPainter(viewport)
        bottom = viewport.height()
        fade = QLinearGradient(0, bottom - _FADE_PX, 0, bottom)
        clear = QColor(self._fill)
        clear.setAlpha(0)
        solid = QColor(self._look.color("glass_fill"))
        solid.setAlpha(230)
        fade.setColorAt(0, clear)
        fade.setColorAt(1, solid)
        painter.fillRect(QRect(0, bottom - _FADE_PX, viewport.width(), _FADE_PX), fade)
        painter.end()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit()


class _PanelFrame(QWidget):
    """Paints the code panel's rounded box behind the text area it holds."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._fill = look.color("section_fill")
        self._border = look.color("section_border")
        self._radius = look.radius["field"]

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        paint_round(painter, QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), self._radius,
                    self._fill, self._border)  # fmt: skip
        painter.end()


class CodeView(QWidget):
    """A `code` text block: the line count over a scrolling CodePanel, which holds the
    card's confirm (through `state`) until all of it has been on screen."""

    def __init__(
        self,
        look: Look,
        state: CardState,
        key: str,
        parent: QWidget | None = None,
        *,
        folds_context: bool = False,
    ):
        super().__init__(parent)
        self._look = look
        self._folds_context = folds_context
        """Unchanged runs of a diff fold to their ends: only for an argument that is a
        diff (`diff`, `patch`), never for a command that merely looks like one."""
        self.count = 0
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(3)
        self.caption = QLabel(self)
        self.caption.setObjectName("CodeLines")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        style_text(self.caption, "caption", look)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.caption.hide()
        column.addWidget(self.caption)
        self.box = _PanelFrame(look, self)
        inner = QVBoxLayout(self.box)
        inner.setContentsMargins(1, 1, 1, 1)
        self.panel = CodePanel(look, self.box)
        inner.addWidget(self.panel)
        column.addWidget(self.box)
        self._state = state
        self._key = key
        self.seen = SeenScroll(self.panel, state, key, lambda: scroll_reason(self.count), self._say)

    def set_text(self, text: str) -> None:
        """Show `text` (invisible characters already marked): blanks marked, counted, and
        held until seen when it will not fit."""
        cut = ""
        if len(text) > MAX_CODE_CHARS:
            cut = f"\n… {len(text) - MAX_CODE_CHARS:,} more characters not shown"
            text = text[:MAX_CODE_CHARS]
        self.count = line_count(text)
        rows = read_diff(text)
        marked = mark_blanks(text)
        if rows is not None and self._folds_context:
            marked, rows = folded(marked, rows)
        if rows is not None and cut:
            rows = [*rows, DiffLine("fold")]
        self.panel.set_diff(rows)
        self.panel.show_text(marked + cut)
        self.panel.setAccessibleName(f"Code, {lines_said(self.count)}")
        self.seen.reset()
        if self.count > MAX_VISIBLE_LINES or len(text) > MAX_VISIBLE_LINES * _MIN_LINE_CHARS:
            # It may well scroll: closed before layout (a card never shown, for "Approve
            # all", stays closed); the first look once on screen opens it if it fits.
            self.seen.hold()
        if cut:  # never approved: part of it cannot be shown at all
            self._state.hold_until_seen(
                self._key + ".whole", "Part of the code is too long to show"
            )
        else:
            self._state.seen(self._key + ".whole")
        self._say()

    def _say(self) -> None:
        if self.count <= 1 and self.seen.complete:
            self.caption.hide()
            return
        text = lines_said(self.count)
        if not self.seen.complete:
            text += " · scroll to see all"
        self.caption.setText(text)
        self.caption.show()

    def text(self) -> str:
        """What the panel shows (marks included)."""
        return self.panel.toPlainText()


__all__ = [
    "MAX_VISIBLE_LINES",
    "CodePanel",
    "CodeView",
    "SeenScroll",
    "faint_marks",
    "scroll_reason",
]

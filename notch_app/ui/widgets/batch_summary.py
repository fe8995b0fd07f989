"""Approve all, only over what was shown (issue 20, finding 1).

"Approve all" used to approve a three-call batch from the header while only the first
card was on screen ("Delete 3 files", cannot be undone, went with it). Now it opens this
summary first: one row per call of the batch — its headline (action and key facts), its
risk lines, and whether it can be approved now or waits (and why) — and its own confirm,
"Approve the 2 ready", which arms only once every row has been on screen (scrolled to,
when they do not fit) and the summary has been in view for the arming delay. It approves
exactly the calls it listed whose gate is open; the others are named and left waiting,
and a call added to the batch after it was shown is not covered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from notch_app.ui.theme import Look, card_font, style_text
from notch_app.ui.widgets.buttons import PillButton
from notch_app.ui.widgets.shapes import GlassFrame, ThinScrollBar
from notch_app.ui.widgets.wrapped_label import WrappedLabel

MAX_LIST_HEIGHT = 360
"""Rows scroll past this height; the summary arms only once the last row was in view."""


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """One call of the batch, as the summary shows it."""

    call_id: str
    headline: str
    risks: tuple[str, ...] = ()
    risky: bool = False
    waits: str | None = None
    """Why it cannot be approved now ("Text is required"); None when it can."""


def _label(text: str, role: str, look: Look, parent: QWidget) -> QLabel:
    label = WrappedLabel(parent)  # plain text: argument text is never markup
    label.setText(text)
    style_text(label, role, look)
    return label


def _row_box(n: int, row: SummaryRow, look: Look, parent: QWidget) -> QFrame:
    """Call `n` of the batch: its headline, its risk lines, ready or why it waits."""
    box = QFrame(parent)
    box.setObjectName("SummaryRow")
    lines = QVBoxLayout(box)
    lines.setContentsMargins(0, 0, 0, 0)
    lines.setSpacing(2)
    lines.addWidget(_label(f"{n}.  {row.headline}", "KeyValue", look, box))
    for risk in row.risks:
        line = _label(f"\u26a0  {risk}", "caption", look, box)
        token = "badge_danger_text" if row.risky else "badge_warning_text"
        palette = line.palette()
        palette.setColor(line.foregroundRole(), look.color(token))
        line.setPalette(palette)
        lines.addWidget(line)
    state = "Ready" if row.waits is None else f"Waits, not approved: {row.waits}"
    lines.addWidget(_label(state, "caption", look, box))
    return box


class BatchSummary(QWidget):
    """The summary a person reads before "Approve all"; `approved(call_ids)` with the
    calls it listed as ready, `back()` for the cards one by one."""

    approved = Signal(list)
    back = Signal()

    def __init__(
        self,
        look: Look,
        rows: Sequence[SummaryRow],
        *,
        arming_ms: int = 600,
        width: int = 440,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("BatchSummary")
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground, True)
        # The card's palette and font, as a card sets them before its children exist.
        self.setPalette(look.base_palette)
        self.setFont(card_font())
        self.rows = tuple(rows)
        self.ready = tuple(r.call_id for r in self.rows if r.waits is None)
        self._seen_all = False
        self._armed = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)
        glass = GlassFrame(look, "card", self)
        glass.setFixedWidth(width)
        outer.addWidget(glass)
        frame = QVBoxLayout(glass)
        frame.setContentsMargins(20, 18, 20, 16)
        frame.setSpacing(10)
        waiting = len(self.rows) - len(self.ready)
        title = f"Approve {len(self.ready)} of {len(self.rows)} calls?"
        frame.addWidget(_label(title, "Headline", look, glass))
        frame.addWidget(_label("Each call of this turn, as it would run:", "caption", look, glass))

        self.rows_area = self._rows_area(look, width, glass)
        frame.addWidget(self.rows_area)
        if waiting:
            frame.addWidget(_label(f"{waiting} will stay waiting for you, one by one.",
                                   "caption", look, glass))  # fmt: skip

        frame.addLayout(self._buttons(look, glass))
        self.why = _label("", "Blockers", look, glass)
        self.why.setAlignment(Qt.AlignmentFlag.AlignRight)
        frame.addWidget(self.why)

        bar = self.rows_area.verticalScrollBar()
        bar.valueChanged.connect(lambda _v: self._follow())
        bar.rangeChanged.connect(lambda _lo, _hi: self._follow())
        self._arming = QTimer(self)
        self._arming.setSingleShot(True)
        self._arming.setInterval(arming_ms)
        self._arming.timeout.connect(self._arm)
        self._follow()

    def _rows_area(self, look: Look, width: int, glass: QWidget) -> QScrollArea:
        """The rows, one box per call, in an area that scrolls past MAX_LIST_HEIGHT."""
        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 6, 0)
        column.setSpacing(8)
        self.row_widgets: list[QWidget] = []
        for n, row in enumerate(self.rows, start=1):
            box = _row_box(n, row, look, content)
            column.addWidget(box)
            self.row_widgets.append(box)
        area = QScrollArea(glass)
        area.setVerticalScrollBar(ThinScrollBar(look))
        area.setWidget(content)
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        area.viewport().setAutoFillBackground(False)
        content.setAutoFillBackground(False)
        content.setFixedWidth(width - 40)
        height = content.sizeHint().height()
        area.setFixedHeight(min(height, MAX_LIST_HEIGHT))
        return area

    def _buttons(self, look: Look, glass: QWidget) -> QHBoxLayout:
        """Back to the cards, and the summary's own confirm (held until armed)."""
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.back_button = PillButton(look, "ghost", text="Back to the cards", parent=glass)
        self.back_button.clicked.connect(self.back.emit)
        risky = any(r.risky for r in self.rows if r.waits is None)
        self.approve_button = PillButton(
            look, "primary", "danger" if risky else "accent",
            text=f"Approve the {len(self.ready)} ready", parent=glass,
        )  # fmt: skip
        self.approve_button.setEnabled(False)
        self.approve_button.clicked.connect(self._approve)
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.approve_button)
        return buttons

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._armed = False
        self._arming.start()  # held for the arming delay each time it appears
        self._follow()

    def _arm(self) -> None:
        self._armed = True
        self._follow()

    def _follow(self) -> None:
        bar = self.rows_area.verticalScrollBar()
        if bar.maximum() <= 0 or bar.value() >= bar.maximum():
            self._seen_all = True  # every row has been in view (it sticks)
        ready = bool(self.ready)
        enabled = ready and self._seen_all and self._armed
        self.approve_button.setEnabled(enabled)
        if not ready:
            why = "Nothing here can be approved now"
        elif not self._seen_all:
            why = f"Scroll to see all {len(self.rows)} calls first"
        else:
            why = ""
        self.why.setText(why)
        self.why.setVisible(bool(why))
        self.approve_button.setToolTip(why)

    @property
    def armed(self) -> bool:
        """Whether its confirm acts now (every row seen, in view for the arming delay)."""
        return self.approve_button.isEnabled()

    def _approve(self) -> None:
        if self.armed:
            self.approved.emit(list(self.ready))


__all__ = ["BatchSummary", "SummaryRow"]

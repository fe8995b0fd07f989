"""The card's body: the scrolling middle between the headline and the footer.

As tall as its content up to a share of the screen, with a "More below" pill while part
of it is out of sight; the card's header and footer stay put around it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from PySide6.QtCore import QEvent, QObject, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFontMetrics,
    QGuiApplication,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QAbstractScrollArea, QFrame, QScrollArea, QWidget

from notch_app.card.state import CardState
from notch_app.ui.theme import Look
from notch_app.ui.widgets.code_view import SeenScroll
from notch_app.ui.widgets.shapes import ThinScrollBar

BODY_SCROLL_REASON = "Scroll the card to see all of it first"
"""Why confirm waits while part of a folded card's body has not been on screen."""

MAX_BODY_HEIGHT = 520
"""The card's content scrolls past this height on a small screen; header and footer stay put."""

SCREEN_SHARE = 0.7
"""No card is taller than this share of the screen it is on: a notch, not a dialog."""
SCREEN_RESERVE = 250
"""Of that share, what is not the body: the notch's own header, the identity strip, the
headline, Details, the footer and the reply line. A taller screen shows more of the card
unscrolled: what a person is about to approve should be in view, not below a fold."""
MIN_BODY_HEIGHT = 160
NOTCH_CHROME = 52
"""The notch's own header and padding around a card, in pixels."""


@runtime_checkable
class ShrinksToFit(Protocol):
    """A part of the card that scrolls inside itself and may show less of itself on a
    short screen (a code panel, a text area): the body caps it before it scrolls."""

    def natural_height(self) -> int: ...
    def shortest_height(self) -> int: ...
    def cap_height(self, height: int | None) -> None: ...
    def height(self) -> int: ...


def max_body_height(widget: QWidget) -> int:
    """How tall the card's body may grow before it scrolls, on the screen `widget` is on:
    the card as a whole stays within SCREEN_SHARE of the screen's height."""
    height: int | None = getattr(widget, "screen_height", None)
    if height is None:
        screen = widget.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return MAX_BODY_HEIGHT
        height = screen.availableGeometry().height()
    share = int(height * SCREEN_SHARE)
    chrome: Callable[[], int] | None = getattr(widget, "chrome", None)
    reserve = chrome() + NOTCH_CHROME if chrome is not None else SCREEN_RESERVE
    return max(MIN_BODY_HEIGHT, share - reserve)


class MoreBelow(QWidget):
    """A small "More below" pill under the bottom of a scrolled body, so content past the
    fold is never silently out of sight. A click scrolls down one page. While the body
    scrolls it keeps a band of its own under the viewport (the body's bottom viewport
    margin): the pill never covers a field, a list row or a code panel's lines."""

    TEXT = "More below \u2193"

    def __init__(self, body: QScrollArea, look: Look) -> None:
        super().__init__(body)
        self._body = body
        self._look = look
        metrics = QFontMetrics(look.font("caption"))
        self.resize(metrics.horizontalAdvance(self.TEXT) + 22, metrics.height() + 8)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("The card continues below; scroll to see all of it")
        self.setAccessibleName("More below")
        self.hide()

    @property
    def band(self) -> int:
        """The height kept under the body's viewport for the pill while the body scrolls."""
        return self.height() + 4

    def follow(self) -> None:
        """Show while part of the body is below the visible area, centred in its band
        under the viewport."""
        body = self._body
        bar = body.verticalScrollBar()
        scrolls = bar.maximum() > 0
        # The band comes with a scroll range and goes only once the content fits with
        # room to spare (with the band it always scrolls a little: no flip-flop).
        banded = body.viewportMargins().bottom() > 0
        if scrolls != banded:
            body.setViewportMargins(0, 0, 0, self.band if scrolls else 0)
            return  # the range changes with the margin: follow() runs again
        more = scrolls and bar.value() < bar.maximum()
        if more:
            viewport = body.viewport().geometry()
            self.move(viewport.x() + (viewport.width() - self.width()) // 2, viewport.bottom() + 3)
            self.raise_()
        self.setVisible(more)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        bar = self._body.verticalScrollBar()
        bar.setValue(bar.value() + bar.pageStep())
        event.accept()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = QColor(self._look.color("glass_fill"))
        fill.setAlpha(255)  # opaque: the text must not mix with the field beneath
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(QPen(self._look.color("ghost_border"), 1))
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        painter.setPen(self._look.color("text_quiet"))
        painter.setFont(self._look.font("caption"))
        painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.TEXT)
        painter.end()


class CardBody(QScrollArea):
    """The scrolling middle of the card, as tall as its content up to `max_body_height`."""

    def __init__(
        self, content: QWidget, content_width: int, look: Look, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setVerticalScrollBar(ThinScrollBar(look))
        self._content_width = content_width
        self._content = content
        # The content's height for the card's width: asked several times per layout pass
        # (size and minimum size, by each enclosing layout), each time a walk over every
        # block; kept until the content's layout changes.
        self._hint: QSize | None = None
        self._overflows_at_hint: bool | None = None
        """`folded()` as measured for `_hint` (kept and forgotten with it)."""
        self._unfolded = False
        self.screen_height: int | None = None
        self.chrome: Callable[[], int] | None = None
        """The card's height without this body (set by the card): the body takes what
        is left of SCREEN_SHARE, no more."""
        """The height of the screen the card is drawn for, when not the one it is on
        (`notch render --screen-size`, golden pictures)."""
        self.reserve = 0
        """Height of Notch's own lines shown above the body after the card was built (the
        words for a spoken yes): taken off the body's maximum, so the card grows no taller
        on a short screen."""
        self.setObjectName("CardBody")
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.viewport().setAutoFillBackground(False)
        content.setAutoFillBackground(False)
        self._look = look
        # The pill is made when the body first scrolls (most cards fit and never show
        # it): until then there is nothing below to point at and no band to keep.
        self._more_below: MoreBelow | None = None
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._scroll_range_changed)
        bar.valueChanged.connect(self._scrolled)

    @property
    def more_below(self) -> MoreBelow:
        """The "More below" pill (made on first need, placed as the scroll stands)."""
        pill = self._more_below
        if pill is None:
            pill = self._more_below = MoreBelow(self, self._look)
            pill.follow()
        return pill

    def _scroll_range_changed(self, _low: int, high: int) -> None:
        if self._more_below is not None:
            self._more_below.follow()
        elif high > 0:
            _ = self.more_below  # made now, and it follows the range from here on

    def _scrolled(self, _value: int) -> None:
        if self._more_below is not None:
            self._more_below.follow()

    def follow_content(self, state: CardState) -> SeenScroll:
        """From now on, pass the content's layout changes on to the card: a scroll area
        hides them, and the card must grow (up to `max_body_height`) when a field grows or
        a block appears. Called once the blocks are built: while they are added, the
        filter would be a Python call for every event. What the card holds below its fold
        must have been on screen before confirm opens, as for a scrolling code panel
        (nothing approved unseen): the returned hold follows it."""
        self._content.installEventFilter(self)
        self.refresh()
        seen = SeenScroll(
            self, state, "card:body", lambda: BODY_SCROLL_REASON, overflows=self.overflows
        )
        if self.folded():  # closed from the start, shown or not (Approve all)
            seen.hold()
        return seen

    def unfold(self) -> None:
        """Grow to the content's whole height from now on: no fold, no "More below"."""
        self._unfolded = True
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.refresh()

    def refresh(self) -> None:
        """Forget the measured height and ask the card to lay out again."""
        self._hint = None
        self._overflows_at_hint = None
        self.updateGeometry()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.refresh()
        return False

    def sizeHint(self) -> QSize:
        if self._hint is not None:
            return self._hint
        content = self._content
        width = self._content_width
        layout = content.layout()
        if layout is not None and layout.hasHeightForWidth():
            h = layout.totalHeightForWidth(width)
        else:
            h = content.sizeHint().height()
        # With `chrome` the card's own lines are measured (the voice words among them).
        reserve = 0 if self.chrome is not None else self.reserve
        most = max_body_height(self)
        limit = most - reserve
        overflows = h > most
        if not self._unfolded:
            h = self._fit_code_panels(h, limit)
            # While the "More below" band is there, it is part of what the body needs:
            # content that fits with it lets the band go (it is never under the content).
            h += self.viewportMargins().bottom()
        hint = QSize(width, h if self._unfolded else min(h, limit))
        if self._content.testAttribute(Qt.WidgetAttribute.WA_WState_Polished):
            self._hint = hint  # before polish the sizes are not final yet
            self._overflows_at_hint = overflows
        return hint

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def _fit_code_panels(self, height: int, limit: int) -> int:
        """On a short screen, code panels and text areas grow less tall (down to their
        shortest, the tallest first) so the body fits without scrolling: one scroll, the
        panel's own with its "scroll to see all" hold, never a card scrolling around a
        scrolling panel with "More below" at the panel's cut edge. Returns the content's
        height after."""
        panels = [
            w
            for w in self._content.findChildren(QAbstractScrollArea)
            if isinstance(w, ShrinksToFit) and not w.isHidden()
        ]
        if not panels:
            return height
        natural = {id(p): p.natural_height() for p in panels}
        # The content's height with every panel at its natural height, then what is over.
        whole = height + sum(natural[id(p)] - p.height() for p in panels)
        over = whole - limit
        if over > 0:
            over += self.more_below.band  # room for the band while it goes
        for panel in sorted(panels, key=lambda p: -natural[id(p)]):
            tall = natural[id(panel)]
            cap: int | None = None
            if over > 0 and tall > panel.shortest_height():
                cap = max(panel.shortest_height(), tall - over)
            panel.cap_height(cap)
            shrunk = tall - panel.height()
            over -= shrunk
            whole -= shrunk
        return whole

    def folded(self) -> bool:
        """Whether the content is taller than the body may grow: part of it is below the
        fold until scrolled to (never once unfolded)."""
        if self._unfolded:
            return False
        layout = self._content.layout()
        if layout is not None and layout.hasHeightForWidth():
            height = layout.totalHeightForWidth(self._content_width)
        else:
            height = self._content.sizeHint().height()
        return height > max_body_height(self)

    def overflows(self) -> bool:
        """`folded()` as the body is sized now: the answer of the measurement its size
        hint came from while that hint holds (until the content's layout changes), so a
        scroll range and this answer are read from the same layout. The "card:body" hold
        asks it on every scroll range and resize while the card is first shown, and each
        fresh measurement is a layout of the content and the chrome."""
        if self._unfolded:
            return False
        if self._hint is not None and self._overflows_at_hint is not None:
            return self._overflows_at_hint
        return self.folded()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._more_below is not None:
            self._more_below.follow()

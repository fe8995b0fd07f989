"""The notch: a frameless, always-on-top, translucent window at the top centre of a screen.

It has four looks — a small idle pill, an expanded card, a result glance (display only:
a dismiss × and a pin, no input), a brief passive "done" note — and moves between them with a short eased animation of its own geometry. It knows nothing
about requests or decisions: `OverlayPresenter` tells it what to show and listens to what
the person does (`activity`, `dismissRequested`, `lastInputKind`).

Focus: the window is shown without activation and refuses keyboard focus while its card
has no inputs, so a card never steals the person's typing. A click into an editable card
activates the window; `release_focus()` gives focus back after the decision.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import (
    QCoreApplication,
    QEasingCurve,
    QEvent,
    QObject,
    QPoint,
    QRect,
    QRectF,
    QSize,
    Qt,
    QVariantAnimation,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QCursor,
    QFont,
    QGuiApplication,
    QKeyEvent,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QRegion,
    QScreen,
)
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QToolButton,
    QWidget,
)

from notch_app.ui import theme
from notch_app.ui.desktop.placement import overlay_flags, places_itself
from notch_app.ui.keys import AnswerKeys, answer_keys_for_platform
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.widgets.integration_icon import InstalledIcon

Look = Literal["idle", "card", "glance", "done"]
InputKind = Literal["click", "key"]
DoneTone = Literal["approved", "declined", "neutral"]

PILL_SIZE = QSize(132, 26)
DONE_HEIGHT = 36
HEADER_HEIGHT = 36
PADDING = 8  # between the notch's edge and the card
RADIUS = 18.0
ICON_SIZE = 16
"""The integration's icon in the header, the idle pill and the side notch (px)."""

_ACTIVITY_EVENTS = frozenset(
    {
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonRelease,
        QEvent.Type.KeyPress,
        QEvent.Type.Wheel,
        QEvent.Type.InputMethod,
    }
)


def card_has_inputs(card: QWidget) -> bool:
    """True when the card holds a field the person can type into or choose from."""
    # Asked by type (filtered in C++), not by walking every child in Python.
    for kind in (QLineEdit, QAbstractSpinBox, QComboBox):
        if any(w.isEnabled() for w in card.findChildren(kind)):
            return True
    if any(not w.isReadOnly() for w in card.findChildren(QTextEdit)):
        return True
    return any(not w.isReadOnly() for w in card.findChildren(QPlainTextEdit))


def settle_layout(widget: QWidget) -> None:
    """Lay `widget` out now, to its final size, instead of over the next loop turns.

    Some fields know their height only once they know their width (a text area grows
    to its text); they ask again with a posted LayoutRequest. Answering those here
    means the notch is sized once and the first frame paints the card at its final
    size, instead of painting it, growing it and painting it again.
    """
    widget.adjustSize()
    unchanged = 0
    for _ in range(6):
        # A request climbs one level per round (field → its box → the body → the card),
        # so a round that changes nothing does not yet mean the card is settled.
        size = widget.size()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        widget.adjustSize()
        unchanged = unchanged + 1 if widget.size() == size else 0
        if unchanged == 2:
            return


def float_above_windows(widget: QWidget) -> None:
    """Make `widget` a frameless, translucent, always-on-top tool window that never steals
    focus when shown (the notch and the side notch)."""
    # Override-redirect through XWayland, where no window manager would place it right
    # (notch_app/ui/desktop/placement.py says which desktop takes which route).
    widget.setWindowFlags(overlay_flags())
    widget.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
    widget.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)


NOTCH_FILL = QColor(12, 13, 17, 244)
"""The notch's dark glass (idle pill, done note, side notch); a card gets CARD_FILL."""
CARD_FILL = QColor(18, 19, 25, 246)
NOTCH_BORDER = QColor(255, 255, 255, 34)


def paint_notch_glass(painter: QPainter, rect: QRectF, radius: float, fill: QColor) -> None:
    """Fill and outline the notch's rounded shape (the notch and the side notch)."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    path = QPainterPath()
    path.addRoundedRect(rect, radius, radius)
    painter.fillPath(path, fill)
    painter.setPen(QPen(NOTCH_BORDER, 1.0))
    painter.drawPath(path)


ICON_EDGE = QColor(255, 255, 255, 40)


def paint_integration_icon(painter: QPainter, icon: InstalledIcon, x: float, y: float) -> None:
    """Draw `icon` at (x, y), ICON_SIZE square, in the notch's dark chrome: sharp at the
    screen's pixel ratio, with a faint edge so a dark icon's tile still reads on the glass."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    rect = QRectF(x, y, ICON_SIZE, ICON_SIZE)
    icon.paint(painter, rect)
    radius = ICON_SIZE * 0.22  # the monogram's and the bundled icons' corner
    painter.setPen(QPen(ICON_EDGE, 1.0))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), radius, radius)


def screen_for_notch() -> QScreen | None:
    """The screen under the mouse pointer, else the primary screen."""
    return QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()


class _CloseButton(QToolButton):
    """The × in the card's corner: declines the card, like Esc or Cancel."""

    def __init__(self, colour: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("notchClose")
        self.setText("×")
        self.setToolTip("Decline (Esc)")
        self.setAccessibleName("Decline")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFixedSize(22, 22)
        self.setStyleSheet(
            "QToolButton#notchClose { border: none; border-radius: 11px; font-size: 16px;"
            f" color: {colour}; background: transparent; padding-bottom: 2px; }}"
            " QToolButton#notchClose:hover { background: rgba(255,255,255,28); }"
        )


class _PinButton(QToolButton):
    """Keeps a result glance on screen until it is dismissed (checked = pinned)."""

    def __init__(self, on: str, off: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("notchPin")
        self.setCheckable(True)
        self.setText("Pin")
        self.setToolTip("Keep this glance until you dismiss it")
        self.setAccessibleName("Pin")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFixedHeight(20)
        self.setStyleSheet(
            "QToolButton#notchPin { border: none; border-radius: 9px; font-size: 11px;"
            f" color: {off}; background: transparent; padding: 1px 8px; }}"
            " QToolButton#notchPin:hover { background: rgba(255,255,255,28); }"
            f" QToolButton#notchPin:checked {{ color: {on}; font-weight: 600;"
            " background: rgba(255,255,255,36); }"
        )
        self.toggled.connect(lambda on_: self.setText("Pinned" if on_ else "Pin"))


class _ElidedLabel(QLabel):
    """A one-line label that ends in "…" when the header is too narrow for it (the whole
    text is its tooltip), instead of being cut mid-letter."""

    def minimumSizeHint(self) -> QSize:
        return QSize(24, super().minimumSizeHint().height())

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def paintEvent(self, event: object) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.ColorRole.WindowText))
        shown = self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, self.width()
        )
        painter.drawText(self.rect(), int(Qt.AlignmentFlag.AlignVCenter), shown)
        painter.end()


class _HeaderAction(QToolButton):
    """A small text button in the header ("Approve all 3", "Decline all 3")."""

    def __init__(self, text: str, colour: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("notchHeaderAction")
        self.setText(text)
        self.setAccessibleName(text)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFixedHeight(20)
        self.setStyleSheet(
            "QToolButton#notchHeaderAction { border: none; border-radius: 9px;"
            f" font-size: 11px; font-weight: 600; color: {colour};"
            " background: rgba(255,255,255,20); padding: 1px 8px; }"
            " QToolButton#notchHeaderAction:hover { background: rgba(255,255,255,40); }"
            " QToolButton#notchHeaderAction:disabled { color: rgba(255,255,255,70);"
            " background: rgba(255,255,255,10); }"
        )


class _HeaderIcon(QWidget):
    """The installed integration's icon before the header's title: which integration's
    card this is, in the notch's own chrome where no block of the card can draw."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("notchIcon")
        self.setFixedSize(ICON_SIZE, ICON_SIZE)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.icon: InstalledIcon | None = None

    def set_icon(self, icon: InstalledIcon | None) -> None:
        self.icon = icon
        self.setAccessibleName(f"{icon.name} icon" if icon is not None else "")
        self.setVisible(icon is not None)
        self.update()

    def paintEvent(self, event: object) -> None:
        if self.icon is None:
            return
        painter = QPainter(self)
        paint_integration_icon(painter, self.icon, 0, 0)
        painter.end()


class NotchWindow(QWidget):
    """The overlay window. Owns geometry, looks and focus; never decides anything itself."""

    dismissRequested = Signal()
    """The person asked to decline the card on screen (Esc or ×)."""
    activity = Signal()
    """The person touched the card (mouse, key, wheel): restarts the walk-away timer."""
    pillClicked = Signal()
    doneClicked = Signal()
    """The person clicked the "done" note (it offers to undo a scope: issue 20)."""
    lookChanged = Signal(str)
    """Emitted with the new look once an animation has settled."""
    cardMoved = Signal()
    """The card on screen appeared, changed size or moved: what is under the pointer now
    may not be what the person aimed at (the presenter holds confirm)."""
    cardSettled = Signal()
    """The card on screen is fully revealed and still at its final place."""
    approveAllRequested = Signal()
    """The person pressed "Approve all" (the calls of one agent turn)."""
    approveRequested = Signal()
    """The person pressed the approve chord (Ctrl+Alt+Enter) from any application."""
    declineAllRequested = Signal()
    """The person pressed "Decline all"."""
    pinToggled = Signal(bool)
    """The person pinned (True) or unpinned the glance on screen."""
    hoverChanged = Signal(bool)
    """The person put the pointer on the notch (True) or took it off. A glance that
    appears under a pointer resting where it was is not "hovered" until the pointer moves:
    the person did not reach for it (and it would otherwise stay until they did)."""

    def __init__(
        self, settings: OverlaySettings | None = None, *, answer_keys: AnswerKeys | None = None
    ) -> None:
        super().__init__(None)
        self._settings = settings or OverlaySettings()
        # The notch itself is always dark glass, like the hardware notch it grows from;
        # only the card inside follows the theme. Its own words take the dark palette
        # so they read in the light theme too.
        self._palette = theme.palette("dark")
        self._look: Look = "idle"
        self._tone: DoneTone = "neutral"
        self._card: QWidget | None = None
        self._parked_icon: InstalledIcon | None = None
        self._accepts_focus = False
        self._rest_pos: QPoint | None = None  # the pointer when the glance on screen came
        self._hover_told = False  # hoverChanged(True) was said since the glance came
        self.last_input_kind: InputKind = "click"
        # False on a native Wayland session: the compositor places each window itself.
        self._places_itself = places_itself()
        self.setObjectName("notchWindow")
        self.setWindowTitle("Notch")
        float_above_windows(self)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFont(theme.card_font())

        text = self._palette["text"]
        quiet = self._palette["text_quiet"]
        # Children are placed by hand (resizeEvent), not by a layout: while the notch
        # grows, the card keeps its final size and is revealed, never squeezed.
        self._header = QWidget(self)
        header_row = QHBoxLayout(self._header)
        header_row.setContentsMargins(6, 0, 0, 0)
        header_row.setSpacing(6)
        self._icon = _HeaderIcon(self._header)
        self._title = _ElidedLabel(self._header)
        self._title.setObjectName("notchTitle")
        self._title.setStyleSheet(f"color: {quiet}; font-size: 12px;")
        self._counter = QLabel(self._header)
        self._counter.setObjectName("notchCounter")
        self._counter.setStyleSheet(
            f"color: {text}; font-size: 11px; font-weight: 600; padding: 1px 8px;"
            " border-radius: 9px; background: rgba(255,255,255,26);"
        )
        self._counter.setFixedHeight(20)
        self._close = _CloseButton(quiet, self._header)
        self._close.clicked.connect(self._on_close_clicked)
        self._pin = _PinButton(text, quiet, self._header)
        self._pin.toggled.connect(self.pinToggled.emit)
        self._approve_all = _HeaderAction("Approve all", text, self._header)
        self._approve_all.clicked.connect(self._on_approve_all)
        self._decline_all = _HeaderAction("Decline all", quiet, self._header)
        self._decline_all.clicked.connect(self._on_decline_all)
        self._approve_all.hide()
        self._decline_all.hide()
        # The answer chords: taken from every application only while a card is shown.
        self._chords_answer = True  # see show_card(chords=)
        self.answer_keys = answer_keys or answer_keys_for_platform(self)
        self.answer_keys.approvePressed.connect(self._on_approve_chord)
        self.answer_keys.declinePressed.connect(self._on_decline_chord)
        self._keys_hint = QLabel(self._header)
        self._keys_hint.setObjectName("notchKeysHint")
        self._keys_hint.setStyleSheet(f"color: {quiet}; font-size: 11px;")
        self._keys_hint.hide()
        header_row.addWidget(self._icon)
        header_row.addSpacing(1)
        header_row.addWidget(self._title, 1)
        header_row.addWidget(self._keys_hint)
        header_row.addWidget(self._decline_all)
        header_row.addWidget(self._approve_all)
        header_row.addWidget(self._counter)
        header_row.addWidget(self._pin)
        header_row.addWidget(self._close)
        self._card_host = QWidget(self)
        self._card_host.setObjectName("notchCardHost")
        self._note = QLabel(self)
        self._note.setObjectName("notchNote")
        self._note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._note.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        note_font = QFont(self.font())
        note_font.setPixelSize(13)
        note_font.setWeight(QFont.Weight.DemiBold)
        self._note.setFont(note_font)

        # The window is resized twice per transition (to the bounding box of both looks
        # at the start, to the final look at the end); the frames in between only change
        # the painted "reveal" shape and a mask. Animating the X11 window's own geometry
        # frame by frame raced configure events and could leave it at an in-between size.
        self._reveal = QRect(QPoint(0, 0), PILL_SIZE)
        self._target = QRect()
        self._refit_after_animation = False
        self._animation = QVariantAnimation(self)
        self._animation.setEasingCurve(QEasingCurve.Type.OutCubic)
        self._animation.valueChanged.connect(self._set_reveal)
        self._animation.finished.connect(self._on_animation_finished)

        self._apply_look_children("idle")
        self._settle(self._target_rect(PILL_SIZE))
        self._watch_screens()

    # ---- what the presenter calls -------------------------------------------------

    @property
    def look(self) -> Look:
        return self._look

    @property
    def settings(self) -> OverlaySettings:
        return self._settings

    def apply_settings(self, settings: OverlaySettings) -> None:
        """Use `settings` from now on: the idle look at the next `show_idle()`, timings
        at the next animation, the top margin at once. The presenter redraws an idle
        notch whose idle look changed."""
        margin_changed = settings.top_margin != self._settings.top_margin
        self._settings = settings
        if margin_changed and self.isVisible():
            self.reposition()

    @property
    def card(self) -> QWidget | None:
        """The card widget on screen now, if any."""
        return self._card if self._look == "card" else None

    @property
    def glance(self) -> QWidget | None:
        """The result glance on screen now, if any."""
        return self._card if self._look == "glance" else None

    @property
    def pinned(self) -> bool:
        """The glance on screen is pinned (stays until dismissed)."""
        return self._look == "glance" and self._pin.isChecked()

    def target_geometry(self) -> QRect:
        """Where the notch is going (the animation's end), else where it is."""
        return QRect(self._target) if self.is_animating() else self.geometry()

    def is_animating(self) -> bool:
        return self._animation.state() == QVariantAnimation.State.Running

    def show_idle(self) -> None:
        """Shrink to the idle pill, or hide when the person chose a hidden idle notch."""
        self._take_card()
        self.set_accepts_focus(False)
        self._look = "idle"
        if self._settings.idle_mode == "hidden" or not self._places_itself:
            # Where the compositor places windows, a pill would sit wherever it chose.
            self._animation.stop()
            self._apply_look_children("idle")
            self.hide()
            self.lookChanged.emit("idle")
            return
        self._apply_look_children("idle")
        self._animate_to(PILL_SIZE)

    @property
    def header_icon(self) -> InstalledIcon | None:
        """The integration icon the header shows with the card on screen (None: no icon)."""
        return self._icon.icon if self._look == "card" else None

    @property
    def parked_icon(self) -> InstalledIcon | None:
        """The icon the idle pill shows: the parked card a click on it brings back."""
        return self._parked_icon

    def set_parked_icon(self, icon: InstalledIcon | None) -> None:
        """Show `icon` on the idle pill (the parked card a click brings back); None: none."""
        if icon != self._parked_icon:
            self._parked_icon = icon
            self.update()

    def show_card(
        self,
        card: QWidget,
        *,
        title: str,
        position: int,
        total: int,
        icon: InstalledIcon | None = None,
        chords: bool = True,
    ) -> None:
        """Expand into `card`. `position`/`total` drive the "1 of 3" counter (hidden for one);
        `icon` is the installed integration's icon for the header (None shows none).
        `chords` False: the answer chords do not answer what is shown (the batch's
        summary has its own button), so the header does not offer them."""
        self._take_card()
        self._card = card
        self._chords_answer = chords
        if card.parentWidget() is not self._card_host:
            card.setParent(self._card_host)  # costly (restyles the card): build it here instead
        card.move(0, 0)
        self._title.setText(title)
        self._icon.set_icon(icon)
        self.set_counter(position, total)
        self._look = "card"
        self._apply_look_children("card")
        # Shown inside the (now visible) host: a hidden widget defers its layout.
        card.show()
        settle_layout(card)
        card.removeEventFilter(self)
        card.installEventFilter(self)  # follows the card when it grows or shrinks
        self.set_accepts_focus(card_has_inputs(card))
        self._animate_to(self._card_size(card))

    def show_glance(self, view: QWidget, *, title: str, icon: InstalledIcon | None = None) -> None:
        """Expand into a result glance: `view` under a header with `title`, a pin and a
        dismiss ×. Never takes keyboard focus; nothing on it decides anything."""
        self._take_card()
        self._card = view
        if view.parentWidget() is not self._card_host:
            view.setParent(self._card_host)
        view.move(0, 0)
        self._title.setText(title)
        self._icon.set_icon(icon)
        self._counter.setVisible(False)
        self._pin.blockSignals(True)
        self._pin.setChecked(False)
        self._pin.blockSignals(False)
        self._look = "glance"
        self._rest_pos = QCursor.pos()
        self._hover_told = False
        self._apply_look_children("glance")
        view.show()
        settle_layout(view)
        view.removeEventFilter(self)
        view.installEventFilter(self)
        self.set_accepts_focus(False)
        self._animate_to(self._card_size(view))

    def set_batch_actions(
        self, count: int, *, approvable: bool, why: str = "", armed: bool = True
    ) -> None:
        """Offer "Approve all" / "Decline all" for `count` calls of one agent turn (hidden
        below 2). Approve all is enabled only when `approvable` (every card's confirm gate
        is open; `why` says what is not) and takes clicks only while `armed`, as the
        card's own confirm; Decline all is never held."""
        shown = count >= 2 and self._look == "card"
        self._approve_all.setVisible(shown)
        self._decline_all.setVisible(shown)
        self._fit_keys_hint()
        if not shown:
            return
        # The counter beside them says how many ("1 of 3").
        self._approve_all.setAccessibleName(f"Approve all {count}")
        self._decline_all.setAccessibleName(f"Decline all {count}")
        self._approve_all.setEnabled(approvable)
        self._approve_all.setToolTip(
            f"See all {count} calls of this turn in one summary, then approve the ready ones"
            if approvable
            else why
        )
        self._approve_all.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, not armed)

    @property
    def batch_actions(self) -> tuple[QToolButton, QToolButton]:
        """The header's (Approve all, Decline all) buttons."""
        return self._approve_all, self._decline_all

    def set_counter(self, position: int, total: int) -> None:
        self._counter.setText(f"{position} of {total}")
        self._counter.setVisible(total > 1)

    def show_done(self, text: str, tone: DoneTone = "neutral") -> None:
        """A brief passive note (the presenter ends it); takes no input, holds no card."""
        self._take_card()
        self.set_accepts_focus(False)
        self._look = "done"
        self._tone = tone
        # One line at most the card's width: a long sentence ends in "…" (its whole text
        # is the tooltip), never cut at both ends.
        room = self._settings.card_width - 48
        self._note.setText(
            self._note.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, room)
        )
        self._note.setToolTip(text)
        self._apply_look_children("done")
        width = max(200, min(self._settings.card_width, self._note.sizeHint().width() + 48))
        self._animate_to(QSize(width, DONE_HEIGHT))

    @property
    def card_parent(self) -> QWidget:
        """Build cards as children of this widget: reparenting a styled card later costs
        a full restyle (10–20 ms), building it in place costs nothing extra."""
        return self._card_host

    def take_card(self) -> QWidget | None:
        """Detach and return the card on screen (e.g. to park it) without changing looks."""
        return self._take_card()

    def refit(self) -> None:
        """The card's size changed (a field appeared, a supersede): follow it."""
        if self._look in ("card", "glance") and self._card is not None:
            size = self._card_size(self._card)
            if size != self._target.size():
                self._animate_to(size)

    def set_accepts_focus(self, accepts: bool) -> None:
        """Allow or refuse keyboard focus without remapping the window (no flicker)."""
        self._accepts_focus = accepts
        handle = self.windowHandle()
        if handle is not None:
            handle.setFlag(Qt.WindowType.WindowDoesNotAcceptFocus, not accepts)

    def release_focus(self) -> None:
        """Give keyboard focus back after a decision.

        Qt cannot activate another application's window, so the notch briefly unmaps:
        the window manager then returns focus to the window the person was using.
        """
        was_active = self.isActiveWindow()
        self.set_accepts_focus(False)
        if was_active and self.isVisible():
            self.hide()
            self.show()

    def anchor_screen(self) -> QScreen | None:
        return screen_for_notch()

    def reposition(self) -> None:
        """Move to the top centre of the screen under the pointer (screens changed)."""
        size = self._target.size() if self.is_animating() else self.size()
        self._animation.stop()
        if self._look == "card":
            self.cardMoved.emit()
        self._settle(self._target_rect(size))
        self._announce_settled()

    # ---- geometry ----------------------------------------------------------------

    def _card_size(self, card: QWidget) -> QSize:
        hint = card.sizeHint().expandedTo(card.minimumSizeHint()).expandedTo(card.minimumSize())
        width = max(hint.width(), self._settings.card_width)
        card.resize(width, hint.height())
        screen = self.anchor_screen()
        max_h = (
            screen.availableGeometry().height() - 2 * self._settings.top_margin if screen else 900
        )
        height = min(hint.height() + HEADER_HEIGHT + PADDING, max_h)
        return QSize(width + 2 * PADDING, height)

    def _target_rect(self, size: QSize) -> QRect:
        screen = self.anchor_screen()
        if screen is None:
            return QRect(QPoint(0, 0), size)
        area = screen.availableGeometry()
        x = area.x() + (area.width() - size.width()) // 2
        return QRect(QPoint(x, area.y() + self._settings.top_margin), size)

    def _animate_to(self, size: QSize) -> None:
        target = self._target_rect(size)
        if self.is_animating() and target == self._target:
            return
        if self._look == "card":
            self.cardMoved.emit()
        # Where the notch is on screen right now, also in the middle of an animation.
        start = QRect(self._reveal).translated(self.geometry().topLeft())
        self._target = target
        self._animation.stop()
        if not self.isVisible():
            # Appearing from nothing (first show or hidden idle): start as the pill, or
            # where the compositor places windows, as a window of its final size.
            self._settle(self._target_rect(PILL_SIZE) if self._places_itself else target)
            self.show()
            start = self.geometry()
        if self._settings.expand_ms == 0 or start == target or not self._places_itself:
            self._settle(target)
            self._announce_settled()
            return
        if self._look in ("card", "glance") and start.height() < HEADER_HEIGHT + 16:
            # Open far enough that the first frame already shows the top of the card (or
            # glance): the person sees it one frame after it arrives, not a few ticks later.
            start = self._target_rect(QSize(start.width(), HEADER_HEIGHT + 16))
        box = start.united(target)
        self.setGeometry(box)
        self._animation.setDuration(self._settings.expand_ms)
        self._animation.setStartValue(start.translated(-box.topLeft()))
        self._animation.setEndValue(target.translated(-box.topLeft()))
        self._set_reveal(start.translated(-box.topLeft()))
        self._animation.start()

    def _set_reveal(self, reveal: object) -> None:
        if not isinstance(reveal, QRect):
            return
        dirty = self._reveal.united(reveal)
        self._reveal = QRect(reveal)
        self._layout_children()
        # The mask keeps clicks and pixels outside the shape off the screen, with or
        # without a compositor.
        self.setMask(QRegion(self._reveal))
        self.update(dirty)  # the old and the new shape; the rest stays transparent

    def _settle(self, rect: QRect) -> None:
        self._target = QRect(rect)
        # Where the compositor places windows, a window that grows in place can run off
        # the screen: open the new size as a new window, which it places whole.
        remap = not self._places_itself and self.isVisible() and rect.size() != self.size()
        if remap:
            self.hide()
        if not self._places_itself:
            self.setFixedSize(rect.size())  # a fixed size floats it where windows tile
        self.setGeometry(rect)
        self._reveal = QRect(QPoint(0, 0), rect.size())
        self.clearMask()
        self._layout_children()
        if remap:
            self.show()
        self.update()

    def _on_animation_finished(self) -> None:
        self._settle(self._target)
        if self._refit_after_animation:
            self._refit_after_animation = False
            self.refit()
            if self.is_animating():
                return
        self.lookChanged.emit(self._look)
        self._announce_settled()

    def _announce_settled(self) -> None:
        if self._look == "card" and self._card is not None and not self.is_animating():
            self.cardSettled.emit()

    def resizeEvent(self, event: object) -> None:
        if not self.is_animating():
            self._reveal = QRect(QPoint(0, 0), self.size())
        self._layout_children()

    def _layout_children(self) -> None:
        r = self._reveal
        self._header.setGeometry(
            r.x() + PADDING, r.y() + 3, r.width() - 2 * PADDING + 2, HEADER_HEIGHT - 6
        )
        if self._card is not None:
            # The host ends where the notch's shape ends: while the notch grows, only the
            # part of the card the person can see is painted (the mask hides the rest on
            # screen anyway, and where masks are unsupported nothing spills outside).
            self._card_host.setGeometry(
                r.x() + PADDING,
                r.y() + HEADER_HEIGHT,
                max(0, r.width() - PADDING),
                max(0, r.height() - HEADER_HEIGHT),
            )
        self._note.setGeometry(r)

    def _apply_look_children(self, look: Look) -> None:
        self._follow_answer_keys(look == "card")
        self._header.setVisible(look in ("card", "glance"))
        self._card_host.setVisible(look in ("card", "glance"))
        self._pin.setVisible(look == "glance")
        if look != "card":
            self._approve_all.hide()
            self._decline_all.hide()
        self._close.setToolTip("Dismiss" if look == "glance" else "Decline (Esc)")
        self._close.setAccessibleName("Dismiss" if look == "glance" else "Decline")
        self._note.setVisible(look == "done")
        if look == "done":
            colour = QColor(
                {
                    "approved": self._palette.get("badge_success_text", "#8fe0b5"),
                    "declined": self._palette["text_quiet"],
                    "neutral": self._palette["text"],
                }[self._tone]
            )
            # A palette change, not a style sheet: restyling costs milliseconds per card.
            palette = self._note.palette()
            palette.setColor(QPalette.ColorRole.WindowText, colour)
            self._note.setPalette(palette)
        self.setCursor(
            Qt.CursorShape.PointingHandCursor if look == "idle" else Qt.CursorShape.ArrowCursor
        )
        self._layout_children()

    def _take_card(self) -> QWidget | None:
        card, self._card = self._card, None
        if card is not None:
            card.hide()  # stays a child of the card host: a parked card comes back cheaply
        return card

    # ---- painting ----------------------------------------------------------------

    def paintEvent(self, event: object) -> None:
        painter = QPainter(self)
        rect = QRectF(self._reveal).adjusted(0.5, 0.5, -0.5, -0.5)
        fill = CARD_FILL if self._look in ("card", "glance") else NOTCH_FILL
        paint_notch_glass(painter, rect, min(RADIUS, rect.height() / 2), fill)
        if self._look == "idle":
            # A quiet "listening" dot so the idle pill reads as alive, not as a glitch.
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(self._palette.get("success_fill", "#30a46c")))
            r = 3.5
            c = rect.center()
            painter.drawEllipse(c + QPoint(int(rect.width() / 2 - 16), 0), r, r)
            if self._parked_icon is not None:
                # The parked card a click on the pill brings back, mirroring the dot.
                # Whole pixels: the glass's 0.5 px inset would blur the icon.
                x, y = round(rect.left()) + 8, round(rect.center().y() - ICON_SIZE / 2)
                paint_integration_icon(painter, self._parked_icon, x, y)
        painter.end()

    # ---- input -------------------------------------------------------------------

    def showEvent(self, event: object) -> None:
        handle = self.windowHandle()
        if handle is not None:
            handle.setFlag(Qt.WindowType.WindowDoesNotAcceptFocus, not self._accepts_focus)
            # Every mouse and key event for this window passes here first, whichever
            # child it is for: one place to notice activity and clicks into the card.
            handle.removeEventFilter(self)
            handle.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if (
            kind == QEvent.Type.Resize
            and watched is self._card
            and self._look in ("card", "glance")
        ):
            # A card's final size is known only once its layout has run on screen (and it
            # changes when a field appears): follow it, after any running animation.
            if self.is_animating():
                self._refit_after_animation = True
            else:
                self.refit()
            return False
        if (
            kind == QEvent.Type.MouseMove
            and self._look == "glance"
            and not self._hover_told
            and QCursor.pos() != self._rest_pos
        ):
            self._say_hovered()  # the person moved the pointer on the glance
        if kind in _ACTIVITY_EVENTS:
            if kind == QEvent.Type.KeyPress:
                self.last_input_kind = "key"
            elif kind == QEvent.Type.MouseButtonPress:
                self.last_input_kind = "click"
                if self._look == "idle":
                    self.pillClicked.emit()
                elif self._look == "done":
                    self.doneClicked.emit()
                elif self._look == "card" and self._accepts_focus:
                    self.activateWindow()
                    card = self._card
                    focus = self.focusWidget()
                    if card is not None and (focus is None or not card.isAncestorOf(focus)):
                        # Enter/Esc and Tab work from here even when the click hit no field.
                        card.setFocus(Qt.FocusReason.MouseFocusReason)
            if self._look == "card":
                self.activity.emit()
        return False

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Esc reaches here when no widget in the card used it (an open list keeps its own).
        if event.key() == Qt.Key.Key_Escape and self._look == "card":
            self.last_input_kind = "key"
            self.dismissRequested.emit()
            return
        super().keyPressEvent(event)

    def enterEvent(self, event: object) -> None:
        if self._look == "glance" and QCursor.pos() == self._rest_pos:
            return  # it grew under a resting pointer: hovered once the pointer moves
        self._say_hovered()

    def leaveEvent(self, event: object) -> None:
        self._hover_told = False
        self.hoverChanged.emit(False)

    def _say_hovered(self) -> None:
        self._hover_told = True
        self.hoverChanged.emit(True)

    def _on_approve_all(self) -> None:
        self.last_input_kind = "click"
        self.approveAllRequested.emit()

    def _on_decline_all(self) -> None:
        self.last_input_kind = "click"
        self.declineAllRequested.emit()

    def _follow_answer_keys(self, card_shown: bool) -> None:
        if card_shown:
            self.answer_keys.grab()
        else:
            self.answer_keys.release()
        self._fit_keys_hint()

    def _fit_keys_hint(self) -> None:
        # The short form beside "Approve all" / "Decline all": never cut mid-word.
        keys = self.answer_keys
        crowded = not self._approve_all.isHidden()
        offered = self._look == "card" and self._chords_answer
        hint = (keys.short_hint if crowded else keys.hint) if offered else ""
        self._keys_hint.setText(hint)
        self._keys_hint.setToolTip(keys.hint)
        self._keys_hint.setVisible(bool(hint))

    @property
    def keys_hint(self) -> str:
        """The answer chords the header offers now ("" when none: no card, or no
        global keys on this platform)."""
        return self._keys_hint.text() if not self._keys_hint.isHidden() else ""

    def _on_approve_chord(self) -> None:
        if self._look == "card":
            self.last_input_kind = "key"
            self.approveRequested.emit()

    def _on_decline_chord(self) -> None:
        if self._look == "card":
            self.last_input_kind = "key"
            self.dismissRequested.emit()

    def _on_close_clicked(self) -> None:
        self.last_input_kind = "click"
        self.dismissRequested.emit()

    # ---- screens -----------------------------------------------------------------

    def _watch_screens(self) -> None:
        app = QGuiApplication.instance()
        if not isinstance(app, QGuiApplication):
            return
        app.screenAdded.connect(self._on_screen_added)
        app.screenRemoved.connect(lambda _s: self.reposition())
        for screen in app.screens():
            self._on_screen_added(screen, reposition=False)

    def _on_screen_added(self, screen: QScreen, reposition: bool = True) -> None:
        screen.geometryChanged.connect(lambda _r: self.reposition())
        screen.availableGeometryChanged.connect(lambda _r: self.reposition())
        if reposition:
            self.reposition()

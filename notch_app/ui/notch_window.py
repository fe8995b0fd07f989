"""The notch: a frameless, always-on-top, translucent window at the top centre of a screen.

It has four looks — a small idle pill, an expanded card, a result glance (display only:
a dismiss × and a pin, no input), a brief passive "done" note — and moves between them
with a short eased animation of its own geometry (`notch_app.ui.notch.shape`). It knows
nothing about requests or decisions: `OverlayPresenter` tells it what to show and
listens to what the person does (`activity`, `dismissRequested`, `lastInputKind`).

Focus: the window is shown without activation and refuses keyboard focus while its card
has no inputs, so a card never steals the person's typing. A click into an editable card
activates the window; `release_focus()` gives focus back after the decision.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import QEvent, QObject, QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QCursor,
    QFont,
    QGuiApplication,
    QKeyEvent,
    QPainter,
    QPalette,
    QScreen,
)
from PySide6.QtWidgets import QLabel, QToolButton, QWidget

from notch_app.ui import theme
from notch_app.ui.keys import AnswerKeys, answer_keys_for_platform
from notch_app.ui.notch.fitting import card_has_inputs, settle_layout
from notch_app.ui.notch.glass import (
    CARD_FILL,
    ICON_SIZE,
    NOTCH_BORDER,
    NOTCH_FILL,
    RADIUS,
    float_above_windows,
    paint_integration_icon,
    paint_notch_glass,
    screen_for_notch,
)
from notch_app.ui.notch.header import NotchHeader
from notch_app.ui.notch.shape import HEADER_HEIGHT, PADDING, PILL_SIZE, Look, NotchShape
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.widgets.integration_icon import InstalledIcon

__all__ = [  # the notch's parts, importable from here as before the split
    "CARD_FILL",
    "HEADER_HEIGHT",
    "ICON_SIZE",
    "NOTCH_BORDER",
    "NOTCH_FILL",
    "PADDING",
    "PILL_SIZE",
    "RADIUS",
    "DoneTone",
    "InputKind",
    "Look",
    "NotchWindow",
    "card_has_inputs",
    "float_above_windows",
    "paint_integration_icon",
    "paint_notch_glass",
    "screen_for_notch",
    "settle_layout",
]

InputKind = Literal["click", "key"]
DoneTone = Literal["approved", "declined", "neutral"]

DONE_HEIGHT = 36

_ACTIVITY_EVENTS = frozenset(
    {
        QEvent.Type.MouseButtonPress,
        QEvent.Type.MouseButtonRelease,
        QEvent.Type.KeyPress,
        QEvent.Type.Wheel,
        QEvent.Type.InputMethod,
    }
)


class NotchWindow(NotchShape):
    """The overlay window. Owns geometry, looks and focus; never decides anything itself."""

    dismissRequested = Signal()
    """The person asked to decline the card on screen (Esc or ×)."""
    activity = Signal()
    """The person touched the card (mouse, key, wheel): restarts the walk-away timer."""
    pillClicked = Signal()
    doneClicked = Signal()
    """The person clicked the "done" note (it offers to undo a scope: issue 20)."""
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
        super().__init__(settings or OverlaySettings())
        # The notch itself is always dark glass, like the hardware notch it grows from;
        # only the card inside follows the theme. Its own words take the dark palette
        # so they read in the light theme too.
        self._palette = theme.palette("dark")
        self._tone: DoneTone = "neutral"
        self._parked_icon: InstalledIcon | None = None
        self.paused = False
        """The person paused Notch (tray): the idle pill's dot turns amber, as the tray's."""
        self._accepts_focus = False
        self._rest_pos: QPoint | None = None  # the pointer when the glance on screen came
        self._hover_told = False  # hoverChanged(True) was said since the glance came
        self.last_input_kind: InputKind = "click"
        self.setObjectName("notchWindow")
        self.setWindowTitle("Notch")
        float_above_windows(self)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFont(theme.card_font())
        # Children are placed by hand (resizeEvent), not by a layout: while the notch
        # grows, the card keeps its final size and is revealed, never squeezed.
        self._make_header()
        # The answer chords: taken from every application only while a card is shown.
        self._chords_answer = True  # see show_card(chords=)
        self.answer_keys = answer_keys or answer_keys_for_platform(self)
        self.answer_keys.approvePressed.connect(self._on_approve_chord)
        self.answer_keys.declinePressed.connect(self._on_decline_chord)
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
        self._apply_look_children("idle")
        self._settle(self._target_rect(PILL_SIZE))
        self._watch_screens()

    def _make_header(self) -> None:
        """The header row (`NotchHeader`), its buttons wired to what the person asks."""
        header = self._header = NotchHeader(self._palette, self)
        self._icon, self._title, self._counter = header.icon, header.title, header.counter
        self._close, self._pin = header.close_button, header.pin
        self._approve_all, self._decline_all = header.approve_all, header.decline_all
        self._keys_hint = header.keys_hint
        self._close.clicked.connect(self._on_close_clicked)
        self._pin.toggled.connect(self.pinToggled.emit)
        self._approve_all.clicked.connect(self._on_approve_all)
        self._decline_all.clicked.connect(self._on_decline_all)

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
        self._header.set_batch_actions(count if shown else 0, approvable, why, armed)
        self._fit_keys_hint()

    @property
    def batch_actions(self) -> tuple[QToolButton, QToolButton]:
        """The header's (Approve all, Decline all) buttons."""
        return self._approve_all, self._decline_all

    def set_counter(self, position: int, total: int) -> None:
        self._header.set_counter(position, total)

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

    # ---- geometry (the rest is NotchShape's) -------------------------------------

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
            dot = ("warning_fill", "#f5a524") if self.paused else ("success_fill", "#30a46c")
            painter.setBrush(QColor(self._palette.get(*dot)))
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
        self._header.fit_keys_hint(self.answer_keys, self._look == "card" and self._chords_answer)

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

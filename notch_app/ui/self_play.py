"""`notch demo` plays itself when nobody answers: a click on the card, as a person's.

Under `xvfb-run -a notch demo` (or with a person who stepped away) no one can see the
cards, and the demo would wait forever. So once a card has been on screen, armed, for
`wait_s` with no input at all, the demo says so on the card and in the terminal, gives
the person `notice_s` more, then presses the card's confirm itself — by a mouse click
delivered to the notch's window at the button, through Qt's input path (the one a
platform's click takes: the window's event filters, the arming hold, the confirm gate),
never by calling the card or the service. No QtTest: the events are built and sent here. A card whose confirm is gated is declined by
its × instead.

A person's answer is never overridden: any input on a card (a click, a key, the wheel)
hands that card to the person for good, and a card that changes or leaves the screen
while the demo waits is never clicked.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QMouseEvent, QWindow
from PySide6.QtWidgets import QAbstractButton, QApplication, QWidget

from notch_app.ui.overlay_presenter import OverlayPresenter


class SelfPlay(QObject):
    """Answers the card on screen by a click once nobody has touched it for `wait_s`."""

    def __init__(
        self,
        presenter: OverlayPresenter,
        say: Callable[[str], None],
        *,
        wait_s: float,
        notice_s: float = 1.5,
    ) -> None:
        super().__init__(presenter)
        self._presenter = presenter
        self._say = say
        self._notice_ms = int(notice_s * 1000)
        self._clicking = False
        self._watched: str | None = None  # the callId the countdown is for
        self._noticed: str | None = None  # the callId told "the demo answers"
        self._persons: set[str] = set()  # cards the person touched: never answered here
        self.answered: list[str] = []
        """The callIds the demo answered itself, in order."""
        self._countdown = QTimer(self)
        self._countdown.setSingleShot(True)
        self._countdown.setInterval(int(wait_s * 1000))
        self._countdown.timeout.connect(self._notice)
        self._press = QTimer(self)
        self._press.setSingleShot(True)
        self._press.timeout.connect(self._click)
        presenter.armedChanged.connect(self._on_armed)
        presenter.window.activity.connect(self._on_activity)

    def left_to_person(self, call_id: str) -> bool:
        """True once the person touched `call_id`'s card and no countdown or press is
        pending: from then on the demo never answers it (`_on_armed` passes it over)."""
        pending = self._countdown.isActive() or self._press.isActive()
        return call_id in self._persons and not pending

    def _on_armed(self, call_id: str, armed: bool) -> None:
        if not armed or call_id in self._persons:
            return
        if self._noticed == call_id:
            # Armed again after the notice resized the card: press after the pause.
            if not self._press.isActive():
                self._press.start(self._notice_ms)
            return
        self._watched = call_id
        self._noticed = None
        self._press.stop()
        self._countdown.start()

    def _on_activity(self) -> None:
        if self._clicking:
            return  # the demo's own click passing through the window
        request = self._presenter.on_screen
        if request is not None:
            self._persons.add(request.call_id)  # the person has this one now
        self._countdown.stop()
        self._press.stop()
        if self._noticed is not None:
            card = self._card()
            note = getattr(card, "reply_field", None)
            if note is not None:
                note.show_note(None)
            self._noticed = None

    def _card(self) -> QWidget | None:
        """The card on screen, if it is still the one the countdown is for."""
        request = self._presenter.on_screen
        if request is None or request.call_id != self._watched:
            return None
        return self._presenter.window.card

    def _button(self, card: QWidget) -> tuple[QAbstractButton, str] | None:
        confirm = getattr(card, "confirm_button", lambda: None)()
        state = getattr(card, "state", lambda: None)()
        if isinstance(confirm, QAbstractButton) and getattr(state, "confirm_enabled", False):
            return confirm, f"clicks {confirm.text() or 'confirm'} itself"
        close = self._presenter.window.findChild(QAbstractButton, "notchClose")
        if close is None:
            return None
        blockers = list(getattr(state, "blockers", lambda: [])())
        why = f" (its confirm waits for: {blockers[0]})" if blockers else ""
        return close, f"declines it with ×{why}"

    def _notice(self) -> None:
        card = self._card()
        if card is None or self._watched is None:
            return
        target = self._button(card)
        if target is None:
            return
        waited = self._countdown.interval() / 1000
        line = f"Nobody answered for {waited:g} s: the demo {target[1]}."
        note = getattr(card, "reply_field", None)
        if note is not None:
            note.show_note(line)
        self._say(line)
        self._noticed = self._watched
        if self._presenter.armed:
            self._press.start(self._notice_ms)

    def _click(self) -> None:
        card, call_id = self._card(), self._watched
        if card is None or call_id is None or self._noticed != call_id:
            return  # it changed or left
        if not self._presenter.armed:
            return  # held (it moved or changed): the next arming presses after the pause
        target = self._button(card)
        window = self._presenter.window
        handle = window.windowHandle()
        if target is None or handle is None:
            return
        button = target[0]
        at = button.mapTo(window, button.rect().center())
        self.answered.append(call_id)
        self._clicking = True
        try:
            click_window(handle, at)
        finally:
            self._clicking = False


def click_window(window: QWindow, at: QPoint) -> None:
    """A left press and release at `at` (window coordinates), sent to the notch's window as
    the platform's click reaches it: the window finds the widget under the point (a held
    confirm is transparent to it), its event filters see both, and the release clicks
    only the widget that took the press."""
    local = QPointF(at)
    screen = QPointF(window.mapToGlobal(at))
    for kind, held in (
        (QEvent.Type.MouseButtonPress, Qt.MouseButton.LeftButton),
        (QEvent.Type.MouseButtonRelease, Qt.MouseButton.NoButton),
    ):
        event = QMouseEvent(
            kind, local, local, screen, Qt.MouseButton.LeftButton, held,
            Qt.KeyboardModifier.NoModifier,
        )  # fmt: skip
        QApplication.sendEvent(window, event)

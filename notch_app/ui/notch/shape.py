"""Where the notch is and how it grows: its place at the top centre of a screen, the size
of its look, and the short eased reveal between two looks.

The window is resized twice per transition (to the bounding box of both looks at the
start, to the final look at the end); the frames in between only change the painted
"reveal" shape and a mask. Animating the X11 window's own geometry frame by frame raced
configure events and could leave it at an in-between size.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import QEasingCurve, QPoint, QRect, QSize, QVariantAnimation, Signal
from PySide6.QtGui import QRegion, QScreen
from PySide6.QtWidgets import QWidget

from notch_app.ui.desktop.placement import places_itself
from notch_app.ui.notch.glass import screen_for_notch
from notch_app.ui.overlay_settings import OverlaySettings

Look = Literal["idle", "card", "glance", "done"]

PILL_SIZE = QSize(132, 26)
HEADER_HEIGHT = 36
PADDING = 8  # between the notch's edge and the card


class NotchShape(QWidget):
    """The notch's geometry and reveal; `NotchWindow` adds its looks, header and input."""

    lookChanged = Signal(str)
    """Emitted with the new look once an animation has settled."""
    cardMoved = Signal()
    """The card on screen appeared, changed size or moved: what is under the pointer now
    may not be what the person aimed at (the presenter holds confirm)."""
    cardSettled = Signal()
    """The card on screen is fully revealed and still at its final place."""

    def __init__(self, settings: OverlaySettings) -> None:
        super().__init__(None)
        self._settings = settings
        self._look: Look = "idle"
        self._card: QWidget | None = None
        # False on a native Wayland session: the compositor places each window itself.
        self._places_itself = places_itself()
        self._reveal = QRect(QPoint(0, 0), PILL_SIZE)
        self._target = QRect()
        self._masked: QRect | None = None
        """The reveal the window was last masked to and drawn for (None: unmasked)."""
        self._refit_after_animation = False
        self._animation = QVariantAnimation(self)
        self._animation.setEasingCurve(QEasingCurve.Type.OutCubic)
        self._animation.valueChanged.connect(self._set_reveal)
        self._animation.finished.connect(self._on_animation_finished)

    def _layout_children(self) -> None:
        """Place the window's children in the reveal shape (the window says how)."""

    def target_geometry(self) -> QRect:
        """Where the notch is going (the animation's end), else where it is."""
        return QRect(self._target) if self.is_animating() else self.geometry()

    def is_animating(self) -> bool:
        return self._animation.state() == QVariantAnimation.State.Running

    def refit(self) -> None:
        """The card's size changed (a field appeared, a supersede): follow it."""
        if self._look in ("card", "glance") and self._card is not None:
            size = self._card_size(self._card)
            if size != self._target.size():
                self._animate_to(size)

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
            # Settled at once, as an animation's end would: the same signal, so what
            # follows the look (the pill's hover words, tests) does not go stale.
            self.lookChanged.emit(self._look)
            self._announce_settled()
            return
        if self._look in ("card", "glance") and start.height() < HEADER_HEIGHT + 16:
            # Open far enough that the first frame already shows the top of the card (or
            # glance): the person sees it one frame after it arrives, not a few ticks later.
            start = self._target_rect(QSize(start.width(), HEADER_HEIGHT + 16))
        box = start.united(target)
        self.setGeometry(box)
        # Quiet while its values are set: a finished animation says its new end value at
        # once (the whole target laid out and masked for nothing), and start() says the
        # start again after _set_reveal below has shown it.
        self._animation.blockSignals(True)
        self._animation.setDuration(self._settings.expand_ms)
        self._animation.setStartValue(start.translated(-box.topLeft()))
        self._animation.setEndValue(target.translated(-box.topLeft()))
        self._animation.blockSignals(False)
        self._set_reveal(start.translated(-box.topLeft()))
        self._animation.start()

    def _set_reveal(self, reveal: object) -> None:
        if not isinstance(reveal, QRect):
            return
        if reveal == self._masked and reveal == self._reveal:
            return  # already this shape, laid out, masked and drawn (start() says it again)
        dirty = self._reveal.united(reveal)
        self._reveal = QRect(reveal)
        self._layout_children()
        # The mask keeps clicks and pixels outside the shape off the screen, with or
        # without a compositor.
        self.setMask(QRegion(self._reveal))
        self._masked = QRect(reveal)
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
        self._masked = None
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

"""Result glances on the notch: a tool result's blocks, shown once no card is waiting.

A glance shows for `glance_ms` (paused while the pointer is on the notch; pinned, until
dismissed), steps aside for a card that arrives and comes back, whole, after the cards.
One that cannot be drawn is skipped, never fatal; a failure is a sentence to read.
"""

from __future__ import annotations

import sys
from collections import deque

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from notch_app.runtime.presenter import ResultGlance
from notch_app.ui.overlay.state import GlanceFactory, OverlayState, WarmingCardFactory

MAX_WAITING_GLANCES = 8
"""Result glances kept waiting for the notch; older ones are dropped (a flood of results
never grows memory or keeps the notch busy for minutes)."""


class OverlayGlances(OverlayState):
    """The presenter's result glances: waiting, on screen, paused, pinned, set aside."""

    def _init_glances(self, factory: GlanceFactory | None) -> None:
        self._glance_factory = factory
        self._results: deque[ResultGlance] = deque(maxlen=MAX_WAITING_GLANCES)
        self._result_on_screen: tuple[ResultGlance, QWidget] | None = None
        self._glance_left_ms: int | None = None  # paused: what was left of its time
        self._glance_warmed = False  # a glance was built off screen (warm_glance)
        self._glance_timer = QTimer(self)
        self._glance_timer.setSingleShot(True)
        self._glance_timer.timeout.connect(self._end_glance)
        self.window.pinToggled.connect(self._on_pin_toggled)
        self.window.hoverChanged.connect(self._on_hover_changed)

    def _warm_glance_once(self) -> None:
        """The first card is on screen and the person is reading it: build a glance off
        screen now (once), so the result that may follow shows as fast as later ones."""
        if self._glance_warmed:
            return
        self._glance_warmed = True
        if isinstance(self._factory, WarmingCardFactory):
            self._factory.warm_glance(self.window.card_parent)

    def show_result(self, glance: ResultGlance) -> None:
        """A tool result's glance (or a background failure line): shown once no card is
        waiting, for `glance_ms`."""
        self._results.append(glance)
        if self._resting():
            self._after_done()

    def results_may_follow(self) -> None:
        """A gateway attached: its cards, and its reads' glances, may come before any card
        was shown, so the card and glance code is readied now (once), off screen. Not at
        startup: an idle Notch no agent uses holds neither (~20 MiB, see
        benchmarks/README-overlay.md); a first card with no gateway before it pays the
        first use once."""
        if not self._glance_warmed:
            QTimer.singleShot(0, self._warm_for_gateway)

    def _warm_for_gateway(self) -> None:
        if self._glance_warmed:  # a card came first, or a second gateway
            return
        if isinstance(self._factory, WarmingCardFactory):
            self._factory.warm_up(self.window.card_parent)
        self._warm_glance_once()

    @property
    def result_on_screen(self) -> ResultGlance | None:
        """The result glance the notch shows now, if any."""
        shown = self._result_on_screen
        return shown[0] if shown is not None and self.window.look == "glance" else None

    @property
    def waiting_results(self) -> tuple[ResultGlance, ...]:
        return tuple(self._results)

    # ---- result glances ---------------------------------------------------------

    def _show_result(self, result: ResultGlance) -> None:
        title = " ".join(result.title.split())[:60]
        if result.failure is not None:
            # A sentence to read, not a tick: it stays as long as a glance.
            self._show_done(
                f"{title} failed: {result.failure}", "declined", self._settings.glance_ms
            )
            return
        if not result.blocks or self._glance_factory is None:
            self._show_done(f"Finished ✓  {title}", "approved")
            return
        try:
            built = self._glance_factory(result, self.window.card_parent)
        except Exception as exc:  # a glance that cannot be drawn is skipped, never fatal
            print(
                f"notch: cannot show the glance of {result.integration_id} "
                f"{result.tool_name}: {exc}",
                file=sys.stderr,
            )
            self._after_done()
            return
        self._hold()
        self._result_on_screen = (result, built.widget)
        self._glance_left_ms = None
        self.window.show_glance(built.widget, title=built.title, icon=built.icon)
        self._glance_timer.start(self._settings.glance_ms)
        self._follow_notch()

    def _end_glance(self) -> None:
        """The glance on screen is done (its time ran out, or it was dismissed)."""
        self._glance_timer.stop()
        self._drop_glance()
        if self.window.look == "glance":
            self._after_done()

    def _drop_glance(self) -> None:
        shown, self._result_on_screen = self._result_on_screen, None
        self._glance_left_ms = None
        if shown is not None:
            widget = shown[1]
            if widget is self.window.glance:
                self.window.take_card()
            widget.hide()
            widget.deleteLater()

    def _step_glance_aside(self) -> None:
        """A card is coming: the glance on screen goes back to the front of the line and
        shows again, whole, after the cards."""
        shown = self._result_on_screen
        if shown is None or self.window.look != "glance":
            return
        self._glance_timer.stop()
        self._drop_glance()
        self._results.appendleft(shown[0])

    def _on_pin_toggled(self, pinned: bool) -> None:
        if self.window.look != "glance":
            return
        if pinned:
            self._glance_timer.stop()
        else:
            self._glance_timer.start(self._settings.glance_ms)

    def _on_hover_changed(self, inside: bool) -> None:
        if self.window.look != "glance" or self.window.pinned:
            return
        if inside and self._glance_timer.isActive():
            self._glance_left_ms = self._glance_timer.remainingTime()
            self._glance_timer.stop()
        elif not inside and self._glance_left_ms is not None:
            # Back from the pointer: at least a second more, to finish the line read.
            self._glance_timer.start(max(self._glance_left_ms, 1000))
            self._glance_left_ms = None

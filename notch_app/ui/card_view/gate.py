"""The card's confirm gate as the person sees it: confirm buttons open or closed, and
the line under the footer that says what it waits for ("Fill in Subject")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from notch_app.card.state import REQUIRED_MESSAGE
from notch_app.ui.blocks import CardContext
from notch_app.ui.blocks.text import wrapped_label
from notch_app.ui.card_view.frame import CardFrame


def listed(reasons: tuple[str, ...]) -> str:
    """Up to three reasons joined, then how many more."""
    more = f" (and {len(reasons) - 3} more)" if len(reasons) > 3 else ""
    return "; ".join(reasons[:3]) + more


class ConfirmGate:
    """Opens and closes the card's confirm buttons with its CardState's gate, and says
    why it is closed (the line under the footer is made the first time it has words)."""

    def __init__(self, ctx: CardContext, frame: CardFrame) -> None:
        self._ctx = ctx
        self._frame = frame
        self._last: tuple[bool, tuple[str, ...], tuple[str, ...]] | None = None
        self._blockers: QLabel | None = None
        self._required_reasons: dict[str, list[str]] | None = None
        self._plain_last: list[str] | None = None
        """The blockers last applied, when none of them is worded by what was touched."""
        """ "Subject is required" → the paths of the inputs labelled Subject."""

    def apply(self) -> None:
        """Follow the state's gate now (nothing is touched while it is as last applied)."""
        state = self._ctx.state
        enabled = state.confirm_enabled
        blockers = state.blockers() if not enabled else []
        if blockers == self._plain_last:
            return  # the same reasons, none of them worded by what was touched
        # Said once: a folded field and the fold can both wait on "Open Details …".
        reasons = tuple(dict.fromkeys(blockers))
        # The line under the footer leaves out "is required" for fields the person has
        # not touched: an untouched form never looks like it failed validation (the
        # quiet `*` is the marker). The tooltip and accessible description say it all.
        loud = reasons
        if reasons:
            # Said from the moment the card shows, and gone with its reason; a required
            # field nobody has touched yet is asked for, not scolded ("Fill in Subject").
            loud = tuple(self._asked(r) for r in reasons)
        gate = (enabled, reasons, loud)
        # Next time, the same reasons need no look when none is worded by what was
        # touched ("Fill in Subject" becomes "Subject is required" once it was).
        self._plain_last = None if loud != reasons or self._worded(reasons) else blockers
        if gate == self._last:
            return
        self._last = gate
        why = listed(reasons)
        for button in self._ctx.confirm_buttons:
            button.setEnabled(enabled)
            button.setToolTip("" if enabled else why)
            button.setAccessibleDescription("" if enabled else f"Unavailable: {why}")
        self._say(listed(loud))

    def _worded(self, reasons: tuple[str, ...]) -> bool:
        """Whether one of `reasons` is said one way or another by what was touched."""
        required = self._by_reason()
        return any(r in required for r in reasons)

    def _asked(self, reason: str) -> str:
        """ "Fill in Subject" for "Subject is required" while a field of that label is
        untouched; any other reason as it is."""
        paths = self._by_reason().get(reason)
        state = self._ctx.state
        if paths is not None and any(not state.is_touched(p) for p in paths):
            return f"Fill in {reason.removesuffix(' ' + REQUIRED_MESSAGE)}"
        return reason

    def _by_reason(self) -> dict[str, list[str]]:
        """ "Subject is required" → the paths of the inputs labelled Subject."""
        if self._required_reasons is None:
            by_reason: dict[str, list[str]] = {}
            for b in self._ctx.state.inputs:
                by_reason.setdefault(f"{b.label} {REQUIRED_MESSAGE}", []).append(b.path)
            self._required_reasons = by_reason
        return self._required_reasons

    def _say(self, line: str) -> None:
        if self._blockers is None:
            if not line:
                return
            self._blockers = wrapped_label("Blockers", self._ctx.look, selectable=False)
            self._blockers.setAlignment(Qt.AlignmentFlag.AlignRight)
            self._frame.column.insertWidget(self._frame.under_footer(), self._blockers)
        self._blockers.setText(line)
        self._blockers.setVisible(bool(line))

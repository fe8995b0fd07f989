"""The notch's header row over a card or a glance, in the notch's own chrome.

The installed integration's icon and the title, the answer chords' hint, "Decline all" /
"Approve all" for the calls of one agent turn, the "1 of 3" counter, Pin (glances) and ×.
No block of a card can draw here.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from notch_app.ui.keys import AnswerKeys
from notch_app.ui.notch.glass import ICON_SIZE, paint_integration_icon
from notch_app.ui.widgets.integration_icon import InstalledIcon


class CloseButton(QToolButton):
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


class PinButton(QToolButton):
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


class ElidedLabel(QLabel):
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


class HeaderAction(QToolButton):
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


class HeaderIcon(QWidget):
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


class NotchHeader(QWidget):
    """The header row; the window connects its buttons and places it by hand."""

    def __init__(self, palette: dict[str, str], parent: QWidget) -> None:
        super().__init__(parent)
        text = palette["text"]
        quiet = palette["text_quiet"]
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 0, 0, 0)
        row.setSpacing(6)
        self.icon = HeaderIcon(self)
        self.title = ElidedLabel(self)
        self.title.setObjectName("notchTitle")
        self.title.setStyleSheet(f"color: {quiet}; font-size: 12px;")
        self.counter = QLabel(self)
        self.counter.setObjectName("notchCounter")
        self.counter.setStyleSheet(
            f"color: {text}; font-size: 11px; font-weight: 600; padding: 1px 8px;"
            " border-radius: 9px; background: rgba(255,255,255,26);"
        )
        self.counter.setFixedHeight(20)
        self.close_button = CloseButton(quiet, self)
        self.pin = PinButton(text, quiet, self)
        self.approve_all = HeaderAction("Approve all", text, self)
        self.decline_all = HeaderAction("Decline all", quiet, self)
        self.approve_all.hide()
        self.decline_all.hide()
        self.keys_hint = QLabel(self)
        self.keys_hint.setObjectName("notchKeysHint")
        self.keys_hint.setStyleSheet(f"color: {quiet}; font-size: 11px;")
        self.keys_hint.hide()
        row.addWidget(self.icon)
        row.addSpacing(1)
        row.addWidget(self.title, 1)
        row.addWidget(self.keys_hint)
        row.addWidget(self.decline_all)
        row.addWidget(self.approve_all)
        row.addWidget(self.counter)
        row.addWidget(self.pin)
        row.addWidget(self.close_button)

    def set_counter(self, position: int, total: int) -> None:
        """ "2 of 3" (hidden for a single card)."""
        self.counter.setText(f"{position} of {total}")
        self.counter.setVisible(total > 1)

    def set_batch_actions(self, count: int, approvable: bool, why: str, armed: bool) -> None:
        """Show "Approve all" / "Decline all" for `count` calls (0: hide them); Approve
        all enabled only when `approvable` (else `why` is its tooltip), taking clicks only
        while `armed`."""
        shown = count >= 2
        self.approve_all.setVisible(shown)
        self.decline_all.setVisible(shown)
        if not shown:
            return
        # The counter beside them says how many ("1 of 3").
        self.approve_all.setAccessibleName(f"Approve all {count}")
        self.decline_all.setAccessibleName(f"Decline all {count}")
        self.approve_all.setEnabled(approvable)
        self.approve_all.setToolTip(
            f"See all {count} calls of this turn in one summary, then approve the ready ones"
            if approvable
            else why
        )
        self.approve_all.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, not armed)

    def fit_keys_hint(self, keys: AnswerKeys, offered: bool) -> None:
        """Say the answer chords while `offered`: the short form beside "Approve all" /
        "Decline all", never cut mid-word."""
        crowded = not self.approve_all.isHidden()
        hint = (keys.short_hint if crowded else keys.hint) if offered else ""
        self.keys_hint.setText(hint)
        self.keys_hint.setToolTip(keys.hint)
        self.keys_hint.setVisible(bool(hint))

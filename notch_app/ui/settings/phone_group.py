"""The "Answer from your phone" group on the Settings list page: the opt-in switch, the
QR code that pairs a phone in person, and the paired phones with Unpair (which removes a
phone's key at once).

The ui does not know how pairing works (that is `notch_app.phone`): the app hands the
window a `PhoneChoices`, which makes invitations and lists and unpairs phones.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from typing import Protocol

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from notch_app.runtime.policy_book import PolicyBook, PolicyRefused, PolicyWriteError
from notch_app.ui.settings.action_panel import _label

QR_PIXELS = 220


class Invitation(Protocol):
    @property
    def url(self) -> str: ...

    def qr_rows(self) -> list[list[bool]]: ...


class PairedPhone(Protocol):
    @property
    def device_id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def paired_at(self) -> float: ...


class PhoneChoices(Protocol):
    """What Settings asks of the app about phones (`notch_app.phone.answering.PhoneAnswers`)."""

    problem: str | None

    def invite(self) -> Invitation: ...

    def paired(self) -> Sequence[PairedPhone]: ...

    def unpair(self, device_id: str) -> bool: ...


def qr_pixmap(rows: list[list[bool]], size: int = QR_PIXELS) -> QPixmap:
    """A QR code's modules drawn black on white, whole pixels per module."""
    count = max(1, len(rows))
    module = max(1, size // count)
    side = module * count
    pixmap = QPixmap(side, side)
    pixmap.fill(QColor("white"))
    painter = QPainter(pixmap)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor("black"))
    for y, row in enumerate(rows):
        for x, dark in enumerate(row):
            if dark:
                painter.drawRect(QRect(x * module, y * module, module, module))
    painter.end()
    return pixmap


def _row(title: str, explanation: str, control: QWidget) -> QWidget:
    row = QWidget()
    row.setObjectName("Row")
    line = QHBoxLayout(row)
    line.setContentsMargins(16, 12, 16, 12)
    line.setSpacing(16)
    texts = QVBoxLayout()
    texts.setSpacing(2)
    texts.addWidget(_label(title, "ActionTitle"))
    texts.addWidget(_label(explanation, "Quiet", wrap=True))
    line.addLayout(texts, 1)
    line.addWidget(control, 0, Qt.AlignmentFlag.AlignVCenter)
    return row


class PhoneGroup:
    """Builds the rows of the group. `report(text)` shows a problem in the status line."""

    def __init__(
        self, book: PolicyBook, phone: PhoneChoices | None, report: Callable[[str], None]
    ) -> None:
        self.book = book
        self.phone = phone
        self._report = report
        self.rows: list[QWidget] = []

        self.switch = QCheckBox()
        self.switch.setObjectName("Switch")
        self.switch.setAccessibleName("Answer from your phone")
        self.switch.setChecked(book.phone.enabled)
        self.switch.toggled.connect(self._toggled)
        self.rows.append(
            _row(
                "Answer from your phone",
                "A waiting card also shows on the phones you pair here, on this local "
                "network (its own encrypted page). Off: nothing is served.",
                self.switch,
            )
        )

        self.pair_button = QPushButton("Pair a phone…")
        self.pair_button.setEnabled(book.phone.enabled and phone is not None)
        self.pair_button.clicked.connect(self.show_invitation)
        self.rows.append(
            _row(
                "Pair a phone",
                "Scan the code with the phone's camera, in person: it works once, for five minutes."
                if phone is not None
                else "Pair from the Settings of the running Notch (its tray icon), or with "
                "`notch phone pair`.",
                self.pair_button,
            )
        )
        self.invitation = QWidget()
        column = QVBoxLayout(self.invitation)
        column.setContentsMargins(16, 4, 16, 12)
        self.qr = QLabel()
        self.qr.setAccessibleName("Pairing code")
        self.url = _label("", "Faint", wrap=True)
        self.url.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.qr, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addWidget(self.url)
        self.invitation.hide()
        self.invitation_url = ""
        self.rows.append(self.invitation)

        self.unpair_buttons: dict[str, QPushButton] = {}
        for device in phone.paired() if phone is not None else ():
            button = QPushButton("Unpair")
            button.setAccessibleName(f"Unpair {device.name}")
            button.clicked.connect(lambda _=False, d=device.device_id: self._unpair(d))
            self.unpair_buttons[device.device_id] = button
            when = datetime.datetime.fromtimestamp(device.paired_at).strftime("%Y-%m-%d")
            self.rows.append(
                _row(device.name, f"Paired {when}; its answers are signed with its key.", button)
            )
        if phone is not None and phone.problem:
            self.rows.append(_label(phone.problem, "Error", wrap=True))

    def show_invitation(self) -> None:
        """Make a one-time invitation and show its QR code and URL."""
        if self.phone is None:
            return
        try:
            made = self.phone.invite()
        except Exception as exc:  # a folder that cannot be written: said, not raised
            self._report(str(exc))
            return
        self.qr.setPixmap(qr_pixmap(made.qr_rows()))
        # A URL has no spaces to wrap at: break points every 40 characters, so the page
        # keeps its width (the whole URL is the tooltip).
        self.url.setText("\u200b".join(made.url[i : i + 40] for i in range(0, len(made.url), 40)))
        self.url.setToolTip(made.url)
        self.invitation_url = made.url
        self.invitation.show()

    def _toggled(self, on: bool) -> None:
        try:
            self.book.set_phone(on)
        except (PolicyRefused, PolicyWriteError) as exc:
            self._report(str(exc))

    def _unpair(self, device_id: str) -> None:
        if self.phone is not None and self.phone.unpair(device_id):
            self.unpair_buttons.pop(device_id).setEnabled(False)
            self._report("Unpaired: that phone's key is gone; it can no longer answer.")

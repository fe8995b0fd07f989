"""Settings: what the person allowed "for this session", each with "Stop allowing", and
what they approved before (the "changed since" marks' memory), with "Forget it all".

The running Notch keeps these in memory only (runtime/allowances.py): this section shows
them in the Settings window `notch run` opens, never in a `notch settings` of its own
(which has no running service to ask). "Always allow" is undone where it was made, with
the action's Asks first switch, on the integration's own page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from notch_app.runtime.allowances import Allowance
from notch_app.runtime.approval_memory import ApprovalMemory


class AllowanceSource(Protocol):
    """The running service, as this section needs it."""

    @property
    def allowances(self) -> _Listed: ...

    def forget_allowance(self, allowance_id: str) -> Allowance | None: ...


class _Listed(Protocol):
    def listed(self) -> list[Allowance]: ...


def _label(text: str, name: str, *, wrap: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)  # command text is never markup
    label.setObjectName(name)
    label.setWordWrap(wrap)
    return label


class AllowanceRow(QFrame):
    """One allowance: what it covers, for which agent session, and "Stop allowing"."""

    def __init__(self, allowance: Allowance, stop: Callable[[str], None]) -> None:
        super().__init__()
        self.setObjectName("Row")
        self.allowance_id = allowance.id
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 10, 14, 10)
        text = QVBoxLayout()
        text.setSpacing(2)
        text.addWidget(_label(f"{allowance.title}: {allowance.label}", "RowName", wrap=True))
        session = allowance.agent_session
        whose = f"session {session[:24]}" if session else "this asker's connection"
        text.addWidget(_label(f"Until {whose} ends", "Faint", wrap=True))
        row.addLayout(text, 1)
        self.stop_button = QPushButton("Stop allowing")
        self.stop_button.setAccessibleName(f"Stop allowing {allowance.label}")
        self.stop_button.clicked.connect(lambda: stop(allowance.id))
        row.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignVCenter)


def allowances_section(
    source: AllowanceSource, changed: Callable[[], None], group: Callable[[list[QWidget]], QFrame]
) -> QWidget | None:
    """The section's rows in a settings group, or None when nothing is allowed."""
    listed: Sequence[Allowance] = source.allowances.listed()
    if not listed:
        return None

    def stop(allowance_id: str) -> None:
        source.forget_allowance(allowance_id)
        changed()

    rows: list[QWidget] = [AllowanceRow(a, stop) for a in listed]
    holder = QWidget()
    column = QVBoxLayout(holder)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(6)
    column.addWidget(_label("ALLOWED FOR THIS SESSION", "SectionTitle"))
    column.addWidget(group(rows))
    return holder


def memory_section(memory: ApprovalMemory, changed: Callable[[], None]) -> QWidget:
    """ "What you approved before": how many actions Notch compares new cards with, and
    "Forget it all", after which no card is marked until new approvals."""
    holder = QFrame()
    holder.setObjectName("Row")
    row = QHBoxLayout(holder)
    row.setContentsMargins(14, 10, 14, 10)
    text = QVBoxLayout()
    count = memory.actions()
    text.addWidget(_label("What you approved before", "RowName"))
    said = (
        f"Kept for {count} action{'s' if count != 1 else ''}, without secret values: new "
        "cards mark a new payee, a look-alike domain, an unusual amount"
        if count
        else "Nothing kept yet: cards are marked once you have approved an action"
    )
    text.addWidget(_label(said, "Faint", wrap=True))
    row.addLayout(text, 1)
    button = QPushButton("Forget it all")
    button.setObjectName("ForgetApprovals")
    button.setEnabled(bool(count))

    def forget() -> None:
        memory.clear()
        changed()

    button.clicked.connect(forget)
    row.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)
    return holder

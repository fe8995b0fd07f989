"""Test doubles for the overlay tests: a recording DecisionSink and a minimal card.

The card here only stands in where a test is about the notch itself (queue, parking,
focus, animation), not about what a card shows; tests of real cards use CardView.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from notch_app.runtime.presenter import ConfirmationRequest, DecidedBy
from notch_app.ui.overlay_presenter import BuiltCard


@dataclass
class RecordingSink:
    """Records every call the overlay makes on the service, in order."""

    calls: list[tuple[Any, ...]] = field(default_factory=list)

    def decide(
        self,
        call_id: str,
        approved: bool,
        final_arguments: dict[str, Any] | None,
        edited_paths: list[str],
        decided_by: DecidedBy,
    ) -> None:
        self.calls.append(("decide", call_id, approved, final_arguments, edited_paths, decided_by))

    def parked(self, call_id: str) -> None:
        self.calls.append(("parked", call_id))

    def restored(self, call_id: str) -> None:
        self.calls.append(("restored", call_id))

    def shown(self, call_id: str) -> None:
        self.calls.append(("shown", call_id))

    def of(self, kind: str) -> list[tuple[Any, ...]]:
        return [c for c in self.calls if c[0] == kind]


class SimpleCard(QWidget):
    """A card with an optional text field bound to `text`, Approve and Cancel."""

    decided = Signal(bool, dict, list)

    def __init__(
        self, request: ConfirmationRequest, *, editable: bool, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.request = request
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"{request.tool_name} ({request.call_id})"))
        self.field: QLineEdit | None = None
        if editable:
            self.field = QLineEdit(str(request.arguments.get("text", "")))
            layout.addWidget(self.field)
        self.approve = QPushButton("Approve")
        self.cancel = QPushButton("Cancel")
        layout.addWidget(self.approve)
        layout.addWidget(self.cancel)
        self.approve.clicked.connect(self._approve)
        self.cancel.clicked.connect(lambda: self.decided.emit(False, {}, []))
        self.setFixedSize(440, 120 if editable else 90)

    def _approve(self) -> None:
        args = dict(self.request.arguments)
        edited: list[str] = []
        if self.field is not None and self.field.text() != args.get("text"):
            args["text"] = self.field.text()
            edited.append("text")
        self.decided.emit(True, args, edited)


def simple_factory(request: ConfirmationRequest, parent: QWidget | None = None) -> BuiltCard:
    card = SimpleCard(request, editable="text" in request.arguments, parent=parent)
    return BuiltCard(card, title=f"Test · {request.tool_name}", action=request.tool_name)


def request(call_id: str, tool: str = "send_thing", **args: Any) -> ConfirmationRequest:
    return ConfirmationRequest(call_id, "com.example.test", tool, dict(args))

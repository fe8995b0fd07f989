"""The studio's "As the person sets it" box: try the card with Asks first off, and a
"Refuse when" rule, without touching anyone's settings. The stage then shows what the
person would see instead of the card (the glance line, or the refusal's line) and the
exact sentence the agent would be told."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
)

from notch_app.manifest.model import Tool
from notch_app.runtime.decision import Decision
from notch_app.runtime.model_sentence import sentence_for_model
from notch_app.runtime.policy_book import OverGuard
from notch_app.runtime.policy_book.guards import refusal_line, refusal_sentence, trips
from notch_app.runtime.policy_book.hook import glance_text
from notch_app.runtime.policy_book.schema_paths import argument_paths


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the person's choices do to one call, as the studio previews it."""

    card: bool
    """The card shows (Asks first on, no rule refuses)."""
    person_sees: str
    """Instead of the card: the notch's one line."""
    agent_hears: str


class PolicyTrial(QGroupBox):
    """`changed` whenever a choice changes; `outcome(tool, arguments)` says what follows."""

    changed = Signal()

    def __init__(self) -> None:
        super().__init__("As the person sets it")
        self.setObjectName("StudioPolicyTrial")
        column = QVBoxLayout(self)
        self.asks_first = QCheckBox("Asks first")
        self.asks_first.setObjectName("StudioAsksFirst")
        self.asks_first.setChecked(True)
        self.asks_first.setToolTip("Off: the action runs the moment the agent picks it")
        self.asks_first.toggled.connect(lambda _on: self.changed.emit())
        column.addWidget(self.asks_first)
        row = QHBoxLayout()
        row.addWidget(QLabel("Refuse when"))
        self.refuse_argument = QComboBox()
        self.refuse_argument.setObjectName("StudioRefuseArgument")
        self.refuse_argument.setAccessibleName("Refuse when argument")
        self.refuse_argument.currentIndexChanged.connect(lambda _i: self.changed.emit())
        row.addWidget(self.refuse_argument, 1)
        row.addWidget(QLabel("is over"))
        self.refuse_limit = QLineEdit()
        self.refuse_limit.setObjectName("StudioRefuseLimit")
        self.refuse_limit.setPlaceholderText("e.g. 5000")
        self.refuse_limit.setAccessibleName("Refuse when over")
        self.refuse_limit.textChanged.connect(lambda _t: self.changed.emit())
        row.addWidget(self.refuse_limit)
        column.addLayout(row)
        self.note = QLabel()
        self.note.setObjectName("StudioPolicyNote")
        self.note.setWordWrap(True)
        column.addWidget(self.note)

    def use_tool(self, tool: Tool | None) -> None:
        """Offer the tool's number arguments for a rule (the choices are kept per tool)."""
        self.refuse_argument.blockSignals(True)
        self.refuse_argument.clear()
        self.refuse_argument.addItem("(no rule)", None)
        for info in argument_paths(tool) if tool is not None else ():
            if info.numeric:
                self.refuse_argument.addItem(info.path, info.path)
        self.refuse_argument.blockSignals(False)

    def rule(self) -> OverGuard | None:
        """The "refuse when" rule set here, or None (none, or a limit that is no number)."""
        argument = self.refuse_argument.currentData()
        try:
            limit = float(self.refuse_limit.text().replace(",", ""))
        except ValueError:
            return None
        if not isinstance(argument, str) or not math.isfinite(limit):
            return None
        return OverGuard(argument=argument, limit=int(limit) if limit.is_integer() else limit)

    def outcome(self, tool: Tool, arguments: Mapping[str, Any]) -> Outcome:
        """What a call of `tool` with `arguments` does under the choices set here (the
        same words the running Notch uses), and says it in the note."""
        title = tool.display_title
        rule = self.rule()
        why = trips(rule, arguments) if rule is not None else None
        if rule is not None and why is not None:
            said = Outcome(False, refusal_line(title, rule), refusal_sentence(title, rule, why))
        elif not self.asks_first.isChecked():
            ran = Decision("studio", "autoApproved", "", tool.name, dict(arguments), (), "",
                           "policy", 0.0, scope="always")  # fmt: skip
            said = Outcome(False, glance_text(tool, arguments), sentence_for_model(ran, title))
        else:
            said = Outcome(True, "", "")
        # One short line here; the stage says in full what the person and the agent get.
        if said.card:
            self.note.setText("The card shows, as it does by default.")
        elif rule is not None and why is not None:
            self.note.setText("Refused at once: no card, the agent is told why.")
        else:
            self.note.setText("Runs without a card: the notch shows a glance.")
        return said

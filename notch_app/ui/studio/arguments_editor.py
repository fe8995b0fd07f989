"""The studio's arguments editor: the proposed arguments as JSON, checked against the
tool's inputSchema as the author types, with the problem shown under it.

`arguments_ready(dict)` fires for every text that parses as a JSON object (a mismatch
with the schema is said under the editor, and the card shows it at the field, as the
notch does for an agent's wrong proposal); text that is not a JSON object keeps the last
card and says where it breaks (line:column).
"""

from __future__ import annotations

import json
from typing import Any, Final

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from notch_app.manifest.model import Tool
from notch_app.manifest.schema import argument_problems

MAX_ARGUMENT_CHARS: Final = 1_000_000
"""Longer text is not parsed (said under the editor): an editor, not a bulk loader."""
CHECK_DELAY_MS: Final = 120
"""Typing pauses this long before the text is checked and the card rebuilt."""
PROBLEMS_SHOWN: Final = 4


def read_arguments(text: str, tool: Tool | None) -> tuple[dict[str, Any] | None, list[str]]:
    """Arguments JSON → (object or None, problems in words). None when the text is not a
    JSON object (the problem names line and column); the object with the inputSchema's
    complaints otherwise. Never raises."""
    if len(text) > MAX_ARGUMENT_CHARS:
        return None, [f"the arguments are over {MAX_ARGUMENT_CHARS:,} characters; shorten them"]
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        return None, [f"line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}"]
    except (ValueError, RecursionError) as exc:
        return None, [f"cannot read the JSON: {type(exc).__name__}"]
    if not isinstance(value, dict):
        return None, ["the arguments must be a JSON object ({...})"]
    if tool is None:
        return value, []
    return value, [str(p) for p in argument_problems(tool, value)]


class ArgumentsEditor(QWidget):
    """A JSON editor for one tool's proposed arguments, with its problem line."""

    arguments_ready = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tool: Tool | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("StudioArgumentsText")
        self.text.setAccessibleName("Arguments (JSON)")
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setTabChangesFocus(True)
        self.problem = QLabel(self)
        self.problem.setObjectName("StudioArgumentsProblem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #d9534f;")
        layout.addWidget(self.text, 1)
        layout.addWidget(self.problem)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(CHECK_DELAY_MS)
        self._timer.timeout.connect(lambda: self.check())
        self.text.textChanged.connect(self._timer.start)

    def start(self, tool: Tool, arguments: dict[str, Any]) -> None:
        """Show `arguments` for `tool` (pretty-printed) and check them."""
        self._tool = tool
        self.text.blockSignals(True)
        self.text.setPlainText(json.dumps(arguments, indent=2, ensure_ascii=False))
        self.text.blockSignals(False)
        self.check()

    def use_tool(self, tool: Tool) -> None:
        """Check the text against `tool` from now on (after a reload), keeping the text."""
        self._tool = tool
        self.check(emit=False)

    def check(self, *, emit: bool = True) -> None:
        """Check the text now: say the problem under the editor, and (with `emit`) hand a
        JSON object on to the card."""
        self._timer.stop()
        value, problems = read_arguments(self.text.toPlainText(), self._tool)
        shown = problems[:PROBLEMS_SHOWN]
        if len(problems) > PROBLEMS_SHOWN:
            shown.append(f"(and {len(problems) - PROBLEMS_SHOWN} more)")
        if value is not None and problems:
            shown.insert(0, "Does not match the inputSchema:")
        self.problem.setText("\n".join(shown))
        self.problem.setVisible(bool(shown))
        if value is not None and emit:
            self.arguments_ready.emit(value)

    @property
    def problem_text(self) -> str:
        """The problem line as shown ("" when the arguments are fine)."""
        return self.problem.text() if not self.problem.isHidden() else ""

"""The studio's problems: `notch validate`'s own findings (same messages, rule ids and
line:column), one per row. Picking one shows the offending lines of the file with the
column marked, and a button that opens the file at that line in the author's editor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from notch_app.manifest.reading import Problem
from notch_app.ui.studio.editor_launch import EditorUnavailable, open_in_editor

LINES_AROUND: Final = 2
"""Lines shown above and below the offending one."""
MAX_LINE_CHARS: Final = 160
MAX_EXCERPT_BYTES: Final = 8 * 1024 * 1024


def excerpt(path: Path, line: int, column: int) -> str:
    """The lines around `line` of `path`, numbered, with a caret under `column`; a line
    saying why when the file cannot be read. Never raises."""
    try:
        if path.stat().st_size > MAX_EXCERPT_BYTES:
            return f"{path.name} is over {MAX_EXCERPT_BYTES // (1024 * 1024)} MB: open it in your editor"
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        return f"cannot read {path.name}: {exc.strerror or exc}"
    if not lines:
        return f"{path.name} is empty"
    line = min(max(1, line), len(lines))
    first, last = max(1, line - LINES_AROUND), min(len(lines), line + LINES_AROUND)
    width = len(str(last))
    out: list[str] = []
    for number in range(first, last + 1):
        text = lines[number - 1].expandtabs(1)
        shown = text if len(text) <= MAX_LINE_CHARS else text[: MAX_LINE_CHARS - 1] + "…"
        mark = ">" if number == line else " "
        out.append(f"{mark}{number:>{width}} | {_printable(shown)}")
        if number == line:
            caret = min(max(1, column), MAX_LINE_CHARS)
            out.append(f" {' ' * width} | {' ' * (caret - 1)}^")
    return "\n".join(out)


def _printable(text: str) -> str:
    # Control characters in a file would move the excerpt's own lines: shown as U+ marks.
    return "".join(ch if ch.isprintable() or ch == " " else f"⟨U+{ord(ch):04X}⟩" for ch in text)


class ProblemsList(QWidget):
    """Every problem of the folder; `opener(path, line)` starts the editor (tests give
    their own) and returns the argv it ran."""

    def __init__(
        self,
        folder: Path,
        opener: Callable[[Path, int], list[str]] = open_in_editor,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._folder = folder
        self._opener = opener
        self._problems: list[Problem] | None = None  # None: nothing shown yet
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.heading = QLabel("Problems")
        self.heading.setObjectName("StudioProblemsHeading")
        layout.addWidget(self.heading)
        row = QHBoxLayout()
        self.rows = QListWidget(self)
        self.rows.setObjectName("StudioProblems")
        self.rows.setAccessibleName("Problems")
        self.rows.setWordWrap(True)
        self.rows.currentRowChanged.connect(self._picked)
        row.addWidget(self.rows, 3)
        side = QVBoxLayout()
        self.lines = QPlainTextEdit(self)
        self.lines.setObjectName("StudioProblemLines")
        self.lines.setReadOnly(True)
        self.lines.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.lines.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.lines.setPlaceholderText("Pick a problem to see its lines")
        side.addWidget(self.lines, 1)
        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open in editor")
        self.open_button.setObjectName("StudioOpenInEditor")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_current)
        self.note = QLabel()
        self.note.setObjectName("StudioEditorNote")
        self.note.setWordWrap(True)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.note, 1)
        side.addLayout(buttons)
        row.addLayout(side, 2)
        layout.addLayout(row)

    def show_problems(self, problems: Sequence[Problem]) -> None:
        """List `problems` (errors first as validate sorts them: by file, line, column)."""
        if self._problems is not None and list(problems) == self._problems:
            return  # the same findings: keep the picked row and its lines
        self._problems = list(problems)
        self.rows.blockSignals(True)
        self.rows.clear()
        for p in self._problems:
            item = QListWidgetItem(
                f"{p.file}:{p.line}:{p.column}: {p.severity}[{p.rule}]: {p.message}"
            )
            item.setForeground(Qt.GlobalColor.red if p.is_error else Qt.GlobalColor.darkYellow)
            self.rows.addItem(item)
        self.rows.blockSignals(False)
        errors = sum(p.is_error for p in self._problems)
        warnings = len(self._problems) - errors
        self.heading.setText(
            f"Problems: {errors} error{'s' * (errors != 1)}, "
            f"{warnings} warning{'s' * (warnings != 1)}"
            if self._problems
            else "Problems: none (notch validate passes)"
        )
        self.lines.clear()
        self.open_button.setEnabled(False)
        self.note.clear()

    def lines_of(self, index: int) -> None:
        """Show the lines of problem `index` (as a click on its row does)."""
        self.rows.setCurrentRow(index)

    def texts(self) -> list[str]:
        """Each row as shown."""
        return [self.rows.item(i).text() for i in range(self.rows.count())]

    def current(self) -> Problem | None:
        row = self.rows.currentRow()
        problems = self._problems or []
        return problems[row] if 0 <= row < len(problems) else None

    def _path(self, problem: Problem) -> Path:
        path = Path(problem.file)
        return path if path.is_absolute() else self._folder / path

    def _picked(self, row: int) -> None:
        problem = self.current()
        if problem is None:
            return
        self.lines.setPlainText(
            f"{problem.file}:{problem.line}:{problem.column}\n"
            + excerpt(self._path(problem), problem.line, problem.column)
        )
        self.open_button.setEnabled(True)
        self.note.clear()

    def open_current(self) -> None:
        """Open the picked problem's file at its line in the author's editor; a missing
        or broken editor is said beside the button."""
        problem = self.current()
        if problem is None:
            return
        try:
            argv = self._opener(self._path(problem), problem.line)
        except EditorUnavailable as exc:
            self.note.setText(str(exc))
            return
        self.note.setText(f"Opened with {Path(argv[0]).name}")

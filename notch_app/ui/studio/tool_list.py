"""The studio's tool list: every tool of the manifest, said as the notch treats it —
with its own card, with the card Notch generates, or "never asks" (read tools)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from notch_app.ui.studio.folder import ToolEntry

KIND_WORDS = {"card": "card", "generated": "generated card", "never asks": "never asks"}


class ToolList(QListWidget):
    """`picked(name)` fires when the author picks a tool (or the list is refilled and the
    picked one changes)."""

    picked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StudioToolList")
        self.setAccessibleName("Tools")
        self.setWordWrap(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._names: list[str] = []
        self._shown: list[tuple[str, str, str]] = []
        self.currentRowChanged.connect(self._row_changed)

    def show_tools(self, tools: Sequence[ToolEntry], keep: str | None) -> None:
        """List `tools`; keep `keep` picked when it is still there, else the first tool
        with a card. Emits `picked` only when the picked tool changes."""
        before = self.current_name()
        shown: list[tuple[str, str, str]] = [(t.name, t.kind, t.tool.display_title) for t in tools]
        if shown == self._shown and keep in self._names:
            return  # a save that changed no tool's name, title or kind: nothing to redraw
        self._shown = shown
        self.blockSignals(True)
        self.clear()
        self._names = [t.name for t in tools]
        for entry in tools:
            title = " ".join(entry.tool.display_title.split())[:80]
            item = QListWidgetItem(f"{title}\n{entry.name} · {KIND_WORDS[entry.kind]}")
            item.setData(Qt.ItemDataRole.UserRole, entry.name)
            item.setToolTip(_tip(entry))
            if entry.kind == "never asks":
                item.setForeground(self.palette().placeholderText())
            self.addItem(item)
        with_card = [t.name for t in tools if t.kind != "never asks"]
        wanted = keep if keep in self._names else (with_card[0] if with_card else None)
        if wanted is None and self._names:
            wanted = self._names[0]
        if wanted is not None:
            self.setCurrentRow(self._names.index(wanted))
        self.blockSignals(False)
        if wanted is not None and wanted != before:
            self.picked.emit(wanted)

    def current_name(self) -> str | None:
        row = self.currentRow()
        return self._names[row] if 0 <= row < len(self._names) else None

    def pick(self, name: str) -> None:
        """Pick the tool `name` as a click would. KeyError when it is not listed."""
        if name not in self._names:
            raise KeyError(name)
        self.setCurrentRow(self._names.index(name))

    def _row_changed(self, row: int) -> None:
        if 0 <= row < len(self._names):
            self.picked.emit(self._names[row])


def _tip(entry: ToolEntry) -> str:
    if entry.kind == "never asks":
        return "A read tool: it runs without asking the person, so it has no card."
    if entry.kind == "generated":
        return (
            "This tool asks, but declares no card: Notch asks with a card generated from "
            "its inputSchema (shown here). Declare `confirmation` to draw your own."
        )
    return "Asks with the card the manifest declares."

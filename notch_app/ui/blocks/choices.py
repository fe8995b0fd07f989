"""The choice editors of a card: a select, a toggle, a chips list (see `inputs` for
the editor they share and the text fields)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from notch_app.card.display_text import mark_invisible
from notch_app.card.interpolate import display_value
from notch_app.card.paths import MISSING
from notch_app.card.plain_errors import bad_value, quoted
from notch_app.manifest.model import ChipsBlock, SelectBlock, ToggleBlock
from notch_app.ui.blocks._context import CardContext
from notch_app.ui.blocks.inputs import InputEditor, _as_text
from notch_app.ui.widgets.chips_box import ChipsBox
from notch_app.ui.widgets.fields import ChoiceBox, Switch
from notch_app.ui.widgets.label_text import shown


def _same(a: Any, b: Any) -> bool:
    # 1 == True in Python; an option value keeps its JSON type.
    return (isinstance(a, bool) == isinstance(b, bool)) and a == b


class SelectEditor(InputEditor):
    def __init__(self, block: SelectBlock, ctx: CardContext) -> None:
        super().__init__(block, ctx)
        self.combo = ChoiceBox(ctx.look, self.container)
        self._values: list[Any] = []
        self._syncing = False
        self.combo.addItems([shown(option.label, 120) for option in block.options])
        self._values.extend(option.value for option in block.options)
        self._extra = False
        self.combo.currentIndexChanged.connect(self._picked)
        self.widget = self.finish(self.combo)

    def _picked(self, index: int) -> None:
        if self._syncing or index < 0:
            return
        self.push(self._values[index])

    def _index_of(self, value: Any) -> int:
        for i, v in enumerate(self._values):
            if _same(v, value):
                return i
        return -1

    def index_for(self, value: Any) -> int:
        """The combo row a person picks for `value`: an option's value (by JSON type,
        then by its text) or its label; -1 when no option matches."""
        index = self._index_of(value)
        if index >= 0:
            return index
        options = self.block.options
        index = next(
            (i for i, o in enumerate(options) if str(o.value) == str(value)),
            next((i for i, o in enumerate(options) if o.label == value), -1),
        )
        return index + 1 if index >= 0 and self._extra else index

    def show_value(self, value: Any) -> None:
        self._syncing = True
        try:
            if self._extra:  # drop a value the agent proposed outside the options
                self.combo.removeItem(0)
                self._values.pop(0)
                self._extra = False
            index = self._index_of(value)
            if index < 0 and value is not MISSING and value is not None:
                # Show what the agent proposed even if it is not an option; the schema
                # check reports it, the person picks a real option.
                self.combo.insertItem(0, shown(mark_invisible(display_value(value)), 120))
                self._values.insert(0, value)
                self._extra = True
                index = 0
            self.combo.setCurrentIndex(index)
        finally:
            self._syncing = False

    def shown_text(self) -> str:
        return self.combo.currentText()


class SelectBuilder:
    def build(self, block: SelectBlock, ctx: CardContext) -> QWidget:
        return SelectEditor(block, ctx).widget


# --- toggle -------------------------------------------------------------------------


class ToggleEditor(InputEditor):
    def __init__(self, block: ToggleBlock, ctx: CardContext) -> None:
        super().__init__(block, ctx, label_row=False, framed=False)
        self.box = Switch(ctx.look, shown(block.label, 200), ctx.parent)
        self.box.setObjectName("Switch")
        self.box.setCursor(Qt.CursorShape.PointingHandCursor)
        self.box.clicked.connect(self.push)
        self.widget = self.finish(self.box)

    def show_value(self, value: Any) -> None:
        self.box.setChecked(bool(value) and value is not MISSING)

    def shown_text(self) -> str:
        return self.box.text()


class ToggleBuilder:
    def build(self, block: ToggleBlock, ctx: CardContext) -> QWidget:
        return ToggleEditor(block, ctx).widget


# --- chips --------------------------------------------------------------------------


def _chip_values(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [_as_text(v) if not isinstance(v, Mapping) else display_value(v) for v in value]
    return []


class ChipsEditor(InputEditor):
    def __init__(self, block: ChipsBlock, ctx: CardContext) -> None:
        super().__init__(block, ctx)
        self.box = ChipsBox(block.placeholder, self.container, look=ctx.look)
        self.box.valuesEdited.connect(self.push)
        self.widget = self.finish(self.box, focus=self.box.entry, grows=True)

    def show_value(self, value: Any) -> None:
        self.box.set_values(_chip_values(value))

    def shown_text(self) -> str:
        return "\n".join(self.box.values())

    def set_error(self, message: str | None) -> None:
        super().set_error(message)
        # The chip the message names is marked: thirty recipients, one of them wrong.
        bad = bad_value(message)
        for chip in self.box.chips():
            chip.set_bad(bad is not None and quoted(chip.value) == f"\u201c{bad}\u201d")


class ChipsBuilder:
    def build(self, block: ChipsBlock, ctx: CardContext) -> QWidget:
        return ChipsEditor(block, ctx).widget

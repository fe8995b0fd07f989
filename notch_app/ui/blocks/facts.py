"""Display blocks for facts: `keyValue`, `metadata`, `list` and `listItem`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from notch_app.card.display_text import mark_invisible
from notch_app.card.interpolate import display_value
from notch_app.card.path_text import break_points, folder_and_names, looks_like_path
from notch_app.card.paths import MISSING
from notch_app.manifest.model import KeyValueBlock, ListBlock, ListItemBlock, MetadataBlock
from notch_app.manifest.paths import parse_single_binding
from notch_app.ui.blocks._context import CardContext
from notch_app.ui.blocks.text import wrapped_label
from notch_app.ui.theme import Look, style_text
from notch_app.ui.widgets.label_text import MAX_SHOWN_CHARS, shown

_TOP: Final = Qt.AlignmentFlag.AlignTop
_LEFT: Final = Qt.AlignmentFlag.AlignLeft
_LEFT_TOP: Final = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
"""Alignments made once: a flag combined per call builds new enum objects each time."""
_ROW_MARGINS: Final = (0, 5, 0, 6)
"""Above and below a row's title (left, top, right, bottom)."""


class KeyValueBuilder:
    def build(self, block: KeyValueBlock, ctx: CardContext) -> QWidget:
        look = ctx.look
        box = QWidget(ctx.parent)
        grid = QGridLayout(box)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(6)
        grid.setColumnStretch(1, 1)
        # Each label made inside the box (one made parentless and moved in by the grid
        # costs a reparent, its font and palette resolved again).
        for row, item in enumerate(block.items):
            key = wrapped_label("KeyLabel", look, parent=box)
            key.setText(shown(item.label, 200))
            key.setAlignment(_LEFT_TOP)
            key.setMaximumWidth(150)
            value = wrapped_label("KeyValue", look, parent=box)
            ctx.bind_text(item.value, _setter(value))
            grid.addWidget(key, row, 0, _TOP)
            grid.addWidget(value, row, 1)
        return box


class MetadataBuilder:
    def build(self, block: MetadataBlock, ctx: CardContext) -> QWidget:
        # Made inside the card: a parentless widget a visibleIf shows opens as a window.
        label = wrapped_label("Metadata", ctx.look, parent=ctx.parent)
        template = " · ".join(
            f"{item.label}: {item.value}" if item.label else item.value for item in block.items
        )
        ctx.bind_text(template, lambda t: label.setText(shown(t, 1000)))
        return label


def _setter(label: QLabel, limit: int = MAX_SHOWN_CHARS) -> Callable[[str], None]:
    """Sets `label`'s text, bounded: one per label (a lambda in a loop would share it)."""

    def apply(text: str) -> None:
        label.setText(shown(text, limit))

    return apply


_ALL = 10**9


class _ShowMore(QPushButton):
    """The "Show 3 more" control under a folded list; once pressed, the list stays whole."""

    def __init__(self, look: Look, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.expanded = False
        self.setObjectName("ListMore")
        self.setFlat(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setPalette(look.tinted_palette("ListMore", QPalette.ColorRole.ButtonText, "link"))
        self.setFont(look.font("ListMore"))
        self.clicked.connect(self._expand)
        self.hide()

    def _expand(self) -> None:
        self.expanded = True

    def set_hidden_count(self, hidden: int) -> None:
        """Say how many rows are folded away (hidden when none are)."""
        self.setText(f"Show {hidden} more" if hidden else "")
        self.setAccessibleName(f"Show {hidden} more items" if hidden else "")
        self.setVisible(hidden > 0)


def _small_label(text: str, role: str, look: Look, parent: QWidget | None = None) -> QLabel:
    label = QLabel(text, parent)
    label.setObjectName(role)
    label.setTextFormat(Qt.TextFormat.PlainText)
    style_text(label, role, look)
    return label


def _row(
    title: str,
    subtitle: str | None,
    trailing: str | None,
    index: int | None,
    look: Look,
    parent: QWidget | None = None,
) -> tuple[QFrame, QLabel, QLabel | None, QLabel | None]:
    # Each widget made inside the one it goes into: one built parentless and moved in by
    # a layout costs more (a reparent, the palette and font propagated again).
    frame = QFrame(parent)
    frame.setObjectName("ListItem")
    outer = QHBoxLayout(frame)
    outer.setContentsMargins(*_ROW_MARGINS)
    outer.setSpacing(10)
    if index is not None:
        index_label = _small_label(f"{index}.", "ListIndex", look, frame)
        outer.addWidget(index_label, 0, _TOP)
    texts = QVBoxLayout()
    texts.setSpacing(1)
    title_label = wrapped_label("ListTitle", look, parent=frame)
    title_label.setText(shown(title, 1000))
    texts.addWidget(title_label)
    sub_label = None
    if subtitle is not None:
        sub_label = wrapped_label("ListSubtitle", look, parent=frame)
        sub_label.setText(shown(subtitle, 1000))
        texts.addWidget(sub_label)
    outer.addLayout(texts, 1)
    trail_label = None
    if trailing is not None:
        trail_label = _small_label(shown(trailing, 100), "ListTrailing", look, frame)
        outer.addWidget(trail_label, 0, _TOP)
    return frame, title_label, sub_label, trail_label


def element_title(element: Any) -> str:
    """How one element of an `itemsFrom` array reads as a row title (hidden characters
    marked: the agent's text must not reverse or hide part of the row)."""
    if isinstance(element, Mapping):
        for key in ("title", "name", "label"):
            if key in element:
                return mark_invisible(display_value(element[key]))
    return mark_invisible(display_value(element))


def _element_subtitle(element: Any) -> str | None:
    if isinstance(element, Mapping):
        for key in ("subtitle", "description", "email", "detail"):
            if key in element:
                return mark_invisible(display_value(element[key]))
    return None


class ListItemBuilder:
    def build(self, block: ListItemBlock, ctx: CardContext) -> QWidget:
        frame, title, sub, trail = _row(
            block.title, block.subtitle, block.trailing, None, ctx.look, ctx.parent
        )
        ctx.bind_text(block.title, lambda t: title.setText(shown(t, 1000)))
        if sub is not None and block.subtitle is not None:
            ctx.bind_text(block.subtitle, lambda t: sub.setText(shown(t, 1000)))
        if trail is not None and block.trailing is not None:
            ctx.bind_text(block.trailing, lambda t: trail.setText(shown(t, 100)))
        return frame


class ListBuilder:
    """Fixed rows, or one row per element of a bound array (rebuilt when it changes).
    Rows past `maxVisible` fold behind a "Show N more" control: never out of reach, since
    the confirm may act on every one of them (a `delete_files` list must not hide the
    last paths behind a quiet "and 3 more")."""

    def build(self, block: ListBlock, ctx: CardContext) -> QWidget:
        box = QWidget(ctx.parent)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        fixed = list(block.items)
        # Made inside `box` in the order they stand (one moved in by a layout costs more),
        # and only those the list has: the fixed rows' column when it has fixed rows, the
        # array's when it is bound to one, "Show N more" when a row is first folded away.
        fixed_column = _column(box, layout) if fixed else None
        rows_column = _column(box, layout) if block.items_from else None
        more: _ShowMore | None = None
        built_fixed = 0
        last: list[Any] = [MISSING]

        def add_fixed(upto: int) -> None:
            nonlocal built_fixed
            if fixed_column is None:
                return
            holder, fixed_layout = fixed_column
            for i in range(built_fixed, min(upto, len(fixed))):
                row = ctx.build(fixed[i], holder)
                if block.ordered:
                    row_layout = row.layout()
                    if isinstance(row_layout, QBoxLayout):
                        index = _small_label(f"{i + 1}.", "ListIndex", ctx.look, row)
                        row_layout.insertWidget(0, index, 0, _TOP)
                fixed_layout.addWidget(row)
                if box.isVisible():
                    row.show()  # at once, not at the next event loop turn
            built_fixed = max(built_fixed, min(upto, len(fixed)))

        def show_more(hidden: int) -> None:
            nonlocal more
            if more is None:
                if not hidden:
                    return
                more = _ShowMore(ctx.look, box)
                layout.addWidget(more, 0, _LEFT)
                more.clicked.connect(lambda: show_elements(last[0]))
                _after_in_tab_order(box, more)
            more.set_hidden_count(hidden)

        def show_elements(value: Any) -> None:
            last[0] = value
            expanded = more is not None and more.expanded
            limit = len(fixed) + _ALL if expanded else block.max_visible
            add_fixed(limit)
            elements = list(value) if isinstance(value, list | tuple) else []
            room = max(0, limit - len(fixed))
            if rows_column is not None:
                _show_rows(*rows_column, elements, room, len(fixed), block.ordered, ctx.look)
            hidden = max(0, len(fixed) - limit) + max(0, len(elements) - room)
            show_more(hidden)

        if block.items_from:
            ctx.watch(parse_single_binding(block.items_from), show_elements)
        else:
            show_elements(MISSING)
        return box


def _column(box: QWidget, layout: QVBoxLayout) -> tuple[QWidget, QVBoxLayout]:
    """A column of rows inside `box`, added to its layout."""
    column_box = QWidget(box)
    column = QVBoxLayout(column_box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    layout.addWidget(column_box)
    return column_box, column


def _show_rows(
    dynamic: QWidget,
    column: QVBoxLayout,
    elements: list[Any],
    room: int,
    first: int,
    ordered: bool,
    look: Look,
) -> None:
    """One row per element of a bound array, the first `room` of them, in `column` (the
    rows shown before are taken out)."""
    while column.count():
        taken = column.takeAt(0)
        w = taken.widget() if taken is not None else None
        if w is not None:
            w.hide()
            w.setParent(None)  # gone now, not at the next event loop turn
            w.deleteLater()
    titles = [element_title(e) for e in elements]
    if len(elements) > 1 and all(looks_like_path(e) for e in elements):
        # Fifty paths say their shared folder once, then each name below it,
        # wrapping between folders, never inside a name.
        folder, names = folder_and_names(titles)
        if folder:
            where = wrapped_label("ListSubtitle", look, parent=dynamic)
            where.setObjectName("ListFolder")
            where.setText(break_points(shown(f"In {folder}", 1000)))
            column.addWidget(where)
            titles = names
    shows = dynamic.isVisible()
    for i, element in enumerate(elements[:room]):
        index = first + i + 1 if ordered else None
        title = titles[i]
        if looks_like_path(element):
            title = break_points(title)
        subtitle = _element_subtitle(element)
        if subtitle is None and index is None:
            row: QWidget = _title_row(title, look, dynamic)
        else:
            row, *_ = _row(title, subtitle, None, index, look, dynamic)
        column.addWidget(row)
        if shows:
            row.show()


def _title_row(title: str, look: Look, parent: QWidget) -> QLabel:
    """A row that is only its title (a path, a name): the title label itself, with the
    margins a `ListItem` frame's layout gives its title (the same pixels, without a frame
    and two layouts per row to make and to measure)."""
    label = wrapped_label("ListTitle", look, parent=parent)
    label.setContentsMargins(*_ROW_MARGINS)
    label.setText(shown(title, 1000))
    return label


def _after_in_tab_order(place: QWidget, widget: QWidget) -> None:
    """Put `widget`, made after the card was built, where Tab reaches it had it been made
    with `place` (right after what `place` holds): a widget made late joins the window's
    focus chain at its end, after the card's buttons."""
    # Tab order is only set between widgets that take focus: `place` takes it for this
    # one call.
    policy = place.focusPolicy()
    place.setFocusPolicy(Qt.FocusPolicy.TabFocus)
    QWidget.setTabOrder(place, widget)
    place.setFocusPolicy(policy)

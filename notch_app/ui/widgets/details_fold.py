"""The card's compact first view: its headline, one line per folded value, "Details".

`HeadlineLine` is the card's first line (`notch_app.card.headline`), live with the edits.
`FoldedFacts` says, while the form is folded, what each folded input will send ("To
sam@example.com, lee@example.com"): nothing that runs is out of view. A value too long
for its lines is cut with … and holds confirm until Details was opened once, as a
scrolling code panel holds it until scrolled (nothing approved unseen).
`DetailsToggle` unfolds the full form in place, and folds it again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from PySide6.QtCore import QEvent, QRect, QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics, QHelpEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QSizePolicy,
    QStyle,
    QStyleOptionFocusRect,
    QToolTip,
    QWidget,
)

from notch_app.card.headline import Changes, Headline, LiveFact, LiveHeadline
from notch_app.card.state import SECRET_MASK, CardState
from notch_app.card.view_shape import InputBinding
from notch_app.ui.theme import Look, style_text
from notch_app.ui.widgets.wrapped_label import SelectableLabel

DETAILS_KEY: Final = "card:details"
"""The hold a folded value too long for its line puts on confirm (see `FoldedFacts`)."""
DETAILS_REASON: Final = "Open Details to see all of {label}"
FACT_LINES: Final = 2
"""Lines a folded value is given before it is cut."""
TEXT_LINES: Final = 4
"""Lines a folded message (a multi-line text) is given before it is cut."""
_KEY_WIDTH: Final = 130
_SPACE_CHARS: Final = " \t\r\n"
_GAP: Final = 14
"""Between the label column and the values."""
_ROW_GAP: Final = 5
_KEY_FLAGS: Final = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
_VALUE_FLAGS: Final = int(
    Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap
)
"""As a word-wrapping plain-text label draws (the values are the agent's: never rich)."""


class HeadlineLine(SelectableLabel):
    """The headline in the card's title type, two lines at most, following the edits.
    Plain text, wrapped, selectable once the pointer first comes over it, as the card's
    other labels are (a selectable label makes a text document up front, and the first
    measurement of the card's chrome lays it out: ~0.3 ms of every card)."""

    def __init__(self, look: Look, state: CardState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CardHeadline")
        style_text(self, "Headline", look)
        # What follows the edits lives on a plain object: a Qt widget's own Python
        # attributes cost several times more to read and write, on every keystroke.
        self._follow = follow = _HeadlineFollow(state)
        self.current: Headline = follow.current
        self.setText(self.current.text)
        self.setAccessibleName(self.current.text)

        self.subtitle: QLabel | None = None
        """The author's subtitle under the headline: made when first shown, hidden while
        the headline says it ("in ~/Downloads" under "Delete 3 files in ~/Downloads")."""
        self.make_subtitle: Callable[[str], QLabel] | None = None
        """Makes the subtitle's label with its words, in its place (the card's frame sets
        it for a card whose view has a subtitle)."""

    def say_subtitle(self, text: str) -> None:
        """The author's subtitle as filled from the arguments now; `refresh` shows it
        where the headline does not say it."""
        self._follow.subtitle_text = text
        if self.subtitle is not None:
            self.subtitle.setText(text)

    def refresh(self) -> Headline:
        """Say the headline of the card's current arguments; returns it."""
        follow = self._follow
        state = follow.state
        arguments = state.arguments()
        said = follow.live.said(arguments, state.changes_since(follow.read_from))
        follow.read_from = arguments
        current = follow.current
        if said is not current:
            if said != current:
                self.setText(said.text)
                self.setAccessibleName(said.text)
            follow.current = self.current = said
        text = follow.subtitle_text
        if text is not None:
            # "in /home/maya/Downloads" under "Delete 3 files in ~/Downloads": said twice.
            raw = text.strip()
            if follow.subtitle_said != (raw, said.text):
                follow.subtitle_said = (raw, said.text)
                home = follow.home
                forms = {raw, raw.replace(home + "/", "~/")} if home else {raw}
                shows = bool(raw) and not any(f in said.text for f in forms)
                if shows != follow.subtitle_shows:  # a Qt call only when it changes
                    subtitle = self.subtitle
                    if subtitle is None and shows and self.make_subtitle is not None:
                        subtitle = self.subtitle = self.make_subtitle(text)
                    if subtitle is not None:
                        subtitle.setVisible(shows)
                    follow.subtitle_shows = shows
        return said


class _HeadlineFollow:
    """A HeadlineLine's part that follows the edits (see `HeadlineLine.refresh`)."""

    def __init__(self, state: CardState) -> None:
        self.state = state
        # Made again only when an argument it was made from changes (a keystroke in
        # another field costs a few dictionary lookups).
        self.live = LiveHeadline(state.tool)
        self.read_from = state.arguments()
        self.current: Headline = self.live.said(self.read_from)
        self.home = os.path.expanduser("~").rstrip("/")
        self.subtitle_text: str | None = None
        """The author's subtitle as filled now (None: the card has none)."""
        self.subtitle_said: tuple[str, str] | None = None
        self.subtitle_shows: bool | None = None


@dataclass(slots=True)
class _Fact:
    binding: InputBinding
    key: str
    """The label as drawn: one line, cut with … past _KEY_WIDTH (whole in its tooltip)."""
    key_advance: int
    words: LiveFact
    depends: frozenset[str]
    """The arguments the row's place reads besides its words: its own, its visibleIf's."""
    at: int
    """Its place among the rows."""
    full: str = ""
    line: str = ""
    """ "Label: value", for the rows' accessible description."""
    fitted: str = ""
    """The value as drawn: cut with … to its lines."""
    shown: tuple[str, int, bool] | None = None
    """What the row shows now: (value, lines, kept); None before its first refresh."""
    cut: bool = False
    worded: bool = False
    contained: bool = False
    """Its words were made from the arguments in `depends` alone: an edit of others
    leaves them as they are, with nothing to ask."""
    """The row's value was last said in a headline's words (`LiveFact`)."""


class FoldedFacts(QWidget):
    """One row per folded input: its label, and its value cut to fit a line or two.

    Drawn by one widget, not a label per key and value (forty labels on a 20-input
    card cost more than the rest of its compact view): rows are measured when their
    value changes and painted as a grid of two columns, a switch that is on across both."""

    def __init__(
        self,
        look: Look,
        state: CardState,
        inputs: list[InputBinding],
        width: int,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("FoldedFacts")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._state = state
        self._look = look
        self._key_font = look.font("KeyLabel")
        self._value_font = look.font("KeyValue")
        self._key_color = look.text_color("KeyLabel")
        self._value_color = look.text_color("KeyValue")
        self._key_width = 0
        self._facts: list[_Fact] = []
        key_metrics = QFontMetrics(self._key_font)
        self._key_metrics = key_metrics
        font_key = self._key_font.key()
        # Each label's advance and its one-line key, measured once per font and label
        # (a tool's labels are the same on each of its cards: three text measurements a
        # row, a tenth of a 20-input card's facts).
        keys = [_key_of(key_metrics, font_key, binding.label) for binding in inputs]
        for binding, (advance, _key, _key_advance) in zip(inputs, keys, strict=True):
            if binding.kind != "toggle":
                self._key_width = max(self._key_width, min(_KEY_WIDTH, advance))
        self._value_width = max(80, width - self._key_width - _GAP)
        self._metrics = QFontMetrics(self._value_font)
        self._char_width = self._metrics.averageCharWidth()
        self._advances: dict[str, int] | None = None
        """Each printable ASCII character's advance in the value font (see
        `_surely_fits`), made when first needed, once per font."""
        self._arguments: Mapping[str, Any] | None = None
        self._by_name: dict[str, list[int]] = {}
        """A top-level argument → the rows whose place reads it (their `depends`)."""
        self._loose: set[int] = set()
        """The rows whose words read arguments beyond their place (see `_rows_reading`)."""
        self._all_said = False
        """Every row has been said once (then an edit looks only at the rows it reaches)."""
        self._shown_any = False
        for binding, (_advance, key, advance) in zip(inputs, keys, strict=True):
            # One line: a long label is cut (whole in its tooltip), never stacked in three.
            depends = frozenset(
                p.partition(".")[0] for p in (binding.path, *state.visibility_paths(binding.block))
            )
            words = LiveFact(state.tool, binding.path)
            at = len(self._facts)
            self._facts.append(_Fact(binding, key, advance, words, depends, at))
            for name in depends:
                self._by_name.setdefault(name, []).append(at)
        self._said: frozenset[str] | None = None
        self._layouts: dict[int, tuple[list[tuple[_Fact, QRect, QRect]], int]] = {}
        """Width → each shown row's key and value boxes, and their height (made when
        needed; a layout pass asks at a few widths, each many times)."""
        self.cut: list[str] = []
        """The labels whose value did not fit its lines (confirm waits for Details)."""

    def refresh(self, visible: Callable[[InputBinding], bool], said: Headline) -> list[str]:
        """Show each visible input's value; an input whose whole value the headline
        already states is left out. Returns the labels whose value was cut.

        Runs on every edit: only the rows the edit can have changed are looked at (its
        value, its words' sources, its visibleIf; every row when what the headline
        states changed), and a row whose value, lines and place are as before is left
        as it is (its words are made again only when an argument they come from changed)."""
        state = self._state
        arguments = state.arguments()
        before = self._arguments
        changes = None if before is None else state.changes_since(before)
        self._arguments = arguments
        same_said = said.said == self._said
        self._said = said.said
        moved = regrouped = False
        if same_said and changes is not None and self._all_said:
            for fact in self._rows_reading(changes):
                was = (_kept(fact), fact.cut)
                moved = self._say_row(fact, visible, said, arguments, changes) or moved
                regrouped = regrouped or (_kept(fact), fact.cut) != was
        else:
            for fact in self._facts:
                moved = self._say_row(fact, visible, said, arguments, changes) or moved
            self._all_said = regrouped = True
        if regrouped:
            self.cut = [f.binding.label for f in self._facts if _kept(f) and f.cut]
            self._shown_any = any(_kept(f) for f in self._facts)
        if moved:
            self._layouts.clear()
            self.setAccessibleDescription("; ".join([f.line for f in self._facts if _kept(f)]))
            self.updateGeometry()
            self.update()
        self.setVisible(self._shown_any)
        return self.cut

    def _rows_reading(self, changes: Changes) -> list[_Fact]:
        """The rows `changes` can have changed, in order: those whose place reads one of
        the changed arguments, and those whose words read more than their place and are
        not still what they were (`LiveFact.still`)."""
        facts, by_name = self._facts, self._by_name
        rows: set[int] = set()
        for name in changes.names:
            rows.update(by_name.get(name, ()))
        for at in self._loose:
            if at not in rows and not facts[at].words.still(changes):
                rows.add(at)
        return [facts[at] for at in sorted(rows)]

    def _say_row(
        self,
        fact: _Fact,
        visible: Callable[[InputBinding], bool],
        said: Headline,
        arguments: Mapping[str, Any],
        changes: Changes | None,
    ) -> bool:
        """Make one row's value again; True when what it shows changed."""
        text, lines = self._text(fact, arguments, changes)
        if fact.worded and not fact.contained:
            self._loose.add(fact.at)
        else:
            self._loose.discard(fact.at)
        stated = fact.binding.path in said.said
        keep = bool(text) and visible(fact.binding) and not stated
        now = (text, lines, keep)
        if now == fact.shown:
            return False
        fact.shown = now
        if keep:
            width = self._value_width
            if fact.binding.kind == "toggle":
                width += self._key_width
            # A word-wrapped line ends short of the edge: keep a few characters per line.
            room = width * lines - self._char_width * 3 * lines
            if self._surely_fits(text, room):
                fitted = text  # as elidedText gives it back, without its ~8 µs
            else:
                fitted = self._metrics.elidedText(text, Qt.TextElideMode.ElideRight, room)
            fact.full = text
            fact.line = f"{fact.binding.label}: {text}"
            fact.fitted = fitted
            fact.cut = fitted != text
        return True

    def _surely_fits(self, text: str, room: int) -> bool:
        """Whether `text` is plain ASCII whose glyphs, each as wide as drawn alone, add up
        to well under `room` pixels: elidedText would give it back whole. Anything else
        (other scripts, fallback fonts, a close call) is left to elidedText."""
        if not (text.isascii() and text.isprintable()):
            return False
        if self._advances is None:
            self._advances = _ascii_advances(self._metrics, self._value_font.key())
        # A margin of two of the widest glyphs, and a tenth, for any kerning that widens.
        width = sum(map(self._advances.__getitem__, text))
        return width * 1.1 + 2 * self._metrics.maxWidth() <= room

    # --- drawing ---------------------------------------------------------------------

    def _laid_out(self, width: int) -> list[tuple[_Fact, QRect, QRect]]:
        """The shown rows' key and value boxes at `width`, as a two-column grid lays them
        out: the key column as wide as its widest shown label, each row as tall as its
        wrapped value."""
        laid = self._layouts.get(width)
        if laid is not None:
            return laid[0]
        kept = [f for f in self._facts if _kept(f)]
        column = max((f.key_advance for f in kept if f.binding.kind != "toggle"), default=0)
        key_height = self._key_metrics.height()
        rows: list[tuple[_Fact, QRect, QRect]] = []
        y = 0
        for fact in kept:
            toggle = fact.binding.kind == "toggle"
            left = 0 if toggle else column + _GAP
            room = max(1, width - left)
            box = self._metrics.boundingRect(0, 0, room, 2000, _VALUE_FLAGS, fact.fitted)
            height = max(box.height(), 0 if toggle else key_height)
            if rows:
                y += _ROW_GAP
            rows.append((fact, QRect(0, y, column, key_height), QRect(left, y, room, height)))
            y += height
        if len(self._layouts) >= 8:  # widths seen while the card was resized
            self._layouts.clear()
        self._layouts[width] = (rows, y)
        return rows

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        self._laid_out(width)
        return self._layouts[width][1]

    def sizeHint(self) -> QSize:
        width = self._value_width + self._key_width + _GAP
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(0, 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        rows = self._laid_out(self.width())
        # The keys, then the values: no box overlaps another, so one font and pen each.
        painter.setFont(self._key_font)
        painter.setPen(self._key_color)
        for fact, key_box, _value_box in rows:
            if fact.binding.kind != "toggle":
                painter.drawText(key_box, _KEY_FLAGS, fact.key)
        painter.setFont(self._value_font)
        painter.setPen(self._value_color)
        for fact, _key_box, value_box in rows:
            painter.drawText(value_box, _VALUE_FLAGS, fact.fitted)
        painter.end()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            # The whole value of a row cut with …, the whole label of a label cut.
            tip = ""
            for fact, key_box, value_box in self._laid_out(self.width()):
                if value_box.contains(event.pos()) and fact.cut:
                    tip = fact.full
                elif key_box.contains(event.pos()) and fact.key != fact.binding.label:
                    tip = fact.binding.label
            if tip:
                QToolTip.showText(event.globalPos(), tip, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def _text(
        self, fact: _Fact, arguments: Mapping[str, Any], changes: Changes | None
    ) -> tuple[str, int]:
        binding = fact.binding
        fact.worded = False
        if binding.secret:
            value = self._state.value(binding.path)
            return (SECRET_MASK if value not in (None, "") else ""), 1
        if binding.kind == "toggle":
            value = self._state.value(binding.path)
            return (f"\u2713 {binding.label}" if value is True else ""), 1
        if binding.kind == "select":
            value = self._state.value(binding.path)
            for option in getattr(binding.block, "options", ()):
                if option.value == value:
                    return option.label, 1
        fact.worded = True
        text = fact.words.said(arguments, changes)
        fact.contained = fact.words.made_only_from(fact.depends)
        if not text:
            return "", 1
        long_text = getattr(binding.block, "multiline", False) or "\n" in text
        return " ".join(text.split()), TEXT_LINES if long_text else FACT_LINES

    def facts(self) -> dict[str, str]:
        """Label → the whole value, of each row shown (for tests and the review)."""
        return {f.binding.label: f.full for f in self._facts if _kept(f)}

    def drawn(self) -> dict[str, str]:
        """Label → the value as drawn (cut with … where it did not fit)."""
        return {f.binding.label: f.fitted for f in self._facts if _kept(f)}


_KEYS: dict[tuple[str, str], tuple[int, str, int]] = {}
"""(a font's key, a label) → the label's advance, its one-line key (cut with … past
_KEY_WIDTH) and the key's advance."""
_MAX_KEYS: Final = 4096


def _key_of(metrics: QFontMetrics, font_key: str, label: str) -> tuple[int, str, int]:
    kept = _KEYS.get((font_key, label))
    if kept is None:
        key = metrics.elidedText(label, Qt.TextElideMode.ElideRight, _KEY_WIDTH)
        kept = (metrics.horizontalAdvance(label), key, metrics.horizontalAdvance(key))
        if len(_KEYS) >= _MAX_KEYS:
            _KEYS.clear()
        _KEYS[(font_key, label)] = kept
    return kept


_ADVANCES: dict[str, dict[str, int]] = {}
"""A font's key → the advance of each printable ASCII character in it."""


def _ascii_advances(metrics: QFontMetrics, key: str) -> dict[str, int]:
    table = _ADVANCES.get(key)
    if table is None:
        table = {chr(c): metrics.horizontalAdvance(chr(c)) for c in range(32, 127)}
        _ADVANCES[key] = table
    return table


def a_row_may_show(
    inputs: list[InputBinding],
    state: CardState,
    visible: Callable[[InputBinding], bool],
    said: Headline,
) -> bool:
    """Whether `FoldedFacts` over `inputs` could keep a row now, without making it: False
    only when none can (`FoldedFacts._say_row` keeps none for an input the headline
    states, one `visible` hides, or a switch that is off, which `_text` says as ""), so a
    fold may skip making facts that would all be hidden. Kept beside `_text`: a row it
    starts to keep must be allowed here too."""
    stated = said.said
    for binding in inputs:
        if binding.path in stated or not visible(binding):
            continue
        off = binding.kind == "toggle" and state.value(binding.path) is not True
        if off and not binding.secret:  # a secret switch says its mask, on or off
            continue
        return True
    return False


def _kept(fact: _Fact) -> bool:
    return fact.shown is not None and fact.shown[2]


_TOGGLE_SIZES: dict[tuple[str, str], QSize] = {}
"""(a font's key, the toggle's words) → its size hint, measured once per font."""


class DetailsToggle(QPushButton):
    """ "Details ▾" under the compact view; "Hide details ▴" once open."""

    toggled_open = Signal(bool)

    def __init__(
        self, look: Look, parent: QWidget | None = None, *, count: int = 0, opened: bool = False
    ) -> None:
        """`count`: the fields its tooltip names; `opened`: made open (no `toggled_open`)."""
        super().__init__(parent)
        self.setObjectName("DetailsToggle")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFlat(True)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        style_text(self, "DetailsToggle", look)
        self._look = look
        self.opened = opened
        self.ever_opened = opened
        """Opened at least once: every folded value has been on the card whole."""
        self._count = count
        self._measured: tuple[str, QSize] | None = None
        # Drawn by itself, not by a style sheet of its own: that cost ~0.2 ms per card
        # (a style object made and the sheet parsed each time). The look is the sheet's:
        # link-coloured words, left-aligned, 2 px above and below, no frame or fill.
        self._link = look.color("link")
        self.clicked.connect(self._flip)
        self._say()

    _TEXT_FLAGS = int(
        Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextShowMnemonic
    )

    def sizeHint(self) -> QSize:
        # Asked ~7 times a card: measured again only when the words or the font change.
        text = self.text()
        measured = self._measured
        if measured is None or measured[0] != text:
            key = (self.font().key(), text)
            size = _TOGGLE_SIZES.get(key)
            if size is None:  # the same two words in the same font on every card
                size = self.fontMetrics().size(Qt.TextFlag.TextShowMnemonic, text) + QSize(0, 4)
                if len(_TOGGLE_SIZES) >= 64:
                    _TOGGLE_SIZES.pop(next(iter(_TOGGLE_SIZES)))
                _TOGGLE_SIZES[key] = size
            measured = self._measured = (text, size)
        return QSize(measured[1])

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._measured = None
        super().changeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self._link)
        painter.drawText(self.rect().adjusted(0, 2, 0, -2), self._TEXT_FLAGS, self.text())
        if self.hasFocus():
            option = QStyleOptionFocusRect()
            option.initFrom(self)
            self.style().drawPrimitive(
                QStyle.PrimitiveElement.PE_FrameFocusRect, option, painter, self
            )
        painter.end()

    def set_count(self, count: int) -> None:
        self._count = count
        self._say()

    def set_open(self, opened: bool) -> None:
        if opened != self.opened:
            self.opened = opened
            self.ever_opened = self.ever_opened or opened
            self._say()
            self.toggled_open.emit(opened)

    def _flip(self) -> None:
        self.set_open(not self.opened)

    def _say(self) -> None:
        count = self._count
        fields = "the 1 field" if count == 1 else f"all {count} fields"
        if self.opened:
            text = "Hide details \u25b4"
            self.setToolTip("Back to the short card")
        else:
            text = "Details \u25be"
            self.setToolTip(f"Show and edit {fields}" if count else "Show the whole card")
        self.setText(text)
        self.setAccessibleName("Hide details" if self.opened else "Details")


__all__ = [
    "DETAILS_KEY",
    "DETAILS_REASON",
    "DetailsToggle",
    "FoldedFacts",
    "HeadlineLine",
]

"""A wrapped label's height for a width (`WrappedLabel`): remembered per width, and always
what a plain QLabel set up the same way answers, whatever changed since it was asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QLabel

from notch_app.ui.blocks.text import SelectableLabel, wrapped_label
from notch_app.ui.widgets import wrapped_label as module
from notch_app.ui.widgets.wrapped_label import WrappedLabel

_WIDTH = 120
_TEXT = "Pay the June retainer to Studio Nord before the fifth"


def _bigger(label: QLabel) -> None:
    font = QFont(label.font())
    font.setPixelSize(2 * label.fontInfo().pixelSize())
    label.setFont(font)


def _style_sheet_font(label: QLabel) -> None:
    label.setStyleSheet("* { font-size: 40px; }")
    label.ensurePolished()


def _top_aligned_with_indent(label: QLabel) -> None:
    label.setIndent(10)  # an indent counts in the height only for top or bottom alignment
    label.heightForWidth(_WIDTH)  # measured with the indent, before the alignment moves
    label.setAlignment(Qt.AlignmentFlag.AlignTop)


CHANGES: dict[str, Callable[[QLabel], Any]] = {
    "longer text": lambda w: w.setText(_TEXT + " and then some more words to wrap"),
    "a number": lambda w: w.setNum(7),
    "cleared": lambda w: w.clear(),
    "bigger font": _bigger,
    "style sheet font": _style_sheet_font,
    "contents margins": lambda w: w.setContentsMargins(0, 9, 30, 9),
    "margin": lambda w: w.setMargin(12),
    "indent": lambda w: w.setIndent(40),
    "frame": lambda w: w.setFrameStyle(QFrame.Shape.Box | QFrame.Shadow.Plain),
    "no wrap": lambda w: w.setWordWrap(False),
    "minimum height": lambda w: w.setMinimumHeight(200),
    "fixed width": lambda w: w.setFixedWidth(400),
    "alignment": _top_aligned_with_indent,
}


def _plain_twin() -> QLabel:
    twin = QLabel()
    twin.setTextFormat(Qt.TextFormat.PlainText)
    twin.setWordWrap(True)
    twin.setText(_TEXT)
    return twin


@pytest.mark.parametrize("change", list(CHANGES))
def test_after_a_change_the_height_is_measured_anew(qapp: Any, change: str) -> None:
    ours = WrappedLabel()
    ours.setText(_TEXT)
    twin = _plain_twin()
    assert ours.heightForWidth(_WIDTH) == twin.heightForWidth(_WIDTH)
    before = twin.heightForWidth(_WIDTH)

    CHANGES[change](ours)
    CHANGES[change](twin)

    # Every change here moves the height (else the case would prove nothing).
    assert twin.heightForWidth(_WIDTH) != before
    assert ours.heightForWidth(_WIDTH) == twin.heightForWidth(_WIDTH)


def test_a_selectable_label_measures_again_once_the_pointer_made_it_selectable(
    qapp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    label = SelectableLabel()
    label.setText(_TEXT)
    label.heightForWidth(_WIDTH)
    laid_out = _count_layouts(monkeypatch)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.heightForWidth(_WIDTH)
    assert laid_out == [_WIDTH]


def test_the_same_width_asked_again_is_not_laid_out_again(
    qapp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    label = wrapped_label("KeyValue")
    label.setText(_TEXT)
    laid_out = _count_layouts(monkeypatch)
    heights = [label.heightForWidth(w) for w in (_WIDTH, 300, _WIDTH, 300, _WIDTH)]
    assert laid_out == [_WIDTH, 300]
    assert heights[0] == heights[2] == heights[4] == _plain_twin().heightForWidth(_WIDTH)
    assert heights[1] == heights[3] == _plain_twin().heightForWidth(300)


def test_a_fifth_width_drops_the_oldest(qapp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    label = wrapped_label(selectable=False)
    label.setText(_TEXT)
    laid_out = _count_layouts(monkeypatch)
    for w in (100, 110, 120, 130, 140, 110, 100):
        label.heightForWidth(w)
    assert laid_out == [100, 110, 120, 130, 140, 100]


def _count_layouts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The widths QLabel itself is asked for from now on (each a layout of the text)."""
    asked: list[int] = []
    qt_answer = module._qt_height_for_width

    def counted(label: QLabel, width: int) -> int:
        asked.append(width)
        return qt_answer(label, width)

    monkeypatch.setattr(module, "_qt_height_for_width", counted)
    return asked

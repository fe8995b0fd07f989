"""A pill button's size follows its label, wraps it rather than cut it, and answers the
layout's questions without a Python call where Qt can answer them itself."""

from __future__ import annotations

from typing import Any

from notch_app.ui.theme import look
from notch_app.ui.widgets.buttons import PillButton


def test_the_size_follows_the_label_and_a_narrow_button_grows_taller(qapp: Any) -> None:
    button = PillButton(look("dark"), "primary", text="Pay")
    short = button.sizeHint()
    assert button.heightForWidth(short.width()) == short.height()
    button.setText("Pay €1,250.00 to Studio Nord GmbH for invoice INV-2024-0042")
    long = button.sizeHint()
    assert long.width() > short.width() and long.height() == short.height()
    assert button.minimumSizeHint().width() < long.width()  # it may get narrower…
    assert button.heightForWidth(long.width() // 3) > long.height()  # …then it wraps
    button.setText("Pay")
    assert button.sizeHint() == short


def test_height_for_width_is_read_from_the_size_policy(qapp: Any) -> None:
    button = PillButton(look("dark"))
    assert "hasHeightForWidth" not in vars(PillButton)  # no Python call per question
    assert button.hasHeightForWidth()
    assert button.sizePolicy().hasHeightForWidth()

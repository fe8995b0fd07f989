"""A text role's style (`style_text`): only what differs from the card's base font and
colour, decided once per look and role."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel

from notch_app.ui.theme import Look, look, style_text

ROLES = ["base", "KeyLabel", "KeyValue", "title", "caption", "FieldHelp", "ProgressLabel"]


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_a_label_styled_once_per_role_reads_as_the_rule_makes_it(
    qapp: Any, theme: Literal["dark", "light"]
) -> None:
    the_look = look(theme)
    for role in [*ROLES, *the_look._text]:
        ours, theirs = QLabel(), QLabel()
        style_text(ours, role, the_look)
        _the_rule(theirs, role, the_look)
        assert ours.font() == theirs.font(), role
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            for colour in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text):
                assert ours.palette().color(group, colour) == theirs.palette().color(
                    group, colour
                ), role
        # Only what differs from the card's base is set: the rest is inherited.
        assert ours.testAttribute(_font_set()) == theirs.testAttribute(_font_set()), role


def test_what_a_role_sets_is_decided_once_per_look(
    qapp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = Look("dark")
    style_text(QLabel(), "KeyLabel", fresh)
    asked: list[str] = []

    def same_font_as_base(role: str) -> bool:
        asked.append(role)
        return True

    monkeypatch.setattr(fresh, "same_font_as_base", same_font_as_base)
    label = QLabel()
    style_text(label, "KeyLabel", fresh)
    assert asked == []
    assert label.font().pixelSize() == fresh.font("KeyLabel").pixelSize()


def _the_rule(widget: QLabel, role: str, the_look: Look) -> None:
    """The rule, asked afresh: the role's font and colour where they differ from the base."""
    if role == "base":
        return
    if not the_look.same_font_as_base(role):
        widget.setFont(the_look.font(role))
    if the_look.text_color(role) != the_look.text_color("base"):
        widget.setPalette(the_look.text_palette(role))


def _font_set() -> Any:
    from PySide6.QtCore import Qt

    return Qt.WidgetAttribute.WA_SetFont

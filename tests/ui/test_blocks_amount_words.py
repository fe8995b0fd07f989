"""A card's texts that say an amount with its currency say it once per set of arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtWidgets import QAbstractButton, QLabel

from notch_app.ui.blocks import _context
from notch_app.ui.card_driver import CardDriver

PROPS: dict[str, Any] = {"amount": {"type": "number"}, "currency": {"type": "string"}}
CHILDREN: list[dict[str, Any]] = [
    {"type": "text", "text": "{{amount}} {{currency}} to Studio Nord", "variant": "title"},
    {"type": "textField", "bind": "{{amount}}", "label": "Amount"},
    {"type": "text", "text": "Paid in {{currency}}"},
]


def test_title_and_confirm_say_the_amount_once_and_again_after_an_edit(
    qtbot: Any, card: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[tuple[str, Any]] = []
    real = _context.fact_words  # type: ignore[attr-defined]  # imported there, replaced here

    def fact_words(tool: Any, arguments: Any, path: str) -> str:
        said.append((path, arguments["amount"]))
        return real(tool, arguments, path)

    monkeypatch.setattr(_context, "fact_words", fact_words)
    view = card(
        CHILDREN,
        PROPS,
        {"amount": 1250, "currency": "EUR"},
        confirm_label="Pay {{amount}} {{currency}}",
    )
    qtbot.addWidget(view)
    assert said == [("amount", 1250)]
    title = next(w for w in view.findChildren(QLabel) if w.text().endswith("to Studio Nord"))
    confirm = next(b for b in view.findChildren(QAbstractButton) if b.text().startswith("Pay "))
    first = title.text().removesuffix(" to Studio Nord")
    assert "1,250" in first and confirm.text() == f"Pay {first}"

    CardDriver(view).set("amount", "99")  # typed: "9", then "99"
    assert said == [("amount", 1250), ("amount", 9), ("amount", 99)]
    now = title.text().removesuffix(" to Studio Nord")
    assert "99" in now and "1,250" not in now and confirm.text() == f"Pay {now}"


def test_what_a_text_reads_is_worked_out_once_per_template(
    qtbot: Any, card: Callable[..., Any]
) -> None:
    live_reads = _context._live_reads
    live_reads.cache_clear()
    arguments = {"amount": 1250, "currency": "EUR"}
    first = card(CHILDREN, PROPS, arguments, confirm_label="Pay {{amount}} {{currency}}")
    qtbot.addWidget(first)
    made = live_reads.cache_info().misses
    second = card(CHILDREN, PROPS, arguments, confirm_label="Pay {{amount}} {{currency}}")
    qtbot.addWidget(second)
    assert live_reads.cache_info().misses == made  # the second card asked, none worked out
    reads = {t.template: t.reads for t in second._ctx.live_texts}
    assert reads["{{amount}} {{currency}} to Studio Nord"] is None  # an amount: said anew
    assert reads["Pay {{amount}} {{currency}}"] is None
    assert reads["Paid in {{currency}}"] == frozenset({"currency"})
    assert "Test card" not in reads  # no bindings: never said again

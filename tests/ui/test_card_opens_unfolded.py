"""A compact card that opens with Details open builds its form with the card and makes
its one-line facts only when Details is first closed (issue 19: the bundled invoice card
opens so, and built its form later and its facts hidden for nothing)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication

from notch_app.manifest.model import Tool
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.details_fold import FoldedFacts


def _tool() -> Tool:
    return Tool.model_validate(
        {
            "name": "send_note",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "to": {"type": "string", "title": "To"},
                    "subject": {"type": "string", "title": "Subject"},
                    "urgent": {"type": "boolean", "title": "Urgent"},
                },
                "required": ["to", "subject"],
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Send a note to {{to}}",
                    "children": [
                        {"type": "keyValue", "items": [{"label": "To", "value": "{{to}}"}]},
                        {"type": "textField", "bind": "{{subject}}", "label": "Subject",
                         "required": True},
                        {"type": "toggle", "bind": "{{urgent}}", "label": "Urgent"},
                    ],
                    "footer": [
                        {
                            "type": "actions",
                            "items": [
                                {"label": "Cancel", "role": "cancel"},
                                {"label": "Send", "role": "confirm"},
                            ],
                        }
                    ],
                },
            },
        }
    )  # fmt: skip


def _card(qtbot: Any, subject: str, notice: str | None = None) -> CardView:
    view = CardView(
        _tool(),
        {"to": "sam@example.com", "subject": subject, "urgent": True},
        notice=notice,
        live_pages=False,
        screen_height=1080,
    )
    qtbot.addWidget(view)
    view.show()
    QApplication.processEvents()
    return view


def test_a_card_opening_unfolded_builds_its_form_and_no_facts(qtbot: Any) -> None:
    view = _card(qtbot, "")  # a required field is empty: the person has to act
    assert view.details_open
    assert not view.has_unbuilt_fields  # built with the card: it is on screen at once
    assert view.input_widget("subject").isVisible()
    assert view.findChildren(FoldedFacts) == []
    assert not view.state().confirm_enabled


def test_closed_later_it_says_the_facts_a_card_built_folded_says(qtbot: Any) -> None:
    view = _card(qtbot, "")
    view.state().set("subject", "Lunch")
    details = view.details
    assert details is not None
    view.setFocus()  # not in the field about to fold (Qt would move focus on, unfolding)
    details.set_open(False)
    QApplication.processEvents()
    facts = view.folded_facts
    assert facts is not None and facts.isVisible()
    assert view.folded_facts is facts  # made once
    folded = _card(qtbot, "Lunch")
    assert not folded.details_open and folded.folded_facts is not None
    assert (
        facts.facts() == folded.folded_facts.facts() == {"Subject": "Lunch", "Urgent": "✓ Urgent"}
    )
    # Where the card built folded has them: above the folded fields, in reading order.
    for card in (view, folded):
        field = card.input_widget("subject")
        shown = card.folded_facts
        assert shown is not None
        content = shown.parentWidget()
        assert content is not None
        column = content.layout()
        assert column is not None
        widgets = [column.itemAt(i).widget() for i in range(column.count())]  # type: ignore[union-attr]
        holder = next(i for i, w in enumerate(widgets) if w is not None and w.isAncestorOf(field))
        assert column.indexOf(shown) < holder


def test_a_noticed_card_asked_for_its_facts_while_open_keeps_them_hidden(qtbot: Any) -> None:
    view = _card(qtbot, "Lunch", notice="Asks anyway: Urgent is on")
    assert view.details_open
    facts = view.folded_facts  # asked for: made, hidden while Details is open
    assert facts is not None and facts.isHidden()
    details = view.details
    assert details is not None
    view.setFocus()  # not in the field about to fold (Qt would move focus on, unfolding)
    details.set_open(False)
    QApplication.processEvents()
    assert facts.isVisible() and facts.facts()


def test_a_card_opening_unfolded_is_made_open_without_a_fold_pass(
    qtbot: Any, monkeypatch: Any
) -> None:
    """Never folded, it is not unfolded: no `show` pass (each holder shown again), the
    toggle made open with its words said once, and it says all a card opened says."""
    from notch_app.ui.card_view.fold import CardFold
    from notch_app.ui.widgets.details_fold import DetailsToggle

    shows: list[bool] = []
    said: list[bool] = []
    real_show, real_say = CardFold.show, DetailsToggle._say

    def show(fold: CardFold, opened: bool) -> None:
        shows.append(opened)
        real_show(fold, opened)

    def say(toggle: DetailsToggle) -> None:
        said.append(toggle.opened)
        real_say(toggle)

    monkeypatch.setattr(CardFold, "show", show)
    monkeypatch.setattr(DetailsToggle, "_say", say)
    view = _card(qtbot, "")
    assert shows == [] and said == [True]
    details = view.details
    assert details is not None and details.opened and details.ever_opened
    assert details.text() == "Hide details \u25b4"
    assert details.toolTip() == "Back to the short card"
    assert details.accessibleName() == "Hide details"
    assert view.input_widget("subject").isVisible()
    assert "Open Details" not in " ".join(view.state().unseen())
    view.state().set("subject", "Lunch")
    view.setFocus()
    details.set_open(False)  # folded as a card opened by Details folds
    QApplication.processEvents()
    assert shows == [False] and not view.input_widget("subject").isVisible()
    assert details.toolTip() == "Show and edit all 2 fields"


def test_the_folded_inputs_are_worked_out_once_per_tool(qtbot: Any, monkeypatch: Any) -> None:
    """What the fold says depends on the tool's view alone: its second card reads it
    from the first (a walk over every folded block, on every card, before)."""
    from notch_app.ui.card_view import fold

    walks: list[int] = []
    real = fold.folded_inputs

    def folded_inputs(state: Any, folded: list[Any]) -> Any:
        walks.append(1)
        return real(state, folded)

    monkeypatch.setattr(fold, "folded_inputs", folded_inputs)
    tool = _tool()
    args = {"to": "sam@example.com", "subject": "Lunch", "urgent": True}
    cards = [CardView(tool, args, live_pages=False, screen_height=1080) for _ in range(2)]
    for card in cards:
        qtbot.addWidget(card)
    assert len(walks) == 1
    facts = [card.folded_facts for card in cards]
    assert facts[0] is not None and facts[1] is not None
    assert facts[0].facts() == facts[1].facts() == {"Subject": "Lunch", "Urgent": "✓ Urgent"}
    other = CardView(_tool(), args, live_pages=False, screen_height=1080)  # another tool
    qtbot.addWidget(other)
    assert len(walks) == 2


def test_a_folded_block_not_built_is_read_once_per_tool(qtbot: Any, monkeypatch: Any) -> None:
    """What a folded block waiting for Details holds (its blocks, the arguments it
    shows, its fields) is the tool's: the second card of a tool reads it from the first."""
    from notch_app.ui.card_view import fold
    from notch_app.ui.card_view.frame import shown_templates as real

    read: list[Any] = []

    def shown_templates(block: Any) -> list[str]:
        read.append(block)
        return real(block)

    monkeypatch.setattr(fold, "shown_templates", shown_templates)
    tool = _tool()
    args = {"to": "sam@example.com", "subject": "Lunch", "urgent": True}
    first = CardView(tool, args, live_pages=False, screen_height=1080)
    qtbot.addWidget(first)
    assert first.has_unbuilt_fields and read
    made = len(read)
    second = CardView(tool, args, live_pages=False, screen_height=1080)
    qtbot.addWidget(second)
    assert len(read) == made and second.has_unbuilt_fields
    second.state().set("subject", "Dinner")  # an argument the unbuilt block edits
    assert not second.has_unbuilt_fields  # built, as on the first card

"""A folded block built with the card is shown and hidden by the fold itself; only a
block with a visibleIf stands in a holder of its own (issue 19: the invoice card made
eight holders, 0.3 ms of its build), so the fold and the visibleIf never set the same
widget's visibility. Details shows and hides the same widgets, a folded input is on the
card all the same, and a hidden one is hidden whatever the fold."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication

from notch_app.manifest.model import Tool
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_view import CardView, frame


def _tool() -> Tool:
    return Tool.model_validate(
        {
            "name": "send_note",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "to": {"type": "string"},
                    "cc": {"type": "string"},
                    "copy": {"type": "boolean"},
                },
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Send a note to {{to}}",
                    "children": [
                        {"type": "textField", "bind": "{{to}}", "label": "To"},
                        {"type": "toggle", "bind": "{{copy}}", "label": "Copy someone"},
                        {"type": "textField", "bind": "{{cc}}", "label": "Cc",
                         "visibleIf": "{{copy}}"},
                    ],
                    "footer": [
                        {"type": "actions", "items": [
                            {"label": "Cancel", "role": "cancel"},
                            {"label": "Send", "role": "confirm"},
                        ]},
                    ],
                },
            },
        }
    )  # fmt: skip


def _card(qtbot: Any, monkeypatch: Any) -> CardView:
    monkeypatch.setattr(frame, "builds_later", lambda *_: False)  # built with the card
    view = CardView(
        _tool(), {"to": "sam@example.com", "cc": "kim@example.com", "copy": False},
        live_pages=False, screen_height=1080,
    )  # fmt: skip
    monkeypatch.undo()
    qtbot.addWidget(view)
    view.show()
    QApplication.processEvents()
    return view


def test_only_a_folded_block_with_visible_if_has_a_holder(qtbot: Any, monkeypatch: Any) -> None:
    view = _card(qtbot, monkeypatch)
    folded = view._parts.folded
    assert len(folded) == 3
    for block, shown_by_fold in folded:
        container = view.editor(block.bind.strip("{}")).container
        if block.visible_if:
            assert shown_by_fold is not container and shown_by_fold.isAncestorOf(container)
        else:
            assert shown_by_fold is container  # no holder around it


def test_details_shows_and_hides_the_same_and_visible_if_still_hides(
    qtbot: Any, monkeypatch: Any
) -> None:
    view = _card(qtbot, monkeypatch)
    fields = {p: view.input_widget(p) for p in ("to", "copy", "cc")}
    assert not any(f.isVisibleTo(view) for f in fields.values())  # folded
    assert view.is_input_visible("to") and view.is_input_visible("copy")  # on the card
    assert not view.is_input_visible("cc")  # its visibleIf is false
    view.open_details()
    assert fields["to"].isVisibleTo(view) and fields["copy"].isVisibleTo(view)
    assert not fields["cc"].isVisibleTo(view)
    view.state().set("copy", True)
    assert fields["cc"].isVisibleTo(view) and view.is_input_visible("cc")
    assert view.details is not None
    view.details.set_open(False)
    assert not any(f.isVisibleTo(view) for f in fields.values())
    assert all(view.is_input_visible(p) for p in fields)
    view.state().set("copy", False)
    view.details.set_open(True)
    assert fields["to"].isVisibleTo(view) and not fields["cc"].isVisibleTo(view)
    assert not view.is_input_visible("cc")


def test_the_invoice_card_folds_and_unfolds_its_blocks(
    qtbot: Any, bundled_factory: Any, preview_args: Any
) -> None:
    request = ConfirmationRequest(
        call_id="c-invoice", integration_id="dev.notch.examples.payments",
        tool_name="pay_invoice", arguments=preview_args("payments", "pay_invoice"),
    )  # fmt: skip
    view = bundled_factory()(request).widget
    assert isinstance(view, CardView)
    qtbot.addWidget(view)
    view.show()
    QApplication.processEvents()
    anchors = {id(u.anchor) for u in view._parts.unbuilt}
    built = [(b, w) for b, w in view._parts.folded if id(w) not in anchors]
    assert len(built) >= 5
    conditional = dict((id(b), w) for b, w in view._fold._ctx.conditional)
    for block, shown_by_fold in built:
        if getattr(block, "visible_if", None):  # the budget line: in its holder
            assert conditional[id(block)].parentWidget() is shown_by_fold
        else:
            assert id(block) not in conditional
    assert view.details is not None and view.details_open  # its PIN is to be typed
    assert all(w.isVisibleTo(view) for _b, w in built)
    assert all(view.is_input_visible(e.path) for e in view.editors())
    # Each input the fold shows is its own widget (its container), none in a holder.
    containers = {id(view.editor(e.path).container) for e in view.editors()}
    assert sum(1 for _b, w in built if id(w) in containers) >= 3

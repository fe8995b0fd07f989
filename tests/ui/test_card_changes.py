"""The "changed since you last approved this" marks on a card (issue 20, item 6): shown in
Notch's own panel, and a marked card opens expanded (never folded behind Details)."""

from __future__ import annotations

import functools
from typing import Any

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.runtime.approval_memory import Change
from notch_app.runtime.catalog import Catalog
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.change_marks import TITLE


@functools.cache
def bundled_catalog() -> Catalog:
    """The bundled integrations, loaded by the first test that needs them, not while pytest
    collects this file (every worker collects every file)."""
    catalog, _problems = Catalog.load([BUNDLED_MANIFESTS])
    return catalog


def mail_card(qtbot: Any, preview_args: Any, changes: tuple[Change, ...]) -> CardView:
    tool = bundled_catalog().tool("dev.notch.examples.mail", "send_email")
    assert tool is not None
    args = dict(preview_args("mail", "send_email"), to=["sam@exarnple.com"])
    view = CardView(tool, args, changes=changes)
    qtbot.addWidget(view)
    view.show()
    return view


def test_a_marked_card_says_what_changed_and_opens_expanded(qtbot: Any, preview_args: Any) -> None:
    marks = (
        Change(
            "to.0", "exarnple.com looks like example.com, which you approved before", "look-alike"
        ),
        Change("to.0", "sam@exarnple.com: never approved for this action before", "new-party"),
    )
    view = mail_card(qtbot, preview_args, marks)
    assert view.changes.isVisibleTo(view)
    assert view.changes.lines == tuple(m.text for m in marks)
    text = CardDriver(view).visible_text()
    assert TITLE in text and "looks like example.com" in text
    assert view.details is None or view.details.opened, "opens expanded, at the marked field"
    assert view.editor("to").container.isVisibleTo(view)


def test_an_unmarked_card_shows_no_panel(qtbot: Any, preview_args: Any) -> None:
    view = mail_card(qtbot, preview_args, ())
    assert not view.changes.isVisibleTo(view)
    assert TITLE not in CardDriver(view).visible_text()


def test_settings_forgets_what_was_approved_before(
    qtbot: Any, tmp_path: Any, preview_args: Any
) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QPushButton

    from notch_app.runtime.approval_memory import ApprovalMemory
    from notch_app.ui.settings.allowances_group import memory_section

    tool = bundled_catalog().tool("dev.notch.examples.mail", "send_email")
    assert tool is not None
    memory = ApprovalMemory.in_data_dir(tmp_path)
    memory.remember("dev.notch.examples.mail", tool, preview_args("mail", "send_email"))
    redrawn: list[bool] = []
    section = memory_section(memory, lambda: redrawn.append(True))
    qtbot.addWidget(section)
    button = section.findChild(QPushButton, "ForgetApprovals")
    assert button is not None and button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert memory.actions() == 0 and redrawn == [True]
    assert ApprovalMemory.in_data_dir(tmp_path).actions() == 0, "gone from the disk too"

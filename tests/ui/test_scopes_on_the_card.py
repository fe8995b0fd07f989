"""Scopes on the card and the pill (issue 20, finding 5): each choice says what it covers,
"Always allow" is not offered where one click cannot sensibly mean "from now on", and a
scoped approval's note on the notch undoes it with a click."""

from __future__ import annotations

import functools
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings


@functools.cache
def bundled_catalog() -> Catalog:
    """The bundled integrations, loaded by the first test that needs them, not while pytest
    collects this file (every worker collects every file)."""
    catalog, _problems = Catalog.load([BUNDLED_MANIFESTS])
    return catalog


CLAUDE = "dev.notch.agents.claude-code"
SETTINGS = OverlaySettings(expand_ms=60, done_ms=60_000, park_after_s=0)


def card(qtbot: Any, integration: str, tool: str, args: dict[str, Any]) -> CardView:
    found = bundled_catalog().tool(integration, tool)
    assert found is not None
    view = CardView(found, args, scopes=True)
    qtbot.addWidget(view)
    view.show()
    return view


def test_a_shell_card_offers_its_prefix_for_this_session_and_never_always(qtbot: Any) -> None:
    view = card(qtbot, CLAUDE, "Bash", {"command": "npm test -- --ci", "cwd": "/srv/app"})
    choices = view.scope_choices
    assert choices is not None
    session, always = choices.buttons["session"], choices.buttons["always"]
    assert session.text() == "Allow `npm test` in /srv/app for this session"
    assert not always.isVisibleTo(view) and not choices.offers_always
    view.set_armed(True)
    assert not view.allow("always")  # not even through the card's own method
    assert view.decision is None
    # The label follows the command as the person edits it.
    CardDriver(view).set("command", "rm -rf build && make")
    assert session.text() == "Allow exactly `rm -rf build && make` in /srv/app for this session"


def test_a_destructive_action_offers_no_always_and_a_plain_one_names_what_it_covers(
    qtbot: Any, preview_args: Any
) -> None:
    files = card(qtbot, "dev.notch.examples.files", "delete_files",
                 preview_args("files", "delete_files"))  # fmt: skip
    assert files.scope_choices is not None and not files.scope_choices.offers_always
    mail = card(qtbot, "dev.notch.examples.mail", "send_email", preview_args("mail", "send_email"))
    assert mail.scope_choices is not None
    always = mail.scope_choices.buttons["always"]
    assert always.isVisibleTo(mail) and always.text() == "Always allow Send email"
    assert "Asks first off for Send email" in always.statusTip()


class UndoingSink:
    """A recording sink that also undoes scopes, as the service does."""

    def __init__(self, sink: Any) -> None:
        self.sink = sink
        self.undone: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sink, name)

    def undo_scope(self, call_id: str) -> str:
        self.undone.append(call_id)
        return "Asks again: `npm test` in /srv/app"


def test_the_pill_says_how_far_the_yes_reaches_and_a_click_undoes_it(
    qtbot: Any, sink: Any, bundled_factory: Any
) -> None:
    undoing = UndoingSink(sink)
    presenter = OverlayPresenter(undoing, bundled_factory(), SETTINGS)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.present(ConfirmationRequest("s1", CLAUDE, "Bash",
                                          {"command": "npm test", "cwd": "/srv/app"}))  # fmt: skip
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    view = presenter.window.card
    assert isinstance(view, CardView) and view.scope_choices is not None
    qtbot.mouseClick(view.scope_choices.buttons["session"], Qt.MouseButton.LeftButton)
    assert [c[1:3] for c in sink.of("decide")] == [("s1", True)]
    qtbot.waitUntil(lambda: presenter.window.look == "done", timeout=3000)
    note = presenter.recent[-1][1]
    assert note == "Allowed for this session (click to undo): `npm test` in /srv/app"
    middle = presenter.window.rect().center()
    qtbot.mouseClick(presenter.window.windowHandle(), Qt.MouseButton.LeftButton, pos=middle)
    assert undoing.undone == ["s1"]
    assert presenter.recent[-1][1] == "Asks again: `npm test` in /srv/app ✓"
    qtbot.mouseClick(presenter.window.windowHandle(), Qt.MouseButton.LeftButton, pos=middle)
    assert undoing.undone == ["s1"], "a note that offers no undo undoes nothing"


def test_settings_lists_each_session_allowance_with_stop_allowing(qtbot: Any) -> None:
    from notch_app.card.scope_reach import session_reach
    from notch_app.runtime.allowances import Allowances
    from notch_app.ui.settings.allowances_group import AllowanceRow, allowances_section
    from notch_app.ui.settings.window import _group

    bash = bundled_catalog().tool(CLAUDE, "Bash")
    assert bash is not None
    kept = Allowances(lambda: 1.0)
    reach = session_reach(bash, {"command": "npm test", "cwd": "/srv/app"})
    made = kept.add(f"agent:{CLAUDE}:abc", CLAUDE, "Bash", "Run a shell command", reach, "c1")

    class Source:
        allowances = kept

        def forget_allowance(self, allowance_id: str) -> Any:
            return kept.forget(allowance_id)

    changed: list[bool] = []
    section = allowances_section(Source(), lambda: changed.append(True), _group)
    assert section is not None
    qtbot.addWidget(section)
    (row,) = section.findChildren(AllowanceRow)
    texts = " ".join(label.text() for label in row.findChildren(QLabel))
    assert "`npm test` in /srv/app" in texts and "session abc" in texts
    qtbot.mouseClick(row.stop_button, Qt.MouseButton.LeftButton)
    assert kept.listed() == [] and changed == [True] and made.id
    assert allowances_section(Source(), lambda: None, _group) is None

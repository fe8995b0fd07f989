"""A compact card builds its folded one-line fields when first needed (issue 19), and
holds confirm exactly as when they were built with it.

The widgets of a folded block of plain inputs are made when Details opens, a field
under it is asked for, its value changes or Tab unfolds the card; everything the card
decides while they are not built comes from CardState.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget

from notch_app.manifest.model import Tool
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.blocks.inputs import TextArea
from notch_app.ui.card_view import CardView, frame
from notch_app.ui.notch.fitting import card_has_inputs
from notch_app.ui.widgets.details_fold import DETAILS_REASON


def _tool(**subject: Any) -> Tool:
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
                "required": ["to"],
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Send a note to {{to}}",
                    "children": [
                        {"type": "keyValue", "items": [{"label": "To", "value": "{{to}}"}]},
                        {"type": "textField", "bind": "{{subject}}", "label": "Subject",
                         **subject},
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


def _card(qtbot: Any, subject: str, **block: Any) -> CardView:
    view = CardView(
        _tool(**block),
        {"to": "sam@example.com", "subject": subject, "urgent": False},
        live_pages=False,
        screen_height=1080,
    )
    qtbot.addWidget(view)
    view.show()
    QApplication.processEvents()
    return view


def _lines(view: CardView) -> list[QLineEdit]:
    """The card's one-line fields (not the reply line under its footer)."""
    reply = view.reply_field
    return [w for w in view.findChildren(QLineEdit) if not reply.isAncestorOf(w)]


def test_folded_plain_fields_wait_for_details_and_the_notch_still_takes_typing(
    qtbot: Any,
) -> None:
    view = _card(qtbot, "Lunch")
    assert not view.details_open
    assert _lines(view) == []  # not built: the card is half the work
    assert view.has_unbuilt_fields and card_has_inputs(view)
    assert view.state().confirm_enabled
    view.open_details()
    field = view.input_widget("subject")
    assert isinstance(field, QLineEdit) and field.text() == "Lunch"
    assert field.isVisibleTo(view) and not view.has_unbuilt_fields


def test_a_value_cut_short_holds_confirm_while_its_field_is_not_built(qtbot: Any) -> None:
    view = _card(qtbot, "word " * 300)
    assert _lines(view) == []
    state = view.state()
    assert not state.confirm_enabled
    assert DETAILS_REASON.format(label="Subject") in state.blockers()
    assert view.press("confirm") is False
    view.open_details()
    assert state.confirm_enabled


def test_asking_for_a_folded_field_builds_it_folded(qtbot: Any) -> None:
    view = _card(qtbot, "Lunch")
    field = view.input_widget("subject")
    assert not view.details_open and not field.isVisibleTo(view)
    assert view.is_input_visible("subject")  # folded is on the card, as a fact
    assert [e.path for e in view.editors()] == ["subject", "urgent"]


def test_a_changed_folded_value_builds_its_field_and_its_checks(qtbot: Any) -> None:
    view = _card(qtbot, "Lunch")
    view.state().set("subject", "L\u200bunch")  # a hidden character, from a voice edit
    assert _lines(view)  # built: its check line reads the field
    assert any("hidden characters" in line for line in view._checks.lines())


def test_a_hidden_character_is_built_with_the_card_in_a_line_or_an_area(qtbot: Any) -> None:
    marked = _card(qtbot, "L\u200bunch")
    assert _lines(marked)
    assert any("hidden characters" in line for line in marked._checks.lines())
    area = _card(qtbot, "line one\n\u202eline two", multiline=True)
    assert area.findChildren(TextArea)  # its marks and read-only state live in the widget
    assert any("hidden characters" in line for line in area._checks.lines())


LONG_BODY = "\n".join(f"Line {i}: the agent's words, all of which are sent." for i in range(40))


def _areas(view: CardView) -> list[TextArea]:
    return view.findChildren(TextArea)


def _tab_stops(view: CardView) -> list[str]:
    """What Tab reaches on the card, in order, by name (a person's walk through it)."""
    stops: list[str] = []
    widget = view.nextInFocusChain()
    while widget is not view and len(stops) < 200:
        assert widget is not None, "the focus chain ended before it came back to the card"
        tab = widget.focusPolicy().value & Qt.FocusPolicy.TabFocus.value
        if tab and widget.isVisibleTo(view):
            stops.append(widget.accessibleName() or type(widget).__name__)
        widget = widget.nextInFocusChain()
    return stops


def test_a_folded_text_area_waits_for_details_and_holds_confirm_as_if_built(
    qtbot: Any,
) -> None:
    view = _card(qtbot, LONG_BODY, multiline=True)
    assert _areas(view) == [] and view.has_unbuilt_fields
    state = view.state()
    assert not state.confirm_enabled
    assert "Open Details to see all of Subject" in state.blockers()
    view.open_details()
    QApplication.processEvents()
    (area,) = _areas(view)
    assert area.isVisibleTo(view) and area.toPlainText() == LONG_BODY
    assert "Scroll to see all of Subject first" in state.blockers()
    bar = area.verticalScrollBar()
    while bar.value() < bar.maximum():  # the person reads it, a page at a time
        bar.setValue(bar.value() + bar.pageStep())
    assert state.confirm_enabled


def test_the_agent_cannot_get_a_long_folded_text_approved_unseen(qtbot: Any) -> None:
    # The agent hides its words in a long body under Details and hopes for a quick
    # Ctrl+Enter (or a click on the confirm pill) before anything is built or laid out.
    view = _card(qtbot, LONG_BODY, multiline=True)
    assert view.armed and _areas(view) == []
    with qtbot.assertNotEmitted(view.decided):
        QTest.keyClick(view, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        button = view.confirm_button()
        assert button is not None
        button.click()
        assert view.press("confirm") is False
        assert view.allow("session") is False
    assert view.decision is None
    # Opening Details is not reading it: still held until scrolled through.
    view.open_details()
    QApplication.processEvents()
    assert view.press("confirm") is False


def test_a_folded_text_changed_by_voice_or_after_details_holds_again(qtbot: Any) -> None:
    view = _card(qtbot, "Short note", multiline=True)
    state = view.state()
    assert _areas(view) == [] and state.confirm_enabled
    # A voice edit makes it long while it is not built: built now, and held.
    state.set("subject", LONG_BODY)
    assert _areas(view)
    assert not state.confirm_enabled
    view.open_details()
    QApplication.processEvents()
    (area,) = _areas(view)
    bar = area.verticalScrollBar()
    while bar.value() < bar.maximum():
        bar.setValue(bar.value() + bar.pageStep())
    assert state.confirm_enabled
    # The text changes under the person after they read it: what they saw no longer counts.
    state.set("subject", LONG_BODY.replace("Line 39", "Line 39 and one more thing"))
    QApplication.processEvents()
    assert not state.confirm_enabled
    assert "Scroll to see all of Subject first" in state.blockers()


SIZES = {
    "one line": "Hi",
    "five lines": "a\nb\nc\nd\ne",
    "nine lines": "\n".join(f"line {i}" for i in range(9)),
    "330 characters": "word " * 66,
    "2,000 characters": "word " * 400,
    "forty lines": LONG_BODY,
    "empty": "",
}


@pytest.mark.parametrize("height", [720, 1080])
def test_built_later_or_with_the_card_the_holds_are_the_same(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch, height: int
) -> None:
    def seen_as(later: bool, text: str) -> list[tuple[bool, tuple[str, ...]]]:
        if not later:
            monkeypatch.setattr(frame, "builds_later", lambda *_: False)
        view = CardView(
            _tool(multiline=True),
            {"to": "sam@example.com", "subject": text, "urgent": False},
            live_pages=False,
            screen_height=height,
        )
        monkeypatch.undo()
        qtbot.addWidget(view)
        view.show()
        QApplication.processEvents()
        assert bool(_areas(view)) != later or not text  # built as asked
        state = view.state()
        seen = [(state.confirm_enabled, tuple(state.blockers()))]
        view.open_details()
        QApplication.processEvents()
        seen.append((state.confirm_enabled, tuple(state.blockers())))
        return seen

    for name, text in SIZES.items():
        assert seen_as(True, text) == seen_as(False, text), name


ACTING = [
    ("io.elevenlabs", "elevenlabs", "generate_speech"),
    ("dev.notch.examples.mail", "mail", "send_email"),
    ("dev.notch.examples.calendar", "calendar", "book_meeting"),
    ("dev.notch.examples.payments", "payments", "pay_invoice"),
    ("dev.notch.examples.files", "files", "delete_files"),
]


@pytest.mark.parametrize(("integration", "folder", "tool"), ACTING)
def test_a_bundled_card_reads_the_same_built_later_or_with_the_card(
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    bundled_factory: Any,
    preview_args: Any,
    integration: str,
    folder: str,
    tool: str,
) -> None:
    factory = bundled_factory()

    def read(later: bool) -> tuple[list[Any], int]:
        if not later:
            monkeypatch.setattr(frame, "builds_later", lambda *_: False)
        request = ConfirmationRequest(
            call_id=f"c-{later}", integration_id=integration, tool_name=tool,
            arguments=preview_args(folder, tool),
        )  # fmt: skip
        view = factory(request).widget
        monkeypatch.undo()
        assert isinstance(view, CardView)
        qtbot.addWidget(view)
        view.show()
        QApplication.processEvents()
        areas = len(_areas(view))
        state = view.state()
        button = view.confirm_button()
        seen: list[Any] = []
        for _ in range(2):
            seen.append(
                (
                    state.confirm_enabled,
                    state.blockers(),
                    view._checks.lines(),
                    button.text() if button is not None else None,
                    view.read_back(),
                )
            )
            view.open_details()
            QApplication.processEvents()
        seen.append(sorted(e.path for e in view.editors()))
        # The card's own Tab order (fields, buttons, Details) and every stop Tab reaches;
        # a chip's remove button is not in the card's order, built now or later.
        seen.append([w.accessibleName() for w in view._ctx.focus_chain])
        seen.append(sorted(_tab_stops(view)))
        return seen, areas

    later, areas_later = read(True)
    built, areas_built = read(False)
    assert later == built
    if tool in ("generate_speech", "send_email", "book_meeting"):
        # Their folded text areas (the speech's text, the mail's body, the agenda) are
        # built when Details opens, not hidden with every card.
        assert areas_later == 0 < areas_built


class _WindowsShown(QObject):
    """Notes every window (a widget without a parent) shown while it watches."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Show and isinstance(watched, QWidget) and watched.isWindow():
            self.shown.append(type(watched).__name__ + ":" + watched.objectName())
        return False


def test_a_block_built_on_screen_opens_no_window_and_keeps_the_focus(
    qtbot: Any, bundled_factory: Any, preview_args: Any
) -> None:
    # The mail's "Reply in thread" line has a visibleIf: its label was made without a
    # parent, so showing it opened it as a window of its own, which took the notch's
    # focus when Details built it on screen (and flashed when built with the card).
    notch = QWidget()
    qtbot.addWidget(notch)
    notch.show()
    qtbot.waitExposed(notch)
    windows = _WindowsShown()
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(windows)
    try:
        request = ConfirmationRequest(
            call_id="c1", integration_id="dev.notch.examples.mail", tool_name="send_email",
            arguments=preview_args("mail", "send_email"),
        )  # fmt: skip
        view = bundled_factory()(request, notch).widget
        assert isinstance(view, CardView)
        view.show()
        notch.activateWindow()
        view.setFocus()
        QApplication.processEvents()
        focused = QApplication.focusWidget()
        assert focused is view
        view.open_details()
        for _ in range(3):
            QApplication.processEvents()
        assert view.findChild(QWidget, "Metadata") is not None  # built, on the card
        assert QApplication.focusWidget() is focused
    finally:
        app.removeEventFilter(windows)
    assert windows.shown == []

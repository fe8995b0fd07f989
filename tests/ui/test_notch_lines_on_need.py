"""Notch's own lines a card does not show are made when they first have something to say.

"Always allow" and its "·" on a card that does not offer it (a destructive action, a
shell command) are made when an edit first offers it; the card then shows, names, gates,
holds and orders it for Tab exactly as a card that offered it from the start does. The
risk panel of a call with no risk is made with its first risk line, in its place between
the check notes and the change marks; a card with no changes makes no marks panel. The
author's subtitle is made when the headline first stops saying it ("in ~/Downloads"
under "Delete 3 files in ~/Downloads"). The collapsed reply line is its invitation alone,
placed where its column placed it; the column is made with the field (issue 19 item 1:
every acting card's build).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QLabel, QWidget

from notch_app.runtime.approval_memory import Change
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.change_marks import TITLE
from notch_app.ui.widgets.scope_choices import ScopeButton

ROOT = {
    "type": "card",
    "title": "Send message",
    "children": [{"type": "textField", "bind": "{{to}}", "label": "To", "required": True}],
    "footer": [
        {
            "type": "actions",
            "items": [
                {"label": "Cancel", "role": "cancel"},
                {"label": "Send", "role": "confirm"},
            ],
        }
    ],
}
PROPERTIES = {"to": {"type": "string"}}


def _shown(qtbot: Any, view: CardView) -> CardView:
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def tab_stops(view: CardView) -> list[str]:
    """The card's Tab order, in order: each stop's accessible name (a stop its gate
    closes for now included, in its place)."""
    stops: list[str] = []
    widget: QWidget | None = view.nextInFocusChain()
    while widget is not None and widget is not view:
        takes_tab = widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        if takes_tab and widget.isVisibleTo(view):
            stops.append(widget.accessibleName() or widget.objectName())
        widget = widget.nextInFocusChain()
    return stops


def test_a_card_that_does_not_offer_always_builds_no_always_button(
    qtbot: Any, make_tool: Any
) -> None:
    tool = make_tool(ROOT, PROPERTIES, ["to"])
    view = _shown(qtbot, CardView(tool, {"to": "sam", "command": "rm -rf /"}, scopes=True))
    choices = view.scope_choices
    assert choices is not None and not choices.offers_always
    assert [b.objectName() for b in view.findChildren(ScopeButton)] == ["Scope-session"]
    # Asked for, it is there all the same: hidden, not offered, gated with confirm.
    always = choices.buttons["always"]
    assert not always.isVisibleTo(view) and always.text() == "Always allow"
    view.set_armed(True)
    assert not view.allow("always") and view.decision is None


def test_always_allow_offered_after_an_edit_is_shown_named_gated_held_and_tabbed_in_place(
    qtbot: Any, make_tool: Any
) -> None:
    tool = make_tool(ROOT, PROPERTIES, ["to"])
    # From the start: what a card offering "Always allow" looks like to a person.
    offered = _shown(qtbot, CardView(tool, {"to": ""}, scopes=True))
    # Not offered at first: the arguments carry a command (never "Always allow").
    later = _shown(qtbot, CardView(tool, {"to": "", "command": "rm -rf /"}, scopes=True))
    later.set_armed(False)  # the overlay holds confirm on a card that just appeared
    choices = later.scope_choices
    assert choices is not None and not choices.offers_always
    assert "Always allow do_thing" not in tab_stops(later)

    later.state().set("command", "")  # the edit that offers it
    always = choices.buttons["always"]
    qtbot.waitUntil(lambda: always.isVisible())
    assert choices.offers_always
    assert (always.text(), always.accessibleName()) == ("Always allow do_thing",) * 2
    assert "Asks first off for do_thing" in always.statusTip()
    dots = [w for w in choices.children() if getattr(w, "text", lambda: "")() == "·"]
    assert len(dots) == 1 and dots[0].isVisible()
    # Gated as confirm is: To is required and empty.
    assert not always.isEnabled()
    confirm = later.confirm_button()
    assert confirm is not None and always.accessibleDescription() == confirm.accessibleDescription()
    assert always.toolTip() and always.toolTip() == confirm.toolTip()
    # Held as confirm is: a click does nothing until the overlay arms the card.
    assert always.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    # Tab walks the card as it walks the card that offered it from the start.
    assert tab_stops(later) == tab_stops(offered)
    assert "Always allow do_thing" in tab_stops(later)

    decided: list[bool] = []
    later.decided.connect(lambda a, f, e: decided.append(a))
    qtbot.keyClicks(later.input_widget("to"), "kim")
    assert always.isEnabled() and always.toolTip() == ""
    later.set_armed(True)
    assert not always.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    qtbot.mouseClick(always, Qt.MouseButton.LeftButton)
    assert decided == [True] and later.approval_scope == "always"

    # Taken back by the next edit, as on a card that offered it from the start.
    hidden = _shown(qtbot, CardView(tool, {"to": "sam"}, scopes=True))
    assert hidden.scope_choices is not None
    hidden.state().set("command", "make")
    assert not hidden.scope_choices.buttons["always"].isVisibleTo(hidden)
    assert not hidden.scope_choices.offers_always


COMMAND_CARD = {
    "type": "card",
    "title": "Run a command",
    "children": [
        {"type": "textField", "bind": "{{command}}", "label": "Command"},
        {"type": "textField", "bind": "{{note}}", "label": "Note"},
    ],
    "footer": ROOT["footer"],
}
COMMAND_PROPERTIES = {"command": {"type": "string"}, "note": {"type": "string"}}
# A look-alike letter (Cyrillic а) in a shown field: the card's check notes say so.
LOOKALIKE = "p\u0430ypal"
MARKS = (Change("note", "The note is new since you last approved this", "new-party"),)


def column_order(view: CardView) -> list[str]:
    """Notch's lines under the headline as they stand in the card's column, shown or not."""
    names = ("CheckNotes", "RiskNotes", "ChangeMarks")
    found = [w for w in view.findChildren(QWidget) if w.objectName() in names]
    glass = found[0].parentWidget() if found else None
    layout = glass.layout() if glass is not None else None
    assert layout is not None
    return [w.objectName() for w in sorted(found, key=layout.indexOf)]


def test_a_call_with_no_risk_makes_its_risk_panel_with_the_first_risk_in_its_place(
    qtbot: Any, make_tool: Any
) -> None:
    tool = make_tool(COMMAND_CARD, COMMAND_PROPERTIES)
    args = {"command": "ls", "note": LOOKALIKE}
    view = _shown(qtbot, CardView(tool, args, changes=MARKS))
    assert view.findChild(QWidget, "RiskNotes") is None
    assert column_order(view) == ["CheckNotes", "ChangeMarks"]
    confirm = view.confirm_button()
    assert confirm is not None and getattr(confirm, "tone", "") != "danger"

    view.state().set("command", "rm -rf build")  # the edit that makes the call risky
    notes = view.risk.notes
    qtbot.waitUntil(lambda: notes.isVisibleTo(view))
    assert notes.accessibleName() == "Risks of this call"
    assert notes.lines == ("Deletes build recursively, without asking (rm)",)
    assert getattr(confirm, "tone", "") == "danger"
    # Where a card risky from the start has it: under the check notes, above the marks.
    risky = _shown(qtbot, CardView(tool, {**args, "command": "rm -rf build"}, changes=MARKS))
    assert column_order(view) == column_order(risky) == ["CheckNotes", "RiskNotes", "ChangeMarks"]
    y = notes.mapTo(view, notes.rect().topLeft()).y()
    risky_notes = risky.risk.notes
    assert y == risky_notes.mapTo(risky, risky_notes.rect().topLeft()).y()
    assert notes.size() == risky_notes.size()

    view.state().set("command", "ls")  # and gone with its risk
    qtbot.waitUntil(lambda: not notes.isVisibleTo(view))
    assert getattr(confirm, "tone", "") != "danger"


def test_a_card_with_no_changes_makes_no_marks_panel(qtbot: Any, make_tool: Any) -> None:
    tool = make_tool(COMMAND_CARD, COMMAND_PROPERTIES)
    view = _shown(qtbot, CardView(tool, {"command": "ls", "note": "hi"}))
    assert view.findChild(QWidget, "ChangeMarks") is None
    # Asked for, the panel is there all the same: empty, hidden, named.
    marks = view.changes
    assert marks.lines == () and not marks.isVisibleTo(view)
    assert marks.accessibleName() == TITLE
    marked = _shown(qtbot, CardView(tool, {"command": "ls", "note": "hi"}, changes=MARKS))
    assert marked.changes.isVisibleTo(marked) and marked.changes.lines == (MARKS[0].text,)


SUBTITLED = {**ROOT, "subtitle": "to {{to}}"}
LONG_TO = "sam, kim and the whole team at the office downstairs"


def _subtitle(view: CardView) -> QLabel | None:
    return view.findChild(QLabel, "CardSubtitle")


def test_the_subtitle_is_made_when_the_headline_first_stops_saying_it(
    qtbot: Any, make_tool: Any
) -> None:
    tool = make_tool(SUBTITLED, PROPERTIES)
    view = _shown(qtbot, CardView(tool, {"to": "sam"}, scopes=True))
    assert view.headline_line.text() == "Send thing to sam"  # says "to sam" already
    assert _subtitle(view) is None

    view.state().set("to", LONG_TO)  # the headline is cut: it no longer says it
    qtbot.waitUntil(lambda: (s := _subtitle(view)) is not None and s.isVisible())
    subtitle = _subtitle(view)
    assert subtitle is not None and subtitle.text() == f"to {LONG_TO}"
    # As a card showing it from the start has it: under the headline, the same look.
    shown = _shown(qtbot, CardView(tool, {"to": LONG_TO}, scopes=True))
    first = _subtitle(shown)
    assert first is not None and first.isVisible() and first.text() == subtitle.text()
    at = first.mapTo(shown, first.rect().topLeft()).y()
    qtbot.waitUntil(lambda: subtitle.mapTo(view, subtitle.rect().topLeft()).y() == at)
    headline = view.headline_line
    assert at > headline.mapTo(view, headline.rect().bottomLeft()).y()
    assert subtitle.size() == first.size() and subtitle.font() == first.font()
    assert subtitle.palette().windowText().color() == first.palette().windowText().color()

    view.state().set("to", "sam")  # said again by the headline: hidden again
    qtbot.waitUntil(lambda: not subtitle.isVisible())
    assert subtitle.text() == "to sam"


def test_the_collapsed_reply_line_is_its_invitation_placed_as_its_column_placed_it(
    qtbot: Any, make_tool: Any
) -> None:
    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES), {"to": "sam"}, scopes=True))
    field = view.reply_field
    invitation = field.invitation
    assert field.layout() is None  # no column until a part under or above it is made
    hint = invitation.sizeHint()
    assert invitation.geometry() == QRect(0, 0, hint.width(), hint.height())
    assert field.height() == hint.height() and field.sizeHint() == hint
    assert invitation.isVisibleTo(view) and invitation.accessibleName() == invitation.text()
    closed = field.geometry()
    # "Heard:" above it makes the column; the invitation stays where a column puts it.
    field.show_heard("yes, send it")
    qtbot.waitUntil(lambda: invitation.y() > 0)
    assert field.layout() is not None and invitation.size() == hint
    field.show_heard(None)
    qtbot.waitUntil(lambda: field.height() == closed.height() and invitation.y() == 0)
    assert invitation.geometry() == QRect(0, 0, hint.width(), hint.height())
    assert "Tell it what to change…" in tab_stops(view)


def test_the_scope_line_s_parts_take_its_font_and_colours(qtbot: Any, make_tool: Any) -> None:
    """Its words in the quiet text colour, its choices in the link colour, faint while
    confirm is closed, all in the line's font."""
    from PySide6.QtGui import QPalette

    view = _shown(qtbot, CardView(make_tool(ROOT, PROPERTIES, ["to"]), {"to": ""}, scopes=True))
    choices = view.scope_choices
    assert choices is not None
    look = view.look
    words = [w for w in choices.findChildren(QLabel) if w.text() in ("or", "·")]
    buttons = list(choices.findChildren(ScopeButton))
    assert len(words) == 2 and len(buttons) == 2
    font = look.font("ListMore")
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    for w in words:
        assert w.font().pixelSize() == font.pixelSize() and w.font().family() == font.family()
        assert w.palette().color(group.Active, role.WindowText) == look.text_color("ListMore")
    for b in buttons:
        assert b.font().pixelSize() == font.pixelSize() and b.font().family() == font.family()
        assert b.palette().color(group.Active, role.ButtonText) == look.color("link")
        assert b.palette().color(group.Disabled, role.ButtonText) == look.color("text_faint")
        assert not b.isEnabled()  # To is required and empty: drawn faint

"""What a card makes only when first needed keeps working as it did when made up front
(issue 19: the card's build, session 6).

The headline becomes selectable when the pointer first comes over it, as the card's other
labels do (a selectable label makes a text document up front, ~0.3 ms of every card):
the mouse still selects its words, and Tab still never stops on it. The scope choices and
Details keep their measurements per font and words: a change of either is measured anew.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QSize, Qt
from PySide6.QtGui import QEnterEvent, QFont
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from notch_app.manifest.integration import load_integration
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.asker_strip import asker_for

ROOT = Path(__file__).resolve().parents[2]


def _view(integration: str, tool_name: str) -> CardView:
    loaded, _ = load_integration(ROOT / "manifests" / integration)
    assert loaded is not None and loaded.fixtures is not None
    tool = loaded.manifest.tool(tool_name)
    assert tool is not None
    return CardView(
        tool,
        dict(loaded.fixtures.tools[tool_name].args),
        base_dir=loaded.folder,
        asker=asker_for(loaded.manifest, loaded.folder),
        scopes=True,
        live_pages=False,
        screen_height=1080,
    )


def _tab_stops(view: CardView) -> list[QWidget]:
    """The card's widgets Tab reaches, in the window's focus chain order."""
    stops: list[QWidget] = []
    widget = view.nextInFocusChain()
    while widget is not None and widget is not view and widget not in stops:
        if widget.focusPolicy().value & Qt.FocusPolicy.TabFocus.value and view.isAncestorOf(widget):
            stops.append(widget)
        widget = widget.nextInFocusChain()
    return stops


def test_the_headline_is_selected_with_the_mouse_once_pointed_at(qtbot: Any) -> None:
    view = _view("mail", "send_email")
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    headline = view.headline_line
    stops = _tab_stops(view)
    assert headline not in stops
    # Nothing made for selection until a pointer comes: no text document per card.
    assert not headline.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    y = headline.height() // 2
    start, end = QPoint(2, y), QPoint(headline.width() - 2, y)
    at = QPointF(start)
    # Sent to the label itself (see test_card_blocks' selection test for why).
    QApplication.sendEvent(headline, QEnterEvent(at, at, QPointF(headline.mapToGlobal(start))))
    QTest.mouseMove(headline, start)
    QTest.mousePress(headline, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(headline, end)
    QTest.mouseRelease(headline, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    selected = headline.selectedText()
    assert selected and selected in headline.text()
    # Selectable by the mouse only: Tab stops where it stopped before the pointer came.
    assert _tab_stops(view) == stops


def _doubled(font: QFont) -> QFont:
    """`font` at twice its size (in points or pixels, as it is sized)."""
    bigger = QFont(font)
    if font.pointSizeF() > 0:
        bigger.setPointSizeF(font.pointSizeF() * 2)
    else:
        bigger.setPixelSize(font.pixelSize() * 2)
    return bigger


def test_a_scope_choice_is_measured_again_when_its_words_or_font_change(qtbot: Any) -> None:
    """Its sizes are kept per font and words (a layout pass asks many times): a new
    scope's words, or a new font, are measured, never answered from the old ones."""
    from notch_app.ui.widgets.scope_choices import ScopeButton

    def fresh(text: str, font: QFont) -> tuple[QSize, QSize, int]:
        button = ScopeButton(text)
        qtbot.addWidget(button)
        button.setFont(font)
        return button.sizeHint(), button.minimumSizeHint(), button.heightForWidth(120)

    button = ScopeButton("Allow for this session")
    qtbot.addWidget(button)
    font = QFont(button.font())
    short = button.sizeHint()
    assert (short, button.minimumSizeHint(), button.heightForWidth(120)) == fresh(
        "Allow for this session", font
    )
    longer = "Allow `npm test` in ~/code/app for this session"
    button.setText(longer)
    assert button.sizeHint().width() > short.width()
    assert (button.sizeHint(), button.minimumSizeHint(), button.heightForWidth(120)) == fresh(
        longer, font
    )
    # Narrower than its words: they wrap onto more lines, never cut.
    assert button.heightForWidth(120) > button.sizeHint().height()
    bigger = _doubled(font)
    button.setFont(bigger)
    assert button.sizeHint().height() > short.height()
    assert (button.sizeHint(), button.minimumSizeHint(), button.heightForWidth(120)) == fresh(
        longer, bigger
    )


def test_details_is_measured_again_when_its_words_or_font_change(qtbot: Any) -> None:
    from PySide6.QtGui import QFontMetrics

    from notch_app.ui.theme import look
    from notch_app.ui.widgets.details_fold import DetailsToggle

    toggle = DetailsToggle(look("dark"))
    qtbot.addWidget(toggle)

    def measured() -> QSize:
        flags = Qt.TextFlag.TextShowMnemonic
        return QFontMetrics(toggle.font()).size(flags, toggle.text()) + QSize(0, 4)

    closed = toggle.sizeHint()
    assert closed == measured()
    toggle.set_open(True)  # "Hide details ▴"
    assert toggle.sizeHint() == measured() and toggle.sizeHint().width() > closed.width()
    toggle.setFont(_doubled(toggle.font()))
    assert toggle.sizeHint() == measured() and toggle.sizeHint().height() > closed.height()


def test_the_footer_row_follows_a_label_that_grows(qtbot: Any) -> None:
    """The footer's flow keeps its minimum size between layout changes: a confirm whose
    words grow (an edit) is measured anew, never answered from the old words."""
    from notch_app.ui.theme import look
    from notch_app.ui.widgets.buttons import PillButton
    from notch_app.ui.widgets.flow_layout import FlowLayout

    box = QWidget()
    qtbot.addWidget(box)
    row = FlowLayout(box, spacing=8, align_right=True)
    row.setContentsMargins(0, 0, 0, 0)  # as the card's actions row is
    cancel = PillButton(look("dark"), text="No", parent=box)
    confirm = PillButton(look("dark"), "primary", text="OK", parent=box)
    row.addWidget(cancel)
    row.addWidget(confirm)
    box.show()
    qtbot.waitExposed(box)

    def fresh() -> QSize:
        return cancel.minimumSizeHint().expandedTo(confirm.minimumSizeHint())

    before = row.minimumSize()
    assert before == fresh()
    confirm.setText("Delete all 300 files")
    confirm.updateGeometry()  # as a label that follows the values does
    assert row.minimumSize() == fresh() and row.minimumSize().width() > before.width()


class _WindowsShown(QObject):
    """Notes every window (a widget without a parent) shown while it watches."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QWidget) and watched.isWindow():
            self.shown.append(type(watched).__name__ + ":" + watched.objectName())
        return False


def test_shown_display_blocks_open_no_window_while_the_card_is_built(qtbot: Any, card: Any) -> None:
    """A divider, a progress line and a badge with a visibleIf are made inside the card:
    one made parentless and shown by its visibleIf opened as a window of its own until a
    layout took it in (a flash on screen while the notch is up)."""
    windows = _WindowsShown()
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(windows)
    try:
        view = card(
            [
                {"type": "divider", "visibleIf": "{{on}}"},
                {"type": "progress", "label": "Done", "value": 3, "max": 4, "visibleIf": "{{on}}"},
                {"type": "badge", "text": "Heads up", "tone": "warning", "visibleIf": "{{on}}"},
            ],
            {"on": {"type": "boolean"}},
            {"on": True},
        )
        qtbot.addWidget(view)
    finally:
        app.removeEventFilter(windows)
    assert windows.shown == []
    assert view.findChild(QWidget, "Divider") is not None
    assert view.findChild(QWidget, "Badge") is not None


def _facts_made(view: CardView) -> list[Any]:
    from notch_app.ui.widgets.details_fold import FoldedFacts

    return view.findChildren(FoldedFacts)


def test_folded_facts_are_made_only_once_one_would_show(qtbot: Any) -> None:
    """The delete card's one folded input is a switch that is off: no row would show, so
    no facts are made, laid out and hidden; the card gates and reads as before. Turned
    on, with Details closed again, the row shows where the facts stand on any card."""
    view = _view("files", "delete_files")
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    assert not view.details_open and _facts_made(view) == []
    state = view.state()
    assert state.confirm_enabled  # nothing folded holds it: no row was cut
    details = view.details
    assert details is not None
    details.set_open(True)
    state.set("remove_empty_folders", True)
    view.setFocus()  # not in the switch about to fold (Qt would move focus on, unfolding)
    details.set_open(False)
    QApplication.processEvents()
    made = _facts_made(view)
    assert len(made) == 1 and made[0].isVisible()
    label = "Also remove folders left empty"
    assert made[0].facts() == {label: f"\u2713 {label}"}
    assert view.folded_facts is made[0]  # made once


def test_folded_facts_follow_a_value_changed_while_details_is_closed(qtbot: Any) -> None:
    """A value changed with Details closed (a widget page's staged edit, a spoken one)
    makes the facts at once when a row would show: nothing that runs is out of view."""
    view = _view("files", "delete_files")
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    assert _facts_made(view) == []
    view.state().set("remove_empty_folders", True)
    QApplication.processEvents()
    made = _facts_made(view)
    assert len(made) == 1 and made[0].isVisible()
    assert list(made[0].facts()) == ["Also remove folders left empty"]


def test_asked_for_facts_of_a_card_with_none_to_show_are_said_and_hidden(
    qtbot: Any,
) -> None:
    view = _view("elevenlabs", "generate_speech")
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    assert not view.details_open and _facts_made(view) == []
    facts = view.folded_facts  # asked for (tests, a review): made and said, hidden
    assert facts is not None and facts.isHidden() and facts.facts() == {}

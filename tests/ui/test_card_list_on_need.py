"""The list block makes what it has to show, and only that: its "Show N more" control
when a row is first folded away (at build or after an edit), its fixed rows' and its
array's columns when it has them; a row that is only a title is the title label itself;
a badge stands without a box around it. What the person sees, reaches with Tab and hears
from a screen reader is the same as when every part was made with the card."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QPushButton

from notch_app.manifest.integration import load_integration
from notch_app.ui.blocks.text import SelectableLabel
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView
from notch_app.ui.theme import Look
from notch_app.ui.widgets.asker_strip import asker_for

ROOT = Path(__file__).resolve().parents[2]
NINE = [f"/home/maya/Downloads/{name}.dmg" for name in "abcdefghi"]

LIST_AND_CHIPS: list[dict[str, Any]] = [
    {"type": "list", "itemsFrom": "{{who}}", "maxVisible": 2},
    {"type": "chips", "bind": "{{who}}", "label": "Who"},
]
WHO = {"who": {"type": "array", "items": {"type": "string"}}}


def _tab_stops(view: CardView) -> list[str]:
    """The card's widgets Tab reaches, in the window's focus chain order."""
    stops: list[str] = []
    widget = view.nextInFocusChain()
    while widget is not None and widget is not view:
        reaches = widget.focusPolicy().value & Qt.FocusPolicy.TabFocus.value
        if reaches and view.isAncestorOf(widget) and widget.isVisibleTo(view):
            name = widget.accessibleName() or getattr(widget, "text", lambda: "")()
            stops.append(f"{type(widget).__name__}:{name}")
        widget = widget.nextInFocusChain()
    return stops


def _shown_buttons(view: CardView, text: str) -> list[QPushButton]:
    return [b for b in view.findChildren(QPushButton) if b.text() == text and b.isVisibleTo(view)]


def test_show_more_appears_when_an_edit_first_folds_rows_away(qtbot: Any, card: Any) -> None:
    view = card(LIST_AND_CHIPS, WHO, {"who": ["sam", "lee"]})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    assert not [b for b in view.findChildren(QPushButton) if b.text().startswith("Show ")]
    CardDriver(view).set("who", ["sam", "lee", "kim", "ada"])
    (more,) = _shown_buttons(view, "Show 2 more")
    assert more.accessibleName() == "Show 2 more items"
    # Where Tab reaches it: as on a card that had the four names from the start.
    built = card(LIST_AND_CHIPS, WHO, {"who": ["sam", "lee", "kim", "ada"]})
    qtbot.addWidget(built)
    built.show()
    qtbot.waitExposed(built)
    # The chips an edit adds are the chips box's own affair: left out on both sides.
    edited = [s for s in _tab_stops(view) if not s.startswith("Chip:")]
    assert edited == [s for s in _tab_stops(built) if not s.startswith("Chip:")]
    assert edited[0] == "_ShowMore:Show 2 more items"
    qtbot.mouseClick(more, Qt.MouseButton.LeftButton)
    lines = CardDriver(view).visible_text().splitlines()
    assert all(name in lines for name in ("sam", "lee", "kim", "ada"))
    assert not more.isVisibleTo(view)


def _delete_card(paths: list[str]) -> CardView:
    files, _ = load_integration(ROOT / "manifests" / "files")
    assert files is not None
    tool = files.manifest.tool("delete_files")
    assert tool is not None
    args = {"paths": paths, "count": len(paths), "folder": "/home/maya/Downloads"}
    # As the overlay makes it: the asker's strip, the scope line, the compact view.
    return CardView(
        tool, args, asker=asker_for(files.manifest, files.folder), scopes=True, compact=True
    )


def test_paths_an_edit_adds_to_the_delete_card_are_behind_show_more_in_tab_order(
    qtbot: Any,
) -> None:
    view = _delete_card(NINE[:3])
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    view.state().set("paths", NINE)
    (more,) = _shown_buttons(view, "Show 3 more")
    assert more.accessibleName() == "Show 3 more items"
    built = _delete_card(NINE)
    qtbot.addWidget(built)
    built.show()
    qtbot.waitExposed(built)
    stops = _tab_stops(view)
    assert stops == _tab_stops(built)
    assert stops[0] == "_ShowMore:Show 3 more items"  # before the card's own buttons
    qtbot.mouseClick(more, Qt.MouseButton.LeftButton)
    text = CardDriver(view).visible_text()
    assert all(path.rsplit("/", 1)[1] in text for path in NINE)


def test_the_scope_line_or_and_show_more_keep_their_own_colours(qtbot: Any) -> None:
    """The "or" before the scope choices is text in the ListMore role's colour; "Show N
    more" is a link. They shared one cached palette, so whichever a card made first gave
    its colour to the other (a delete card with nine paths drew a bright "or")."""
    view = _delete_card(NINE)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    look = Look("dark")
    (more,) = _shown_buttons(view, "Show 3 more")
    assert more.palette().color(QPalette.ColorRole.ButtonText) == look.colors["link"]
    (lead,) = [w for w in view.findChildren(QLabel) if w.text() == "or" and w.isVisibleTo(view)]
    assert lead.palette().color(QPalette.ColorRole.WindowText) == look.text_color("ListMore")
    assert look.text_color("ListMore") != look.colors["link"]


def test_a_path_row_is_its_title_selectable_with_the_mouse(qtbot: Any) -> None:
    view = _delete_card(NINE[:3])
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    rows = [w for w in view.findChildren(QLabel, "ListTitle") if w.isVisibleTo(view)]
    assert [r.text().replace("\u200b", "") for r in rows] == ["a.dmg", "b.dmg", "c.dmg"]
    assert all(isinstance(r, SelectableLabel) for r in rows)
    # Rows stand one under the other, 11 px apart (5 above a title, 6 under it).
    tops = [r.mapTo(view, r.contentsRect().topLeft()).y() for r in rows]
    assert [b - a for a, b in itertools.pairwise(tops)] == [
        r.contentsRect().height() + 11 for r in rows[:2]
    ]


def test_a_list_shows_its_fixed_rows_then_the_arrays(qtbot: Any, card: Any) -> None:
    fixed = [{"type": "listItem", "title": "Always first"}]
    view = card(
        [{"type": "list", "items": fixed, "itemsFrom": "{{who}}", "maxVisible": 3}],
        WHO,
        {"who": ["sam", "lee"]},
    )
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    lines = CardDriver(view).visible_text().splitlines()
    assert lines.index("Always first") < lines.index("sam") < lines.index("lee")
    assert not [b for b in view.findChildren(QPushButton) if b.text().startswith("Show ")]


def test_a_badge_stands_at_its_own_width_and_follows_its_visible_if(qtbot: Any, card: Any) -> None:
    view = card(
        [
            {"type": "badge", "text": "Cannot be undone", "tone": "danger"},
            {
                "type": "stack",
                "direction": "horizontal",
                "gap": 8,
                "children": [
                    {"type": "badge", "text": "First", "tone": "neutral"},
                    {"type": "badge", "text": "{{size}}", "visibleIf": "{{size}}"},
                    {"type": "badge", "text": "Last", "tone": "info"},
                ],
            },
        ],
        {"size": {"type": "string"}},
        {"size": "1.4 GB"},
    )
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    badges = {b.text(): b for b in view.findChildren(QLabel, "Badge")}
    alone = badges["Cannot be undone"]

    def left(badge: QLabel) -> int:
        return badge.mapTo(view, QPoint(0, 0)).x()

    def right(badge: QLabel) -> int:
        return left(badge) + badge.width()

    assert left(alone) == left(badges["First"])  # both at the body's left edge
    assert alone.width() == alone.sizeHint().width()
    first, size, last = badges["First"], badges["1.4 GB"], badges["Last"]
    assert [b.width() for b in (first, size, last)] == [
        b.sizeHint().width() for b in (first, size, last)
    ]
    assert left(size) == right(first) + 8
    assert left(last) == right(size) + 8
    view.state().set("size", "")
    assert not size.isVisibleTo(view)
    qtbot.waitUntil(lambda: left(last) == right(first) + 8)
    assert "1.4 GB" not in CardDriver(view).visible_text()

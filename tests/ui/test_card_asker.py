"""Who is asking: Notch's own strip on every card names the integration as installed, with
its icon and where it came from, where no block can draw over it or pass for it. Settings
says the same (never "Built in" for a folder added with --manifests) and shows people a
one-line summary of each action, not the model's routing prompt."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel, QWidget

from notch_app.manifest.integration import load_integration
from notch_app.runtime.catalog import Catalog, bundled_manifests_dir
from notch_app.runtime.policy_book import PolicyBook
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.settings import SettingsWindow
from notch_app.ui.settings.action_panel import one_line_summary
from notch_app.ui.widgets import asker_strip
from notch_app.ui.widgets.asker_strip import (
    ADDED,
    BUNDLED,
    INSTALLED,
    Asker,
    installed_from,
)
from notch_app.ui.widgets.integration_icon import integration_icon

MAIL = "dev.notch.examples.mail"


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A person's integrations folder of their own (the bundled one stays real)."""
    user = tmp_path / "user-integrations"
    user.mkdir()
    monkeypatch.setattr(asker_strip, "_places", lambda: (bundled_manifests_dir(), user))
    return user


def _mail_card(qtbot: Any, folder: Path, source: str = ADDED) -> CardView:
    catalog, problems = Catalog.load([folder])
    assert problems == []
    factory = ManifestCardFactory(catalog)
    entry = catalog.entry(MAIL)
    assert entry is not None and entry.fixtures is not None
    request = ConfirmationRequest(
        call_id="c1",
        integration_id=MAIL,
        tool_name="send_email",
        arguments=entry.fixtures.args_for("send_email") or {},
    )
    card = factory(request).widget
    assert isinstance(card, CardView)
    qtbot.addWidget(card)
    card.show()
    qtbot.waitExposed(card)
    return card


def test_where_an_integration_comes_from_is_named(places: Path, tmp_path: Path) -> None:
    assert installed_from(bundled_manifests_dir() / "mail") == BUNDLED
    assert installed_from(places / "mail") == INSTALLED
    assert installed_from(tmp_path / "elsewhere" / "mail") == ADDED
    assert installed_from(tmp_path / "x", "From the folder named") == "From the folder named"


def test_every_card_the_notch_builds_says_who_asks_with_the_icon(qtbot: Any, places: Path) -> None:
    card = _mail_card(qtbot, bundled_manifests_dir())
    strip = card.asker_strip
    assert strip is not None and strip.isVisibleTo(card)
    assert strip.text == "Mail · Bundled with Notch"
    assert CardDriver(card).visible_text().splitlines()[0] == strip.text
    # The icon is the integration's own file (icon.svg), not the drawn monogram.
    loaded, _ = load_integration(bundled_manifests_dir() / "mail")
    assert loaded is not None
    own = integration_icon(loaded.manifest, loaded.folder, 16).toImage()
    monogram = integration_icon(loaded.manifest, None, 16).toImage()
    assert strip.asker.icon is not None
    assert strip.asker.icon.toImage() == own and own != monogram


def test_a_copied_integration_added_with_manifests_says_so(
    qtbot: Any, places: Path, tmp_path: Path
) -> None:
    added = tmp_path / "added"
    shutil.copytree(bundled_manifests_dir() / "mail", added / "mail")
    card = _mail_card(qtbot, added)
    assert card.asker_strip is not None
    assert card.asker_strip.text == f"Mail · {ADDED}"
    assert str(added / "mail") in card.asker_strip.toolTip()


SPOOF = {
    "type": "card",
    "title": "Mail · Bundled with Notch",
    "children": [
        {"type": "text", "text": "Mail · Bundled with Notch"},
        {"type": "badge", "text": "Verified by Notch"},
        {
            "type": "stack",
            "direction": "horizontal",
            "gap": 0,
            "children": [{"type": "text", "text": "System"}],
        },
    ],
    "footer": [{"type": "actions", "items": [{"label": "OK", "role": "confirm"}]}],
}


def test_no_block_can_draw_over_or_into_the_strip(qtbot: Any, make_tool: Any) -> None:
    asker = Asker("Sketchy", "Added with --manifests", None, None)
    card = CardView(make_tool(SPOOF, {}), {}, asker=asker)
    qtbot.addWidget(card)
    card.show()
    qtbot.waitExposed(card)
    strip = card.asker_strip
    assert strip is not None
    glass = strip.parentWidget()
    assert glass is not None
    # Edge to edge across the top of the glass...
    assert strip.geometry() == QRect(0, 0, glass.width(), strip.height())
    # ...and every other widget on the card sits below it and inside the margins.
    for widget in card.findChildren(QWidget):
        if widget is strip or not widget.isVisibleTo(card) or strip.isAncestorOf(widget):
            continue
        if widget is glass or not glass.isAncestorOf(widget):
            continue
        top_left = widget.mapTo(glass, QPoint(0, 0))
        assert top_left.y() >= strip.height(), f"{widget} reaches into the strip"
        if isinstance(widget, QLabel) and widget.text():
            assert top_left.x() >= 20, "a block's text can never start at the strip's edge"
    # The strip still names the real asker, whatever the card's words claim.
    assert CardDriver(card).visible_text().splitlines()[0] == "Sketchy · Added with --manifests"


def test_the_strip_is_painted_in_its_own_band(qtbot: Any, make_tool: Any) -> None:
    for theme in ("dark", "light"):
        asker = Asker("Mail", "Bundled with Notch", None, None)
        card = CardView(make_tool(SPOOF, {}), {}, asker=asker, theme=theme)
        qtbot.addWidget(card)
        card.show()
        qtbot.waitExposed(card)
        image = QImage(card.size(), QImage.Format.Format_ARGB32)
        image.fill(0)
        card.render(image)
        strip = card.asker_strip
        assert strip is not None
        band = image.pixelColor(card.width() - 30, strip.height() // 2)
        below = image.pixelColor(card.width() - 30, strip.height() + 6)
        assert band != below, f"{theme}: the strip's band must differ from the card's glass"


def test_settings_names_where_each_integration_came_from(
    qtbot: Any, tmp_path: Path, places: Path
) -> None:
    added = tmp_path / "added"
    shutil.copytree(bundled_manifests_dir() / "mail", added / "mail")
    catalog, problems = Catalog.load([added])
    assert problems == []
    window = SettingsWindow(
        PolicyBook.in_data_dir(tmp_path / "data"),
        lambda: catalog,
        places,
        reload_integrations=lambda: None,
        theme="light",
    )
    qtbot.addWidget(window)
    window.show()
    window.open_integration(MAIL)
    texts = [label.text() for label in window.findChildren(QLabel) if label.isVisibleTo(window)]
    assert ADDED in texts
    assert "Built in" not in texts


def test_settings_shows_a_one_line_summary_not_the_routing_prompt(
    qtbot: Any, tmp_path: Path
) -> None:
    catalog, _ = Catalog.load([bundled_manifests_dir()])
    entry = catalog.entry(MAIL)
    assert entry is not None
    tool = entry.manifest.tool("send_email")
    assert tool is not None and tool.description
    window = SettingsWindow(
        PolicyBook.in_data_dir(tmp_path / "data"),
        lambda: catalog,
        tmp_path / "integrations",
        reload_integrations=lambda: None,
        theme="light",
    )
    qtbot.addWidget(window)
    window.show()
    window.open_integration(MAIL)
    panel = window.action_panels["send_email"]
    texts = [label.text() for label in panel.findChildren(QLabel) if label.isVisibleTo(panel)]
    assert tool.display_title in texts
    assert one_line_summary(tool.description) in texts
    assert all(len(t) <= 90 and "\n" not in t for t in texts)


def test_a_long_routing_prompt_becomes_its_first_sentence() -> None:
    prompt = (
        "Send an email on the user's behalf. Use this tool whenever the user asks to "
        "email, reply or forward; never call it for drafts.\n\nArguments: to is a list "
        "of addresses; body is plain text. IMPORTANT: always confirm the recipient."
    )
    assert one_line_summary(prompt) == "Send an email on the user's behalf."
    long = "Create " + "a very long " * 20 + "thing"
    summary = one_line_summary(long)
    assert len(summary) == 90 and summary.endswith("…")
    assert one_line_summary("") == ""


def test_an_icon_reinstalled_into_the_same_folder_shows_in_the_strip(
    qtbot: Any, places: Path, tmp_path: Path
) -> None:
    added = tmp_path / "added"
    shutil.copytree(bundled_manifests_dir() / "mail", added / "mail")
    before = _mail_card(qtbot, added).asker_strip
    assert before is not None and before.asker.icon is not None
    # A reinstall into the same folder brings another icon file; the catalog is loaded
    # again (as `notch install` makes the running Notch do).
    shutil.copy(bundled_manifests_dir() / "payments" / "icon.svg", added / "mail" / "icon.svg")
    after = _mail_card(qtbot, added).asker_strip
    assert after is not None and after.asker.icon is not None
    loaded, _ = load_integration(added / "mail")
    assert loaded is not None
    new_icon = integration_icon(loaded.manifest, loaded.folder, 16).toImage()
    assert after.asker.icon.toImage() == new_icon
    assert after.asker.icon.toImage() != before.asker.icon.toImage()

"""The resting notch speaks: hover says what Notch is doing, a click lists recent
decisions, the tray lists them too and opens them on a left click; background work says
its name and marks its overrun (tests/ui/test_overlay_glances.py); the parked mark and
ElevenLabs' icon are not pause symbols.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QSystemTrayIcon

from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.tray import NotchTray

FAST = OverlaySettings(expand_ms=30, done_ms=60, park_after_s=0)
ROOT = Path(__file__).resolve().parents[2]


def _overlay(qtbot: Any, sink: Any, simple_factory: Any) -> OverlayPresenter:
    presenter = OverlayPresenter(sink, simple_factory, FAST)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    return presenter


def test_the_resting_pill_says_what_notch_does_and_lists_recent_decisions(
    qtbot: Any, sink: Any, simple_factory: Any, card_request: Any, simple_card: Any
) -> None:
    presenter = _overlay(qtbot, sink, simple_factory)
    presenter.window.show_idle()
    qtbot.waitUntil(lambda: presenter.window.look == "idle")
    assert "Notch is waiting" in presenter.window.toolTip()
    presenter.present(card_request("a"))
    qtbot.waitUntil(lambda: presenter.window.look == "card" and not presenter.window.is_animating())
    assert presenter.window.toolTip() == ""  # a card has its own words
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)  # held a moment after it shows
    card = presenter.window.card
    assert isinstance(card, simple_card)
    card.approve.click()
    qtbot.waitUntil(
        lambda: presenter.window.look == "idle" and not presenter.window.is_animating(),
        timeout=3000,
    )
    tip = presenter.window.toolTip()
    assert "Last: Approved" in tip and "Click for recent decisions" in tip
    presenter.window.pillClicked.emit()  # as a click on the pill does
    menu = presenter.recent_menu
    assert menu is not None
    entries = [a.text() for a in menu.actions()]
    assert len(entries) == 1 and "Approved" in entries[0]


def test_the_tray_lists_recent_decisions_and_a_left_click_opens_them(qtbot: Any) -> None:
    shown: list[bool] = []
    tray = NotchTray(
        quit=lambda: None,
        open_settings=lambda _t: None,
        recent=lambda: ["14:02  Approved ✓  Send email"],
        show_recent=lambda: shown.append(True),
    )
    labels = [a.text() for a in tray._menu.actions() if not a.isSeparator()]
    assert labels == ["Recent decisions", "Settings…", "Quit Notch"]
    tray.recent_menu.aboutToShow.emit()
    assert [a.text() for a in tray.recent_menu.actions()] == ["14:02  Approved ✓  Send email"]
    tray._activated(QSystemTrayIcon.ActivationReason.Trigger)
    assert shown == [True]


def test_the_elevenlabs_icon_is_not_two_bars() -> None:
    svg = (ROOT / "manifests" / "elevenlabs" / "icon.svg").read_text()
    assert svg.count("<rect") >= 4  # a waveform: more than a pause sign's two bars


def test_the_overlay_follows_the_desktops_light_or_dark(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import argparse

    from notch_app.commands.run import config_from, configure
    from notch_app.ui import theme

    monkeypatch.setattr(theme, "desktop_scheme", lambda: "light")
    assert theme.resolved_theme("system") == "light"
    monkeypatch.setattr(theme, "desktop_scheme", lambda: "dark")
    assert theme.resolved_theme("system") == "dark"
    # A desktop that says nothing keeps the notch's own dark look.
    monkeypatch.setattr(theme, "desktop_scheme", lambda: "unknown")
    assert theme.resolved_theme("system") == "dark"
    assert theme.resolved_theme("light") == "light"  # the setting wins over the desktop
    # `notch run` follows the desktop unless told: --theme dark|light|system.
    parser = argparse.ArgumentParser()
    configure(parser)
    assert config_from(parser.parse_args([])).settings.theme == "system"
    assert config_from(parser.parse_args(["--theme", "light"])).settings.theme == "light"


def test_a_card_sent_back_with_words_says_so(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any
) -> None:
    from notch_app.runtime.presenter import ConfirmationRequest
    from notch_app.ui.card_view import CardView

    presenter = OverlayPresenter(sink, bundled_factory(), FAST)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    args = preview_args("mail", "send_email")
    presenter.present(ConfirmationRequest("r", "dev.notch.examples.mail", "send_email", args))
    qtbot.waitUntil(lambda: isinstance(presenter.window.card, CardView), timeout=3000)
    view = presenter.window.card
    assert isinstance(view, CardView)
    assert view.reply("make it shorter")
    qtbot.waitUntil(lambda: presenter.window.look == "done", timeout=3000)
    note = presenter.window._note.text()
    assert note == "Sent back with your words: “make it shorter”", note
    decided = sink.of("decide")[0]
    assert decided[2] is False


def test_an_action_that_ran_without_a_card_says_so(
    qtbot: Any, sink: Any, simple_factory: Any, card_request: Any
) -> None:
    presenter = _overlay(qtbot, sink, simple_factory)
    presenter.glance(card_request("g"), "Publish playlist")
    qtbot.waitUntil(lambda: presenter.window.look == "done", timeout=3000)
    assert presenter.window._note.text() == "Ran without asking: Publish playlist"

"""`notch run` under sway 1.7 (headless) as a person starts it in their Wayland session:
over the window they work in, the card drops from the top centre through XWayland, stays
above that window, leaves it the keyboard, and a click decides it. Read from grim's
screenshots; clicks from a virtual pointer, through sway's seat (see conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

WIDTH, HEIGHT = 1920, 1080
TOP_MARGIN = 6  # OverlaySettings.top_margin


def test_over_a_focused_window_the_card_drops_from_the_top_centre_and_a_click_decides(
    sway: Any, notch_env: dict[str, Path], start_notch: Any, ask_card: Any, wait_for: Any,
    person_at_work: Any, focused_in_sway: Any, confirm_on: Any, repo: Path, doctor: Any,
) -> None:  # fmt: skip
    said = doctor(sway.notch_env(repo))
    assert said["core"] is True and "compositor: sway" in said["display"]["says"]
    assert said["top centre"]["status"] == "ok" and "through XWayland" in said["top centre"]["says"]
    assert said["answer keys"]["status"] == "no", "xdg-desktop-portal-wlr has no GlobalShortcuts"
    person_at_work(sway)
    wait_for(lambda: focused_in_sway(sway) == "person-at-work", 20, "the person's window")
    env = sway.notch_env(repo)
    start_notch(env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])

    declined = ask_card(env, notch_env["socket"], "Not this one")
    card, shot = sway.settled_card(wait_for)
    sway.save(shot, "sway-xwayland-card")
    assert abs(card.center().x() - WIDTH // 2) <= 2, (card, "not centred on the screen")
    assert card.top() <= TOP_MARGIN + 2, (card, "not at the top of the screen")
    assert card.bottom() < HEIGHT, card
    # Seen on screen over the person's window (tiled across the whole screen), which
    # still has the keyboard: the card took no focus from their work.
    assert focused_in_sway(sway) == "person-at-work"
    sway.click_at(card.right() - 18, card.top() + 17)
    out, err = declined.communicate(timeout=30)
    decision = json.loads(out)
    assert (decision["outcome"], decision["decidedBy"]) == ("declined", "click"), err
    sway.card_gone(wait_for)

    approved = ask_card(env, notch_env["socket"], "Ship it")
    card, _ = sway.settled_card(wait_for)
    armed_at = wait_for(
        lambda: (look := confirm_on(sway.screen(), card))[0] and look[1],
        20,
        "the card's confirm to show armed",
    )
    sway.click_at(*armed_at)
    out, err = approved.communicate(timeout=30)
    decision = json.loads(out)
    assert (decision["outcome"], decision["decidedBy"]) == ("approved", "click"), err


def test_without_xwayland_sway_floats_the_card_whole_on_the_screen(
    sway: Any, notch_env: dict[str, Path], start_notch: Any, ask_card: Any, wait_for: Any,
    repo: Path, doctor: Any,
) -> None:  # fmt: skip
    env = sway.notch_env(repo, xwayland=False)
    said = doctor(env)
    assert said["top centre"]["status"] == "no"
    assert (
        "offers layer-shell, which the Qt inside PySide6 cannot use" in said["top centre"]["says"]
    )
    assert "xwayland enable" in said["top centre"]["fix"]
    start_notch(env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
    asked = ask_card(env, notch_env["socket"], "Placed by sway")
    card, shot = sway.settled_card(wait_for)
    sway.save(shot, "sway-native-card")
    # sway tiles a window that can change size; a fixed size floats it, whole.
    assert card.width() < 600 and card.height() < 600, (card, "tiled, not floating")
    assert card.left() >= 0 and card.top() >= 0, card
    assert card.right() < WIDTH and card.bottom() < HEIGHT, card
    sway.click_at(card.right() - 18, card.top() + 17)
    out, err = asked.communicate(timeout=30)
    assert json.loads(out)["outcome"] == "declined", err


def test_a_desktop_portal_lends_the_chords_and_only_notchs_own_press_decides(
    sway: Any, notch_env: dict[str, Path], start_notch: Any, ask_card: Any, wait_for: Any,
    shortcuts_portal: Any, confirm_on: Any, repo: Path, doctor: Any,
) -> None:  # fmt: skip
    """KDE Plasma and GNOME 48 lend shortcuts through the GlobalShortcuts portal: Notch
    binds Ctrl+Alt+Return / Ctrl+Alt+Escape there, and a press of them decides the card
    on screen (decided "key"), while a press of another program's shortcut of the same
    name does nothing."""
    env = sway.notch_env(repo) | {"DBUS_SESSION_BUS_ADDRESS": shortcuts_portal.address}
    said = doctor(env)
    assert said["answer keys"]["status"] == "ok"
    assert "Global Shortcuts portal (version 1)" in said["answer keys"]["says"]
    start_notch(env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
    wait_for(
        lambda: "bound approve,decline" in shortcuts_portal.heard(), 20, "Notch to bind the chords"
    )

    approved = ask_card(env, notch_env["socket"], "By the chord")
    card, _ = sway.settled_card(wait_for)
    wait_for(lambda: confirm_on(sway.screen(), card)[0], 20, "the card's confirm to show armed")
    shortcuts_portal.press("approve", foreign=True)  # someone else's shortcut: ignored
    shortcuts_portal.press("approve")
    out, err = approved.communicate(timeout=30)
    decision = json.loads(out)
    assert (decision["outcome"], decision["decidedBy"]) == ("approved", "key"), err
    sway.card_gone(wait_for)

    declined = ask_card(env, notch_env["socket"], "Not by this one")
    card, _ = sway.settled_card(wait_for)
    wait_for(lambda: confirm_on(sway.screen(), card)[0], 20, "the card's confirm to show armed")
    shortcuts_portal.press("approve", foreign=True)  # armed: it would approve, were it Notch's
    shortcuts_portal.press("decline")
    out, err = declined.communicate(timeout=30)
    decision = json.loads(out)
    assert (decision["outcome"], decision["decidedBy"]) == ("declined", "key"), err

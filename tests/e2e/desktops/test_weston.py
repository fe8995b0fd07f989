"""`notch run` under weston 10 as a person starts it in a Wayland session: the card drops
from the top centre through XWayland and a click decides it; without XWayland weston
places the card itself, whole on the screen. Read from weston's own screenshots; clicks
go through weston's seat (see conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

WIDTH, HEIGHT = 1920, 1080
TOP_MARGIN = 6  # OverlaySettings.top_margin


def test_through_xwayland_the_card_is_at_the_top_centre_and_clicks_decide_it(
    weston: Any, notch_env: dict[str, Path], start_notch: Any, ask_card: Any, wait_for: Any,
    confirm_on: Any, repo: Path, doctor: Any,
) -> None:  # fmt: skip
    env = weston.notch_env(repo)
    said = doctor(env)
    assert said["core"] is True
    assert "compositor: weston" in said["display"]["says"]
    assert said["top centre"]["status"] == "ok" and "through XWayland" in said["top centre"]["says"]
    assert said["answer keys"]["status"] == "no", "weston offers no GlobalShortcuts portal"
    start_notch(env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])

    declined = ask_card(env, notch_env["socket"], "Not this one")
    card, shot = weston.settled_card(wait_for)
    weston.save(shot, "weston-xwayland-card")
    # The glass's edge is 1 px inside the window (its antialiased border).
    assert abs(card.center().x() - WIDTH // 2) <= 2, (card, "not centred on the screen")
    assert card.top() <= TOP_MARGIN + 2, (card, "not at the top of the screen")
    assert card.bottom() < HEIGHT and card.left() >= 0 and card.right() < WIDTH
    # The × in the header's corner declines (never held).
    weston.click_at(card.right() - 18, card.top() + 17)
    out, err = declined.communicate(timeout=30)
    decision = json.loads(out)
    assert (decision["outcome"], decision["decidedBy"]) == ("declined", "click"), err
    weston.card_gone(wait_for)

    approved = ask_card(env, notch_env["socket"], "Ship it")
    card, _ = weston.settled_card(wait_for)
    armed_at = wait_for(
        lambda: (look := confirm_on(weston.screen(), card))[0] and look[1],
        20,
        "the card's confirm to show armed",
    )
    weston.click_at(*armed_at)
    out, err = approved.communicate(timeout=30)
    decision = json.loads(out)
    assert (decision["outcome"], decision["decidedBy"]) == ("approved", "click"), err
    assert decision["arguments"] == {"text": "Ship it", "voice": "rachel"}


def test_without_xwayland_weston_places_the_card_itself_whole_on_the_screen(
    weston: Any, notch_env: dict[str, Path], start_notch: Any, ask_card: Any, wait_for: Any,
    repo: Path, doctor: Any,
) -> None:  # fmt: skip
    env = weston.notch_env(repo, xwayland=False)
    said = doctor(env)
    assert said["top centre"]["status"] == "no"
    assert "start weston with --xwayland" in said["top centre"]["fix"]
    assert "once the card has focus" in said["answer keys"]["says"]
    start_notch(env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
    asked = ask_card(env, notch_env["socket"], "Placed by weston")
    card, shot = weston.settled_card(wait_for)
    weston.save(shot, "weston-native-card")
    # xdg-shell gives a client no say in where its window goes: weston chose the place.
    # Opened at its final size, the card is never larger than that place.
    assert card.left() >= 0 and card.top() >= 0, card
    assert card.right() < WIDTH and card.bottom() < HEIGHT, card
    weston.click_at(card.right() - 18, card.top() + 17)
    out, err = asked.communicate(timeout=30)
    assert json.loads(out)["outcome"] == "declined", err

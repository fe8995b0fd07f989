"""The real program in a real X server: `notch run`, `notch ask` from another process, the
card on screen, keys and clicks from xdotool, the approved and edited arguments printed."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import NOTCH, REPO, NotchProcess, XServer, start_notch, wait_for
from PySide6.QtGui import QImage

pytestmark = pytest.mark.e2e


def notch_window(x: XServer, name: str = "^Notch$") -> dict[str, int] | None:
    """Geometry of the visible window called `name`, or None."""
    for wid in reversed(x.xdotool("search", "--onlyvisible", "--name", name).split()):
        shell = x.xdotool("getwindowgeometry", "--shell", wid)
        geo = dict(line.split("=", 1) for line in shell.splitlines() if "=" in line)
        box = {k: int(geo[k]) for k in ("X", "Y", "WIDTH", "HEIGHT")}
        box["WINDOW"] = int(wid)
        if box["WIDTH"] > 1:
            return box
    return None


def settled_card(x: XServer, timeout: float = 15) -> dict[str, int]:
    """The notch's geometry once it has expanded into a card and kept still for 0.3 s
    (longer than the 180 ms expand animation, even when a busy machine delays its ticks)."""
    seen: list[dict[str, int]] = []

    def check() -> dict[str, int] | None:
        time.sleep(0.1)
        now = notch_window(x)
        if now is None or now["HEIGHT"] <= 150:
            seen.clear()
            return None
        seen.append(now)
        return now if len(seen) >= 4 and all(g == now for g in seen[-4:]) else None

    card = wait_for(check, timeout, "the card to settle")
    assert isinstance(card, dict)
    return card


def ask(
    x: XServer, socket: Path, tool: str, args: dict[str, object], *extra: str
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*NOTCH, "ask", "--socket", str(socket), "--integration", "io.elevenlabs", "--tool", tool,
         "--args", json.dumps(args), "--timeout", "60", *extra],
        env=x.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip


def test_card_appears_on_screen_and_keys_edit_and_approve_it(
    xserver: XServer, notch_env: dict[str, Path], stop_notch: Callable[[NotchProcess], None]
) -> None:
    notch = start_notch(xserver.env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
    stop_notch(notch)
    pill = wait_for(lambda: notch_window(xserver), 10, "the idle notch pill")
    assert isinstance(pill, dict) and pill["HEIGHT"] < 40 and pill["Y"] < 20

    asker = ask(
        xserver, notch_env["socket"], "generate_speech", {"text": "Hello wrld", "voice": "rachel"}
    )
    card = settled_card(xserver)
    # At the top centre of the 1280-pixel-wide screen.
    assert abs(card["X"] + card["WIDTH"] // 2 - 640) <= 2 and card["Y"] < 20
    shot = xserver.screenshot("card-on-screen")
    image = QImage(str(shot))
    inside = image.pixelColor(card["X"] + 30, card["Y"] + card["HEIGHT"] // 2)
    outside = image.pixelColor(card["X"] - 30, card["Y"] + card["HEIGHT"] // 2)
    assert inside.lightness() < 60, "the card is dark glass on screen"
    assert abs(outside.lightness() - inside.lightness()) > 30, "the desktop shows around it"

    # A click on the card's header gives the notch keyboard focus (the card has a field);
    # Tab reaches the text field; the edit and Ctrl+Enter come from the X keyboard.
    xserver.xdotool("mousemove", str(card["X"] + 150), str(card["Y"] + 16), "click", "1")
    xserver.xdotool("key", "--delay", "60", "Tab", "ctrl+a")
    xserver.xdotool("type", "--delay", "15", "Hello world")
    xserver.screenshot("card-edited")
    xserver.xdotool("key", "ctrl+Return")

    out, err = asker.communicate(timeout=30)
    assert asker.returncode == 0, err
    decision = json.loads(out)
    assert decision["outcome"] == "approved"
    assert decision["arguments"] == {"text": "Hello world", "voice": "rachel"}
    assert decision["editedPaths"] == ["text"]
    assert decision["decidedBy"] == "key"
    # Then the passive done note, then the idle pill again.
    wait_for(lambda: (g := notch_window(xserver)) and g["HEIGHT"] < 40, 10, "the idle pill")


def test_close_button_click_declines(
    xserver: XServer, notch_env: dict[str, Path], stop_notch: Callable[[NotchProcess], None]
) -> None:
    notch = start_notch(xserver.env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
    stop_notch(notch)
    asker = ask(xserver, notch_env["socket"], "generate_speech", {"text": "Not this one"})
    card = wait_for(
        lambda: (g := notch_window(xserver)) and g["HEIGHT"] > 200 and g, 15, "the card"
    )
    assert isinstance(card, dict)
    xserver.screenshot("card-before-close")
    # The × sits in the header's right corner.
    xserver.xdotool(
        "mousemove", str(card["X"] + card["WIDTH"] - 19), str(card["Y"] + 18), "click", "1"
    )
    out, err = asker.communicate(timeout=30)
    assert asker.returncode == 1, err
    assert json.loads(out)["outcome"] == "declined"

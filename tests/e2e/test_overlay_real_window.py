"""The real program in a real X server: `notch run`, `notch ask` from another process, the
card on screen, keys and clicks from xdotool, the approved and edited arguments printed."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

pytestmark = pytest.mark.e2e


@pytest.fixture
def ask(xserver: Any, notch_argv: list[str], repo: Path) -> Callable[..., subprocess.Popen[str]]:
    """`ask(socket, tool, args, *flags)`: `notch ask` for an ElevenLabs tool, as a process."""

    def asking(
        socket: Path, tool: str, args: dict[str, object], *extra: str
    ) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*notch_argv, "ask", "--socket", str(socket), "--integration", "io.elevenlabs",
             "--tool", tool, "--args", json.dumps(args), "--timeout", "60", *extra],
            env=xserver.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=repo,
        )  # fmt: skip

    return asking


def test_card_appears_on_screen_and_keys_edit_and_approve_it(
    xserver: Any, shared_notch: Any, wait_for: Any, ask: Any
) -> None:
    notch = shared_notch()
    pill = wait_for(lambda: xserver.window(), 10, "the idle notch pill")
    assert isinstance(pill, dict) and pill["HEIGHT"] < 40 and pill["Y"] < 20

    asker = ask(notch.socket, "generate_speech", {"text": "Hello wrld", "voice": "rachel"})
    card = xserver.settled_card()
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
    xserver.retype_first_field(card, "Hello world")
    xserver.screenshot("card-edited")
    card = xserver.settled_card()  # Tab unfolded the compact card (issue 22): taller now
    xserver.confirm_with_keys(card)

    out, err = asker.communicate(timeout=30)
    assert asker.returncode == 0, err
    decision = json.loads(out)
    assert decision["outcome"] == "approved"
    assert decision["arguments"] == {"text": "Hello world", "voice": "rachel"}
    assert decision["editedPaths"] == ["text"]
    assert decision["decidedBy"] == "key"
    # Then the passive done note, then the idle pill again.
    wait_for(lambda: (g := xserver.window()) and g["HEIGHT"] < 40, 10, "the idle pill")


def test_close_button_click_declines(xserver: Any, shared_notch: Any, ask: Any) -> None:
    asker = ask(shared_notch().socket, "generate_speech", {"text": "Not this one"})
    # Clicked only once it has settled: while the notch grows, its X shape still hides
    # the header's corner and a click there lands on the desktop (the old flake).
    card = xserver.settled_card()
    assert card["HEIGHT"] > 200
    xserver.screenshot("card-before-close")
    xserver.click_close(card)  # the × sits in the header's right corner
    out, err = asker.communicate(timeout=30)
    assert asker.returncode == 1, err
    assert json.loads(out)["outcome"] == "declined"

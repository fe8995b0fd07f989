"""Enter never approves from a field (issue 20, finding 3), with the X keyboard.

The real `notch run` in Xvfb, `notch ask` from another process, keys from xdotool (XTEST,
the path a person's keyboard takes). Each test presses Enter in a field, then goes on
editing, then approves with Ctrl+Enter: the decision must hold the edit made *after*
the Enter. Had that Enter approved, the card would have gone with the earlier value
(and the later keys would have reached nothing), so no test needs to wait for a card
to stay on screen. The three share one `notch run` (`shared_notch`): each asks a
different integration's tool and leaves the notch idle, as the fixture checks.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e


@pytest.fixture
def ask(xserver: Any, notch_argv: list[str], repo: Path) -> Callable[..., subprocess.Popen[str]]:
    """`ask(socket, integration, tool, args)`: `notch ask` as a process."""

    def asking(
        socket: Path, integration: str, tool: str, args: dict[str, object]
    ) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*notch_argv, "ask", "--socket", str(socket), "--integration", integration,
             "--tool", tool, "--args", json.dumps(args), "--timeout", "90"],
            env=xserver.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=repo,
        )  # fmt: skip

    return asking


def decision_of(asker: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = asker.communicate(timeout=60)
    assert asker.returncode == 0, err
    decided: dict[str, Any] = json.loads(out)
    return decided


def test_enter_in_a_single_line_field_does_not_approve(
    xserver: Any, shared_notch: Any, ask: Any, wait_for: Any
) -> None:
    notch = shared_notch("--theme", "dark")
    asker = ask(
        notch.socket, "dev.notch.examples.files", "move_file",
        {"source": "/home/maya/a.pdf", "destination": "/home/maya/b.pdf", "overwrite": False},
    )  # fmt: skip
    card = xserver.settled_card()
    xserver.focus_card(card)
    # Armed first: from then on a yes counts, so an Enter that approved would approve.
    wait_for(lambda: xserver.confirm_armed(card), 20, "the card's confirm to show armed")
    # Tab reaches Destination, the card's one-line field; the person adds to it and
    # presses Enter, as after typing a subject line.
    xserver.xdotool("key", "--delay", "60", "Tab", "End")
    xserver.xdotool("type", "--delay", "15", "_v2")
    xserver.xdotool("key", "Return")
    xserver.xdotool("key", "KP_Enter")
    xserver.xdotool("type", "--delay", "15", "_final")
    xserver.screenshot("enter-in-field-hint")
    # Tab unfolded the compact card (issue 22): the notch grew, its confirm moved down.
    card = xserver.settled_card()
    xserver.confirm_with_keys(card)
    decided = decision_of(asker)
    assert decided["outcome"] == "approved"
    assert decided["arguments"]["destination"] == "/home/maya/b.pdf_v2_final"


def test_enter_in_a_text_area_and_a_select_does_not_approve(
    xserver: Any, shared_notch: Any, ask: Any, wait_for: Any
) -> None:
    notch = shared_notch("--theme", "dark")
    asker = ask(
        notch.socket, "io.elevenlabs", "generate_speech",
        {"text": "Hello", "voice": "rachel"},
    )  # fmt: skip
    card = xserver.settled_card()
    xserver.focus_card(card)
    # Armed first: from then on a yes counts, so an Enter that approved would approve.
    wait_for(lambda: xserver.confirm_armed(card), 20, "the card's confirm to show armed")
    xserver.xdotool("key", "--delay", "60", "Tab", "ctrl+End")
    xserver.xdotool("key", "Return")  # a new line in the text area
    xserver.xdotool("type", "--delay", "15", "world")
    # On to the Voice list: Down picks the next voice, Enter there is not a yes either.
    xserver.xdotool("key", "--delay", "80", "Tab", "Down", "Return")
    xserver.xdotool("key", "--delay", "80", "shift+Tab", "ctrl+End")
    xserver.xdotool("type", "--delay", "15", "!")
    xserver.confirm_with_keys(card)
    decided = decision_of(asker)
    assert decided["outcome"] == "approved"
    assert decided["arguments"] == {"text": "Hello\nworld!", "voice": "adam"}


def test_enter_in_a_chips_field_adds_a_chip_and_does_not_approve(
    xserver: Any, shared_notch: Any, ask: Any, wait_for: Any
) -> None:
    notch = shared_notch("--theme", "dark")
    asker = ask(
        notch.socket, "dev.notch.examples.mail", "send_email",
        {"from": "maya@example.com", "to": ["sam@example.com"], "subject": "Hi", "body": "See you"},
    )  # fmt: skip
    card = xserver.settled_card()
    xserver.focus_card(card)
    # Armed first: from then on a yes counts, so an Enter that approved would approve.
    wait_for(lambda: xserver.confirm_armed(card), 20, "the card's confirm to show armed")
    xserver.xdotool("key", "--delay", "60", "Tab")
    xserver.xdotool("type", "--delay", "15", "kim@example.com")
    xserver.xdotool("key", "Return")  # a new chip
    xserver.xdotool("key", "Return")  # an empty entry: still the field, still no yes
    xserver.xdotool("type", "--delay", "15", "lee@example.com")
    xserver.xdotool("key", "Return")
    card = xserver.settled_card()  # unfolded by the Tab (issue 22): taller now
    # The whole form on an 800-line screen scrolls inside the card: the person reads it
    # through (the wheel over its body) before confirm opens.
    x, y = card["X"] + card["WIDTH"] // 2, card["Y"] + 250
    xserver.xdotool("mousemove", str(x), str(y))
    for _ in range(12):
        xserver.xdotool("click", "5")
    xserver.confirm_with_keys(card)
    decided = decision_of(asker)
    assert decided["outcome"] == "approved"
    assert decided["arguments"]["to"] == ["sam@example.com", "kim@example.com", "lee@example.com"]

"""A flooding agent's cards are cleared with one real click (issue 18, finding 9).

`notch run` on a real X server: one process asks five cards, another agent then asks
one. The notch shows the flood's card naming its process, with "Decline all from this
asker"; a real click on it (XTEST, as a mouse) declines the five, and only them: the
other agent's card comes next and its approval reaches it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QColor

pytestmark = pytest.mark.e2e

FILES = "dev.notch.examples.files"
REPO = Path(__file__).resolve().parents[2]
ARGS = json.loads((REPO / "manifests" / "files" / "preview.json").read_text())["tools"][
    "delete_files"
]["args"]

ASK = r"""
import asyncio, json, sys
from notch_app.client import AsyncNotchClient
path, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
args = json.loads(sys.argv[4])

async def main():
    # One connection and token per call, all from this one process: a flood that no
    # "same tool again" rule can fold into one card (on one token, a call reaching Notch
    # over a second after the first would replace it, runtime/repeats.py; on a loaded
    # machine a gather's five can be that far apart). The strip names the process, and
    # "Decline all from this asker" takes every card this process asked, whatever token.
    clients = [AsyncNotchClient(path) for _ in range(count)]
    for notch in clients:
        await notch.__aenter__()
    asked = await asyncio.gather(*(
        notch.submit("dev.notch.examples.files", "delete_files", args,
                     call_id=f"{prefix}-{n}") for n, notch in enumerate(clients)))
    print("asked", flush=True)
    for notch, (call_id, _) in zip(clients, asked):
        print((await notch.await_decision(call_id, timeout=60)).outcome, flush=True)
    for notch in clients:
        await notch.__aexit__(None, None, None)

asyncio.run(main())
"""


def asking(socket: Path, prefix: str, count: int, env: dict[str, str]) -> subprocess.Popen[str]:
    """A process of its own asking `count` delete cards; it prints each outcome."""
    proc = subprocess.Popen(
        [sys.executable, "-c", ASK, str(socket), prefix, str(count), json.dumps(ARGS)],
        env=env, stdout=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline() == "asked\n"
    return proc


def decline_all_button(xserver: Any, card: dict[str, int]) -> tuple[int, int] | None:
    """Where "Decline all from this asker" is: the ghost pill at the right end of the
    strip's second line, found by its outline on screen (the first pixel left of the
    card's right margin that is not the strip's fill, on that line)."""
    screen = xserver.screen()
    right = card["X"] + card["WIDTH"] - 8 - 12  # the glass's edge, then the strip's margin
    for dy in range(60, 110, 2):  # the second line of the strip, under the header
        y = card["Y"] + dy
        fill = QColor(screen.pixel(right, y))
        for x in range(right, right - 60, -1):
            here = QColor(screen.pixel(x, y))
            if abs(here.lightness() - fill.lightness()) > 25:
                return x - 40, y + 3  # inside the pill, past its rounded end
    return None


@pytest.mark.timeout(180)
def test_one_real_click_declines_the_floods_cards_and_only_them(
    xserver: Any, notch_env: dict[str, Path], start_notch: Any, wait_for: Any
) -> None:
    socket = notch_env["socket"]
    start_notch(xserver.env, socket, notch_env["data_dir"], notch_env["log"])
    flood = asking(socket, "flood", 5, xserver.env)
    agent = asking(socket, "agent", 1, xserver.env)
    try:
        card = xserver.settled_card()
        xserver.screenshot("decline-all-from-asker-before")
        where = wait_for(lambda: decline_all_button(xserver, card), 20, "the decline-all button")
        xserver.xdotool("mousemove", str(where[0]), str(where[1]), "click", "1")
        assert flood.stdout is not None
        outcomes = [flood.stdout.readline().strip() for _ in range(5)]
        assert outcomes == ["declined"] * 5, outcomes
        # The other agent's card is next; its approval reaches it.
        card = xserver.settled_card()
        xserver.screenshot("decline-all-from-asker-after")
        wait_for(lambda: xserver.confirm_armed(card), 20, "the agent's confirm to arm")
        center = xserver.confirm_center(card)
        assert center is not None
        xserver.xdotool("mousemove", str(center[0]), str(center[1]), "click", "1")
        assert agent.stdout is not None
        assert agent.stdout.readline().strip() == "approved"
    finally:
        for proc in (flood, agent):
            proc.kill()
            proc.wait(10)

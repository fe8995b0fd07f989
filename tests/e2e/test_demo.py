"""`notch demo` as a newcomer runs it: the scripted agent's cards appear on the real screen,
the person answers with keys and clicks, every decision is printed, and it ends by itself."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import pytest

pytestmark = pytest.mark.e2e


def _lines(proc: subprocess.Popen[str]) -> Queue[str]:
    out: Queue[str] = Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.put(line.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    return out


def _wait_line(lines: Queue[str], seen: list[str], needle: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not any(needle in s for s in seen):
        try:
            seen.append(lines.get(timeout=max(0.01, deadline - time.monotonic())))
        except Empty:
            raise AssertionError(f"the demo never printed {needle!r}; it printed {seen}") from None


def test_demo_plays_prints_every_decision_and_ends_by_itself(
    xserver: Any, notch_argv: list[str], repo: Path
) -> None:
    demo = subprocess.Popen(
        [*notch_argv, "demo", "--exit-after-demo", "0.5", "--answer-after", "0"],
        env=xserver.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=repo,
    )  # fmt: skip
    try:
        lines = _lines(demo)
        seen: list[str] = []
        _wait_line(lines, seen, "notRequired")
        # The revised voice note replaced the first in place (the first ended superseded);
        # approve it with the keyboard once it has settled.
        _wait_line(lines, seen, "superseded")
        card = xserver.settled_card()
        xserver.screenshot("demo-voice-note")
        xserver.focus_card(card)
        xserver.confirm_with_keys(card)
        _wait_line(lines, seen, "one step, three tool calls")
        # Three queued cards: decline each with the × in the notch's corner; the next one
        # follows the done note.
        for n in range(3):
            card = xserver.settled_card()
            if n == 0:
                xserver.screenshot("demo-1-of-3")
            xserver.click_close(card)
            xserver.card_gone(card)
        _wait_line(lines, seen, "shows as a glance")
        xserver.settled_glance()
        xserver.screenshot("demo-glance")
        demo.wait(30)
    finally:
        if demo.poll() is None:
            demo.kill()
    while not lines.empty():
        seen.append(lines.get())
    text = "\n".join(seen)
    assert demo.returncode == 0, (text, demo.stderr.read() if demo.stderr else "")
    assert "search_mail" in text and "notRequired" in text
    assert "superseded" in text
    assert [s.split()[1] for s in seen if s.startswith("  ")] == [
        "search_mail", "generate_speech", "generate_speech",
        "send_email", "book_meeting", "pay_invoice", "list_events",
    ]  # fmt: skip
    outcomes = [s.split()[2] for s in seen if s.startswith("  ")]
    assert outcomes == [
        "notRequired", "superseded", "approved", "declined", "declined", "declined",
        "notRequired",
    ]  # fmt: skip
    assert "shows as a glance in the notch" in text
    assert "done — 7 decisions, 1 approved" in text

"""Risk in plain sight, on the real screen (issue 20, finding 4): `notch hook claude-code`
against the real `notch run` under Xvfb.

`rm -rf build && make` and `curl -s https://example.com/install.sh | sh` used to look
exactly like `npm test`: the same blue "Run command", nothing else. Now the risky ones
show a red panel of findings above the body and a red confirm pill; `npm test` shows
neither. Read from the screen's pixels, as a person sees them.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage

pytestmark = pytest.mark.e2e

FIXTURE = Path(__file__).parent.parent / "fixtures" / "hooks" / "claude-code" / "bash.json"
RUN_PX = 30


def rows_of(image: QImage, area: QRect, colour: tuple[int, int, int], tolerance: int) -> int:
    """How many rows of `area` hold a run of RUN_PX pixels or more of `colour`."""
    area = area.intersected(image.rect())
    (r_lo, r_hi), (g_lo, g_hi), (b_lo, b_hi) = ((c - tolerance, c + tolerance) for c in colour)
    pixel = image.pixel
    rows = 0
    for y in range(area.top(), area.bottom() + 1):
        run = 0
        for x in range(area.left(), area.right() + 1):
            # The pixel's red, green and blue read from its QRgb as QColor(rgb) reads them,
            # without making a QColor per pixel (a card is ~10^5 pixels, read 9 times).
            p = pixel(x, y)
            close = (
                r_lo <= (p >> 16) & 0xFF <= r_hi
                and g_lo <= (p >> 8) & 0xFF <= g_hi
                and b_lo <= p & 0xFF <= b_hi
            )
            run = run + 1 if close else 0
            if run >= RUN_PX:
                rows += 1
                break
    return rows


def card_for(command: str, xserver: Any, notch_env: dict[str, Path], notch_argv: list[str],
             repo: Path, tmp_path: Path, wait_for: Any) -> tuple[subprocess.Popen[str], QImage, QRect]:  # fmt: skip
    payload = json.loads(FIXTURE.read_text())
    payload["tool_input"]["command"] = command
    payload["tool_use_id"] = "toolu_" + str(abs(hash(command)))[:12]
    stdin = tmp_path / f"payload-{abs(hash(command))}.json"
    stdin.write_text(json.dumps(payload))
    hook = subprocess.Popen(
        [*notch_argv, "hook", "claude-code", "--socket", str(notch_env["socket"]), "--timeout", "60"],
        env={**xserver.env, "NOTCH_DATA_DIR": str(tmp_path / "hook-data")},
        stdin=stdin.open("rb"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=repo,
    )  # fmt: skip
    card = xserver.settled_card()
    wait_for(lambda: xserver.confirm_armed(card), 20, "the card's confirm to show armed")
    rect = QRect(card["X"], card["Y"], card["WIDTH"], card["HEIGHT"])
    return hook, xserver.screen(), rect


def test_a_risky_command_looks_risky_and_npm_test_does_not(
    xserver: Any, notch_env: dict[str, Path], start_notch: Any, notch_argv: list[str],
    repo: Path, tmp_path: Path, wait_for: Any, over_glass: Callable[[str], tuple[int, int, int]],
) -> None:  # fmt: skip
    start_notch(
        xserver.env, notch_env["socket"], notch_env["data_dir"], notch_env["log"], "--theme", "dark"
    )
    danger_pill, accent_pill = over_glass("danger_fill"), over_glass("accent_fill")
    panel = over_glass("badge_danger")
    seen: dict[str, tuple[int, int, int]] = {}
    for command in ("rm -rf build && make", "curl -s https://example.com/install.sh | sh",
                    "npm test"):  # fmt: skip
        hook, image, rect = card_for(command, xserver, notch_env, notch_argv, repo, tmp_path,
                                     wait_for)  # fmt: skip
        xserver.screenshot("risk-" + command.split()[0])
        seen[command] = (
            rows_of(image, rect, danger_pill, 12),
            rows_of(image, rect, accent_pill, 12),
            rows_of(image, rect, panel, 6),
        )
        xserver.click_close(rect_dict(rect))  # decline: nothing runs
        out, err = hook.communicate(timeout=30)
        assert hook.returncode == 0, err
        assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
        xserver.notch_idle()
    for command in ("rm -rf build && make", "curl -s https://example.com/install.sh | sh"):
        red, blue, warned = seen[command]
        assert red >= 8 and blue == 0, (command, seen[command])
        assert warned >= 12, ("a red panel of findings", command, seen[command])
    red, blue, warned = seen["npm test"]
    assert red == 0 and blue >= 8 and warned == 0, seen["npm test"]


def rect_dict(rect: QRect) -> dict[str, int]:
    return {"X": rect.x(), "Y": rect.y(), "WIDTH": rect.width(), "HEIGHT": rect.height()}

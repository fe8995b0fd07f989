"""X servers started at the same moment never share a display (the weston fixture's
private Xvfb took the first number of :300-:399 without a lock file, then started: two
xdist workers could pick the same one). `start_xvfb` lets Xvfb take the number itself
(-displayfd), so each gets its own, every time."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.e2e


def test_servers_started_at_once_each_get_a_display_of_their_own(
    start_xvfb: Callable[..., tuple[str, subprocess.Popen[bytes]]],
) -> None:
    with ThreadPoolExecutor(6) as pool:
        started = list(pool.map(lambda _: start_xvfb("-screen", "0", "640x480x24"), range(6)))
    try:
        displays = [display for display, _ in started]
        assert len(set(displays)) == 6, displays
        for display, _ in started:  # each one answers, as itself
            geometry = subprocess.run(
                ["xdotool", "getdisplaygeometry"], env={"DISPLAY": display},
                capture_output=True, text=True, timeout=10,
            )  # fmt: skip
            assert geometry.stdout.split() == ["640", "480"], (display, geometry.stderr)
    finally:
        for _, proc in started:
            proc.terminate()
            proc.wait(10)

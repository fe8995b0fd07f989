"""`xvfb-run -a notch demo` as README suggests for a machine without a screen: nobody can
see the cards, so the demo answers each by a click after a few seconds, says so, and ends
by itself with its summary and exit 0."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e


def test_xvfb_run_notch_demo_answers_itself_and_ends(notch_argv: list[str], repo: Path) -> None:
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (Debian package xvfb; scripts/setup.sh)")
    done = subprocess.run(
        ["xvfb-run", "-a", *notch_argv, "demo", "--no-pauses", "--answer-after", "0.5",
         "--exit-after-demo", "0"],
        capture_output=True, text=True, timeout=90, cwd=repo,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, (out, done.stderr)
    said = [line for line in out.splitlines() if line.startswith("Nobody answered for 0.5 s")]
    # The voice note, the email, the meeting: each clicked on its confirm (its own words).
    assert len(said) == 4, out
    assert all(re.fullmatch(r"Nobody answered for 0\.5 s: the demo clicks .+ itself\.", line)
               for line in said[:3]), out  # fmt: skip
    # The payment's confirm waits for something only a person can give: declined by ×.
    assert said[3].startswith("Nobody answered for 0.5 s: the demo declines it with ×"), out
    decided = [line.split() for line in out.splitlines() if line.startswith("  ")]
    assert [d[1:3] for d in decided if d[1] != "search_mail" and d[1] != "list_events"] == [
        ["generate_speech", "superseded"],
        ["generate_speech", "approved"],
        ["send_email", "approved"],
        ["book_meeting", "approved"],
        ["pay_invoice", "declined"],
    ], out
    assert all(d[-1] == "click" for d in decided if d[2] == "approved"), out
    assert "4 answered by the demo itself, since nobody did." in out

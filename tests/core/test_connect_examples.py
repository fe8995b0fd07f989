"""The connector examples run as README says, offline and without a screen (`--headless`:
an in-process Notch whose scripted person edits one card and declines the other)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("script", "extra"),
    [("langchain_agent.py", "langchain"), ("openai_agents_agent.py", "agents")],
)
def test_example_runs_the_persons_edit_and_tells_the_model_of_the_decline(
    script: str, extra: str
) -> None:
    # Installed or not, without importing it here: the script imports it in its own
    # process (importing the Agents SDK cost this process ~1.4 s of CPU for nothing).
    if importlib.util.find_spec(extra) is None:
        pytest.skip(f"{extra} is not installed (its optional extra)")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), "--headless"],
        capture_output=True, text=True, timeout=120, cwd=EXAMPLES,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "Sent “Q3 report” to sam@example.com." in out  # the person's recipient, not Marc
    assert "marc@example.com" not in out
    assert "Sent “Party!”" not in out  # the declined email never ran
    assert "declined" in out and "nothing ran" in out
    assert out.rstrip().endswith("model → All done.")

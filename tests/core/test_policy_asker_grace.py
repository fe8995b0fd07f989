"""The asker grace period is the person's setting (issue 14 §3): kept in the settings
file under `agents.askerGraceSeconds`, changed with `notch policy asker-grace`, read live
by the service; a hand-edited value out of range is reported, never guessed at."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from notch_app.runtime.policy_book import PersonPolicy, PolicyBook, PolicyRefused


def _policy(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "notch_app", "policy", "asker-grace", *args, "--data-dir", str(data)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_the_cli_shows_and_sets_the_grace_and_refuses_nonsense(tmp_path: Path) -> None:
    shown = _policy(tmp_path)
    assert shown.returncode == 0 and "10 s" in shown.stdout
    assert _policy(tmp_path, "30").returncode == 0
    saved = json.loads((tmp_path / "notch-settings.json").read_text(encoding="utf-8"))
    assert saved["agents"] == {"askerGraceSeconds": 30}
    for bad in ("0", "-5", "99999", "nan"):
        refused = _policy(tmp_path, bad)
        assert refused.returncode == 2, bad
        assert "1 to 3600 seconds" in refused.stderr
    book = PolicyBook.in_data_dir(tmp_path)
    assert PersonPolicy(book).asker_grace_seconds == 30.0


def test_the_book_refuses_a_grace_out_of_range(tmp_path: Path) -> None:
    book = PolicyBook.in_data_dir(tmp_path)
    for bad in (0, 0.5, 3601, True, float("inf")):
        with pytest.raises(PolicyRefused):
            book.set_asker_grace(bad)
    book.set_asker_grace(2.0)
    assert book.agents.asker_grace_seconds == 2


def test_a_hand_edited_grace_out_of_range_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "notch-settings.json"
    path.write_text(json.dumps({"version": 1, "agents": {"askerGraceSeconds": "soon"}}))
    book = PolicyBook.in_data_dir(tmp_path)
    assert book.problem is not None and "askerGraceSeconds" in book.problem
    assert book.agents.asker_grace_seconds == 10, "the default applies meanwhile"

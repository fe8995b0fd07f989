"""Lint, format, types and layering, run as part of the test command (marker: quality)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
CORE = ["notch_app/manifest", "notch_app/card", "notch_app/runtime", "notch_app/ipc"]

pytestmark = pytest.mark.quality


def _run(tool: str, *args: str) -> None:
    exe = BIN / tool
    if not exe.exists():
        pytest.fail(f"{tool} is not installed next to {sys.executable}; install the test extra")
    result = subprocess.run(
        [str(exe), *args], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, (
        f"{tool} {' '.join(args)} failed:\n{result.stdout}{result.stderr}"
    )


def test_ruff_lint() -> None:
    _run("ruff", "check", ".")


def test_ruff_format() -> None:
    _run("ruff", "format", "--check", ".")


def test_mypy_strict_on_the_qt_free_core() -> None:
    _run("mypy", "--strict", *CORE)


def test_the_core_never_imports_qt() -> None:
    _run("lint-imports")

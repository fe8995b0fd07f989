"""Lint, format, types and layering, run as part of the test command (marker: quality)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

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


def test_mypy_strict_on_the_whole_package() -> None:
    _run("mypy", "--strict", "notch_app")


def test_mypy_strict_on_the_tests() -> None:
    # The tests are code too: a fixture or helper of the wrong type fails here, by name,
    # not as some test's puzzling failure. The same cache as the package's run above
    # (.mypy_cache), which then already holds every notch_app module the tests import.
    _run("mypy", "--strict", "tests")


def test_the_core_never_imports_qt() -> None:
    _run("lint-imports")


def test_the_layers_and_no_cycles_are_contracts() -> None:
    # lint-imports passes with no contracts at all: make sure the rules are still there.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers")
    assert layers["containers"] == ["notch_app"] and layers["exhaustive"] is True
    order = [name.strip() for layer in layers["layers"] for name in layer.split("|")]
    core = ["ui", "ipc", "runtime", "card", "manifest"]
    assert [order.index(name) for name in core] == sorted(order.index(name) for name in core)
    acyclic = next(c for c in contracts if c["type"] == "acyclic_siblings")
    assert acyclic["ancestors"] == ["notch_app"]

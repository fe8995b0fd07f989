"""Shared test setup: Qt renders offscreen unless a test starts its own X server."""

import os
import shutil
import subprocess

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session", autouse=True)
def _fonts_are_installed() -> None:
    """Offscreen Qt draws text only with system fonts (PySide6 ships none): without them
    every card would render blank and the golden images would mean nothing."""
    found = ""
    if shutil.which("fc-list"):
        found = subprocess.run(
            ["fc-list", ":family=DejaVu Sans"], capture_output=True, text=True, check=False
        ).stdout
    if not found.strip():
        pytest.fail(
            "the DejaVu Sans font is not installed (fontconfig + fonts-dejavu-core): "
            "run scripts/setup.sh, which installs scripts/debian-packages.txt"
        )

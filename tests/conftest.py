"""Shared test setup: Qt renders offscreen unless a test starts its own X server."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

"""The Chromium command-line flags Notch's web engine runs with: the one place they are
chosen. Chromium reads QTWEBENGINE_CHROMIUM_FLAGS once, when the engine starts (the first
widget), so these are set just before that and never imported at start-up."""

from __future__ import annotations

import os

FLAGS_VARIABLE = "QTWEBENGINE_CHROMIUM_FLAGS"


def chromium_flags(euid: int | None = None) -> list[str]:
    """The flags Notch adds for its widgets' engine, for a process running as `euid`
    (the current one when None)."""
    if euid is None:
        euid = os.geteuid() if hasattr(os, "geteuid") else 1
    flags = [
        # Widgets never talk to the network; nothing should resolve names ahead of time.
        "--dns-prefetch-disable",
    ]
    if euid == 0:
        # Chromium refuses to start its renderers as root with the sandbox on (containers,
        # CI). The page stays fenced by Notch's own interceptor, settings and page rules.
        flags.append("--no-sandbox")
    return flags


def apply_chromium_flags() -> None:
    """Add Notch's flags to QTWEBENGINE_CHROMIUM_FLAGS, keeping any the person set."""
    present = os.environ.get(FLAGS_VARIABLE, "").split()
    added = [flag for flag in chromium_flags() if flag not in present]
    if added:
        os.environ[FLAGS_VARIABLE] = " ".join([*present, *added])

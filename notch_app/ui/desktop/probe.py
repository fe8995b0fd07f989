"""What Qt finds on this desktop, as `notch run` would start it: `python -m` this module.

`notch doctor` runs it as a child process, so that a display Qt cannot open (Qt aborts
the process then) or a library that fails to load never takes the doctor down with it.
It opens the display on the platform `notch run` would choose (XWayland on a Wayland
session), and prints one JSON object: the Qt platform and the overlay's route, the
screens, whether there is a system tray, the audio devices, QtWebEngine. Nothing is
shown on screen.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def probe() -> dict[str, Any]:
    """Open the display as `notch run` would and say what is there (see the module doc)."""
    from notch_app.ui.desktop.display import prepare_display

    problem = prepare_display()
    if problem is not None:
        return {"error": problem}
    from PySide6.QtWidgets import QApplication, QSystemTrayIcon

    from notch_app.ui.desktop.placement import overlay_route

    app = QApplication(["notch doctor"])
    found: dict[str, Any] = {
        "platform": app.platformName(),
        "route": overlay_route(),
        "screens": [
            {
                "name": s.name(),
                "geometry": _rect(s.geometry()),
                "available": _rect(s.availableGeometry()),
                "scale": s.devicePixelRatio(),
            }
            for s in app.screens()
        ],
        "tray": QSystemTrayIcon.isSystemTrayAvailable(),
    }
    try:
        from PySide6.QtMultimedia import QMediaDevices

        found["audio_in"] = [d.description() for d in QMediaDevices.audioInputs()]
        found["audio_out"] = [d.description() for d in QMediaDevices.audioOutputs()]
    except ImportError as exc:
        found["audio_error"] = str(exc)
    try:
        from PySide6 import QtWebEngineWidgets  # noqa: F401  (loads Chromium's libraries)
        from PySide6.QtWebEngineCore import qWebEngineChromiumVersion, qWebEngineVersion

        found["webengine"] = (
            f"{_text(qWebEngineVersion())} (Chromium {_text(qWebEngineChromiumVersion())})"
        )
    except ImportError as exc:
        found["webengine_error"] = str(exc)
    return found


def _rect(rect: Any) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def _text(value: object) -> str:
    return (
        bytes(value).decode() if isinstance(value, bytes | bytearray | memoryview) else str(value)
    )


def main() -> int:
    print(json.dumps(probe()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

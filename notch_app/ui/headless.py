"""A QApplication for commands that draw cards without showing them (`notch render`,
`notch test`): offscreen unless told otherwise, device pixel ratio 1, the card font."""

from __future__ import annotations

import os

from PySide6.QtCore import QMessageLogContext, Qt, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication


def headless_app() -> QApplication:
    """The running QApplication, or a new offscreen one. Commands always render offscreen
    (QT_QPA_PLATFORM may override) so the PNG does not depend on the screen's scale."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QT_SCALE_FACTOR", "1")
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    QApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    qInstallMessageHandler(_quiet_offscreen)
    QApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)  # web widgets
    app = QApplication(["notch"])
    app.setApplicationName("notch")
    return app


def _quiet_offscreen(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    # The offscreen platform warns on every top-level resize; it says nothing useful here.
    if "propagateSizeHints" in message:
        return
    import sys

    print(message, file=sys.stderr)

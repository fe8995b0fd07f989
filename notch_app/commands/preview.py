"""`notch preview FOLDER [--tool NAME] [--theme dark|light] [--width PX]`: the author's
studio, a window showing each tool's card exactly as the notch draws it, refreshed on
every save in the folder, with `notch validate`'s problems, the live result, "Save as
scenario" and "Try in the notch".

`--screenshot OUT.png` draws the studio offscreen once its first card is painted, writes
it and exits (pictures for docs; no display needed). `--quit-after-paint` exits once the
first card is painted (benchmarks/bench_preview.py times start → first card this way).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "folder", type=Path, metavar="FOLDER", help="the integration folder (or its manifest)"
    )
    parser.add_argument("--tool", metavar="NAME", help="the tool to show first")
    parser.add_argument(
        "--theme", choices=("dark", "light"), default="dark", help="the card's theme at start"
    )
    parser.add_argument(
        "--width",
        type=int,
        default=None,
        metavar="PX",
        help="card width (280–1000; default: the notch's, 440)",
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="OUT.png",
        help="draw the studio offscreen once its first card is painted, write it, and exit",
    )
    parser.add_argument(
        "--quit-after-paint",
        action="store_true",
        help="exit as soon as the first card is painted (for timing)",
    )


def _fail(message: str) -> int:
    print(f"notch preview: {message}", file=sys.stderr)
    return 2


def _has_display() -> bool:
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def run(args: argparse.Namespace) -> int:
    folder: Path = args.folder
    if not folder.exists():
        return _fail(f"{folder}: no such folder; give an integration folder (notch init makes one)")
    if folder.is_file():
        folder = folder.parent  # a manifest file: its folder is the integration
    folder = folder.resolve()
    if args.width is not None and not 280 <= args.width <= 1000:
        return _fail(f"--width {args.width} is out of range: use 280 to 1000 pixels")
    offscreen = args.screenshot is not None
    if not offscreen and not _has_display():
        return _fail(
            "no display to open the studio on: run it in a desktop session, or under "
            f"`xvfb-run -a notch preview {args.folder}`; `--screenshot OUT.png` draws it "
            "without one"
        )

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    if offscreen:
        from notch_app.ui.headless import headless_app

        app = headless_app()
    else:
        from notch_app.ui.desktop.display import display_opened, watch_display

        watch_display("notch preview")  # losing the display: one line, not a traceback
        existing = QApplication.instance()
        app = existing if isinstance(existing, QApplication) else QApplication(["notch preview"])
        display_opened()
        app.setApplicationName("notch preview")

    from notch_app.ui.studio import StudioWindow

    window = StudioWindow(folder, theme=args.theme, width=args.width)
    if args.tool:
        try:
            window.tools.pick(args.tool)
        except KeyError:
            names = ", ".join(t.name for t in (window.reading.tools if window.reading else ()))
            print(
                f"notch preview: {args.tool!r} is not a tool of {folder}; its tools: "
                f"{names or 'none (see the problems)'}",
                file=sys.stderr,
            )
    outcome = {"code": 0}

    def first_paint() -> None:
        if args.screenshot is not None:
            if not window.grab().save(str(args.screenshot), "PNG"):
                print(f"notch preview: cannot write {args.screenshot}", file=sys.stderr)
                outcome["code"] = 2
            else:
                print(f"wrote {args.screenshot}")
        app.quit()

    if offscreen or args.quit_after_paint:
        window.card_painted.connect(first_paint)
        if window.stage.card is None:  # nothing will paint: a read tool, errors
            QTimer.singleShot(0, first_paint)
    window.show()
    app.exec()
    window.close()
    return outcome["code"]

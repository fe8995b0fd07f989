"""`notch settings`: the Settings window on its own, for desktops without a tray icon.

It edits the same settings file as the tray's Settings… (and `notch policy`); a running
Notch watches that file and applies every change at once. `--screenshot PNG` draws the
window offscreen instead of showing it (for docs and for looking at it on a headless box).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir", type=Path, metavar="DIR", help="where the settings file lives "
        "(default: $NOTCH_DATA_DIR, else the platform's app-data folder)"
    )  # fmt: skip
    parser.add_argument(
        "--manifests", type=Path, metavar="DIR", action="append", default=[],
        help="a folder of integrations to list as well; repeatable",
    )  # fmt: skip
    parser.add_argument("--integration", metavar="ID", help="open this integration's page first")
    parser.add_argument("--theme", choices=("dark", "light"), help="default: follow the system")
    parser.add_argument(
        "--screenshot", type=Path, metavar="PNG", help="draw the window offscreen to PNG and exit"
    )


def run(args: argparse.Namespace) -> int:
    for folder in args.manifests:
        if not folder.is_dir():
            print(f"notch settings: --manifests {folder}: no such folder", file=sys.stderr)
            return 2
    if args.screenshot is not None:
        from notch_app.ui.headless import headless_app

        app = headless_app()
    else:
        from PySide6.QtWidgets import QApplication

        from notch_app.ui.desktop.display import display_opened, watch_display

        watch_display("notch settings")  # no display, or losing it: one line, not a trace
        existing = QApplication.instance()
        app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
        display_opened()

    from notch_app.runtime.catalog import load_integrations, user_integrations_dir
    from notch_app.runtime.policy_book import PolicyBook
    from notch_app.ui.settings.watcher import SettingsFileWatcher
    from notch_app.ui.settings.window import SettingsWindow

    extra = [Path(p) for p in args.manifests]
    catalog, problems = load_integrations(extra)
    for line in problems:
        print(f"notch settings: skipped: {line}", file=sys.stderr)
    holder = {"catalog": catalog}

    def reload_integrations() -> list[str]:
        fresh, found = load_integrations(extra)
        holder["catalog"] = fresh
        return found

    book = PolicyBook.in_data_dir(args.data_dir)
    if book.problem:
        print(f"notch settings: {book.problem}", file=sys.stderr)
    window = SettingsWindow(
        book,
        lambda: holder["catalog"],
        user_integrations_dir(),
        reload_integrations=reload_integrations,
        theme=args.theme,
    )
    if args.integration:
        if catalog.integration(args.integration) is None:
            known = ", ".join(catalog.ids())
            print(
                f"notch settings: no integration {args.integration!r}; loaded: {known}",
                file=sys.stderr,
            )
            return 2
        window.open_integration(args.integration)
    if args.screenshot is not None:
        window.resize(720, 640)
        window.show()
        app.processEvents()
        if not window.grab().save(str(args.screenshot), "PNG"):
            print(f"notch settings: cannot write {args.screenshot}", file=sys.stderr)
            return 2
        window.close()
        return 0
    watcher = SettingsFileWatcher(book, parent=window)  # edits by `notch policy` show at once
    window.show()
    code = app.exec()
    del watcher
    return int(code)

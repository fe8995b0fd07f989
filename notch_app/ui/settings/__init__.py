"""The Settings window (Qt): integrations, "Asks first", Block and guards per action.

The window is loaded when first asked for (`from notch_app.ui.settings import
SettingsWindow`, or opened from the tray): an idle `notch run` only needs the watcher,
and the window's pages import the keyring and every page's widgets (~4 MiB).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from notch_app.ui.settings.watcher import SettingsFileWatcher

if TYPE_CHECKING:
    from notch_app.ui.settings.window import SettingsWindow

__all__ = ["SettingsFileWatcher", "SettingsWindow"]


def __getattr__(name: str) -> object:
    if name == "SettingsWindow":
        from notch_app.ui.settings.window import SettingsWindow

        return SettingsWindow
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

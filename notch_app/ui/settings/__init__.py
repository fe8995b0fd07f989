"""The Settings window (Qt): integrations, "Asks first", Block and guards per action."""

from notch_app.ui.settings.watcher import SettingsFileWatcher
from notch_app.ui.settings.window import SettingsWindow

__all__ = ["SettingsFileWatcher", "SettingsWindow"]

"""The person's settings file, `notch-settings.json` in the data dir, and its copy in a
running Notch.

- `document`: the file's shape (`SettingsDocument`), closed and bounded: the person's
  rules for each action (`ActionPolicy`, guards), the overlay, agents and phone
  preferences, integration values.
- `file`: reading (a bad file is moved aside: everything asks), atomic writing, the lock.
- `kept`: `KeptSettings`, one copy in memory, changed under the lock and told to
  subscribers; `PolicyBook` (`runtime/policy_book/`) adds the rules for each action.

Qt-free.
"""

from notch_app.runtime.settings.document import (
    ASKER_GRACE_MAX_S,
    ASKER_GRACE_MIN_S,
    DEFAULT_GLANCE_SECONDS,
    DEFAULT_PARK_AFTER_S,
    DEFAULT_PHONE_PORT,
    GLANCE_SECONDS_CHOICES,
    OVERLAY_THEMES,
    PARK_AFTER_MAX_S,
    PARK_AFTER_MIN_S,
    SETTINGS_VERSION,
    ActionPolicy,
    AgentPreferences,
    Guard,
    IdleLook,
    IntegrationValues,
    NotOneOfGuard,
    OverGuard,
    OverlayPreferences,
    OverlayTheme,
    PhonePreferences,
    SettingsDocument,
    format_number,
)
from notch_app.runtime.settings.file import (
    MAX_SETTINGS_BYTES,
    SETTINGS_FILE_NAME,
    LoadedSettings,
    read_settings,
    settings_lock,
    settings_path,
    write_settings,
)
from notch_app.runtime.settings.kept import KeptSettings, PolicyRefused, PolicyWriteError

__all__ = [
    "ASKER_GRACE_MAX_S",
    "ASKER_GRACE_MIN_S",
    "DEFAULT_GLANCE_SECONDS",
    "DEFAULT_PARK_AFTER_S",
    "DEFAULT_PHONE_PORT",
    "GLANCE_SECONDS_CHOICES",
    "MAX_SETTINGS_BYTES",
    "OVERLAY_THEMES",
    "PARK_AFTER_MAX_S",
    "PARK_AFTER_MIN_S",
    "SETTINGS_FILE_NAME",
    "SETTINGS_VERSION",
    "ActionPolicy",
    "AgentPreferences",
    "Guard",
    "IdleLook",
    "IntegrationValues",
    "KeptSettings",
    "LoadedSettings",
    "NotOneOfGuard",
    "OverGuard",
    "OverlayPreferences",
    "OverlayTheme",
    "PhonePreferences",
    "PolicyRefused",
    "PolicyWriteError",
    "SettingsDocument",
    "format_number",
    "read_settings",
    "settings_lock",
    "settings_path",
    "write_settings",
]

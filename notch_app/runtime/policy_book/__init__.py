"""The person's policy per action: Asks first on / off, Blocked, and guards.

Qt-free. `PolicyBook` decides per call (`verdict`) and keeps the person's choices in the
versioned settings file `notch-settings.json` in the data dir.
"""

from notch_app.runtime.policy_book.book import (
    BLOCKED_REASON,
    CARD_CHANGED_REASON,
    ActionState,
    PolicyBook,
    PolicyRefused,
    PolicyWriteError,
    Verdict,
    VerdictAction,
    check_guard,
    has_policy,
)
from notch_app.runtime.policy_book.document import (
    DEFAULT_PARK_AFTER_S,
    PARK_AFTER_MAX_S,
    PARK_AFTER_MIN_S,
    ActionPolicy,
    Guard,
    IdleLook,
    IntegrationValues,
    NotOneOfGuard,
    OverGuard,
    OverlayPreferences,
    SettingsDocument,
)
from notch_app.runtime.policy_book.fingerprint import card_fingerprint
from notch_app.runtime.policy_book.hook import PersonPolicy, glance_text
from notch_app.runtime.policy_book.settings_file import (
    SETTINGS_FILE_NAME,
    default_data_dir,
    read_settings,
    settings_path,
    write_settings,
)

__all__ = [
    "BLOCKED_REASON",
    "CARD_CHANGED_REASON",
    "DEFAULT_PARK_AFTER_S",
    "PARK_AFTER_MAX_S",
    "PARK_AFTER_MIN_S",
    "SETTINGS_FILE_NAME",
    "ActionPolicy",
    "ActionState",
    "Guard",
    "IdleLook",
    "IntegrationValues",
    "NotOneOfGuard",
    "OverGuard",
    "OverlayPreferences",
    "PersonPolicy",
    "PolicyBook",
    "PolicyRefused",
    "PolicyWriteError",
    "SettingsDocument",
    "Verdict",
    "VerdictAction",
    "card_fingerprint",
    "check_guard",
    "default_data_dir",
    "glance_text",
    "has_policy",
    "read_settings",
    "settings_path",
    "write_settings",
]

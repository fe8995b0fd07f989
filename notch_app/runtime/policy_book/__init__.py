"""The person's rules per action: Asks first on / off, Blocked, guards and "refuses when".

Qt-free. `PolicyBook` decides per call (`verdict`) and keeps the person's choices in the
settings file (`runtime/settings/`: its shape, reading and writing it, its copy in
memory). `PersonPolicy` answers the confirmation service from the book.
"""

from notch_app.runtime.policy_book.book import PolicyBook, has_policy
from notch_app.runtime.policy_book.fingerprint import card_fingerprint
from notch_app.runtime.policy_book.guards import check_guard
from notch_app.runtime.policy_book.hook import PersonPolicy, glance_text
from notch_app.runtime.policy_book.verdict import (
    BLOCKED_REASON,
    CARD_CHANGED_REASON,
    ActionState,
    Verdict,
    VerdictAction,
)

# The rules' words, kept in the settings file's shape, and what changing them raises.
from notch_app.runtime.settings import (
    ActionPolicy,
    Guard,
    NotOneOfGuard,
    OverGuard,
    PolicyRefused,
    PolicyWriteError,
)

__all__ = [
    "BLOCKED_REASON",
    "CARD_CHANGED_REASON",
    "ActionPolicy",
    "ActionState",
    "Guard",
    "NotOneOfGuard",
    "OverGuard",
    "PersonPolicy",
    "PolicyBook",
    "PolicyRefused",
    "PolicyWriteError",
    "Verdict",
    "VerdictAction",
    "card_fingerprint",
    "check_guard",
    "glance_text",
    "has_policy",
]

"""The words a decision is made of: how a request ended, who decided, how far a yes
reaches. Both sides of the socket use them (the service and `presenter`; the clients,
`decision`, and the person's policy, `policy_book.verdict`), so they live apart from the
presenter: a client such as `notch hook` or `notch ask` needs the words, not the
presenter's asyncio and approval memory."""

from __future__ import annotations

from typing import Literal

Outcome = Literal[
    "approved",
    "declined",
    "superseded",
    "withdrawn",
    "expired",
    "notRequired",
    "autoApproved",
    "blocked",
]
"""How a request ended. `notRequired` is a read-only tool; `autoApproved`/`blocked` come
from the person's per-action policy ("Asks first" off / Blocked)."""

DecidedBy = Literal["click", "key", "voice", "policy", "service", "timeout", "agent", "phone"]
"""How a decision was made, for the log: the person (click, key, voice, or on a paired
phone: its name is in the decision's message), the person's stored policy, or the
service itself (read-only tool, supersede, withdraw, expiry)."""

Scope = Literal["once", "session", "always"]
"""How far the person's yes reaches: this call only; every call to the same action from
the same asker session until it ends; or always (the action's Asks first turns off, as in
Settings). Only the person sets it, on the card: nothing on the socket can."""

"""Requests belong to their asker: a secret token only the asker knows, kept as its hash.

An executor sends a token of its own making with `confirm.request` (or lets Notch make
one, returned in the reply), and the same token with every later method that acts on the
request or reads more than its bare status: `confirm.await`, `confirm.get` with details,
`confirm.withdraw`, a repeated `confirm.request`, and a request that `supersedes` it.
A token of the client's own making is what lets an agent carry on after a lost reply, a
dropped connection or a crash of its own: it asks again with the same callId and token.

Notch keeps only the token's SHA-256, in memory and in the store, so neither the file
nor a log holds a token, and compares hashes with `hmac.compare_digest`: two digests of
equal length, so the time taken says nothing about a guess. A token is 22 to 256 visible
ASCII characters: 22 from a secure random generator (base64url) is 128 bits or more.

The app itself (in-process callers: the settings window, tests) acts as `IN_PROCESS`,
which holds every request; a request it makes has no hash, so nothing on the socket can
act on it. On the socket, no token holds nothing.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
from typing import Final

MIN_TOKEN_CHARS: Final = 22
"""128 bits as base64url: at a billion guesses a second, ~10^22 years to find one."""
MAX_TOKEN_CHARS: Final = 256
TOKEN_PATTERN: Final = r"^[!-~]+$"
"""Visible ASCII, no spaces: what shells, env vars and JSON carry unchanged."""
TOKEN_RULE: Final = (
    f"{MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} visible ASCII characters, no spaces "
    "(e.g. 32 random base64url characters: `python -c 'import secrets; "
    "print(secrets.token_urlsafe(24))'`)"
)


class InProcess(enum.Enum):
    """The app itself asking, not a client on the socket."""

    IN_PROCESS = "in-process"


IN_PROCESS: Final = InProcess.IN_PROCESS
Asker = str | InProcess | None
"""Who acts on a request: a socket client's token (None when it sent none) or IN_PROCESS."""


def new_token() -> str:
    """A fresh token: 192 random bits, 32 base64url characters."""
    return secrets.token_urlsafe(24)


def token_problem(token: object) -> str | None:
    """Why `token` cannot be a token (None when it can), in words for an error message."""
    if not isinstance(token, str):
        return "must be a string"
    if not MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS or not all(
        "!" <= c <= "~" for c in token
    ):
        return f"must be {TOKEN_RULE}"
    return None


def token_hash(token: str) -> str:
    """What Notch keeps of `token`: `sha256:<hex>`."""
    return "sha256:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def owner_of(asker: Asker) -> str | None:
    """The hash to store for a request made by `asker` (None for the app itself)."""
    return token_hash(asker) if isinstance(asker, str) else None


def holds(asker: Asker, stored_hash: str | None) -> bool:
    """True when `asker` may act on a request stored with `stored_hash`: the app itself
    always; a socket client only with the token whose hash that is (never with no token,
    never on a request the app made itself)."""
    if asker is IN_PROCESS:
        return True
    if asker is None or stored_hash is None:
        return False
    return hmac.compare_digest(token_hash(asker), stored_hash)

"""Every error the clients raise: `NotchError` and its kinds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from notch_app.runtime.decision import Decision


class NotchError(Exception):
    """Anything that kept a call from getting an answer."""


class NotchNotRunning(NotchError):
    """Nothing is listening on the socket."""


class NotchConnectionLost(NotchError):
    """The connection dropped and could not be re-established in time."""


class NotchTimeout(NotchError, TimeoutError):
    """No answer in time: no decision within the caller's `timeout`, or no answer at all
    from a Notch that does not answer (see ANSWER_WAIT_S). For `confirm()` the request
    was withdrawn first (`decision` is the withdrawn decision, None when the withdraw
    itself got no answer); for `confirm_many()`, `ended` holds how each call ended (its
    withdrawn decision, or the NotchError of its withdraw), in order; for
    `await_decision()` the request stays open."""

    def __init__(
        self,
        message: str,
        decision: Decision | None = None,
        ended: Sequence[Decision | NotchError] = (),
    ) -> None:
        super().__init__(message)
        self.decision = decision
        self.ended = tuple(ended)


class NotchUsageError(NotchError, ValueError):
    """A wrong argument to the client itself (a token that cannot be one, a batch call
    without an integration…); nothing was sent."""


class NotchUntrusted(NotchError):
    """What listens on the socket is not this user's Notch (another user's process, or a
    socket folder that is not ours with mode 0700). Nothing was sent to it."""


class NotchDecisionRefused(NotchError):
    """A decision that says "run" failed its check: no digest, a digest that is not the
    digest of its arguments (not Notch's decision, or altered), or secret values that
    must be asked for again (`withheld`). Never run it. `decision` is what was received."""

    def __init__(self, message: str, decision: Decision | None = None) -> None:
        super().__init__(message)
        self.decision = decision

    @property
    def withheld(self) -> tuple[str, ...]:
        """Paths of the secret values to ask for again (the approval itself stands)."""
        return self.decision.secrets_withheld if self.decision is not None else ()


class NotchRequestError(NotchError):
    """Notch refused the call (a JSON-RPC error): `code`, `message`, `field`."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    @property
    def field(self) -> str | None:
        """The parameter Notch named as wrong (`arguments.to`, `integration`…), if any."""
        if isinstance(self.data, dict) and isinstance(self.data.get("field"), str):
            return str(self.data["field"])
        return None

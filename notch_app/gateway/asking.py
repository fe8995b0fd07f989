"""Asking the person: `confirm.request` to the running `notch run`, and its answer.

The gateway is one more client of Notch's socket (`notch_app.ipc.client`): the card, the
policy (Asks first, Block, guards) and the stored decision are the service's. Before its
first question the gateway attaches its integration to the running Notch
(`gateway.attach`, see docs/gateway.md): the folder's path, for Notch to load and check
itself, or a bare server's tool list, for Notch to generate the cards from.

Every wait is bounded, so a Notch that accepts and never answers holds no MCP call:
`timeout` for the whole question (the attach and the person's decision; the card is
withdrawn when it runs out), WITHDRAW_WAIT_S for a withdraw, GLANCE_WAIT_S for glances
and background-work notes (a result never waits on them long).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from notch_app.gateway.launch import DEFAULT_TIMEOUT_S
from notch_app.ipc import protocol as rpc
from notch_app.ipc.client import (
    ANSWER_WAIT_S,
    WITHDRAW_WAIT_S,
    AsyncNotchClient,
    NotchDecisionRefused,
    NotchError,
    NotchNotRunning,
    NotchRequestError,
    NotchTimeout,
)
from notch_app.runtime.decision import Decision

log = logging.getLogger(__name__)

ATTACH_METHOD = "gateway.attach"
GLANCE_WAIT_S: Final = 2.0
"""How long a result waits for Notch to take its glance or a background-work note."""
_LAST_TRY_S: Final = 0.05


@dataclass(frozen=True, slots=True)
class Answer:
    """What came back: a decision to act on, or a sentence saying why nothing can run."""

    decision: Decision | None = None
    problem: str | None = None
    not_running: bool = False


class Confirmations:
    """Asks the running Notch at `socket_path` about calls to `integration_id`.

    `attachment` is the `gateway.attach` params (`{"folder": ...}` or `{"name": ...,
    "tools": [...]}`); it is sent before the first question and again whenever Notch does
    not know the integration (it was restarted)."""

    def __init__(
        self,
        socket_path: Path | None,
        integration_id: str,
        attachment: Mapping[str, Any],
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.integration_id = integration_id
        self.attachment = dict(attachment)
        self.client = AsyncNotchClient(socket_path, reconnect_for=5.0)
        self.timeout = timeout
        self._attached = False

    async def attach(self, timeout: float | None = None) -> None:
        """Tell Notch about the integration. A Notch without `gateway.attach` (older)
        or one that refuses it is logged: calls then use what Notch already loaded.
        Raises NotchError when Notch cannot be asked (NotchTimeout after `timeout`)."""
        try:
            answer = await self.client.call(ATTACH_METHOD, self.attachment, timeout=timeout)
        except NotchRequestError as exc:
            if exc.code != rpc.METHOD_NOT_FOUND:
                log.warning("Notch did not attach %s: %s", self.integration_id, exc.message)
        else:  # what the person is warned about on its cards (a name, a hint), said here too
            for warning in (answer.get("warnings") or [])[:20] if isinstance(answer, dict) else ():
                log.warning("notch mcp: %s: %s", self.integration_id, warning)
        self._attached = True

    def reattach(self) -> None:
        """The attachment changed (a bare server's new tool list): send it again before
        the next question."""
        self._attached = False

    async def ask(
        self, call_id: str, tool: str, arguments: Mapping[str, Any], context: Mapping[str, Any]
    ) -> Answer:
        """The person's decision on one call, within `timeout` seconds in all (else the
        card is withdrawn). Never raises for Notch's answers: a refused request, an
        unverifiable decision, no answer in time or no Notch at all come back as
        `problem`."""
        until = time.monotonic() + self.timeout

        def left(most: float | None = None) -> float:
            wait = max(_LAST_TRY_S, until - time.monotonic())
            return wait if most is None else min(most, wait)

        try:
            if not self._attached:
                await self.attach(left(ANSWER_WAIT_S))
            try:
                decision = await self._confirm(call_id, tool, arguments, context, left())
            except NotchRequestError as exc:
                if exc.field != "integration" and "has no tool" not in exc.message:
                    raise
                await self.attach(left(ANSWER_WAIT_S))  # Notch restarted since: once more
                decision = await self._confirm(call_id, tool, arguments, context, left())
        except NotchNotRunning as exc:
            return Answer(problem=str(exc), not_running=True)
        except NotchTimeout:
            return Answer(
                problem=f"No answer in Notch within {self.timeout:g} s, so the card was withdrawn"
            )
        except NotchDecisionRefused as exc:
            return Answer(problem=f"Notch's answer could not be verified ({exc})")
        except NotchRequestError as exc:
            return Answer(problem=f"Notch refused the call: {exc.message}")
        except NotchError as exc:
            return Answer(problem=str(exc))
        return Answer(decision)

    async def _confirm(
        self,
        call_id: str,
        tool: str,
        arguments: Mapping[str, Any],
        context: Mapping[str, Any],
        timeout: float,
    ) -> Decision:
        return await self.client.confirm(
            self.integration_id, tool, arguments, call_id=call_id, context=context,
            timeout=timeout,
        )  # fmt: skip

    async def withdraw(self, call_id: str, why: str | None = None) -> None:
        """Withdraw the card of `call_id` (the client cancelled the call, or went away),
        saying `why` to the person, giving up after WITHDRAW_WAIT_S. Quiet when Notch is
        gone, does not answer, or the call was never asked."""
        try:
            await self.client.withdraw(call_id, timeout=WITHDRAW_WAIT_S, reason=why)
        except NotchError as exc:
            log.info("could not withdraw %s: %s", call_id, exc)

    async def show_glance(self, tool: str, blocks: list[Any], call_id: str | None) -> None:
        """Show a result's glance in the notch; quiet (logged) when Notch is gone or
        refuses it: a glance never changes what the model is told."""
        try:
            if call_id is None and not self._attached:
                # A read's glance names the integration: only its own gateway may send it.
                await self.attach(timeout=GLANCE_WAIT_S)
            await self.client.show_glance(
                self.integration_id, tool, blocks, call_id=call_id, timeout=GLANCE_WAIT_S
            )
        except NotchError as exc:
            log.info("no glance for %s: %s", tool, exc)

    async def begin_work(self, tool: str, call_id: str | None) -> str | None:
        """List `tool` as running in the background in the side notch; its work id, or
        None when Notch could not list it."""
        params: dict[str, Any] = {"integration": self.integration_id, "tool": tool}
        if call_id is not None:
            params.update(callId=call_id, token=self.client.token)
        try:
            if call_id is None and not self._attached:
                await self.attach(timeout=GLANCE_WAIT_S)  # as for a read's glance
            result = await self.client.call("work.begin", params, timeout=GLANCE_WAIT_S)
        except NotchError as exc:
            log.info("background work of %s not listed: %s", tool, exc)
            return None
        work_id = result.get("workId") if isinstance(result, dict) else None
        return work_id if isinstance(work_id, str) else None

    async def end_work(
        self, work_id: str, *, ok: bool, message: str | None, blocks: list[Any] | None
    ) -> bool:
        """End listed background work (its glance, or a failure line). False when Notch
        no longer knows it (it restarted, or the connection dropped and ended it)."""
        params: dict[str, Any] = {"workId": work_id, "ok": ok}
        if message:
            params["message"] = message[:2000]
        if blocks is not None:
            params["blocks"] = blocks
        try:
            await self.client.call("work.end", params, timeout=GLANCE_WAIT_S)
        except NotchError as exc:
            log.info("background work %s not ended in Notch: %s", work_id, exc)
            return False
        return True

    async def close(self) -> None:
        await self.client.close()

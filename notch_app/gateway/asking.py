"""Asking the person: `confirm.request` to the running `notch run`, and its answer.

The gateway is one more client of Notch's socket (`notch_app.ipc.client`): the card, the
policy (Asks first, Block, guards) and the stored decision are the service's. Before its
first question the gateway attaches its integration to the running Notch
(`gateway.attach`, see docs/gateway.md): the folder's path, for Notch to load and check
itself, or a bare server's tool list, for Notch to generate the cards from.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from notch_app.ipc import protocol as rpc
from notch_app.ipc.client import (
    AsyncNotchClient,
    NotchDecisionRefused,
    NotchError,
    NotchNotRunning,
    NotchRequestError,
)
from notch_app.runtime.decision import Decision

log = logging.getLogger(__name__)

ATTACH_METHOD = "gateway.attach"


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
        self, socket_path: Path | None, integration_id: str, attachment: Mapping[str, Any]
    ) -> None:
        self.integration_id = integration_id
        self.attachment = dict(attachment)
        self.client = AsyncNotchClient(socket_path, reconnect_for=5.0)
        self._attached = False

    async def attach(self) -> None:
        """Tell Notch about the integration. A Notch without `gateway.attach` (older)
        or one that refuses it is logged: calls then use what Notch already loaded."""
        try:
            await self.client.call(ATTACH_METHOD, self.attachment)
        except NotchRequestError as exc:
            if exc.code != rpc.METHOD_NOT_FOUND:
                log.warning("Notch did not attach %s: %s", self.integration_id, exc.message)
        self._attached = True

    async def ask(
        self, call_id: str, tool: str, arguments: Mapping[str, Any], context: Mapping[str, Any]
    ) -> Answer:
        """The person's decision on one call. Never raises for Notch's answers: a refused
        request, an unverifiable decision or no Notch at all come back as `problem`."""
        try:
            if not self._attached:
                await self.attach()
            try:
                decision = await self._confirm(call_id, tool, arguments, context)
            except NotchRequestError as exc:
                if exc.field != "integration" and "has no tool" not in exc.message:
                    raise
                await self.attach()  # Notch restarted since: attach again, once
                decision = await self._confirm(call_id, tool, arguments, context)
        except NotchNotRunning:
            return Answer(not_running=True)
        except NotchDecisionRefused as exc:
            return Answer(problem=f"Notch's answer could not be verified ({exc})")
        except NotchRequestError as exc:
            return Answer(problem=f"Notch refused the call: {exc.message}")
        except NotchError as exc:
            return Answer(problem=str(exc))
        return Answer(decision)

    async def _confirm(
        self, call_id: str, tool: str, arguments: Mapping[str, Any], context: Mapping[str, Any]
    ) -> Decision:
        return await self.client.confirm(
            self.integration_id, tool, arguments, call_id=call_id, context=context
        )

    async def withdraw(self, call_id: str) -> None:
        """Withdraw the card of `call_id` (the client cancelled the call). Quiet when
        Notch is gone or the call was never asked."""
        try:
            await self.client.withdraw(call_id)
        except NotchError as exc:
            log.info("could not withdraw %s: %s", call_id, exc)

    async def show_glance(self, tool: str, blocks: list[Any], call_id: str | None) -> None:
        """Show a result's glance in the notch; quiet (logged) when Notch is gone or
        refuses it: a glance never changes what the model is told."""
        try:
            await self.client.show_glance(self.integration_id, tool, blocks, call_id=call_id)
        except NotchError as exc:
            log.info("no glance for %s: %s", tool, exc)

    async def begin_work(self, tool: str, call_id: str | None) -> str | None:
        """List `tool` as running in the background in the side notch; its work id, or
        None when Notch could not list it."""
        params: dict[str, Any] = {"integration": self.integration_id, "tool": tool}
        if call_id is not None:
            params.update(callId=call_id, token=self.client.token)
        try:
            result = await self.client.call("work.begin", params)
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
            await self.client.call("work.end", params)
        except NotchError as exc:
            log.info("background work %s not ended in Notch: %s", work_id, exc)
            return False
        return True

    async def close(self) -> None:
        await self.client.close()

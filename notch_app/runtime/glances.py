"""Result glances and background work: what a tool's result shows the person, and which
tools are running in the background.

A glance is display only. It can name no card, ask nothing and approve nothing; it
carries only blocks that `read_glance` kept (the rest are dropped and reported to the
sender). Its title comes from the catalog, never from the sender. A glance tied to a
`callId` must be about a call the person let run (or a read-only call Notch answered),
sent by the client holding that call's token: nobody can show "Paid ✓" for a payment the
person declined, or for someone else's call. A glance without a `callId` is headed with
an integration's name only when it comes from the connection that attached that
integration (its own `notch mcp` gateway): any other client could otherwise show "Mail ·
Send email — Action needed" over the person's real mail (issue 18).

Background work (`execution.mode: "background"`) is listed in the side notch from
`begin` to `end`; it belongs to the connection that began it, and ends as failed when
that connection goes away (nothing is left "running" forever).

Qt-free; called on the service's loop.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from notch_app.manifest.model import Tool
from notch_app.runtime.decision import Decision
from notch_app.runtime.ownership import IN_PROCESS, Asker
from notch_app.runtime.presenter import ResultGlance, RunningWork
from notch_app.runtime.service import ConfirmationService, ServiceError

if TYPE_CHECKING:
    from notch_app.manifest.glance import GlanceReading

MAX_RUNNING: Final = 64
"""Background work listed at once, across all clients."""
MAX_RUNNING_PER_OWNER: Final = 16
"""Background work one connection may have running at once."""
MAX_FAILURE_CHARS: Final = 160
"""A failure line is one short sentence; longer ones are cut."""
MAX_ESTIMATE_MS: Final = 86_400_000


@dataclass(frozen=True, slots=True)
class _Work:
    running: RunningWork
    owner: Hashable | None


class Glances:
    """Shows result glances and tracks background work for `service`'s presenter."""

    def __init__(
        self, service: ConfirmationService, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._service = service
        self._clock = clock
        self._work: dict[str, _Work] = {}
        self._fronts: dict[Hashable, set[str]] = {}
        """Per connection: the integrations it attached (`gateway.attach`)."""

    def fronts(self, owner: Hashable, integration_id: str) -> None:
        """`owner` (a connection) attached `integration_id`: it is that integration's own
        gateway, so it may show the glances of its reads without a callId. Forgotten
        when the connection closes (`end_all_of`)."""
        held = self._fronts.setdefault(owner, set())
        if len(held) < MAX_RUNNING:
            held.add(integration_id)

    # --- glances ---------------------------------------------------------------------

    def show(
        self,
        integration_id: str,
        tool_name: str,
        blocks: object,
        *,
        call_id: str | None = None,
        token: Asker = IN_PROCESS,
        owner: Hashable | None = None,
    ) -> GlanceReading:
        """Show the glance `blocks` (the list `_voiceos_glance.blocks` holds) for a result
        of `tool_name`. Returns what was kept and what was dropped, and why; nothing is
        shown when no block was kept. Without `call_id`, only the connection `owner` that
        attached the integration may show it (None: the app itself). Raises ServiceError:
        an unknown integration or tool (invalidParams), an unknown `call_id`
        (unknownCall), one held by another asker (notYours), one that did not run or is
        for another tool (invalidParams), no `call_id` from a connection that did not
        attach the integration (invalidParams, field callId)."""
        tool = self._tool(integration_id, tool_name)
        self._check_sender(integration_id, tool_name, call_id, token, owner)
        from notch_app.manifest.glance import read_glance  # on the first glance, not at idle

        reading = read_glance({"blocks": blocks})
        if reading.blocks:
            self._service.presenter.show_result(
                ResultGlance(integration_id, tool_name, tool.display_title, reading.blocks, call_id)
            )
        return reading

    def _check_sender(
        self,
        integration_id: str,
        tool_name: str,
        call_id: str | None,
        token: Asker,
        owner: Hashable | None,
    ) -> None:
        """Raises ServiceError unless the sender may put `integration_id`'s name on
        screen: with a call of its that ran, or as the connection that attached it."""
        if call_id is not None:
            self._check_ran(call_id, integration_id, tool_name, token)
        elif owner is not None and integration_id not in self._fronts.get(owner, ()):
            raise ServiceError(
                "invalidParams",
                f"a glance headed with {integration_id}'s name shows only for that "
                "integration's call: send the callId (and token) of the call whose result "
                "this is — an approved call, or a read-only call Notch answered; a notch mcp "
                "gateway shows its own integration's glances",
                "callId",
            )

    # --- background work -------------------------------------------------------------

    def begin(
        self,
        integration_id: str,
        tool_name: str,
        *,
        owner: Hashable | None = None,
        call_id: str | None = None,
        token: Asker = IN_PROCESS,
        estimated_ms: int | None = None,
    ) -> RunningWork:
        """List `tool_name` as running in the side notch until `end`. `owner` (a
        connection) is who may end it; `estimated_ms` defaults to the manifest's
        `execution.estimatedDurationMs`. Raises ServiceError as `show` does (without
        `call_id`, only from the connection that attached the integration), and
        `overloaded` when too much is running already."""
        tool = self._tool(integration_id, tool_name)
        self._check_sender(integration_id, tool_name, call_id, token, owner)
        if len(self._work) >= MAX_RUNNING or (
            sum(1 for w in self._work.values() if w.owner == owner) >= MAX_RUNNING_PER_OWNER
        ):
            raise ServiceError(
                "overloaded",
                "too much background work is listed already; end some with work.end first",
            )
        if estimated_ms is None and tool.execution is not None:
            estimated_ms = tool.execution.estimated_duration_ms
        if estimated_ms is not None:
            estimated_ms = max(0, min(int(estimated_ms), MAX_ESTIMATE_MS)) or None
        running = RunningWork(
            work_id="work-" + secrets.token_hex(12),
            integration_id=integration_id,
            tool_name=tool_name,
            title=tool.display_title,
            started_at=self._clock(),
            estimated_ms=estimated_ms,
        )
        self._work[running.work_id] = _Work(running, owner)
        self._changed()
        return running

    def end(
        self,
        work_id: str,
        *,
        owner: Hashable | None = None,
        ok: bool,
        message: str | None = None,
        blocks: object = None,
    ) -> GlanceReading | None:
        """End background work `work_id`: its glance (`blocks`) shows when it finished
        and carried one, a short failure line (`message`) when it failed. Returns the
        glance as read (None without one). Raises ServiceError(unknownCall) for a work id
        that is not running or was begun by another connection (the same answer, so
        nobody learns another client's work ids)."""
        work = self._work.get(work_id)
        if work is None or work.owner != owner:
            raise ServiceError(
                "unknownCall",
                f"no background work {work_id!r} of this connection is running; "
                "end only work you began (work.begin answers its workId)",
                "workId",
            )
        del self._work[work_id]
        self._changed()
        running = work.running
        from notch_app.manifest.glance import read_glance

        reading = read_glance({"blocks": blocks}) if blocks is not None else None
        if ok:
            self._service.presenter.show_result(
                ResultGlance(
                    running.integration_id,
                    running.tool_name,
                    running.title,
                    reading.blocks if reading is not None else (),
                )
            )
        else:
            self._service.presenter.show_result(
                ResultGlance(
                    running.integration_id,
                    running.tool_name,
                    running.title,
                    failure=_failure_line(message),
                )
            )
        return reading

    def end_all_of(self, owner: Hashable, why: str) -> None:
        """End every piece of work `owner` began, as failed with `why` (its connection
        closed: nobody will say it finished)."""
        self._fronts.pop(owner, None)
        for work_id in [k for k, w in self._work.items() if w.owner == owner]:
            self.end(work_id, owner=owner, ok=False, message=why)

    @property
    def running(self) -> tuple[RunningWork, ...]:
        """The work running now, oldest first."""
        return tuple(w.running for w in self._work.values())

    # --- internals -------------------------------------------------------------------

    def _changed(self) -> None:
        self._service.presenter.work_changed(self.running)

    def _tool(self, integration_id: str, tool_name: str) -> Tool:
        catalog = self._service.catalog
        if catalog.integration(integration_id) is None:
            raise ServiceError(
                "invalidParams",
                f"unknown integration {integration_id!r}; known: "
                + (", ".join(catalog.ids()[:20]) or "none"),
                "integration",
            )
        tool = catalog.tool(integration_id, tool_name)
        if tool is None:
            raise ServiceError(
                "invalidParams",
                f"integration {integration_id!r} has no tool {tool_name!r}",
                "tool",
            )
        return tool

    def _check_ran(self, call_id: str, integration_id: str, tool_name: str, token: Asker) -> None:
        read = self._service.read_answered(call_id, token)
        if read == (integration_id, tool_name):
            return  # a read-only call of this asker, answered notRequired: it ran
        found = self._service.get(call_id, token)  # unknownCall / notYours
        if not isinstance(found, Decision):
            raise ServiceError(
                "invalidParams",
                f"callId {call_id!r} is still waiting for the person: nothing has run, "
                "so there is no result to show",
                "callId",
            )
        if found.integration_id != integration_id or found.tool_name != tool_name:
            raise ServiceError(
                "invalidParams",
                f"callId {call_id!r} was a call to {found.integration_id}/{found.tool_name}, "
                f"not {integration_id}/{tool_name}",
                "callId",
            )
        if not found.runs:
            raise ServiceError(
                "invalidParams",
                f"callId {call_id!r} ended {found.outcome}: it did not run, so it has no "
                "result to show",
                "callId",
            )


def _failure_line(message: str | None) -> str:
    flat = " ".join(str(message or "").split()) or "It stopped without saying why."
    return flat if len(flat) <= MAX_FAILURE_CHARS else flat[: MAX_FAILURE_CHARS - 1] + "…"

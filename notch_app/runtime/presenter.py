"""The boundary between the Qt-free confirmation service and whatever shows cards.

The service owns requests, decisions and their storage; a presenter (the notch overlay,
or a test double) only shows cards and reports what the person did through
`DecisionSink`. Both sides run on the same asyncio loop (qasync in the app), so calls are
plain method calls: they must return quickly and never block.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from notch_app.runtime.approval_memory import Change
from notch_app.runtime.askers import AskingProcess
from notch_app.runtime.outcomes import DecidedBy as DecidedBy  # re-exported
from notch_app.runtime.outcomes import Outcome as Outcome  # re-exported
from notch_app.runtime.outcomes import Scope as Scope  # re-exported

if TYPE_CHECKING:
    from notch_app.manifest.glance import GlanceBlock

log = logging.getLogger("notch.service")


@dataclass(frozen=True, slots=True)
class ConfirmationRequest:
    """One tool call waiting for the person's yes. Immutable; a supersede is a new request."""

    call_id: str
    integration_id: str
    tool_name: str
    arguments: dict[str, Any]
    context: dict[str, Any] = field(default_factory=dict)
    """Free-form, bounded: e.g. {"agent": "Mail assistant"}; shown on the card, never trusted."""
    created_at: float = 0.0
    """Unix time the request first arrived."""
    expires_at: float | None = None
    """Unix time after which an undecided request ends `expired`."""
    parked: bool = False
    """True when the card sits in the side notch (walked away from, or recovered after a restart)."""
    reason: str | None = None
    """Why the card shows although policy would not ask (a guard that tripped), else None."""
    batch_id: str | None = None
    """Set when this call came in one `confirm.batch` (one model turn) with other calls
    that show cards: the same id on each of them, so the notch can offer "Approve all"."""
    batch_index: int | None = None
    """This card's place among the batch's cards, from 0 (shown as "1 of N")."""
    batch_size: int | None = None
    """How many cards the batch showed (N ≥ 2; a batch whose other calls needed no card
    is not a batch on screen, and these three fields are None)."""
    process: AskingProcess | None = None
    """The process that asked, as the kernel says (None for the app itself, or a request
    brought back after a restart): the notch names one with many cards waiting."""
    changes: tuple[Change, ...] = ()
    """What differs from what the person approved for this action before (a new payee, a
    look-alike domain, an amount above the usual): marked on the card (issue 20)."""

    def __repr__(self) -> str:  # arguments may hold secrets: never in reprs or logs
        return (
            f"ConfirmationRequest(call_id={self.call_id!r}, integration_id={self.integration_id!r},"
            f" tool_name={self.tool_name!r}, arguments=<{len(self.arguments)} keys>)"
        )


@dataclass(frozen=True, slots=True)
class ResultGlance:
    """What a tool's result shows the person for a moment: its glance blocks, or a short
    failure line (background work that failed). Display only: nothing on it can ask,
    approve or decide anything."""

    integration_id: str
    tool_name: str
    title: str
    """The tool's title as installed (from the catalog, never from the sender)."""
    blocks: tuple[GlanceBlock, ...] = ()
    call_id: str | None = None
    """The approved request this result belongs to, if the sender named one."""
    failure: str | None = None
    """Shown instead of blocks: why background work did not finish."""


@dataclass(frozen=True, slots=True)
class RunningWork:
    """A tool running in the background (`execution.mode: background`), for the side notch."""

    work_id: str
    integration_id: str
    tool_name: str
    title: str
    """The tool's title as installed."""
    started_at: float
    """`time.monotonic()` when it began."""
    estimated_ms: int | None = None
    """The manifest's `execution.estimatedDurationMs` (or the sender's, bounded)."""


class Presenter(Protocol):
    """Shows cards. Implemented by the notch overlay (`notch_app.ui`) and by test doubles."""

    def present(self, request: ConfirmationRequest) -> None:
        """A new request to show (appended to the presenter's queue; parked if `request.parked`)."""

    def replace(self, old_call_id: str, request: ConfirmationRequest) -> None:
        """`request` supersedes the card for `old_call_id`: show it in that card's place."""

    def dismiss(self, call_id: str, outcome: Outcome, why: str | None = None) -> None:
        """The service ended this request (withdrawn, expired, superseded): remove its card.
        `why`: the reason the asking agent gave for a withdraw (a client that stopped
        waiting), one plain line (`display_text.agents_line`), to be shown as its words."""

    def glance(self, request: ConfirmationRequest, text: str) -> None:
        """A brief passive note that an action ran without a card (auto-approved)."""

    def show_result(self, glance: ResultGlance) -> None:
        """A tool's result glance (or a background failure line) to show for a moment,
        after any cards waiting for the person."""

    def work_changed(self, running: tuple[RunningWork, ...]) -> None:
        """The tools running in the background now (oldest first; empty: none)."""

    def results_may_follow(self) -> None:
        """A client that shows tool results attached (a `notch mcp` gateway): result
        glances may follow, maybe before any card. The overlay gets ready to show one."""

    def decision_saved(self, call_id: str, outcome: Outcome) -> None:
        """The person's decision for `call_id` (one `DecisionSink.decide` answered True) is
        on disk and sent: its card may go. `outcome` is what was stored, which is what the
        agent heard (the card's own choice, unless an earlier attempt was stored after all)."""

    def decision_not_saved(self, call_id: str, reason: str) -> None:
        """The person's decision for `call_id` could not be stored, so nothing was sent and
        the request is still open: keep its card, say `reason` on it (plain words such as
        "the disk is full"), and let the person decide again (retry or decline)."""


class ContainedPresenter:
    """Implements `Presenter` by passing each call on to `shown` (when there is one) and
    logging, never raising, what it raises: a presenter bug must not lose a request or a
    decision. The service talks to its presenter only through one of these."""

    def __init__(self, shown: Presenter | None = None) -> None:
        self.shown = shown

    def present(self, request: ConfirmationRequest) -> None:
        with _contained("present"):
            if self.shown is not None:
                self.shown.present(request)

    def replace(self, old_call_id: str, request: ConfirmationRequest) -> None:
        with _contained("replace"):
            if self.shown is not None:
                self.shown.replace(old_call_id, request)

    def dismiss(self, call_id: str, outcome: Outcome, why: str | None = None) -> None:
        with _contained("dismiss"):
            if self.shown is not None:
                if why is None:  # as every presenter takes it, `why` or not
                    self.shown.dismiss(call_id, outcome)
                else:
                    self.shown.dismiss(call_id, outcome, why)

    def glance(self, request: ConfirmationRequest, text: str) -> None:
        with _contained("glance"):
            if self.shown is not None:
                self.shown.glance(request, text)

    def ran_by_rule(self, request: ConfirmationRequest, text: str) -> None:
        """An action ran without a card because of the person's scope rule ("this
        session", "Always allow"): a presenter with a `ran_by_rule(request, text)` method
        shows `text` with an Undo of that rule; any other gets it as a plain glance."""
        with _contained("ran_by_rule"):
            told = getattr(self.shown, "ran_by_rule", None)
            if callable(told):
                told(request, text)
            elif self.shown is not None:
                self.shown.glance(request, text)

    def show_result(self, glance: ResultGlance) -> None:
        with _contained("show_result"):
            if self.shown is not None:
                self.shown.show_result(glance)

    def work_changed(self, running: tuple[RunningWork, ...]) -> None:
        with _contained("work_changed"):
            if self.shown is not None:
                self.shown.work_changed(running)

    def results_may_follow(self) -> None:
        with _contained("results_may_follow"):
            if self.shown is not None:
                self.shown.results_may_follow()

    def decision_saved(self, call_id: str, outcome: Outcome) -> None:
        with _contained("decision_saved"):
            if self.shown is not None:
                self.shown.decision_saved(call_id, outcome)

    def decision_not_saved(self, call_id: str, reason: str) -> None:
        with _contained("decision_not_saved"):
            if self.shown is not None:
                self.shown.decision_not_saved(call_id, reason)

    def store_failed(self, text: str) -> None:
        """The service stopped taking requests (its store is damaged) and took every card
        away: a presenter that has a `store_failed(text)` method shows `text` until Notch
        is restarted (optional: test doubles need not have one)."""
        with _contained("store_failed"):
            told = getattr(self.shown, "store_failed", None)
            if callable(told):
                told(text)


@contextlib.contextmanager
def _contained(method: str) -> Iterator[None]:
    try:
        yield
    except Exception:  # logged with its traceback; the caller carries on
        log.exception("presenter.%s failed", method)


class DecisionSink(Protocol):
    """What a presenter calls back on the service. Implemented by the service."""

    def decide(
        self,
        call_id: str,
        approved: bool,
        final_arguments: dict[str, Any] | None,
        edited_paths: list[str],
        decided_by: DecidedBy,
        scope: Scope = "once",
        *,
        reason: Literal["revise"] | None = None,
        feedback: str | None = None,
        words: str | None = None,
    ) -> bool | None:
        """The person approved (with the final, possibly edited arguments) or declined.
        `scope` (approvals only): "session" also lets later calls to this action from the
        same asker session run without a card; "always" turns the action's Asks first off.
        Blocks and guards still win over either. A decline with `reason` "revise" carries
        the person's `feedback` (what to change); `words` are what they typed or said to
        decide, for the log.

        Returns True when the decision is being stored: the presenter keeps the card until
        it hears `decision_saved` (stored and sent) or `decision_not_saved` (not stored,
        the request still open) for it. False when it was not taken (the request is no
        longer open, or is already ending another way); None from a sink that stores
        nothing (a test double). For either, there is nothing to wait for."""

    def parked(self, call_id: str) -> None:
        """The card for `call_id` moved to the side notch."""

    def restored(self, call_id: str) -> None:
        """The card for `call_id` came back from the side notch."""

    def shown(self, call_id: str) -> None:
        """The card for `call_id` is on screen now (first frame painted)."""

"""The scripted agent `notch demo` plays: a short, real session against a running Notch.

It talks to Notch the way any executor does — `notch_app.client` over the socket — and
prints every decision in the terminal. Arguments come from the bundled integrations'
preview fixtures, so the cards look like real ones. The script:

1. a read-only tool (search mail): no card, `notRequired` at once;
2. a voice note the agent revises while the card is open: the first card is replaced in
   place (`supersedes`) and ends `superseded`;
3. one agent step with three tool calls (send an email, book a meeting, pay an invoice):
   the notch shows "1 of 3", and each is decided on its own;
4. a read of today's calendar: no card; what it found shows as a glance in the notch for
   a few seconds (`glance.show`: a tool result's `_voiceos_glance`).

Every wait for Notch is on one of its events (the card shown, the request queued). The
only timed waits are pacing pauses for the person watching (`_pace`): time to read the
terminal, or the first draft before the agent revises it. `paced=False` (`notch demo
--no-pauses`) plays the same script without them, so no run of it depends on the clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from notch_app.client import AsyncNotchClient, ConfirmationEvent, Decision, NotchRequestError

AGENT = {"agent": "Demo agent"}
PAUSE_S = 1.2
"""How long the person gets to read the terminal between the script's steps."""
READ_FIRST_DRAFT_S = 2.5
"""How long the person gets to read the first voice note before the agent revises it."""
MAIL = "dev.notch.examples.mail"
CALENDAR = "dev.notch.examples.calendar"
PAYMENTS = "dev.notch.examples.payments"
SPEECH = "io.elevenlabs"

TODAY_GLANCE: list[dict[str, Any]] = [
    {"type": "header", "icon": "calendar", "title": "Today", "trailing": "3 events"},
    {
        "type": "list",
        "rows": [
            {"icon": "person", "title": "Design review", "subtitle": "Room 4 · Maya, Sam",
             "trailing": "10:00"},
            {"icon": "coffee", "title": "Coffee with Kim", "trailing": "12:30"},
            {"icon": "plane", "title": "Flight to Lisbon", "subtitle": "TP 1351",
             "trailing": "18:05", "badge": {"text": "On time", "tone": "good"}},
        ],
    },
]  # fmt: skip
"""What the demo's calendar read shows in the notch: a tool result's `_voiceos_glance`."""

_MARKS = {
    "approved": "✓",
    "autoApproved": "✓",
    "notRequired": "·",
    "declined": "✗",
    "superseded": "↻",
    "withdrawn": "↶",
    "expired": "⌛",
    "blocked": "⛔",
}


def preview_arguments(manifests: Path, folder: str, tool: str) -> dict[str, Any]:
    """Sample arguments for `tool` from `manifests/<folder>/preview.json`.
    Raises OSError/KeyError/ValueError when the bundled fixtures are missing or changed."""
    fixtures = json.loads((manifests / folder / "preview.json").read_text(encoding="utf-8"))
    return dict(fixtures["tools"][tool]["args"])


def describe(decision: Decision) -> str:
    """One terminal line for a decision: mark, tool, outcome, and what changed."""
    line = f"  {_MARKS.get(decision.outcome, '?')} {decision.tool_name:<16} {decision.outcome}"
    if decision.edited_paths:
        line += f"  (edited: {', '.join(decision.edited_paths)})"
    if decision.outcome in ("approved", "autoApproved") and decision.decided_by:
        line += f"  by {decision.decided_by}"
    if decision.message and decision.outcome not in ("approved", "notRequired"):
        line += f"  — {decision.message}"
    return line


class DemoAgent:
    """Plays the script against the Notch listening on `socket_path`."""

    def __init__(
        self, socket_path: Path, manifests: Path, out: TextIO, *, paced: bool = True
    ) -> None:
        self._socket = socket_path
        self._manifests = manifests
        self._out = out
        self._paced = paced
        self._run = uuid.uuid4().hex[:8]  # callIds are per run: a replay must not collide
        self.decisions: list[Decision] = []
        self.answered_by_demo: Callable[[], int] = lambda: 0
        """How many cards the demo answered itself because nobody did (`notch demo`)."""

    def say(self, text: str) -> None:
        print(text, file=self._out, flush=True)

    async def _pace(self, seconds: float) -> None:
        """A deliberate pause for the person watching the demo, so each step can be
        followed; never a wait for Notch (those wait for its events). None unpaced."""
        if self._paced:
            await asyncio.sleep(seconds)

    def _args(self, folder: str, tool: str) -> dict[str, Any]:
        return preview_arguments(self._manifests, folder, tool)

    def _record(self, decision: Decision) -> Decision:
        self.decisions.append(decision)
        self.say(describe(decision))
        return decision

    async def play(self) -> list[Decision]:
        """Run the whole script; returns every decision in the order it arrived.
        Raises NotchError subclasses if Notch is unreachable or refuses a request."""
        async with AsyncNotchClient(self._socket) as client:
            self.say("Demo agent: searching the mail for the Q3 thread (read-only: no card)…")
            self._record(
                await client.confirm(MAIL, "search_mail", self._args("mail", "search_mail"))
            )
            await self._pace(PAUSE_S)
            await self._revised_voice_note(client)
            await self._pace(PAUSE_S)
            await self._three_calls_in_one_step(client)
            await self._pace(PAUSE_S)
            self.say("Demo agent: reading today's calendar (read-only: no card)…")
            read_id = f"demo-{self._run}-today"
            self._record(
                await client.confirm(
                    CALENDAR, "list_events", self._args("calendar", "list_events"), call_id=read_id
                )
            )
            # The glance of that call's result: Notch shows it only for a call it answered.
            await client.show_glance(CALENDAR, "list_events", TODAY_GLANCE, call_id=read_id)
            self.say("Demo agent: what it found shows as a glance in the notch.")
            await self._pace(PAUSE_S * 3)
        approved = sum(1 for d in self.decisions if d.outcome == "approved")
        by_demo = self.answered_by_demo()
        if by_demo:
            self.say(
                f"Demo agent: done — {len(self.decisions)} decisions, {approved} approved; "
                f"{by_demo} answered by the demo itself, since nobody did."
            )
        else:
            self.say(
                f"Demo agent: done — {len(self.decisions)} decisions, {approved} approved. "
                "Nothing ran without your yes."
            )
        return self.decisions

    async def _revised_voice_note(self, client: AsyncNotchClient) -> None:
        first_id, second_id = f"demo-{self._run}-speech-1", f"demo-{self._run}-speech-2"
        shown = asyncio.Event()
        on_event = _when(first_id, "shown", shown.set)
        self.say("Demo agent: drafting a voice note (a card drops from the notch)…")
        draft = {
            "text": "Hi team — quick update: the Q3 report is out, revenue is up twelve "
            "percent on Q2, and the details are on page four. Talk soon!",
            "voice": "rachel",
        }
        first = asyncio.ensure_future(
            client.confirm(SPEECH, "generate_speech", draft, call_id=first_id,
                           context=AGENT, on_event=on_event)
        )  # fmt: skip
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(shown.wait(), timeout=5)
        await self._pace(READ_FIRST_DRAFT_S)
        if first.done():
            self._record(first.result())
            self.say("Demo agent: (you decided before I could revise it — fine.)")
            return
        self.say("Demo agent: on second thought, shorter — revising the open card (supersedes)…")
        shorter = {
            "text": "Q3 report is out: revenue up 12%. Details on page 4.",
            "voice": "rachel",
        }
        try:
            second = asyncio.ensure_future(
                client.confirm(SPEECH, "generate_speech", shorter, call_id=second_id,
                               supersedes=first_id, context=AGENT)
            )  # fmt: skip
            self._record(await first)
            self._record(await second)
        except NotchRequestError:  # decided in the instant between the check and the send
            self._record(await first)

    async def _three_calls_in_one_step(self, client: AsyncNotchClient) -> None:
        self.say("Demo agent: one step, three tool calls — they queue as '1 of 3'…")
        calls = [
            (MAIL, "send_email", self._args("mail", "send_email")),
            (CALENDAR, "book_meeting", self._args("calendar", "book_meeting")),
            (PAYMENTS, "pay_invoice", self._args("payments", "pay_invoice")),
        ]
        pending = []
        for i, (integration, tool, args) in enumerate(calls, 1):
            call_id = f"demo-{self._run}-step-{i}"
            queued = asyncio.Event()
            pending.append(
                asyncio.ensure_future(
                    client.confirm(integration, tool, args, call_id=call_id, context=AGENT,
                                   on_event=_when(call_id, "confirmationRequired", queued.set))
                )
            )  # fmt: skip
            # The next call only once Notch has queued this one: the queue keeps the order
            # the agent asked in.
            await self._queued(pending[-1], queued)
        for future in asyncio.as_completed(pending):
            self._record(await future)

    @staticmethod
    async def _queued(asked: asyncio.Future[Decision], queued: asyncio.Event) -> None:
        """Until Notch has queued `asked` (or already answered it)."""
        waiting = asyncio.ensure_future(queued.wait())
        either: set[asyncio.Future[Any]] = {waiting, asked}
        try:
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()


def _when(
    call_id: str, event: str, then: Callable[[], None]
) -> Callable[[ConfirmationEvent], None]:
    def handler(e: ConfirmationEvent) -> None:
        if e.call_id == call_id and e.event == event:
            then()

    return handler

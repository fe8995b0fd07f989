"""The decision log: what `notch log` shows, and that password values never reach it."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient
from notch_app.manifest.model import Manifest, Tool
from notch_app.runtime.policy import PolicyVerdict

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves

SECRET = "hunter2-correct-horse"
EDITED_SECRET = "battery-staple-9"


def notch_log(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "notch_app", "log", *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.asyncio
async def test_password_values_are_redacted_in_the_log_but_reach_the_executor(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (_, cards, client):
        ask = asyncio.ensure_future(
            client.confirm(MAIL, "connect_account",
                           {"user": {"name": "ann", "password": SECRET}}, call_id="acct")
        )  # fmt: skip
        await cards.wait_for_cards(1)
        cards.approve("acct", {"user": {"name": "ann", "password": EDITED_SECRET}})
        decision = await ask
        assert decision.arguments == {"user": {"name": "ann", "password": EDITED_SECRET}}
        assert decision.edited_paths == ("user.password",)
        declined = asyncio.ensure_future(
            client.confirm(MAIL, "connect_account",
                           {"user": {"name": "bo", "password": SECRET}}, call_id="acct2")
        )  # fmt: skip
        await cards.wait_for_cards(1)
        cards.decline("acct2")
        await declined
    data = base / "data"
    with sqlite3.connect(data / "notch.sqlite3") as db:
        logged = json.dumps(db.execute("SELECT * FROM decisions").fetchall())
    assert SECRET not in logged and EDITED_SECRET not in logged
    shown = notch_log("--json", "--data-dir", str(data))
    assert shown.returncode == 0
    entries = json.loads(shown.stdout)
    assert [(e["callId"], e["outcome"], e["decidedBy"]) for e in entries] == [
        ("acct", "approved", "click"),
        ("acct2", "declined", "key"),
    ]
    assert entries[0]["arguments"]["user"] == {"name": "ann", "password": "•••••"}
    assert entries[0]["editedPaths"] == ["user.password"]
    table = notch_log("--data-dir", str(data))
    assert "connect_account" in table.stdout and "user.password" in table.stdout
    assert SECRET not in table.stdout + shown.stdout and EDITED_SECRET not in shown.stdout


def test_log_of_an_empty_data_dir_says_so(tmp_path: Path) -> None:
    shown = notch_log("--data-dir", str(tmp_path))
    assert shown.returncode == 0 and "no decisions yet" in shown.stderr


class ByRecipient:
    """A stand-in for part 4's policy: runs mail to the team, blocks mail to eve."""

    def verdict(
        self, integration: Manifest, tool: Tool, arguments: Mapping[str, Any]
    ) -> PolicyVerdict:
        if arguments.get("to") == "team":
            return PolicyVerdict("autoApprove", "Sending mail to the team")
        if arguments.get("to") == "eve":
            return PolicyVerdict("block")
        if arguments.get("to") == "boom":
            raise RuntimeError("a broken policy")
        return PolicyVerdict("ask", "over the amount guard")


@pytest.mark.asyncio
async def test_the_policy_hook_auto_approves_blocks_and_fails_safe_to_asking(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (notch, cards, client):
        notch.service.policy = ByRecipient()
        auto = await client.confirm(MAIL, "send_email", {"to": "team"})
        assert (auto.outcome, auto.runs, auto.decided_by) == ("autoApproved", True, "policy")
        assert auto.arguments == {"to": "team"}
        # The person's policy let it run: the note names that rule, one click from Undo
        # (issue 22).
        assert [text for _, text in cards.glances] == [
            "Ran without asking: your 'Always allow' rule for Send email · Undo"
        ]
        blocked = await client.confirm(MAIL, "send_email", {"to": "eve"})
        assert (blocked.outcome, blocked.arguments) == ("blocked", None)
        assert "blocked" in (blocked.message or "")
        assert cards.presented == []
        asked = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "boom"}))
        (card,) = await cards.wait_for_cards(1)
        assert card.reason is None  # the broken policy was ignored: a plain card
        cards.decline(card.call_id)
        await asked
        guarded = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "sam"}))
        (card,) = await cards.wait_for_cards(1)
        assert card.reason == "over the amount guard"
        cards.approve(card.call_id)
        await guarded
        outcomes = [e.outcome for e in notch.service.store.log()]
        assert outcomes == ["autoApproved", "blocked", "declined", "approved"]


@pytest.mark.asyncio
async def test_a_card_cannot_approve_arguments_that_fail_the_schema(
    base: Path, notch_and_client: Any
) -> None:
    async with notch_and_client(base) as (notch, cards, client):
        ask = asyncio.ensure_future(client.confirm(MAIL, "send_email", {"to": "a"}, call_id="v"))
        await cards.wait_for_cards(1)
        with pytest.raises(ValueError, match="to"):
            notch.service.decide("v", True, {"to": 7}, ["to"], "click")
        assert await client.get("v") is None  # still open
        notch.service.decide("v", True, {"to": "b"}, [], "click")
        assert (await ask).edited_paths == ("to",)  # found even though not reported


class Broken:
    def __getattr__(self, name: str) -> Any:
        raise RuntimeError("presenter bug")


@pytest.mark.asyncio
async def test_a_broken_presenter_loses_no_request(base: Path, running_notch: Any) -> None:
    async with running_notch(base) as (notch, _), AsyncNotchClient(notch.server.path) as client:
        notch.service.set_presenter(Broken())
        _, pending = await client.submit(MAIL, "send_email", {"to": "a"}, call_id="b1")
        assert pending is None
        assert [r.call_id for r in notch.service.open_requests] == ["b1"]
        assert (await client.withdraw("b1")).outcome == "withdrawn"

"""The person's policy end to end: `notch ask` over the real socket against an in-process
Notch whose service uses the PolicyBook, wired as the app wires it."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from notch_app.runtime.catalog import Catalog
from notch_app.runtime.policy_book import NotOneOfGuard, PersonPolicy, PolicyBook, glance_text

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


async def ask(sock: str, tool: str, arguments: dict[str, Any], *extra: str) -> tuple[int, Any]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "notch_app", "ask", "--socket", sock, "--integration", MAIL,
        "--tool", tool, "--args", json.dumps(arguments), *extra,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await process.communicate()
    return process.returncode or 0, json.loads(out.decode()) if out.strip() else None


@pytest.mark.asyncio
@pytest.mark.timeout(90)
async def test_off_runs_at_once_blocked_never_runs_and_a_guard_shows_the_card(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        book = PolicyBook.in_data_dir(base / "data")
        notch.service.policy = PersonPolicy(book)  # the wiring app.py does
        manifest = notch.service.catalog.integration(MAIL)
        assert manifest is not None
        send = manifest.tool("send_email")
        assert send is not None
        sock = str(notch.server.path)

        book.set_asks_first(manifest, send, False)
        code, decision = await ask(sock, "send_email", {"to": "sam", "subject": "Hi"})
        assert (code, decision["outcome"]) == (0, "autoApproved")
        assert decision["arguments"] == {"to": "sam", "subject": "Hi"}
        assert cards.presented == []  # no card
        # Which rule let it run (issue 22); a presenter without `ran_by_rule` gets a glance.
        said = "Ran without asking: your 'Always allow' rule for Send email · Undo"
        assert [text for _, text in cards.glances] == [said]

        # The glance is the person's setting: off, the action still runs, unseen.
        book.set_glance(False)
        code, decision = await ask(sock, "send_email", {"to": "kim", "subject": "Hi"})
        assert (code, decision["outcome"]) == (0, "autoApproved")
        assert [text for _, text in cards.glances] == [said]
        book.set_glance(True)

        book.block(manifest, send)
        code, decision = await ask(sock, "send_email", {"to": "sam"})
        assert (code, decision["outcome"], decision["arguments"]) == (1, "blocked", None)
        assert cards.presented == []

        # A guard trips: the card shows although Asks first is off, and says why.
        book.block(manifest, send, False)
        book.add_guard(manifest, send, NotOneOfGuard(argument="to", allowed=["sam"]))
        task = asyncio.ensure_future(ask(sock, "send_email", {"to": "eve"}, "--call-id", "guarded"))
        await cards.wait_for_cards(1, timeout=20)
        assert cards.cards["guarded"].reason == "Asks anyway: to is not one of sam"
        cards.decline("guarded")
        code, decision = await task
        assert (code, decision["outcome"]) == (1, "declined")

        # Every policy decision is logged like any other.
        logged = {e.outcome: e.decided_by for e in notch.service.store.log()}
        assert logged["autoApproved"] == "policy" and logged["blocked"] == "policy"

        # A change in the file (from `notch policy`) applies on reload, no restart.
        PolicyBook(book.path).set_asks_first(manifest, send, True)
        book.reload()
        pending = asyncio.ensure_future(
            ask(sock, "send_email", {"to": "sam"}, "--call-id", "asks-again")
        )
        await cards.wait_for_cards(1, timeout=20)
        assert "asks-again" in cards.cards and cards.cards["asks-again"].reason is None
        cards.approve("asks-again")
        assert (await pending)[1]["outcome"] == "approved"


def test_the_glance_never_fills_in_a_secret(mail_catalog: Catalog) -> None:
    manifest = mail_catalog.integration(MAIL)
    assert manifest is not None
    connect = manifest.tool("connect_account")
    assert connect is not None
    assert glance_text(connect, {"user": {"name": "kim", "password": "hunter2"}}) == (
        "Connect account"
    )

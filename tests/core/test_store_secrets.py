"""passwordField values never reach the disk (issue 9, finding 3, the store's half).

The PIN an agent proposes or the person types went to the SQLite file in clear (the
requests table's arguments and final arguments). Now the file holds REDACTED there and
the paths withheld; the digest is of the real arguments; only the live decision sent to
the asking executor carries the value. These tests read the raw bytes of every file in
the data dir, as another program with the user's access would.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchDecisionRefused
from notch_app.manifest.facts import ToolFacts, tool_facts
from notch_app.manifest.model import Tool
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.decision import Decision, arguments_digest
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.redaction import REDACTED
from notch_app.runtime.store import DecisionStore, NewRequest

MAIL = "com.example.mail"  # its connect_account binds user.password to a passwordField
PROPOSED = "pin-4711-proposed"
TYPED = "pin-9902-typed-by-the-person"
PENDING = "pin-1357-never-decided"
AGENT = "the-asking-agents-own-token-01"
"""The executor's token, kept across restarts: only it can read its requests back."""


def raw_bytes(data_dir: Path) -> bytes:
    """Every byte Notch left in the data dir: the database, its WAL and anything else."""
    return b"".join(p.read_bytes() for p in sorted(data_dir.rglob("*")) if p.is_file())


def leaked(data_dir: Path, *secrets: str) -> list[str]:
    blob = raw_bytes(data_dir)
    encodings = ("utf-8", "utf-16-le", "utf-16-be")
    return [s for s in secrets if any(s.encode(e) in blob for e in encodings)]


@pytest.mark.asyncio
async def test_a_pin_never_reaches_the_file_and_a_replay_says_it_was_withheld(
    base: Path, running_notch: Any
) -> None:
    data = base / "data"
    async with (
        running_notch(base) as (notch, cards),
        AsyncNotchClient(notch.server.path, token=AGENT) as client,
    ):
        asked = asyncio.ensure_future(client.confirm(
            MAIL, "connect_account", {"user": {"name": "ann", "password": PROPOSED}},
            call_id="acct",
        ))  # fmt: skip
        await cards.wait_for_cards(1)
        cards.approve("acct", {"user": {"name": "ann", "password": TYPED}})
        live = await asyncio.wait_for(asked, 5)
        # The asking executor's live decision carries the secret it needs to run.
        assert live.arguments == {"user": {"name": "ann", "password": TYPED}}
        # A request left undecided is stored too, while its card is up.
        waiting = asyncio.ensure_future(client.confirm(
            MAIL, "connect_account", {"user": {"name": "bo", "password": PENDING}},
            call_id="open",
        ))  # fmt: skip
        await cards.wait_for_cards(1)
        await notch.service.drain()  # its request row is committed
        assert leaked(data, PROPOSED, TYPED, PENDING) == []
        assert live.secrets_withheld == ()
        waiting.cancel()
    assert leaked(data, PROPOSED, TYPED, PENDING) == []

    # After a restart: the approval stands, the secret is not in it, and it says so.
    async with running_notch(base) as (notch, cards):
        replay = notch.service.store.decision("acct")
        assert isinstance(replay, Decision) and replay.outcome == "approved"
        assert replay.arguments == {"user": {"name": "ann", "password": REDACTED}}
        assert replay.secrets_withheld == ("user.password",)
        # The digest the live decision carried: the secret keyed with a salt never stored
        # (the plain digest of the real arguments could be brute-forced back to the PIN).
        assert replay.digest == live.digest and live.digest_keyed == ("user.password",)
        assert replay.digest != arguments_digest({"user": {"name": "ann", "password": TYPED}})
        wire = replay.to_wire()
        assert wire["secretsWithheld"] == ["user.password"] and TYPED not in str(wire)
        assert Decision.from_wire(wire).secrets_withheld == ("user.password",)
        async with AsyncNotchClient(notch.server.path, token=AGENT) as client:
            # The client refuses to hand it over as something to run, and says why.
            with pytest.raises(NotchDecisionRefused, match="must be asked for again"):
                await client.get("acct")
            refused = await client.call("confirm.get", {"callId": "acct", "token": AGENT})
        again = Decision.from_wire(refused)
        assert again is not None and again.secrets_withheld == ("user.password",)
        assert TYPED not in str(again.arguments)
        # The undecided one comes back as a card whose password must be typed again.
        parked = await cards.wait_for_cards(1)
        assert [r.call_id for r in parked] == ["open"]
        assert parked[0].arguments == {"user": {"name": "bo"}}
        # Its agent, asking again with the same callId and arguments, joins that card
        # (a repeat is told by its arguments with secret values masked, as stored).
        async with AsyncNotchClient(notch.server.path, token=AGENT) as client:
            _, pending = await client.submit(
                MAIL,
                "connect_account",
                {"user": {"name": "bo", "password": PENDING}},
                call_id="open",
            )
            assert pending is None
            waiting = asyncio.ensure_future(client.await_decision("open"))
            assert await client.get("open") is None  # same connection: the await is in
            cards.approve("open", {"user": {"name": "bo", "password": TYPED + "-again"}})
            decided = await asyncio.wait_for(waiting, 5)
        assert decided.outcome == "approved"
        assert decided.arguments == {"user": {"name": "bo", "password": TYPED + "-again"}}
    assert leaked(data, PROPOSED, TYPED, PENDING) == []


def test_values_not_secret_are_stored_as_they_were(tmp_path: Path) -> None:
    pay = tool_facts(Tool(name="pay", input_schema={"properties": {"pin": {"type": "string"}}}))
    store = DecisionStore(tmp_path / "data", secrets_of=lambda i, t: pay)
    arguments = {"pin": "pin-0000-x", "amount": 1250.0, "n": 2**53 - 1, "text": "é 😀"}
    try:
        request = ConfirmationRequest("c", MAIL, "pay", arguments, {"agent": "a"}, 1.0)
        assert store.write([NewRequest(request)]) == [None]
        (back,) = store.pending()
        # 1250.0 stays a float: the stored JSON is plain JSON, the digest JCS.
        assert back.arguments == {"amount": 1250.0, "n": 2**53 - 1, "text": "é 😀"}
        assert type(back.arguments["amount"]) is float
        # Repeats are told apart by what is stored: the PIN masked, never hashed.
        masked = {**arguments, "pin": REDACTED}
        assert store.request_digest("c") == (MAIL, "pay", arguments_digest(masked))
    finally:
        store.close()
    assert leaked(tmp_path / "data", "pin-0000-x") == []


STORE_VERSION_1 = """
CREATE TABLE requests (call_id TEXT PRIMARY KEY, integration TEXT NOT NULL, tool TEXT NOT NULL,
    arguments TEXT NOT NULL, args_digest TEXT NOT NULL, context TEXT NOT NULL,
    created_at REAL NOT NULL, expires_at REAL, reason TEXT,
    decided INTEGER NOT NULL DEFAULT 0, final_arguments TEXT);
CREATE INDEX requests_pending ON requests(decided) WHERE decided = 0;
CREATE TABLE decisions (call_id TEXT PRIMARY KEY, integration TEXT NOT NULL, tool TEXT NOT NULL,
    outcome TEXT NOT NULL, logged_arguments TEXT, digest TEXT, edited_paths TEXT NOT NULL,
    decided_by TEXT NOT NULL, decided_at REAL NOT NULL, message TEXT, context TEXT NOT NULL);
CREATE INDEX decisions_time ON decisions(decided_at);
PRAGMA user_version=1;
"""


def test_a_store_from_before_keeps_no_secret_once_opened(
    tmp_path: Path, mail_catalog: Catalog
) -> None:
    """What Notch 0.1 left on disk: PINs in clear in the requests table."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    old_pin, pending_pin = "pin-2468-from-0.1", "pin-8642-still-open"
    approved = {"user": {"name": "ann", "password": old_pin}}
    waiting = {"user": {"name": "bo", "password": pending_pin}}
    with sqlite3.connect(data / "notch.sqlite3") as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(STORE_VERSION_1)
        db.execute(
            "INSERT INTO requests VALUES ('old', ?, 'connect_account', ?, ?, '{}', 1, NULL,"
            " NULL, 1, ?)",
            (MAIL, json.dumps(approved), arguments_digest(approved), json.dumps(approved)),
        )
        db.execute(
            "INSERT INTO decisions VALUES ('old', ?, 'connect_account', 'approved', '{}', ?,"
            " '[]', 'click', 2, NULL, '{}')",
            (MAIL, arguments_digest(approved)),
        )
        db.execute(
            "INSERT INTO requests VALUES ('open', ?, 'connect_account', ?, ?, '{}', 3, NULL,"
            " NULL, 0, NULL)",
            (MAIL, json.dumps(waiting), arguments_digest(waiting)),
        )
    assert leaked(data, old_pin, pending_pin) == [old_pin, pending_pin]  # as it was

    def secrets(integration: str, tool: str) -> ToolFacts | None:
        found = mail_catalog.tool(integration, tool)
        return None if found is None else tool_facts(found)

    # `notch log` (no catalog) opens it first: it upgrades, and the scrub waits for a start.
    first = DecisionStore(data)
    assert [e.call_id for e in first.log()] == ["old"]
    first.close()
    store = DecisionStore(data, secrets_of=secrets)
    try:
        assert leaked(data, old_pin, pending_pin) == []  # scrubbed as it opened
        old = store.decision("old")
        assert old is not None and old.secrets_withheld == ("user.password",)
        # Its digest hashed the PIN (brute-forceable): gone; the replay asks for it again.
        assert old.digest is None
        assert [r.arguments for r in store.pending()] == [{"user": {"name": "bo"}}]
        masked = {"user": {"name": "bo", "password": REDACTED}}
        assert store.request_digest("open") == (MAIL, "connect_account", arguments_digest(masked))
        stored = {arguments_digest(approved), arguments_digest(waiting)}
        assert not stored & set(
            re.findall("sha256:[0-9a-f]{64}", raw_bytes(data).decode("latin-1"))
        )
    finally:
        store.close()
    assert leaked(data, old_pin, pending_pin) == []

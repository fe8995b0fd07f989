"""`Decision.verify()`: what an executor checks before running (issue 9, finding 2).

A fake server answered `approved` with `digest: null` and `notch ask` exited 0. An
executor now refuses a decision that runs unless its digest is the digest of its
arguments, and a replay whose secrets were withheld says the approval stands but those
values must be asked for again.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient
from notch_app.runtime.decision import (
    Decision,
    DecisionNotVerified,
    SecretsWithheld,
    arguments_digest,
)

MAIL = "com.example.mail"
ARGS = {"to": "sam@example.com", "amount": 1250.0}


def approved(**changes: Any) -> Decision:
    fields: dict[str, Any] = {
        "call_id": "c1", "outcome": "approved", "integration_id": MAIL,
        "tool_name": "send_email", "arguments": dict(ARGS), "digest": arguments_digest(ARGS),
    }  # fmt: skip
    fields.update(changes)
    return Decision(**fields)


def test_a_decision_whose_digest_matches_its_arguments_verifies() -> None:
    approved().verify()
    approved(outcome="autoApproved").verify()
    Decision("c2", "declined", MAIL, "send_email").verify()  # nothing runs: nothing to check


@pytest.mark.parametrize(
    ("decision", "words"),
    [
        (approved(digest=None), "carries no digest"),
        (approved(arguments={"to": "attacker@evil.example", "amount": 1250.0}), "not the digest"),
        (approved(digest="sha256:" + "0" * 64), "not the digest"),
        (approved(arguments=None), "has no arguments"),
        (approved(outcome="notRequired", digest=None), "carries no digest"),
    ],
)
def test_a_decision_that_would_run_something_unapproved_is_refused(
    decision: Decision, words: str
) -> None:
    with pytest.raises(DecisionNotVerified, match=words) as refused:
        decision.verify()
    assert "c1" in str(refused.value) and not isinstance(refused.value, SecretsWithheld)


def test_the_fake_servers_reply_is_refused() -> None:
    fake = Decision.from_wire({"callId": "c1", "outcome": "approved", "digest": None,
                               "arguments": {"to": "sam@example.com"}})  # fmt: skip
    with pytest.raises(DecisionNotVerified, match="do not run"):
        fake.verify()


def test_a_replay_without_its_secrets_says_to_ask_again() -> None:
    replay = approved(
        arguments={"user": {"name": "ann", "password": "•••••"}},
        secrets_withheld=("user.password",),
        already_decided=True,
    )
    with pytest.raises(SecretsWithheld) as refused:
        replay.verify()
    assert "the approval stands" in str(refused.value)
    assert "user.password must be asked for again" in str(refused.value)


def test_the_repr_of_a_decision_never_shows_its_arguments() -> None:
    secret = approved(arguments={"pin": "pin-1234-secret"})
    assert "pin-1234-secret" not in repr(secret)


@pytest.mark.asyncio
async def test_every_decision_a_real_notch_sends_verifies(base: Path, running_notch: Any) -> None:
    async with running_notch(base) as (notch, cards), AsyncNotchClient(notch.server.path) as client:
        read_only = await client.confirm(MAIL, "search_mail", {"query": "1e-7 and 1250.0"})
        asked = asyncio.ensure_future(
            client.confirm(MAIL, "send_email", {"to": "sam@example.com"}, call_id="s")
        )
        await cards.wait_for_cards(1)
        cards.approve("s", {"to": "sam@example.com", "subject": "Über 1250.0 — 😀"})
        edited = await asyncio.wait_for(asked, 5)
        replayed = await client.get("s")
    for decision in (read_only, edited, replayed):
        assert decision is not None
        decision.verify()
    assert edited.arguments == {"to": "sam@example.com", "subject": "Über 1250.0 — 😀"}

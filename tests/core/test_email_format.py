"""`format: email` is checked as an address is written (issue 22 §5's own example).

jsonschema's check passes any text with an "@" in it, so "sam@" was a valid recipient:
the card's confirm opened for it and the service accepted it from an agent. Now the card
says "“sam@” is not an email address" under the field and beside the held confirm, marks
the chip, and the service refuses a call that carries it (the agent cannot slip it past
the card). Addresses people really write still pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from notch_app.bundled import bundled_folder
from notch_app.card.plain_errors import bad_value
from notch_app.card.state import CardState
from notch_app.ipc.client import AsyncNotchClient, NotchRequestError
from notch_app.manifest.integration import load_integration
from notch_app.manifest.model import Tool
from notch_app.manifest.schema import argument_problems
from notch_app.runtime.catalog import Catalog, CatalogEntry

MAIL = "dev.notch.examples.mail"


def _mail() -> tuple[Tool, dict[str, Any], CatalogEntry]:
    integration, problems = load_integration(bundled_folder("manifests") / "mail" / "manifest.json")
    assert integration is not None, problems
    tool = integration.manifest.tool("send_email")
    assert tool is not None
    preview = json.loads((bundled_folder("manifests") / "mail" / "preview.json").read_text())
    entry = CatalogEntry(integration.manifest, integration.folder, integration.fixtures)
    return tool, dict(preview["tools"]["send_email"]["args"]), entry


@pytest.mark.parametrize(
    "address",
    ["sam@", "@example.com", "sam", "sam@@example.com", "sam lee@example.com",
     "Sam Lee <sam@example.com>", "sam@example..com", "sam@-example.com", "x@" + "a" * 400],
)  # fmt: skip
def test_what_is_not_an_address_is_refused(address: str) -> None:
    tool, args, _ = _mail()
    problems = argument_problems(tool, {**args, "to": [address]})
    assert [p.path for p in problems] == ["to.0"]
    assert problems[0].message == "must be a valid email"


@pytest.mark.parametrize(
    "address",
    ["sam@example.com", "sam.lee+q3@mail.example.co.uk", "attacker@evil.example",
     '"odd name"@example.com', "ops@[192.0.2.1]", "root@intranet"],
)  # fmt: skip
def test_addresses_people_write_pass(address: str) -> None:
    tool, args, _ = _mail()
    assert argument_problems(tool, {**args, "to": [address]}) == []


def test_the_card_says_sam_at_is_not_an_email_address_and_holds_confirm() -> None:
    tool, args, _ = _mail()
    state = CardState(tool, {**args, "to": ["sam@example.com", "sam@"]})
    assert state.field_error("to") == "“sam@” is not an email address"
    assert bad_value(state.field_error("to")) == "sam@", "the chip that holds it is marked"
    assert "To: “sam@” is not an email address" in state.blockers()
    assert not state.confirm_enabled

    # The person fixes it: the line goes, confirm opens.
    state.set("to", ["sam@example.com", "sam@example.org"])
    assert state.field_error("to") is None and state.confirm_enabled


@pytest.mark.asyncio
async def test_an_agent_cannot_send_sam_at_past_the_card(base: Path, running_notch: Any) -> None:
    *_, entry = _mail()
    catalog = Catalog([])
    catalog.add(entry)
    _, args, _ = _mail()
    async with (
        running_notch(base, catalog=catalog) as (_notch, cards),
        AsyncNotchClient(_notch.server.path) as agent,
    ):
        with pytest.raises(NotchRequestError) as refused:
            await agent.confirm(MAIL, "send_email", {**args, "to": ["sam@"]}, call_id="e1")
        assert refused.value.field == "arguments.to.0"
        assert "email" in refused.value.message
        assert cards.cards == {}, "no card for a call the service refused"

"""What changed since the last approval (issue 20, finding 6), through a real socket.

A card for a payee's usual amount and one for ten times that, or a familiar recipient and
a new look-alike domain, looked the same. Now the service remembers (in the data dir,
without secret values) what the person approved per action, and a new request carries
the differences in `confirmationRequired.changes` and on its card.
"""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from notch_app.bundled import bundled_folder
from notch_app.ipc.client import AsyncNotchClient, ConfirmationEvent
from notch_app.manifest.integration import load_integration
from notch_app.runtime.approval_memory import FILE_NAME, ApprovalMemory
from notch_app.runtime.catalog import Catalog, CatalogEntry

PAY = "dev.notch.examples.payments"
MAIL = "dev.notch.examples.mail"


@pytest.fixture
def bundled_catalog() -> Catalog:
    catalog = Catalog([])
    for folder in ("payments", "mail"):
        integration, problems = load_integration(
            bundled_folder("manifests") / folder / "manifest.json"
        )
        assert integration is not None, problems
        catalog.add(CatalogEntry(integration.manifest, integration.folder, integration.fixtures))
    return catalog


def preview(folder: str, tool: str) -> dict[str, Any]:
    data = json.loads((bundled_folder("manifests") / folder / "preview.json").read_text())
    args: dict[str, Any] = data["tools"][tool]["args"]
    return args


async def ask(client: AsyncNotchClient, cards: Any, integration: str, tool: str,
              args: dict[str, Any], call_id: str) -> list[dict[str, Any]]:  # fmt: skip
    """Ask, approve the card as it is, and return the `changes` its event carried."""
    heard: list[ConfirmationEvent] = []
    asking = asyncio.ensure_future(
        client.confirm(integration, tool, args, call_id=call_id, on_event=heard.append, timeout=30)
    )
    await cards.wait_for_cards(1, timeout=20)
    cards.approve(call_id)
    decision = await asking
    assert decision.outcome == "approved"
    required = [e for e in heard if e.event == "confirmationRequired"]
    assert required, "confirmationRequired was sent"
    changes: list[dict[str, Any]] = required[0].data["changes"]
    return changes


@pytest.mark.asyncio
@pytest.mark.timeout(90)
async def test_ten_times_the_usual_amount_and_another_iban_are_marked(
    base: Path, running_notch: Any, bundled_catalog: Catalog
) -> None:
    async with (
        running_notch(base, catalog=bundled_catalog) as (notch, cards),
        AsyncNotchClient(notch.server.path) as client,
    ):
        usual = dict(preview("payments", "pay_invoice"), approval_pin="739184")
        assert await ask(client, cards, PAY, "pay_invoice", usual, "p1") == []  # nothing yet
        assert await ask(client, cards, PAY, "pay_invoice", usual, "p2") == []  # the same
        more = dict(usual, amount=usual["amount"] * 10)
        changes = await ask(client, cards, PAY, "pay_invoice", more, "p3")
        assert [(c["path"], c["kind"]) for c in changes] == [("amount", "amount")]
        assert "above your usual" in changes[0]["text"]
        other = dict(usual, payee=dict(usual["payee"], iban="DE02 1203 0000 0000 2020 51"))
        changes = await ask(client, cards, PAY, "pay_invoice", other, "p4")
        assert [(c["path"], c["kind"]) for c in changes] == [("payee.iban", "iban")]
        assert "A different IBAN for" in changes[0]["text"]
    # Kept in the data dir, owner-only, with no secret value (the approval PIN).
    kept = base / "data" / FILE_NAME
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert "739184" not in kept.read_text() and "Studio Nord GmbH" in kept.read_text()


@pytest.mark.asyncio
@pytest.mark.timeout(90)
async def test_a_new_look_alike_domain_is_marked_and_a_known_recipient_is_not(
    base: Path, running_notch: Any, bundled_catalog: Catalog
) -> None:
    async with (
        running_notch(base, catalog=bundled_catalog) as (notch, cards),
        AsyncNotchClient(notch.server.path) as client,
    ):
        mail = preview("mail", "send_email")
        await ask(client, cards, MAIL, "send_email", mail, "m1")
        assert await ask(client, cards, MAIL, "send_email", mail, "m2") == []
        spoofed = dict(mail, to=["sam@exarnple.com"])
        changes = await ask(client, cards, MAIL, "send_email", spoofed, "m3")
        kinds = {(c["path"], c["kind"]) for c in changes}
        assert ("to.0", "look-alike") in kinds and ("to.0", "new-party") in kinds
        assert any("exarnple.com looks like example.com" in c["text"] for c in changes)


def test_the_history_can_be_cleared_and_a_damaged_file_starts_empty(tmp_path: Path,
                                                                     bundled_catalog: Catalog) -> None:  # fmt: skip
    tool = bundled_catalog.tool(PAY, "pay_invoice")
    assert tool is not None
    memory = ApprovalMemory.in_data_dir(tmp_path)
    usual = preview("payments", "pay_invoice")
    memory.remember(PAY, tool, usual)
    again = ApprovalMemory.in_data_dir(tmp_path)  # read back from the file
    assert again.changes(PAY, tool, dict(usual, amount=usual["amount"] * 10))
    again.clear()
    assert ApprovalMemory.in_data_dir(tmp_path).actions() == 0
    (tmp_path / FILE_NAME).write_text("{not json")
    assert ApprovalMemory.in_data_dir(tmp_path).actions() == 0

"""The generated read-back follows the manifest's language (issue 24 §6): its own words
and punctuation in en, es, de and fr (any other: English), the values and labels the
author's; and the read-back an agent receives over the socket (confirmationRequired's
`readBack`) is the one in the manifest's language."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from notch_app.card.read_back import read_back
from notch_app.ipc.client import AsyncNotchClient
from notch_app.manifest.model import Manifest
from notch_app.runtime.catalog import Catalog


def _manifest(language: str | None, title: str, labels: list[str]) -> Manifest:
    fields = [f"f{i}" for i in range(len(labels))]
    document: dict[str, Any] = {
        "schemaVersion": 1, "id": "com.example.pay", "version": "1", "name": "Pay",
        "tools": [{
            "name": "pay_invoice",
            "inputSchema": {"type": "object", "properties": {
                "amount": {"type": "number"}, "currency": {"type": "string"},
                **{f: {"type": "string"} for f in fields}}},
            "confirmation": {"schemaVersion": 1, "root": {
                "type": "card", "title": title,
                "children": [
                    {"type": "textField", "bind": "{{amount}}", "label": "Betrag" if language == "de" else "amount"},
                    *({"type": "textField", "bind": f"{{{{{f}}}}}", "label": label}
                      for f, label in zip(fields, labels, strict=True)),
                ],
                "footer": [{"type": "actions", "items": [
                    {"label": "No", "role": "cancel"}, {"label": "Yes", "role": "confirm"}]}],
            }},
        }],
    }  # fmt: skip
    if language is not None:
        document["language"] = language
    return Manifest.model_validate(document)


LONG = "x" * 60


@pytest.mark.parametrize(
    ("language", "title", "said"),
    [
        (None, "Pay invoice", "Pay invoice: amount 1250 EUR; note 'ok'?"),
        ("en", "Pay invoice", "Pay invoice: amount 1250 EUR; note 'ok'?"),
        ("es", "Pagar factura", "¿Pagar factura: amount 1250 EUR; nota 'ok'?"),
        ("de", "Rechnung bezahlen", "Rechnung bezahlen: Betrag 1250 EUR; Notiz 'ok'?"),
        ("fr", "Payer la facture", "Payer la facture\u202f: amount 1250 EUR; note 'ok'\u202f?"),
        ("ja", "Pay invoice", "Pay invoice: amount 1250 EUR; note 'ok'?"),
    ],
)
def test_the_generated_read_back_speaks_the_manifests_language(
    language: str | None, title: str, said: str
) -> None:
    label = {"es": "nota", "de": "Notiz"}.get(language or "", "note")
    manifest = _manifest(language, title, [label])
    tool = manifest.tool("pay_invoice")
    assert tool is not None
    assert read_back(tool, {"amount": 1250, "currency": "EUR", "f0": "ok"}) == said


@pytest.mark.parametrize(
    ("language", "more"), [("en", r"; and \d more\?$"), ("es", r"; y \d más\?$"),
                           ("de", r"; und \d weitere\?$"), ("fr", "; et \\d de plus\u202f\\?$")]
)  # fmt: skip
def test_values_left_out_are_counted_in_the_language(language: str, more: str) -> None:
    manifest = _manifest(language, "T", [f"l{i}" for i in range(8)])
    tool = manifest.tool("pay_invoice")
    assert tool is not None
    said = read_back(tool, {"amount": 5, **{f"f{i}": LONG for i in range(8)}})
    assert re.search(more, said), said
    assert len(said) <= 300


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_the_agent_hears_the_read_back_in_the_manifests_language(
    base: Path, running_notch: Any
) -> None:
    catalog = Catalog([_manifest("es", "Pagar {{amount}} {{currency}}", ["nota"])])
    async with running_notch(base, catalog=catalog) as (notch, cards):
        heard: list[dict[str, Any]] = []
        required = asyncio.Event()

        def hear(event: Any) -> None:
            heard.append({"event": event.event, **event.data})
            if event.event == "confirmationRequired":
                required.set()

        async with AsyncNotchClient(notch.server.path) as agent:
            args = {"amount": 80, "currency": "EUR", "f0": "ok"}
            asked = asyncio.ensure_future(
                agent.confirm("com.example.pay", "pay_invoice", args, call_id="es1", on_event=hear)
            )
            await cards.wait_for_cards(1)
            await asyncio.wait_for(required.wait(), 10)
            cards.decline("es1")
            await asked
        said = next(h["readBack"] for h in heard if h["event"] == "confirmationRequired")
        assert said == "¿Pagar 80 EUR: amount 80 EUR; nota 'ok'?"

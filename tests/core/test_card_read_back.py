"""The read-back: one sentence built only from the validated final arguments.

Over every bundled tool and every VoiceOS fixture: the sentence names every phone number,
IBAN, amount and recipient the call sends, never a secret, and stays one line of at most
300 characters. Hostile cases: an agent that hides a recipient in a long value, puts line
breaks or control characters in a value, or writes its own "reason"; an author whose
template leaves the IBAN out.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.card.interpolate import display_value
from notch_app.card.paths import MISSING, get_path
from notch_app.card.read_back import MAX_READ_BACK_CHARS, card_read_back, read_back
from notch_app.card.state import CardState
from notch_app.manifest.model import Tool
from notch_app.manifest.read_back import tool_arguments
from notch_app.runtime.catalog import Catalog

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = [ROOT / "manifests", ROOT / "tests" / "fixtures" / "voiceos"]


def _tools_with_fixtures() -> Iterator[tuple[str, Tool, dict[str, Any]]]:
    for folder in FOLDERS:
        catalog, _problems = Catalog.load([folder])
        for integration_id in catalog.ids():
            entry = catalog.entry(integration_id)
            assert entry is not None
            manifest, fixtures = entry.manifest, entry.fixtures
            for tool in manifest.tools:
                if tool.confirmation is None:
                    continue
                sample = fixtures.tools.get(tool.name) if fixtures is not None else None
                args = dict(sample.args) if sample is not None else {}
                yield f"{manifest.id}:{tool.name}", tool, args


CASES = list(_tools_with_fixtures())


def test_every_bundled_and_voiceos_tool_is_covered() -> None:
    names = {name for name, _tool, _args in CASES}
    assert "dev.notch.examples.payments:pay_invoice" in names
    assert "dev.notch.examples.mail:send_email" in names
    assert "com.example.chat-widget:send_message" in names
    assert len(CASES) >= 20


@pytest.mark.parametrize(("name", "tool", "args"), CASES, ids=[c[0] for c in CASES])
def test_each_read_back_names_every_recipient_phone_iban_and_amount(
    name: str, tool: Tool, args: dict[str, Any]
) -> None:
    final = CardState(tool, args).final_arguments()
    said = read_back(tool, final)
    assert said and "\n" not in said and said.isprintable()
    assert len(said) <= MAX_READ_BACK_CHARS
    assert said.endswith("?")
    for path, _kind in tool_arguments(tool).must_read:
        value = get_path(final, path)
        if value is MISSING or value in ("", [], None):
            continue
        for item in value if isinstance(value, list) else [value]:
            assert display_value(item) in said, f"{name}: {path} = {item!r} not in {said!r}"


def test_the_issue_example_reads_as_the_person_expects() -> None:
    tool = _whatsapp()
    said = read_back(tool, {"to": "Marc", "phone": "+34 612 345 678", "text": "Running late"})
    assert said == "Send WhatsApp message: to Marc; phone +34 612 345 678; message 'Running late'?"


def test_a_template_reads_the_final_arguments_not_the_proposal() -> None:
    tool = _whatsapp(read_back="Send WhatsApp message to {{to}} ({{phone}}): '{{text}}'?")
    state = CardState(tool, {"to": "Marc", "phone": "+34 612 345 678", "text": "Running late"})
    state.set("text", "On my way")
    assert card_read_back(state) == "Send WhatsApp message to Marc (+34 612 345 678): 'On my way'?"


def test_the_payments_card_reads_the_iban_and_amount_with_its_currency_never_the_pin() -> None:
    _name, tool, args = next(c for c in CASES if c[0].endswith(":pay_invoice"))
    state = CardState(tool, args)
    state.set("approval_pin", "482913")
    said = card_read_back(state)
    assert "1250 EUR" in said
    assert "DE89 3704 0044 0532 0130 00" in said
    assert "Studio Nord GmbH" in said
    assert "482913" not in said and "PIN" not in said and "••" not in said


def test_a_template_that_binds_a_secret_reads_it_masked() -> None:
    tool = _whatsapp(read_back="Send {{text}} to {{to}} ({{phone}}) with PIN {{pin}}?")
    said = read_back(tool, {"to": "Marc", "phone": "+1 555", "text": "hi", "pin": "1234"})
    assert "1234" not in said and "••••••" in said


def test_a_template_that_leaves_out_the_number_still_reads_it() -> None:
    # Validation refuses this template; a card built from it anyway still says the number.
    tool = _whatsapp(read_back="Send '{{text}}' to {{to}}?")
    said = read_back(tool, {"to": "Marc", "phone": "+34 612 345 678", "text": "hi"})
    assert said == "Send 'hi' to Marc (phone +34 612 345 678)?"


def test_the_agent_cannot_push_a_recipient_out_of_the_sentence_with_long_text() -> None:
    tool = _whatsapp()
    flood = "word " * 5000
    said = read_back(tool, {"to": "Marc", "phone": "+34 612 345 678", "text": flood})
    assert len(said) <= MAX_READ_BACK_CHARS
    assert "Marc" in said and "+34 612 345 678" in said
    assert "…" in said


def test_many_recipients_are_all_read_back_within_the_bound() -> None:
    tool = _whatsapp()
    said = read_back(
        tool, {"to": "Marc", "phone": "+34 612 345 678", "text": "x" * 400, "cc": ["a@x.io"] * 3}
    )
    assert len(said) <= MAX_READ_BACK_CHARS and "Marc" in said and "+34 612 345 678" in said


def test_line_breaks_control_and_invisible_characters_never_reach_the_sentence() -> None:
    tool = _whatsapp()
    said = read_back(
        tool,
        {
            "to": "Ma\u202erc",
            "phone": "+34\n612\x07345",
            "text": "Line one\r\nIgnore the above\x1b[2J",
        },
    )
    assert "\n" not in said and "\x07" not in said and "\x1b" not in said
    assert "\u202e" not in said and "⟨U+202E⟩" in said  # marked as on the card
    assert said.isprintable()


def test_the_agents_own_narration_is_not_read_back() -> None:
    _name, tool, args = next(c for c in CASES if c[0] == "dev.notch.agents.codex:Bash")
    said = read_back(tool, {**args, "description": "Just runs the tests, nothing else"})
    assert "git push origin main" in said
    assert "Just runs the tests" not in said


def test_only_the_final_arguments_fill_it() -> None:
    # A key the view does not know (the model's context, say) is never read.
    tool = _whatsapp(read_back="Send {{text}} to {{to}} ({{phone}})?")
    said = read_back(tool, {"to": "Marc", "phone": "1", "text": "hi", "context": "pay 9000 EUR"})
    assert "9000" not in said


def test_a_tool_with_nothing_to_say_reads_its_title() -> None:
    _name, tool, args = next(c for c in CASES if c[0].endswith(":cancel_task"))
    assert read_back(tool, args) == "Cancel task?"


def _whatsapp(read_back: str | None = None) -> Tool:
    confirmation: dict[str, Any] = {
        "schemaVersion": 1,
        "root": {
            "type": "card",
            "title": "Send WhatsApp message",
            "children": [
                {"type": "textField", "bind": "{{to}}", "label": "To"},
                {"type": "textField", "bind": "{{phone}}", "label": "Phone"},
                {"type": "textField", "bind": "{{text}}", "label": "Message"},
                {"type": "passwordField", "bind": "{{pin}}", "label": "PIN"},
            ],
            "footer": [
                {
                    "type": "actions",
                    "items": [
                        {"label": "Cancel", "role": "cancel"},
                        {"label": "Send", "role": "confirm"},
                    ],
                }
            ],
        },
    }
    if read_back is not None:
        confirmation["readBack"] = read_back
    return Tool.model_validate(
        {
            "name": "send_whatsapp",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "to": {"type": "string"},
                    "phone": {"type": "string"},
                    "text": {"type": "string"},
                    "pin": {"type": "string"},
                    "cc": {"type": "array", "items": {"type": "string"}},
                },
            },
            "confirmation": confirmation,
        }
    )

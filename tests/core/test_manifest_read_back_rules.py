"""`confirmation.readBack`: validated like any display text, plus its own two rules.

Every binding must be an argument; the sentence names every phone number, IBAN, amount
and recipient the tool sends, says something beyond free text the model fills
(`read-back-incomplete`), and never binds a secret (`read-back-secret`). The author who
tries to make the voice question say less than what runs is the hostile case here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from notch_app.manifest.facts import must_read_kind
from notch_app.manifest.model import Tool
from notch_app.manifest.read_back import tool_arguments
from notch_app.manifest.reading import Problem
from notch_app.manifest.rules import RULES
from notch_app.manifest.validate import validate_path

PROPERTIES: dict[str, Any] = {
    "to": {"type": "string", "description": "The contact's name."},
    "phone": {"type": "string", "description": "The number the message goes to."},
    "text": {"type": "string"},
    "summary": {"type": "string"},
    "amount": {"type": "number"},
    "currency": {"type": "string", "enum": ["EUR", "USD"]},
    "payee": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "iban": {"type": "string"}},
    },
    "pin": {"type": "string"},
    "silent": {"type": "boolean"},
}


def _manifest(read_back: Any, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    confirmation: dict[str, Any] = {
        "schemaVersion": 1,
        "root": {
            "type": "card",
            "title": "Send WhatsApp message",
            "children": [
                {"type": "textField", "bind": "{{text}}", "label": "Message"},
                {"type": "passwordField", "bind": "{{pin}}", "label": "PIN"},
                {
                    "type": "keyValue",
                    "items": [
                        {"label": "To", "value": "{{to}} ({{phone}})"},
                        {"label": "Pay", "value": "{{amount}} {{currency}} to {{payee}}"},
                        {"label": "About", "value": "{{summary}}, silent: {{silent}}"},
                    ],
                },
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
    return {
        "schemaVersion": 1,
        "id": "com.example.readback",
        "version": "1.0.0",
        "name": "Read-back",
        "tools": [
            {
                "name": "send_message",
                "title": "Send WhatsApp message",
                "inputSchema": {"type": "object", "properties": properties or PROPERTIES},
                "confirmation": confirmation,
            }
        ],
    }


def _problems(
    tmp_path: Path, read_back: Any, properties: dict[str, Any] | None = None
) -> list[Problem]:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(_manifest(read_back, properties), indent=2))
    return [p for p in validate_path(path) if p.is_error]


COMPLETE = "Send {{text}} to {{to}} ({{phone}}) and pay {{amount}} {{currency}} to {{payee.name}}, {{payee.iban}}?"


def test_a_complete_read_back_passes_and_no_read_back_at_all_passes(tmp_path: Path) -> None:
    assert _problems(tmp_path, COMPLETE) == []
    assert _problems(tmp_path, None) == []
    # A whole object covers its parts.
    assert _problems(tmp_path, "Send {{text}} to {{to}}, {{phone}}: {{amount}} to {{payee}}?") == []


def test_both_rule_ids_are_listed_with_what_they_ask_for() -> None:
    assert "readBack" in RULES["read-back-incomplete"]
    assert "secret" in RULES["read-back-secret"]
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert "read-back-incomplete" in readme and "read-back-secret" in readme


def test_an_unknown_binding_is_reported_at_the_read_back_with_the_arguments_that_exist(
    tmp_path: Path,
) -> None:
    problems = _problems(tmp_path, COMPLETE.replace("{{phone}}", "{{phnoe}}"))
    assert [p.rule for p in problems] == ["binding-unknown-argument"]
    assert problems[0].pointer == "/tools/0/confirmation/readBack"
    assert "'phone'" in problems[0].message  # did you mean
    line = (tmp_path / "manifest.json").read_text().split("\n")[problems[0].line - 1]
    assert '"readBack"' in line


def test_a_malformed_binding_is_reported(tmp_path: Path) -> None:
    problems = _problems(tmp_path, COMPLETE + " {{ to + phone }}")
    assert [p.rule for p in problems] == ["binding-malformed"]


@pytest.mark.parametrize(
    ("left_out", "named"),
    [
        ("{{phone}}", "{{phone}}"),
        ("{{amount}}", "{{amount}}"),
        ("{{payee.iban}}", "{{payee.iban}}"),
        ("{{to}}", "{{to}}"),
    ],
)
def test_a_read_back_that_leaves_out_where_it_goes_or_what_it_costs_is_an_error(
    tmp_path: Path, left_out: str, named: str
) -> None:
    problems = _problems(tmp_path, COMPLETE.replace(left_out, "someone"))
    assert [p.rule for p in problems] == ["read-back-incomplete"]
    assert named in problems[0].message
    assert "add them" in problems[0].message


@pytest.mark.parametrize("template", ["{{summary}}", "{{summary}}?", " {{text}} — {{summary}} ! "])
def test_free_text_the_model_fills_may_not_be_the_only_content(
    tmp_path: Path, template: str
) -> None:
    # No recipients or amounts in this tool: only the free-text rule can speak.
    props = {"text": {"type": "string"}, "summary": {"type": "string"}}
    problems = _problems(tmp_path, template, props)
    # The card's keyValue binds arguments this tool lacks: only the readBack is judged.
    read_back = [p for p in problems if p.pointer.endswith("/readBack")]
    assert [p.rule for p in read_back] == ["read-back-incomplete"]
    assert "own words" in read_back[0].message


def test_free_text_with_words_of_its_own_passes(tmp_path: Path) -> None:
    props = {"text": {"type": "string"}, "summary": {"type": "string"}}
    problems = _problems(tmp_path, "Post '{{summary}}' to the team?", props)
    assert [p for p in problems if p.pointer.endswith("/readBack")] == []


@pytest.mark.parametrize("secret", ["{{pin}}"])
def test_a_read_back_that_binds_a_secret_is_an_error(tmp_path: Path, secret: str) -> None:
    problems = _problems(tmp_path, COMPLETE + f" PIN {secret}")
    assert [p.rule for p in problems] == ["read-back-secret"]


def test_a_read_back_longer_than_one_sentence_is_refused(tmp_path: Path) -> None:
    problems = _problems(tmp_path, COMPLETE + " x" * 200)
    assert [p.rule for p in problems] == ["limit-string-length"]


def test_a_read_back_that_is_not_text_is_a_structure_error(tmp_path: Path) -> None:
    problems = _problems(tmp_path, ["{{to}}"])
    assert problems and problems[0].rule == "schema-structure"


@pytest.mark.parametrize(
    ("path", "schema", "kind"),
    [
        ("phone_number", {"type": "string"}, "phone"),
        ("recipientPhone", {"type": "string"}, "phone"),
        ("contact", {"type": "string", "format": "email"}, "recipient"),
        ("payee.iban", {"type": "string"}, "iban"),
        ("amount_cents", {"type": "integer"}, "amount"),
        ("price", {"type": "string"}, "amount"),
        ("cc", {"type": "array"}, "recipient"),
        ("notify_attendees", {"type": "boolean"}, None),
        ("subject", {"type": "string"}, None),
        ("total_size", {"type": "string"}, None),
    ],
)
def test_which_arguments_must_be_read_back(
    path: str, schema: dict[str, Any], kind: str | None
) -> None:
    assert must_read_kind(path, schema) == kind


def test_secrets_and_free_text_of_a_tool() -> None:
    tool = Tool.model_validate(_manifest(None)["tools"][0])
    args = tool_arguments(tool)
    assert [p for p, _ in args.must_read] == ["to", "phone", "amount", "payee.name", "payee.iban"]
    assert "pin" in args.secrets
    assert {"text", "summary"} <= args.free_text
    assert "currency" not in args.free_text  # an enum holds it to a shape

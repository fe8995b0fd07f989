"""Errors in the words a person uses: the field named, the value quoted, never a secret.

Before: "To has a problem at 0: must be a valid email". Now: "“sam@” is not an email
address" under the field and "To: “sam.example.com” is not an email address" beside the held
confirm. Hostile cases: a PIN the schema refuses is never quoted; a value built to look
like another (a bidi override) is quoted with its hidden characters marked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from notch_app.card.plain_errors import bad_value, plain_problem, with_label
from notch_app.card.state import CardState
from notch_app.manifest.model import Tool
from notch_app.runtime.catalog import Catalog

ROOT = Path(__file__).resolve().parents[2]


def _tool(integration: str, name: str) -> tuple[Tool, dict[str, Any]]:
    catalog, _ = Catalog.load([ROOT / "manifests"])
    for integration_id in catalog.ids():
        entry = catalog.entry(integration_id)
        assert entry is not None
        tool = entry.manifest.tool(name)
        if tool is not None and integration_id.endswith(integration):
            assert entry.fixtures is not None
            return tool, dict(entry.fixtures.tools[name].args)
    raise AssertionError(name)


def test_a_bad_recipient_is_named_in_plain_words() -> None:
    tool, args = _tool("mail", "send_email")
    state = CardState(tool, {**args, "to": ["sam@example.com", "sam.example.com"]})
    assert state.field_error("to") == "“sam.example.com” is not an email address"
    assert "To: “sam.example.com” is not an email address" in state.blockers()
    assert not any("has a problem at" in b for b in state.blockers())


def test_a_secret_the_schema_refuses_is_never_quoted() -> None:
    tool, args = _tool("payments", "pay_invoice")
    state = CardState(tool, {**args, "approval_pin": "12ab"})
    state.set("approval_pin", "12ab")
    said = " ".join([state.field_error("approval_pin") or "", *state.blockers()])
    assert "12ab" not in said


def test_hidden_characters_in_a_quoted_value_are_marked() -> None:
    said = plain_problem("must be a valid email", "sam@exa\u202emple")
    assert said == "“sam@exa⟨U+202E⟩mple” is not an email address"
    assert bad_value(said) == "sam@exa⟨U+202E⟩mple"


def test_messages_that_read_plainly_are_left_alone() -> None:
    assert plain_problem("must be a number", "abc") == "must be a number"
    assert with_label("Subject", "is required") == "Subject is required"
    assert plain_problem("needs at least one entry", []) == "needs at least one — add one"

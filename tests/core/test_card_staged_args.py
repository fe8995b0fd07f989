"""A widget card's page stages edits (`voiceos:args`): staged like the person's inline
edits, refused as a whole when the page oversteps (a property the schema lacks, a secret
it was never shown, a wrong type, not JSON, too large), and never able to make the card
show less — Notch lists every argument the call sends, each change as `before → after`."""

from __future__ import annotations

from typing import Any

import pytest

from notch_app.card.staged_args import (
    MAX_STAGED_BYTES,
    REFUSED,
    WidgetCardState,
    card_state_for,
)
from notch_app.card.state import SECRET_MASK, CardState
from notch_app.manifest.model import Tool

PROPOSED = {"to": "Marc", "body": "Running late", "cc": "ana@example.com", "token": "s3cr3t-value"}


def widget_tool(data: dict[str, Any] | None = None) -> Tool:
    return Tool.model_validate(
        {
            "name": "send_message",
            "title": "Send message",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "to": {"type": "string", "title": "To", "minLength": 1},
                    "body": {"type": "string"},
                    "cc": {"type": "string"},
                    "count": {"type": "integer", "minimum": 1},
                    "urgent": {"type": "boolean"},
                    "token": {"type": "string", "format": "password"},
                },
                "required": ["to", "body"],
                "additionalProperties": False,
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "widget",
                    "html": "<p>hi</p>",
                    "data": data if data is not None else {"to": "{{to}}", "who": "Hi {{to}}"},
                },
            },
        }
    )


@pytest.fixture
def state() -> WidgetCardState:
    made = card_state_for(widget_tool(), PROPOSED)
    assert isinstance(made, WidgetCardState)
    return made


def _lines(state: WidgetCardState) -> dict[str, tuple[str, str | None]]:
    return {line.path: (line.text, line.before) for line in state.what_will_run()}


def test_a_valid_staging_is_an_edit_with_its_change_listed(state: WidgetCardState) -> None:
    staged = state.stage({"to": "Sam"})
    assert staged.changed and staged.refusal is None
    assert state.confirm_enabled
    assert state.final_arguments() == {**PROPOSED, "to": "Sam"}
    assert state.edited_paths() == ["to"]
    assert _lines(state)["to"] == ("Sam", "Marc")
    assert next(line for line in state.what_will_run() if line.path == "to").label == "To"


def test_values_are_coerced_as_the_cards_own_edits_are(state: WidgetCardState) -> None:
    assert state.stage({"count": "3", "urgent": "yes"}).refusal is None
    assert state.final_arguments()["count"] == 3
    assert state.final_arguments()["urgent"] is True
    assert sorted(state.edited_paths()) == ["count", "urgent"]


def test_restaging_the_proposal_is_no_change(state: WidgetCardState) -> None:
    assert not state.stage({"to": "Marc"}).changed
    assert state.edited_paths() == []


def test_every_argument_is_listed_whatever_the_page_shows(state: WidgetCardState) -> None:
    # The page's own data shows only `to`; Notch still lists all four, secrets masked.
    lines = _lines(state)
    assert set(lines) == {"to", "body", "cc", "token"}
    assert lines["token"] == (SECRET_MASK, None)
    assert state.shown_now() == []


def test_removing_an_argument_is_listed_as_a_change(state: WidgetCardState) -> None:
    assert state.stage({"cc": None}).refusal is None
    assert "cc" not in state.final_arguments()
    assert _lines(state)["cc"] == ("", "ana@example.com")


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"bcc": "eve@example.com"}, "“bcc” is not an argument Send message takes"),
        ({"to": "Sam", "approve": True}, "“approve” is not an argument"),
        ({"token": "attacker"}, "“token” is a secret the widget was never shown"),
        ({"count": "lots"}, "must be a whole number"),
        ({"urgent": [1]}, "must be yes or no"),
        (["to", "Sam"], "not arguments by name"),
        ("approve", "not arguments by name"),
        ({"to": float("nan")}, "not plain JSON"),
        ({"to": "x" * (MAX_STAGED_BYTES + 1)}, "larger than"),
        ({"to.first": "Sam"}, "is not an argument"),
    ],
)
def test_an_overstepping_staging_is_refused_whole_and_keeps_confirm_closed(
    state: WidgetCardState, arguments: Any, reason: str
) -> None:
    staged = state.stage(arguments)
    assert staged.refusal is not None and staged.refusal.startswith(REFUSED)
    assert reason in staged.refusal
    assert staged.changed
    assert not state.confirm_enabled
    assert state.blockers()[0] == staged.refusal
    # Nothing of it was applied, not even its valid part.
    assert state.final_arguments() == PROPOSED
    assert "eve" not in repr(state) and "attacker" not in staged.refusal


def test_a_schema_problem_in_a_staging_keeps_confirm_closed_with_the_reason(
    state: WidgetCardState,
) -> None:
    assert state.stage({"to": ""}).refusal is None  # required: "" is what is sent
    assert not state.confirm_enabled
    assert any("to" in b or "To" in b for b in state.blockers())


def test_a_later_valid_staging_or_a_revert_lifts_a_refusal(state: WidgetCardState) -> None:
    state.stage({"bcc": "x"})
    assert not state.confirm_enabled
    assert state.stage({"to": "Sam"}).refusal is None
    assert state.confirm_enabled and state.final_arguments()["to"] == "Sam"
    state.stage({"bcc": "x"})
    state.revert_all()
    assert state.confirm_enabled and state.final_arguments() == PROPOSED


def test_a_secret_the_page_was_given_may_be_changed() -> None:
    state = card_state_for(widget_tool({"token": "{{token}}"}), PROPOSED)
    assert isinstance(state, WidgetCardState)
    assert state.page_data() == {"token": "s3cr3t-value"}
    assert state.stage({"token": "new"}).refusal is None
    assert _lines(state)["token"] == (SECRET_MASK, SECRET_MASK)  # never in clear


def test_the_page_gets_its_data_with_bindings_filled(state: WidgetCardState) -> None:
    assert state.page_data() == {"to": "Marc", "who": "Hi Marc"}
    typed = card_state_for(
        widget_tool({"n": "{{count}}", "missing": "<<urgent>>", "list": ["{{to}}", 2]}),
        {**PROPOSED, "count": 4},
    )
    assert isinstance(typed, WidgetCardState)
    assert typed.page_data() == {"n": 4, "missing": None, "list": ["Marc", 2]}


def test_subscribers_hear_of_every_staging_that_changes_the_card(state: WidgetCardState) -> None:
    heard: list[int] = []
    state.subscribe(lambda: heard.append(1))
    state.stage({"to": "Sam"})
    state.stage({"bcc": "x"})
    state.stage({"bcc": "x"})  # the same refusal again changes nothing
    assert len(heard) == 2


def test_a_card_view_gets_a_plain_state_for_other_views() -> None:
    tool = Tool.model_validate(
        {
            "name": "send_message",
            "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}},
            "confirmation": {
                "schemaVersion": 1,
                "root": {"type": "text", "text": "To {{to}}"},
            },
        }
    )
    made = card_state_for(tool, {"to": "Marc"})
    assert type(made) is CardState
    with pytest.raises(ValueError, match="not a widget view"):
        WidgetCardState(tool, {"to": "Marc"})


def test_only_stagings_that_change_the_card_call_the_page_watchers(
    state: WidgetCardState,
) -> None:
    held: list[int] = []
    state.on_page_change(lambda: held.append(1))
    state.stage({"to": "Marc"})  # the proposal again: nothing to hold for
    assert held == []
    state.stage({"to": "Sam"})
    state.stage({"bcc": "x"})
    state.stage({"to": "Sam"})  # lifts the refusal: confirm may open, so it is held
    assert len(held) == 3

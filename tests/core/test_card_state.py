"""CardState: the live form behind a confirmation card — gating, visibility, final arguments."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.card.paths import MISSING
from notch_app.card.state import SECRET_MASK, CardState
from notch_app.manifest.model import ActionsBlock, CardBlock, Tool

SECRET = "hunter2-do-not-show"


def make_tool(
    children: list[dict[str, Any]],
    properties: dict[str, Any],
    required: list[str] | None = None,
    *,
    title: str = "Send",
    footer: list[dict[str, Any]] | None = None,
    extra_schema: dict[str, Any] | None = None,
) -> Tool:
    schema: dict[str, Any] = {"type": "object", "properties": properties, **(extra_schema or {})}
    if required:
        schema["required"] = required
    return Tool.model_validate(
        {
            "name": "send_message",
            "inputSchema": schema,
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": title,
                    "children": children,
                    "footer": footer
                    if footer is not None
                    else [
                        {
                            "type": "actions",
                            "items": [
                                {"label": "Cancel", "role": "cancel"},
                                {"label": "Send {{count}}", "role": "confirm"},
                            ],
                        }
                    ],
                },
            },
        }
    )


PROPERTIES: dict[str, Any] = {
    "to": {"type": "string", "minLength": 1},
    "body": {"type": "string", "maxLength": 40},
    "count": {"type": "integer", "minimum": 1},
    "voice": {"type": "string", "enum": ["rachel", "adam"]},
    "level": {"type": "integer", "enum": [1, 2, 3]},
    "schedule": {"type": "boolean"},
    "when": {"type": "string"},
    "token": {"type": "string"},
    "cc": {"type": "array", "items": {"type": "string"}},
    "user": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": ["integer", "null"]}},
        "required": ["name"],
    },
    "big": {"type": "string"},
}
CHILDREN: list[dict[str, Any]] = [
    {"type": "textField", "bind": "{{to}}", "label": "To", "required": True},
    {"type": "textField", "bind": "{{body}}", "label": "Body", "multiline": True},
    {"type": "textField", "bind": "{{count}}", "label": "Count"},
    {
        "type": "select",
        "bind": "{{voice}}",
        "label": "Voice",
        "options": [{"label": "Rachel", "value": "rachel"}, {"label": "Adam", "value": "adam"}],
    },
    {
        "type": "select",
        "bind": "<<level>>",
        "label": "Level",
        "options": [{"label": "One", "value": 1}, {"label": "Two", "value": 2}],
    },
    {"type": "toggle", "bind": "{{schedule}}", "label": "Schedule", "required": True},
    {
        "type": "stack",
        "visibleIf": "{{schedule}}",
        "children": [
            {"type": "textField", "bind": "{{when}}", "label": "When", "required": True},
        ],
    },
    {"type": "passwordField", "bind": "{{token}}", "label": "Token"},
    {"type": "chips", "bind": "{{cc}}", "label": "Cc"},
    {"type": "textField", "bind": "{{user.name}}", "label": "Name", "required": True},
    {"type": "textField", "bind": "{{user.age}}", "label": "Age"},
    {"type": "text", "text": "Send {{count}} copies to {{to}}"},
]
PROPOSED: dict[str, Any] = {
    "to": "ada@example.com",
    "body": "Hello",
    "count": 2,
    "voice": "rachel",
    "schedule": False,
    "token": SECRET,
    "user": {"name": "Ada", "age": 36},
}


@pytest.fixture
def tool() -> Tool:
    return make_tool(CHILDREN, PROPERTIES, ["to", "count", "user"])


@pytest.fixture
def state(tool: Tool) -> CardState:
    return CardState(tool, PROPOSED)


def root(state: CardState) -> CardBlock:
    assert isinstance(state.view.root, CardBlock)
    return state.view.root


def block_bound_to(state: CardState, path: str) -> Any:
    binding = state.input_for(path)
    assert binding is not None
    return binding.block


# --- construction ----------------------------------------------------------------------


def test_a_tool_without_a_confirmation_view_is_refused_clearly() -> None:
    tool = Tool.model_validate({"name": "list_files", "inputSchema": {"type": "object"}})
    with pytest.raises(ValueError, match="'list_files' has no confirmation view"):
        CardState(tool, {})


def test_a_bind_that_is_not_a_binding_is_refused_naming_the_input() -> None:
    tool = make_tool([{"type": "textField", "bind": "plain text", "label": "To"}], PROPERTIES)
    with pytest.raises(ValueError, match="bind of 'To' is not a single binding"):
        CardState(tool, {})


def test_inputs_describe_each_bound_field(state: CardState) -> None:
    by_path = {i.path: i for i in state.inputs}
    assert [i.path for i in state.inputs][:3] == ["to", "body", "count"]
    assert by_path["level"].kind == "select"
    assert by_path["token"].secret and not by_path["to"].secret
    assert by_path["to"].required and not by_path["body"].required
    assert by_path["user.age"].schema == {"type": ["integer", "null"]}
    assert by_path["when"].label == "When"
    assert by_path["count"].argument_required and not by_path["body"].argument_required
    assert state.input_for("nothing") is None


def test_proposed_arguments_are_copied_not_shared(tool: Tool) -> None:
    args = copy.deepcopy(PROPOSED)
    state = CardState(tool, args)
    args["user"]["name"] = "changed by the agent later"
    assert state.value("user.name") == "Ada"
    out = state.final_arguments()
    out["user"]["name"] = "changed by the caller"
    assert state.final_arguments()["user"]["name"] == "Ada"


# --- values and final arguments -----------------------------------------------------------


def test_untouched_card_sends_exactly_the_proposal(state: CardState) -> None:
    assert state.confirm_enabled, state.blockers()
    assert state.final_arguments() == PROPOSED
    assert state.edited_paths() == []
    assert state.value("when") is MISSING


def test_edits_are_coerced_to_the_bound_type(state: CardState) -> None:
    state.set("count", "5")
    state.set("level", 2)
    state.set("cc", "bob@example.com, eve@example.com")
    state.set("user.age", "40")
    final = state.final_arguments()
    assert final["count"] == 5
    assert final["level"] == 2
    assert final["cc"] == ["bob@example.com", "eve@example.com"]
    assert final["user"] == {"name": "Ada", "age": 40}
    assert state.edited_paths() == ["count", "level", "cc", "user.age"]


def test_optional_arguments_never_touched_stay_absent(state: CardState) -> None:
    state.set("to", "bob@example.com")
    final = state.final_arguments()
    for absent in ("level", "when", "cc", "big"):
        assert absent not in final


def test_typing_abc_into_an_integer_field_blocks_confirm_and_never_reaches_the_executor(
    state: CardState,
) -> None:
    state.set("count", "abc")
    assert state.value("count") == "abc"  # the field keeps showing what was typed
    assert state.field_error("count") == "must be a whole number"
    assert not state.confirm_enabled
    assert state.blockers() == ["Count must be a whole number"]
    state.set("count", "4.0")
    assert state.final_arguments()["count"] == 4
    assert state.confirm_enabled


def test_schema_rules_show_at_the_field_and_block_confirm(state: CardState) -> None:
    state.set("body", "x" * 41)
    assert state.field_error("body") == "must be at most 40 characters"
    assert state.blockers() == ["Body must be at most 40 characters"]
    state.set("count", "0")
    assert state.field_error("count") == "must be at least 1"
    assert not state.confirm_enabled


def test_clearing_an_optional_argument_removes_it(state: CardState) -> None:
    state.set("body", "")
    assert "body" not in state.final_arguments()
    assert state.value("body") is MISSING
    assert state.edited_paths() == ["body"]
    assert state.confirm_enabled


def test_clearing_a_required_text_sends_empty_and_gates(state: CardState) -> None:
    state.set("to", "   ")
    assert state.final_arguments()["to"] == "   "
    assert not state.confirm_enabled
    assert state.field_error("to") == "is required"
    assert "To is required" in state.blockers()


def test_clearing_a_required_number_leaves_it_missing_and_says_so(state: CardState) -> None:
    state.set("count", "")
    assert "count" not in state.final_arguments()
    assert state.field_error("count") == "is required"
    assert state.blockers() == ["Count is required"]


def test_clearing_a_nullable_argument_the_schema_requires_sends_null(tool: Tool) -> None:
    required_age = make_tool(
        CHILDREN,
        {**PROPERTIES, "user": {**PROPERTIES["user"], "required": ["name", "age"]}},
        ["to", "count", "user"],
    )
    state = CardState(required_age, PROPOSED)
    state.set("user.age", "")
    assert state.final_arguments()["user"] == {"name": "Ada", "age": None}
    assert state.confirm_enabled


def test_clearing_a_field_that_was_proposed_empty_keeps_the_proposal(tool: Tool) -> None:
    state = CardState(tool, {**PROPOSED, "body": ""})
    state.set("body", "draft")
    state.set("body", "")
    assert state.final_arguments()["body"] == ""
    assert state.edited_paths() == []


def test_typing_back_the_proposed_value_is_no_edit(state: CardState) -> None:
    state.set("count", "3")
    state.set("count", "2")
    assert state.edited_paths() == []
    assert state.final_arguments() == PROPOSED


def test_revert_restores_the_proposal(state: CardState) -> None:
    state.set("count", "abc")
    state.set("to", "")
    state.revert("count")
    assert state.value("count") == 2
    assert state.field_error("count") is None
    state.revert_all()
    assert state.final_arguments() == PROPOSED
    assert state.confirm_enabled


def test_editing_a_nested_field_writes_back_into_the_object(state: CardState) -> None:
    state.set("user.name", "Grace")
    assert state.final_arguments()["user"] == {"name": "Grace", "age": 36}
    assert PROPOSED["user"]["name"] == "Ada"
    state.set("user.name", "")
    assert state.field_error("user.name") == "is required"
    assert state.final_arguments()["user"]["name"] == ""


# --- gating and visibility ----------------------------------------------------------------


def test_hidden_required_inputs_do_not_gate_until_shown(state: CardState) -> None:
    when = block_bound_to(state, "when")
    assert not state.is_visible(when)
    assert state.confirm_enabled
    state.set("schedule", True)
    assert state.is_visible(when)
    assert not state.confirm_enabled
    assert state.blockers() == ["When is required"]
    state.set("when", "tomorrow 9:00")
    assert state.confirm_enabled
    state.set("when", "")  # optional in the schema: cleared → absent
    state.set("schedule", False)
    assert state.confirm_enabled


def test_toggles_never_gate_even_when_marked_required(tool: Tool) -> None:
    state = CardState(tool, {k: v for k, v in PROPOSED.items() if k != "schedule"})
    assert state.value("schedule") is MISSING  # shown as off: off is an answer
    assert state.confirm_enabled, state.blockers()
    assert "schedule" not in state.final_arguments()
    state.set("schedule", False)
    assert state.value("schedule") is False
    assert state.field_error("schedule") is None
    assert state.confirm_enabled


def test_cancel_copy_and_open_url_are_never_gated_but_follow_visible_if(tool: Tool) -> None:
    footer = [
        {
            "type": "actions",
            "items": [
                {"label": "Cancel", "role": "cancel"},
                {"label": "Copy", "role": "copy"},
                {
                    "label": "Open",
                    "role": "openUrl",
                    "url": "https://x.example",
                    "visibleIf": "{{when}}",
                },
                {"label": "Send", "role": "confirm"},
            ],
        }
    ]
    state = CardState(make_tool(CHILDREN, PROPERTIES, ["to"], footer=footer), {"to": ""})
    assert not state.confirm_enabled
    actions = root(state).footer[0]
    assert isinstance(actions, ActionsBlock)
    items = actions.items
    assert [state.is_visible(i) for i in items] == [True, True, False, True]
    state.set("schedule", True)  # the When field shows (an edit of a hidden field is not sent)
    state.set("when", "now")
    assert state.is_visible(items[2])


@pytest.mark.parametrize(
    ("value", "visible"),
    [
        (True, True),
        (False, False),
        ("x", True),
        ("   ", False),
        ("", False),
        (0, False),
        (0.0, False),
        (3, True),
        (-1.5, True),
        ([], False),
        (["a"], True),
        ({}, False),
        ({"a": 1}, True),
        (None, False),
    ],
)
def test_visible_if_truthiness(value: Any, visible: bool) -> None:
    tool = make_tool(
        [{"type": "text", "text": "shown", "visibleIf": "{{flag}}"}],
        {"flag": {}},
    )
    state = CardState(tool, {"flag": value})
    assert state.is_visible(root(state).children[0]) is visible


def test_absent_visible_if_argument_hides(tool: Tool) -> None:
    state = CardState(make_tool([{"type": "text", "text": "x", "visibleIf": "{{nope}}"}], {}), {})
    assert not state.is_visible(root(state).children[0])


def test_visibility_requires_every_ancestor(tool: Tool) -> None:
    children = [
        {
            "type": "stack",
            "visibleIf": "{{outer}}",
            "children": [
                {
                    "type": "stack",
                    "visibleIf": "{{inner}}",
                    "children": [
                        {"type": "textField", "bind": "{{name}}", "label": "Name", "required": True}
                    ],
                }
            ],
        }
    ]
    props = {"outer": {"type": "boolean"}, "inner": {"type": "boolean"}, "name": {"type": "string"}}
    state = CardState(make_tool(children, props), {"outer": False, "inner": True})
    name = block_bound_to(state, "name")
    assert not state.is_visible(name) and state.confirm_enabled
    state.set("outer", True)
    assert state.is_visible(name) and not state.confirm_enabled
    state.set("inner", False)
    assert not state.is_visible(name) and state.confirm_enabled


def test_an_untouched_blank_required_field_does_not_look_failed(tool: Tool) -> None:
    state = CardState(tool, {**PROPOSED, "to": ""})
    assert state.blockers() == ["To must not be empty"]  # the disabled confirm explains
    assert state.field_error("to") is None  # but the field shows only its quiet `*`
    assert not state.is_touched("to")
    state.set("to", "a")
    state.set("to", "")
    assert state.is_touched("to")
    assert state.field_error("to") == "must not be empty"
    state.revert("to")
    assert state.field_error("to") is None


def test_required_chips_need_at_least_one_entry(tool: Tool) -> None:
    children = [{"type": "chips", "bind": "{{tags}}", "label": "Tags", "required": True}]
    props = {"tags": {"type": "array", "items": {"type": "string"}}}
    state = CardState(make_tool(children, props), {"tags": []})
    assert state.blockers() == ["Tags is required"]
    state.set("tags", ["x"])
    assert state.confirm_enabled
    assert state.final_arguments() == {"tags": ["x"]}


def test_required_select_with_zero_or_false_holds_a_value(tool: Tool) -> None:
    children = [
        {
            "type": "select",
            "bind": "{{n}}",
            "label": "N",
            "required": True,
            "options": [{"label": "zero", "value": 0}, {"label": "one", "value": 1}],
        }
    ]
    state = CardState(make_tool(children, {"n": {"type": "integer"}}), {})
    assert state.blockers() == ["N is required"]
    state.set("n", 0)
    assert state.confirm_enabled
    assert state.final_arguments() == {"n": 0}


def test_a_schema_problem_outside_any_visible_field_still_blocks(tool: Tool) -> None:
    state = CardState(tool, {**PROPOSED, "big": 5})  # the agent proposed a wrong type
    assert not state.confirm_enabled
    assert state.blockers() == ["big must be text"]
    hidden = CardState(tool, {**PROPOSED, "when": 5})  # bound to a hidden input
    assert hidden.blockers() == ["When must be text"]


def test_arguments_the_schema_does_not_allow_block_confirm() -> None:
    tool = make_tool(
        [{"type": "textField", "bind": "{{a}}", "label": "A"}],
        {"a": {"type": "string"}},
        extra_schema={"additionalProperties": False},
    )
    state = CardState(tool, {"a": "x", "zzz": 1})
    assert state.blockers() == ["The tool call has properties the tool does not accept"]


# --- display and secrets --------------------------------------------------------------


def test_text_follows_edits_live(state: CardState) -> None:
    assert state.text("Send {{count}} copies to {{to}}") == "Send 2 copies to ada@example.com"
    state.set("count", "42")
    assert state.text("Send {{count}} copies to {{to}}") == "Send 42 copies to ada@example.com"
    state.set("count", "abc")
    assert state.text("Send {{count}} copies") == "Send abc copies"


def test_secret_values_are_masked_everywhere(state: CardState) -> None:
    assert state.text("token={{token}}") == f"token={SECRET_MASK}"
    state.set("token", "another-secret-value")
    assert state.value("token") == "another-secret-value"  # the password field needs it
    assert "another-secret" not in state.text("{{token}} <<token>>")
    assert SECRET not in repr(state) and SECRET not in str(state)
    assert "another-secret" not in repr(state)
    assert "another-secret" not in repr(state.inputs)


def test_secret_inside_an_object_is_masked_when_the_object_is_shown() -> None:
    children = [
        {"type": "passwordField", "bind": "{{auth.key}}", "label": "Key"},
        {"type": "text", "text": "{{auth}}"},
    ]
    props = {
        "auth": {
            "type": "object",
            "properties": {"key": {"type": "integer"}, "user": {"type": "string"}},
        }
    }
    state = CardState(make_tool(children, props), {"auth": {"key": 1234567, "user": "ada"}})
    assert state.text("{{auth}}") == f"key: {SECRET_MASK}, user: ada"
    assert state.text("{{auth.key}}") == SECRET_MASK
    state.set("auth.key", "swordfish-1")  # not a whole number: error, value never quoted
    assert state.blockers() == ["Key must be a whole number"]
    assert "swordfish" not in repr(state)
    assert "swordfish" not in state.text("{{auth}}")
    assert state.field_error("auth.key") == "must be a whole number"


def test_an_empty_secret_reads_as_empty(state: CardState) -> None:
    state.set("token", "")
    assert state.text("[{{token}}]") == "[]"


# --- subscriptions and size ---------------------------------------------------------------


def test_subscribers_hear_about_changes_only(state: CardState) -> None:
    calls: list[int] = []
    unsubscribe = state.subscribe(lambda: calls.append(1))
    state.set("count", "3")
    state.set("count", "3")  # same again: nothing changed
    assert len(calls) == 1
    state.set("count", "abc")
    state.revert("count")
    assert len(calls) == 3
    unsubscribe()
    state.set("count", "9")
    assert len(calls) == 3
    unsubscribe()  # twice is harmless


def test_a_megabyte_argument_is_shared_not_copied_per_keystroke(tool: Tool) -> None:
    big = "x" * 1_000_000
    state = CardState(tool, {**PROPOSED, "big": big})
    for n in range(50):
        state.set("count", str(n + 1))
        assert state.confirm_enabled
    assert state.value("big") is state.proposed["big"]
    assert state.final_arguments()["big"] == big


# --- a field hidden at approval sends the proposed value (issue 8 spec fix) -------------


def test_a_value_typed_into_a_field_that_is_then_hidden_is_not_sent(tool: Tool) -> None:
    state = CardState(tool, {**PROPOSED, "when": "Friday 9:00"})
    state.set("schedule", True)
    state.set("when", "attacker picks this")
    assert state.final_arguments()["when"] == "attacker picks this"
    assert state.edited_paths() == ["schedule", "when"]
    state.set("schedule", False)  # the When field is hidden now: the person cannot see it
    final = state.final_arguments()
    assert final["when"] == "Friday 9:00"  # the agent's proposal goes, not the typed text
    assert state.edited_paths() == []  # schedule is back to the proposal too
    assert state.withheld_paths() == ["when"]
    assert state.value("when") == "Friday 9:00"
    state.set("schedule", True)  # shown again: the typed text is back, and is sent
    assert state.final_arguments()["when"] == "attacker picks this"
    assert state.withheld_paths() == []


def test_a_hidden_field_the_agent_left_out_sends_nothing(tool: Tool) -> None:
    state = CardState(tool, PROPOSED)  # no "when" proposed
    state.set("schedule", True)
    state.set("when", "tomorrow")
    state.set("schedule", False)
    assert "when" not in state.final_arguments()
    assert state.confirm_enabled  # a hidden required input does not gate


def test_the_digest_follows_what_is_sent_not_what_was_typed(tool: Tool) -> None:
    from notch_app.runtime.decision import arguments_digest

    untouched = CardState(tool, PROPOSED)
    state = CardState(tool, PROPOSED)
    state.set("schedule", True)
    state.set("when", "typed, then hidden")
    state.set("schedule", False)
    assert state.final_arguments() == untouched.final_arguments()
    assert arguments_digest(state.final_arguments()) == arguments_digest(PROPOSED)


def test_hiding_cascades_through_nested_conditions() -> None:
    tool = make_tool(
        [
            {"type": "toggle", "bind": "{{a}}", "label": "A"},
            {"type": "textField", "bind": "{{b}}", "label": "B", "visibleIf": "{{a}}"},
            {"type": "textField", "bind": "{{c}}", "label": "C", "visibleIf": "{{b}}"},
        ],
        {"a": {"type": "boolean"}, "b": {"type": "string"}, "c": {"type": "string"}},
    )
    state = CardState(tool, {"a": False})
    state.set("a", True)
    state.set("b", "shown")
    state.set("c", "typed")
    assert state.final_arguments() == {"a": True, "b": "shown", "c": "typed"}
    state.set("a", False)  # hides B; B's edit is withheld, so C (visibleIf B) hides too
    assert state.final_arguments() == {"a": False}
    assert sorted(state.withheld_paths()) == ["b", "c"]


def test_a_field_bound_twice_stays_sent_while_one_of_its_inputs_shows() -> None:
    tool = make_tool(
        [
            {"type": "toggle", "bind": "{{a}}", "label": "A"},
            {"type": "textField", "bind": "{{b}}", "label": "B", "visibleIf": "{{a}}"},
            {"type": "textField", "bind": "{{b}}", "label": "B again"},
        ],
        {"a": {"type": "boolean"}, "b": {"type": "string"}},
    )
    state = CardState(tool, {"a": False, "b": "x"})
    state.set("b", "edited")
    assert state.final_arguments()["b"] == "edited"


# --- counts come from the arguments shown (issue 9) -------------------------------------


def test_a_count_in_a_label_comes_from_the_list_not_from_the_agent() -> None:
    tool = make_tool(
        [{"type": "list", "itemsFrom": "{{paths}}", "maxVisible": 6}],
        {"paths": {"type": "array", "items": {"type": "string"}}, "count": {"type": "integer"}},
        title="Delete {{paths.length}} files",
    )
    paths = [f"/tmp/f{i}" for i in range(6)] + ["~/.ssh/id_ed25519", "~/.gnupg", "/etc/passwd"]
    state = CardState(tool, {"paths": paths, "count": 1})  # the agent lies about the count
    assert state.text("Delete {{paths.length}} files") == "Delete 9 files"
    assert state.text("{{count}}") == "1"
    assert state.text("{{paths.length}} / {{nothing.length}}") == "9 / "


def test_bidi_and_invisible_characters_in_values_are_marked_in_card_text(tool: Tool) -> None:
    state = CardState(tool, {**PROPOSED, "to": "ACME\u202eLtd\u200b@example.com"})
    assert state.text("Send to {{to}}") == "Send to ACME⟨U+202E⟩Ltd⟨U+200B⟩@example.com"
    lookalike = CardState(tool, {**PROPOSED, "to": "sam@ex\u0430mple.com"})
    assert lookalike.text_warnings("To {{to}}") == [
        "‘ex\u0430mple.com’ mixes Latin and Cyrillic letters that look alike"
    ]
    assert state.text_warnings("To {{to}}") == []


def test_raw_text_keeps_the_characters_that_are_sent_but_never_a_secret(tool: Tool) -> None:
    state = CardState(tool, {**PROPOSED, "to": "a\u200bb"})
    assert state.raw_text("{{to}} {{token}}") == f"a\u200bb {SECRET_MASK}"
    assert state.text("{{to}}") == "a⟨U+200B⟩b"


EDITS = st.lists(
    st.tuples(
        st.sampled_from(["schedule", "when", "to", "body"]),
        st.one_of(st.booleans(), st.text(max_size=4), st.none()),
    ),
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(EDITS, st.one_of(st.none(), st.text(max_size=3)))
def test_what_is_sent_never_holds_an_edit_of_a_field_hidden_at_that_moment(
    edits: list[tuple[str, Any]], proposed_when: str | None
) -> None:
    tool = make_tool(CHILDREN, PROPERTIES, ["to", "count", "user"])
    proposed = dict(PROPOSED) if proposed_when is None else {**PROPOSED, "when": proposed_when}
    state = CardState(tool, proposed)
    for path, raw in edits:
        state.set(path, raw)
        final = state.final_arguments()
        when_block = block_bound_to(state, "when")
        if not state.is_visible(when_block):
            assert final.get("when", MISSING) == proposed.get("when", MISSING)
            assert "when" not in state.edited_paths()

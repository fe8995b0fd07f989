"""Property tests: the card's rules hold for any card shape and any sequence of edits."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.card.coerce import is_blank
from notch_app.card.paths import MISSING, get_path
from notch_app.card.state import CardState
from notch_app.card.validation import ArgumentCheck
from notch_app.manifest.model import Tool
from notch_app.manifest.schema import argument_problems

SECRET_MARK = "ZQSECRET"
KINDS = ("text", "integer", "toggle", "select", "chips")
OPTIONS = ["alpha", "beta", "gamma"]


@st.composite
def cards(draw: st.DrawFn) -> tuple[Tool, dict[str, Any]]:
    """A tool with 1–6 random inputs (some required, some behind a toggle's visibleIf),
    a free toggle nothing depends on, a password field, and a plausible proposal."""
    n = draw(st.integers(1, 6))
    properties: dict[str, Any] = {
        "free": {"type": "boolean"},
        "secret": {"type": "string"},
    }
    children: list[dict[str, Any]] = [
        {"type": "toggle", "bind": "{{free}}", "label": "Free toggle"},
        {"type": "passwordField", "bind": "{{secret}}", "label": "Secret"},
        {"type": "text", "text": "secret is {{secret}}"},
    ]
    proposed: dict[str, Any] = {"secret": SECRET_MARK + draw(st.text("abc", max_size=4))}
    schema_required: list[str] = []
    toggles: list[str] = []
    for i in range(n):
        kind = draw(st.sampled_from(KINDS))
        name = f"f{i}"
        required = draw(st.booleans())
        block: dict[str, Any] = {
            "bind": f"{{{{{name}}}}}",
            "label": f"Field {i}",
            "required": required,
        }
        if kind == "text":
            properties[name] = {"type": "string", **draw(st.sampled_from([{}, {"maxLength": 5}]))}
            block["type"] = "textField"
            value: Any = draw(st.text(" ab", max_size=6) | st.none())
        elif kind == "integer":
            properties[name] = {"type": "integer"}
            block["type"] = "textField"
            value = draw(st.integers(-5, 5) | st.none())
        elif kind == "toggle":
            properties[name] = {"type": "boolean"}
            block["type"] = "toggle"
            value = draw(st.booleans() | st.none())
            toggles.append(name)
        elif kind == "select":
            properties[name] = {"type": "string", "enum": OPTIONS}
            block["type"] = "select"
            block["options"] = [{"label": o.title(), "value": o} for o in OPTIONS]
            value = draw(st.sampled_from([*OPTIONS, None]))
        else:
            properties[name] = {"type": "array", "items": {"type": "string"}}
            block["type"] = "chips"
            value = draw(st.lists(st.sampled_from(["x", "y"]), max_size=2) | st.none())
        if value is not None:
            proposed[name] = value
        if draw(st.booleans()):
            schema_required.append(name)
        earlier = [t for t in toggles if t != name]
        behind_toggle: bool = draw(st.booleans())
        if earlier and behind_toggle:
            condition: str = draw(st.sampled_from(earlier))
            block = {
                "type": "stack",
                "visibleIf": f"{{{{{condition}}}}}",
                "children": [block],
            }
        children.append(block)
        children.append({"type": "text", "text": f"{name}: {{{{{name}}}}} / <<secret>>"})
    tool = Tool.model_validate(
        {
            "name": "send_it",
            "inputSchema": {
                "type": "object",
                "properties": properties,
                "required": schema_required,
            },
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Send {{f0}}",
                    "children": children,
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
            },
        }
    )
    return tool, proposed


def raw_for(kind: str) -> st.SearchStrategy[Any]:
    if kind == "toggle":
        return st.booleans()
    if kind == "select":
        return st.sampled_from(OPTIONS)
    if kind == "chips":
        return st.lists(st.sampled_from(["x", "y", "z"]), max_size=3) | st.text("x, ", max_size=5)
    return st.text(" ab1-.", max_size=6)


@st.composite
def edited_cards(draw: st.DrawFn) -> tuple[CardState, set[str]]:
    tool, proposed = draw(cards())
    state = CardState(tool, proposed)
    touched: set[str] = set()
    for _ in range(draw(st.integers(0, 8))):
        binding = draw(st.sampled_from(state.inputs))
        if binding.path == "free":
            continue
        if draw(st.integers(0, 5)) == 0:
            state.revert(binding.path)
            continue
        raw = draw(
            raw_for(
                "text" if binding.kind == "passwordField" else _kind(binding.kind, binding.schema)
            )
        )
        if binding.secret and isinstance(raw, str):
            raw = SECRET_MARK + raw
        state.set(binding.path, raw)
        touched.add(binding.path)
    return state, touched


def _kind(block_type: str, schema: Any) -> str:
    if block_type == "textField":
        return "integer" if schema.get("type") == "integer" else "text"
    return block_type


SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(edited_cards())
def test_final_arguments_hold_only_proposed_or_touched_keys(
    case: tuple[CardState, set[str]],
) -> None:
    state, touched = case
    final = state.final_arguments()
    allowed = set(state.proposed) | {p.split(".")[0] for p in touched}
    assert set(final) <= allowed
    for key in set(final) - {p.split(".")[0] for p in touched}:
        assert final[key] == state.proposed[key]


@SETTINGS
@given(edited_cards())
def test_confirm_is_enabled_exactly_when_nothing_blocks(case: tuple[CardState, set[str]]) -> None:
    state, _ = case
    assert state.confirm_enabled == (state.blockers() == [])
    if state.confirm_enabled:
        assert argument_problems(state.tool, state.final_arguments()) == []


@SETTINGS
@given(edited_cards())
def test_a_visible_required_blank_input_always_blocks(case: tuple[CardState, set[str]]) -> None:
    state, _ = case
    for binding in state.inputs:
        if binding.required and binding.kind != "toggle" and state.is_visible(binding.block):
            value = state.value(binding.path)
            if value is MISSING or is_blank(value):
                assert not state.confirm_enabled
                if state.is_touched(binding.path):
                    assert state.field_error(binding.path) is not None
                assert any(r.startswith(binding.label + " ") for r in state.blockers())


@SETTINGS
@given(edited_cards())
def test_hidden_inputs_never_appear_in_gating_reasons_for_being_blank(
    case: tuple[CardState, set[str]],
) -> None:
    state, _ = case
    for binding in state.inputs:
        if not state.is_visible(binding.block) and binding.path not in state.tool.input_schema.get(
            "required", []
        ):
            assert f"{binding.label} is required" not in state.blockers()


@SETTINGS
@given(edited_cards())
def test_a_toggle_no_block_depends_on_never_changes_confirm(
    case: tuple[CardState, set[str]],
) -> None:
    state, _ = case
    before, reasons = state.confirm_enabled, state.blockers()
    for value in (True, False, True):
        state.set("free", value)
        assert state.confirm_enabled == before
        assert state.blockers() == reasons


@SETTINGS
@given(edited_cards())
def test_secrets_never_show(case: tuple[CardState, set[str]]) -> None:
    state, _ = case
    texts = [state.text(f"{{{{{b.path}}}}} <<secret>>") for b in state.inputs]
    texts.append(state.text("{{secret}}"))
    shown = [repr(state), str(state), *state.blockers(), *texts, repr(state.inputs)]
    shown += [state.field_error(b.path) or "" for b in state.inputs]
    assert not any(SECRET_MARK in s for s in shown)


@SETTINGS
@given(edited_cards())
def test_reverting_everything_restores_the_proposal(case: tuple[CardState, set[str]]) -> None:
    state, _ = case
    state.revert_all()
    assert state.final_arguments() == state.proposed
    assert state.edited_paths() == []


@SETTINGS
@given(edited_cards())
def test_edited_paths_are_exactly_the_changed_values(case: tuple[CardState, set[str]]) -> None:
    state, touched = case
    final = state.final_arguments()
    for binding in state.inputs:
        changed = get_path(final, binding.path) != get_path(state.proposed, binding.path)
        assert (binding.path in state.edited_paths()) == (changed and binding.path in touched)


@SETTINGS
@given(edited_cards())
def test_the_per_argument_check_matches_the_whole_check(case: tuple[CardState, set[str]]) -> None:
    state, _ = case
    check = ArgumentCheck(state.tool)
    final = state.final_arguments()
    for arguments in (final, state.proposed, {**final, "unknown": 1}, {}):
        assert Counter(check.problems(arguments)) == Counter(
            argument_problems(state.tool, arguments)
        )

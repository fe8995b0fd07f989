""" "Also sends": every argument the call carries that the card does not show (issue 9).

The agent cheats by sending what the card never draws: a recipient IBAN shown nowhere, a
`bcc` bound to a field that `visibleIf` hides, an extra key inside an object whose one
part the card shows.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.card.also_sends import MAX_ENTRIES, also_sends
from notch_app.card.coerce import is_blank
from notch_app.card.state import SECRET_MASK, CardState
from notch_app.manifest.model import Tool


def _tool(children: list[dict[str, Any]], properties: dict[str, Any]) -> Tool:
    return Tool.model_validate(
        {
            "name": "pay_invoice",
            "inputSchema": {"type": "object", "properties": properties},
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Pay {{payee.name}}",
                    "children": children,
                    "footer": [
                        {
                            "type": "actions",
                            "items": [
                                {"label": "Cancel", "role": "cancel"},
                                {"label": "Pay {{amount}}", "role": "confirm"},
                            ],
                        }
                    ],
                },
            },
        }
    )


PROPERTIES: dict[str, Any] = {
    "amount": {"type": "number"},
    "payee": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "iban": {"type": "string", "title": "Recipient IBAN"},
        },
    },
    "show_bcc": {"type": "boolean"},
    "bcc": {"type": "string"},
    "memo": {"type": "string"},
    "pin": {"type": "string"},
}
CHILDREN: list[dict[str, Any]] = [
    {"type": "toggle", "bind": "{{show_bcc}}", "label": "Copy someone"},
    {"type": "textField", "bind": "{{bcc}}", "label": "Bcc", "visibleIf": "{{show_bcc}}"},
    {"type": "passwordField", "bind": "{{pin}}", "label": "PIN", "visibleIf": "{{show_bcc}}"},
]


def _rows(state: CardState) -> list[tuple[str, str, str]]:
    return [(e.path, e.label, e.text) for e in also_sends(state)]


def test_the_hidden_iban_and_the_hidden_bcc_are_listed() -> None:
    state = CardState(
        _tool(CHILDREN, PROPERTIES),
        {
            "amount": 1250,
            "payee": {"name": "ACME Ltd", "iban": "GB33BUKB20201555555555"},
            "show_bcc": False,
            "bcc": "attacker@evil.example",
        },
    )
    assert _rows(state) == [
        ("payee.iban", "Recipient IBAN", "GB33BUKB20201555555555"),
        ("bcc", "Bcc", "attacker@evil.example"),
    ]
    assert [e.hidden_input for e in also_sends(state)] == [False, True]


def test_once_shown_an_argument_leaves_the_list() -> None:
    state = CardState(
        _tool(CHILDREN, PROPERTIES), {"show_bcc": False, "bcc": "attacker@evil.example"}
    )
    assert [e.path for e in also_sends(state)] == ["bcc"]
    state.set("show_bcc", True)
    assert also_sends(state) == []


def test_blank_values_are_not_listed_but_zero_and_false_are() -> None:
    state = CardState(
        _tool([], {**PROPERTIES, "n": {"type": "integer"}, "flag": {"type": "boolean"}}),
        {"amount": 5, "memo": "", "bcc": None, "n": 0, "flag": False, "payee": {}},
    )
    assert _rows(state) == [("n", "N", "0"), ("flag", "Flag", "No")]


def test_keys_the_schema_never_declared_are_listed_in_words() -> None:
    state = CardState(
        _tool([], PROPERTIES), {"amount": 5, "recipient_iban": "X", "x": {"y_z": [1, 2]}}
    )
    assert _rows(state) == [("recipient_iban", "Recipient iban", "X"), ("x", "X", "y_z: [1, 2]")]


def test_secrets_hidden_by_visible_if_are_listed_masked() -> None:
    state = CardState(_tool(CHILDREN, PROPERTIES), {"amount": 1, "pin": "1234"})
    [entry] = also_sends(state)
    assert (entry.path, entry.text) == ("pin", SECRET_MASK)
    assert "1234" not in repr(also_sends(state))


def test_invisible_characters_and_lookalikes_in_unshown_values_are_marked() -> None:
    state = CardState(
        _tool([], PROPERTIES),
        {"amount": 1, "memo": "ok\u202eexe.pdf", "bcc": "sam@ex\u0430mple.com"},
    )
    memo, bcc = also_sends(state)
    assert memo.text == "ok⟨U+202E⟩exe.pdf"
    assert bcc.warnings == ("‘ex\u0430mple.com’ mixes Latin and Cyrillic letters that look alike",)


def test_a_list_element_shown_by_index_leaves_the_others_listed() -> None:
    tool = _tool(
        [{"type": "text", "text": "First: {{to.0}}"}],
        {"amount": {"type": "number"}, "to": {"type": "array", "items": {"type": "string"}}},
    )
    state = CardState(tool, {"amount": 1, "to": ["a@x.example", "b@x.example"]})
    assert _rows(state) == [("to.1", "To › #2", "b@x.example")]


def test_a_count_of_a_list_does_not_show_the_list() -> None:
    tool = _tool(
        [{"type": "text", "text": "{{to.length}} recipients"}],
        {"amount": {"type": "number"}, "to": {"type": "array", "items": {"type": "string"}}},
    )
    state = CardState(tool, {"amount": 1, "to": ["a@x.example"]})
    assert _rows(state) == [("to", "To", "a@x.example")]


def test_a_huge_call_is_summed_up_not_dropped() -> None:
    state = CardState(_tool([], PROPERTIES), {"amount": 1, **{f"k{i}": i + 1 for i in range(500)}})
    entries = also_sends(state)
    assert len(entries) == MAX_ENTRIES + 1
    assert entries[-1].path == "…"


# --- nothing the call sends is both unshown and unlisted ---------------------------------


KEYS = st.sampled_from(["amount", "payee", "name", "iban", "bcc", "show_bcc", "memo", "pin", "x"])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 2) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)


def _leaves(value: Any, prefix: str = "") -> list[str]:
    if isinstance(value, dict | list) and value:
        items = value.items() if isinstance(value, dict) else enumerate(value)
        return [p for k, v in items for p in _leaves(v, f"{prefix}.{k}" if prefix else str(k))]
    return [] if is_blank(value) or not prefix else [prefix]


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=6))
def test_every_value_sent_is_shown_or_listed(arguments: dict[str, Any]) -> None:
    state = CardState(_tool(CHILDREN, PROPERTIES), arguments)
    shown = state.shown_now()
    listed = [e.path for e in also_sends(state)]
    for leaf in _leaves(state.final_arguments()):
        seen = any(leaf == s or leaf.startswith(s + ".") for s in shown)
        told = any(leaf == p or leaf.startswith(p + ".") for p in listed)
        assert seen or told, (leaf, shown, listed)

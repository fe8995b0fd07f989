"""What the person's per-action policy does to a tool call: ask, run at once, or block."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.manifest.model import Manifest
from notch_app.runtime.policy_book import (
    BLOCKED_REASON,
    CARD_CHANGED_REASON,
    NotOneOfGuard,
    OverGuard,
    PolicyBook,
    PolicyRefused,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def book(tmp_path: Path) -> PolicyBook:
    return PolicyBook.in_data_dir(tmp_path)


def test_every_action_asks_first_by_default(
    book: PolicyBook, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    assert book.verdict(m, pay_tool(m), {"amount": 1}).action == "ask"
    assert book.verdict(m, pay_tool(m), {"amount": 1}).reason is None


def test_read_only_tools_never_ask_and_refuse_a_policy(book: PolicyBook, pay_manifest: Any) -> None:
    m = pay_manifest()
    reader = m.tool("list_invoices")
    assert reader is not None
    assert book.verdict(m, reader, {}).action == "notRequired"
    with pytest.raises(PolicyRefused, match="read-only"):
        book.set_asks_first(m, reader, False)
    with pytest.raises(PolicyRefused, match="read-only"):
        book.block(m, reader)
    assert book.entries() == []


def test_asks_first_off_runs_at_once_and_on_asks_again(
    book: PolicyBook, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    book.set_asks_first(m, pay_tool(m), False)
    verdict = book.verdict(m, pay_tool(m), {"amount": 10})
    assert (verdict.action, verdict.outcome) == ("auto", "autoApproved")
    book.set_asks_first(m, pay_tool(m), True)
    assert book.verdict(m, pay_tool(m), {"amount": 10}).action == "ask"
    assert book.entries() == []  # the default is not stored


def test_blocked_never_runs_and_says_why(
    book: PolicyBook, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    book.set_asks_first(m, pay_tool(m), False)
    book.block(m, pay_tool(m))
    verdict = book.verdict(m, pay_tool(m), {"amount": 1})
    assert (verdict.action, verdict.outcome, verdict.reason) == ("block", "blocked", BLOCKED_REASON)
    book.block(m, pay_tool(m), False)
    assert book.verdict(m, pay_tool(m), {"amount": 1}).action == "auto"  # back to "off"


def test_reset_one_action_or_the_whole_integration(
    book: PolicyBook, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    book.set_asks_first(m, pay_tool(m), False)
    assert book.reset("com.example.pay", "pay_invoice") is True
    assert book.verdict(m, pay_tool(m), {}).action == "ask"
    book.block(m, pay_tool(m))
    assert book.reset("com.example.pay") is True
    assert book.verdict(m, pay_tool(m), {}).action == "ask"
    assert book.reset("com.example.pay") is False


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"amount": 499}, None),
        ({"amount": 500}, None),
        ({"amount": 500.01}, "Asks anyway: amount is over 500"),
        ({"amount": "1,200"}, "Asks anyway: amount is over 500"),  # numeric text counts
        ({"amount": "lots"}, "Asks anyway: amount is not a number to compare with the limit"),
        ({"amount": True}, "Asks anyway: amount is not a number to compare with the limit"),
        ({"amount": {"value": 1}}, "Asks anyway: amount is not a number to compare with the limit"),
        ({}, None),  # no amount, nothing over the limit
    ],
)
def test_over_guard(
    book: PolicyBook,
    arguments: dict[str, Any],
    expected: str | None,
    pay_manifest: Any,
    pay_tool: Any,
) -> None:
    m = pay_manifest()
    book.set_asks_first(m, pay_tool(m), False)
    book.add_guard(m, pay_tool(m), OverGuard(argument="amount", limit=500))
    verdict = book.verdict(m, pay_tool(m), arguments)
    assert verdict.reason == expected
    assert verdict.action == ("auto" if expected is None else "ask")


def test_over_guard_on_nested_paths_and_array_items(
    book: PolicyBook, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    book.set_asks_first(m, pay_tool(m), False)
    book.set_guards(
        m,
        pay_tool(m),
        [
            OverGuard(argument="payment.total", limit=100),
            OverGuard(argument="lines.cost", limit=50),
        ],
    )
    assert book.verdict(m, pay_tool(m), {"payment": {"total": 99}}).action == "auto"
    assert book.verdict(m, pay_tool(m), {"payment": {"total": 101}}).reason == (
        "Asks anyway: payment.total is over 100"
    )
    lines = {"lines": [{"cost": 10}, {"cost": 51}]}
    assert book.verdict(m, pay_tool(m), lines).reason == "Asks anyway: lines.cost is over 50"
    assert book.verdict(m, pay_tool(m), {"lines": [{"cost": 10}]}).action == "auto"


def test_not_one_of_guard_checks_every_element_of_a_list(
    book: PolicyBook, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    tool = pay_tool(m)
    book.set_asks_first(m, tool, False)
    book.add_guard(
        m, tool, NotOneOfGuard(argument="recipients", allowed=["sam@x.org", "kim@x.org"])
    )
    book.add_guard(m, tool, NotOneOfGuard(argument="payee", allowed=["ACME"]))
    ok = {"payee": "ACME", "recipients": ["sam@x.org", "kim@x.org"]}
    assert book.verdict(m, tool, ok).action == "auto"
    assert book.verdict(m, tool, {"payee": "ACME", "recipients": []}).action == "auto"
    sneaky = {"payee": "ACME", "recipients": ["sam@x.org", "eve@evil.example"]}
    verdict = book.verdict(m, tool, sneaky)
    assert verdict.action == "ask"
    assert verdict.reason == "Asks anyway: recipients is not one of sam@x.org, kim@x.org"
    assert book.verdict(m, tool, {"payee": "acme"}).action == "ask"  # exact match only
    assert book.verdict(m, tool, {"payee": ["ACME", {"x": 1}]}).action == "ask"


def test_add_guard_replaces_the_same_kind_on_the_same_argument(
    book: PolicyBook, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    book.add_guard(m, pay_tool(m), OverGuard(argument="amount", limit=500))
    book.add_guard(m, pay_tool(m), OverGuard(argument="amount", limit=50))
    book.set_asks_first(m, pay_tool(m), False)
    assert book.verdict(m, pay_tool(m), {"amount": 60}).action == "ask"
    stored = book.stored("com.example.pay", "pay_invoice")
    assert stored is not None and len(stored.guards) == 1
    book.remove_guard(m, pay_tool(m), OverGuard(argument="amount", limit=50))
    assert book.verdict(m, pay_tool(m), {"amount": 60}).action == "auto"


def test_guards_do_nothing_while_asks_first_is_on_or_blocked(
    book: PolicyBook, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    book.add_guard(m, pay_tool(m), OverGuard(argument="amount", limit=5))
    assert book.verdict(m, pay_tool(m), {"amount": 1}) == book.verdict(m, pay_tool(m), {})
    book.block(m, pay_tool(m))
    assert book.verdict(m, pay_tool(m), {"amount": 100}).action == "block"


def test_a_guard_must_name_an_argument_the_tool_has(
    book: PolicyBook, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    with pytest.raises(PolicyRefused, match="did you mean 'amount'"):
        book.add_guard(m, pay_tool(m), OverGuard(argument="amout", limit=5))
    with pytest.raises(PolicyRefused, match="not a number"):
        book.add_guard(m, pay_tool(m), OverGuard(argument="payee", limit=5))


def test_a_changed_card_does_not_inherit_an_earlier_off(
    tmp_path: Path, pay_manifest: Any, pay_tool: Any
) -> None:
    book = PolicyBook.in_data_dir(tmp_path)
    old = pay_manifest("Pay")
    book.set_asks_first(old, pay_tool(old), False)
    assert book.verdict(old, pay_tool(old), {}).action == "auto"

    updated = pay_manifest("Pay now")  # the manifest update changed the card
    verdict = book.verdict(updated, pay_tool(updated), {})
    assert (verdict.action, verdict.reason) == ("ask", CARD_CHANGED_REASON)
    state = book.state(updated, pay_tool(updated))
    assert state.asks_first and state.card_changed
    assert state.label == "asks first (reset: the card changed)"

    # Blocking the changed action and lifting the block again must not revive the old off.
    book.block(updated, pay_tool(updated))
    book.block(updated, pay_tool(updated), False)
    assert book.verdict(updated, pay_tool(updated), {}).action == "ask"

    # Turning it off again for the new card applies to the new card.
    book.set_asks_first(updated, pay_tool(updated), False)
    assert book.verdict(updated, pay_tool(updated), {}).action == "auto"


def test_a_changed_input_schema_also_asks_again(
    book: PolicyBook, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    book.set_asks_first(m, pay_tool(m), False)
    raw = m.model_dump(by_alias=True, exclude_none=True)
    raw["tools"][0]["inputSchema"]["properties"]["memo"] = {"type": "string"}
    changed = Manifest.model_validate(raw)
    assert book.verdict(changed, pay_tool(changed), {}).action == "ask"


def test_subscribers_hear_every_change(book: PolicyBook, pay_manifest: Any, pay_tool: Any) -> None:
    m = pay_manifest()
    heard: list[str] = []
    unsubscribe = book.subscribe(lambda: heard.append("changed"))
    book.set_asks_first(m, pay_tool(m), False)
    book.add_guard(m, pay_tool(m), OverGuard(argument="amount", limit=5))
    book.reset("com.example.pay")
    assert heard == ["changed"] * 3
    unsubscribe()
    book.set_asks_first(m, pay_tool(m), False)
    assert len(heard) == 3


def test_bundled_manifests_default_to_asking_for_every_card(book: PolicyBook) -> None:
    for path in sorted((REPO / "manifests").glob("*/manifest.json")):
        m = Manifest.model_validate(json.loads(path.read_text()))
        for tool in m.tools:
            expected = "ask" if tool.confirmation is not None else "notRequired"
            assert book.verdict(m, tool, {}).action == expected, (path, tool.name)


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
arguments = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["amount", "payee", "x"]), inner, max_size=3),
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def guarded(
    tmp_path_factory: pytest.TempPathFactory, pay_manifest: Any, pay_tool: Any
) -> tuple[PolicyBook, Manifest]:
    book = PolicyBook.in_data_dir(tmp_path_factory.mktemp("book"))
    m = pay_manifest()
    book.set_asks_first(m, pay_tool(m), False)
    book.set_guards(
        m,
        pay_tool(m),
        [OverGuard(argument="amount", limit=10), NotOneOfGuard(argument="payee", allowed=["a"])],
    )
    return book, m


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["amount", "payee", "lines", "recipients"]), arguments, max_size=4
    )
)
def test_guards_never_raise_and_never_block(
    guarded: tuple[PolicyBook, Manifest], pay_tool: Any, args: dict[str, Any]
) -> None:
    book, m = guarded
    verdict = book.verdict(m, pay_tool(m), args)
    assert verdict.action in ("ask", "auto")
    if verdict.action == "ask":
        assert verdict.reason and verdict.reason.startswith("Asks anyway: ")

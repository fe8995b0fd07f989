"""callIds from an agent's own ids (`runtime/call_ids.py`, the one derivation the gateway,
the hooks and the connectors use): stable, never another call's, always one Notch takes."""

from __future__ import annotations

import pytest

from notch_app.runtime.call_ids import MAX_CALL_ID_CHARS, call_id_of, fresh_call_id


def test_the_same_ids_give_the_same_call_id_and_plain_ones_stay_readable() -> None:
    assert call_id_of("claude-code", "abc123", "toolu_01") == "claude-code:abc123:toolu_01"
    assert call_id_of("mcp-1f2e", "7") == call_id_of("mcp-1f2e", "7")
    assert call_id_of("mcp-1f2e", "7") != call_id_of("mcp-9a9a", "7")  # another session


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (("s", "a:b", "c"), ("s", "a", "b:c")),  # the separator inside a part
        (("s", "a", ""), ("s", "a")),
        (("s", "#x"), ("s", "#x ")),
        (("s:a", "b"), ("s", "a:b")),
    ],
)
def test_different_ids_never_share_a_call_id(one: tuple[str, ...], other: tuple[str, ...]) -> None:
    assert call_id_of(*one) != call_id_of(*other)


@pytest.mark.parametrize(
    "own", ["x" * 10_000, "a\nb\x00c", "\ud800", "ünïcode", "", "a b", "#deadbeef"]
)
def test_any_id_becomes_a_call_id_notch_accepts(own: str) -> None:
    call_id = call_id_of("scope", own)
    assert 0 < len(call_id) <= MAX_CALL_ID_CHARS and call_id.isprintable()
    assert call_id.startswith("scope:#") and call_id == call_id_of("scope", own)


def test_a_call_without_an_id_of_its_own_is_new_every_time() -> None:
    assert fresh_call_id("codex") != fresh_call_id("codex")
    assert fresh_call_id("codex").startswith("codex:")

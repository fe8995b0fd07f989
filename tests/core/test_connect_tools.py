"""Tool definitions for a model from Notch's catalog: provider-safe names, the way back
from a model's name to (integration, tool), collisions, and names an author or a model
chose to cause trouble."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.client import NotchClient, NotchError
from notch_app.connect.tools import MAX_DESCRIPTION, ToolNames, UnknownToolName
from notch_app.runtime.model_sentence import ASKS_FIRST

PROVIDER_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAIL = "com.example.mail"


def _catalog(*tools: tuple[str, str], schema: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    by_id: dict[str, list[dict[str, Any]]] = {}
    for integration, name in tools:
        by_id.setdefault(integration, []).append(
            {"name": name, "title": name.title(), "description": f"Does {name}.", "confirms": True,
             "inputSchema": schema or {"type": "object", "properties": {"to": {"type": "string"}}}}
        )  # fmt: skip
    return [{"id": iid, "name": iid, "tools": t} for iid, t in by_id.items()]


def test_a_unique_tool_keeps_its_own_name_and_both_styles_carry_its_schema() -> None:
    names = ToolNames.from_catalog(
        _catalog((MAIL, "send_email"), ("com.example.cal", "book_meeting"))
    )
    assert {t.name for t in names} == {"send_email", "book_meeting"}
    (openai,) = [t for t in names.openai() if t["function"]["name"] == "send_email"]
    assert openai == {
        "type": "function",
        "function": {
            "name": "send_email",
            "description": f"Does send_email. {ASKS_FIRST}",
            "parameters": {"type": "object", "properties": {"to": {"type": "string"}}},
        },
    }
    (anthropic,) = [t for t in names.anthropic() if t["name"] == "send_email"]
    assert anthropic["input_schema"] == openai["function"]["parameters"]
    assert names.resolve("send_email") == (MAIL, "send_email")
    assert names.resolve("book_meeting") == ("com.example.cal", "book_meeting")


def test_the_model_is_told_an_acting_tool_asks_first_and_a_read_is_left_alone() -> None:
    long = "Sends it. " * 200
    catalog = [
        {"id": MAIL, "tools": [
            {"name": "send_email", "description": long, "confirms": True},
            {"name": "search_mail", "description": "Searches.", "confirms": False},
            {"name": "wipe", "confirms": True},
        ]},
    ]  # fmt: skip
    by_name = {t["name"]: t["description"] for t in ToolNames.from_catalog(catalog).anthropic()}
    # The sentence is never cut, however long the author's description: theirs is.
    assert by_name["send_email"].endswith(ASKS_FIRST)
    assert len(by_name["send_email"]) <= MAX_DESCRIPTION
    assert by_name["search_mail"] == "Searches."
    assert by_name["wipe"] == f"wipe. {ASKS_FIRST}"
    assert by_name["send_email"].count("asks the person first") == 1


def test_the_same_tool_name_in_two_integrations_is_qualified_by_each() -> None:
    names = ToolNames.from_catalog(
        _catalog((MAIL, "send"), ("com.example.chat", "send"), ("org.other.mail", "send"))
    )
    assert sorted(t.name for t in names) == ["chat__send", "example_mail__send", "other_mail__send"]
    assert names.resolve("example_mail__send") == (MAIL, "send")
    assert names.resolve("other_mail__send") == ("org.other.mail", "send")


def test_names_do_not_depend_on_the_catalogs_order() -> None:
    tools = [
        (MAIL, "send"),
        ("com.example.chat", "send"),
        ("a.b", "send-email"),
        ("a.b", "send_email"),
    ]
    first = {(t.integration, t.tool): t.name for t in ToolNames.from_catalog(_catalog(*tools))}
    for seed in range(5):
        random.Random(seed).shuffle(tools)
        again = {(t.integration, t.tool): t.name for t in ToolNames.from_catalog(_catalog(*tools))}
        assert again == first


def test_names_spelled_alike_after_cleaning_are_told_apart() -> None:
    names = ToolNames.from_catalog(
        _catalog(("a.b", "send-email"), ("a.b", "send.email"), ("a.b", "send_email"))
    )
    got = sorted(t.name for t in names)
    assert len(set(got)) == 3 and all(PROVIDER_RULE.match(n) for n in got)
    assert {names.resolve(n) for n in got} == {
        ("a.b", "send-email"),
        ("a.b", "send.email"),
        ("a.b", "send_email"),
    }


def test_a_long_name_fits_64_characters_and_still_resolves() -> None:
    long_tool = "send_" + "x" * 123
    long_id = "com." + ".".join(["segment"] * 14)
    names = ToolNames.from_catalog(_catalog((long_id, long_tool), ("org.other", long_tool)))
    got = [t.name for t in names]
    assert all(PROVIDER_RULE.match(n) for n in got) and len(set(got)) == 2
    assert {names.resolve(n) for n in got} == {(long_id, long_tool), ("org.other", long_tool)}


def test_an_author_cannot_take_another_tools_hashed_name() -> None:
    """Hashed names are the only ones holding '-': a tool named like one is cleaned to '_'."""
    victim = ToolNames.from_catalog(_catalog((MAIL, "s" * 100), ("org.x", "s" * 100)))
    hashed = [t.name for t in victim]
    assert all("-" in n for n in hashed)
    hostile = ToolNames.from_catalog(
        _catalog((MAIL, "s" * 100), ("org.x", "s" * 100), ("evil.corp", hashed[0]))
    )
    assert hostile.resolve(hashed[0]) == victim.resolve(hashed[0])
    assert hostile.name_of("evil.corp", hashed[0]) != hashed[0]


def test_hostile_catalog_entries_are_named_safely_or_skipped() -> None:
    schema = {"type": "object", "properties": {}}
    # What `integrations.list` sent, not what it should have: entries of any type.
    catalog: list[Any] = _catalog(
        ("a.b", "rm -rf /; echo"), ("a.b", "名前"), ("a.b", "\x00\n\t"), ("a.b", "x" * 10_000),
        schema=schema,
    )  # fmt: skip
    catalog += [
        {"id": "bad"},
        {"tools": [{"name": "orphan"}]},
        "not an object",
        {"id": "c.d", "tools": [7, {"name": ""}]},
    ]
    names = ToolNames.from_catalog(catalog)
    assert len(names) == 4
    for tool in names:
        assert PROVIDER_RULE.match(tool.name)
        assert names.resolve(tool.name) == (tool.integration, tool.tool)
        assert len(tool.description) <= 1024


def test_an_unknown_name_from_a_model_is_a_clear_notch_error() -> None:
    names = ToolNames.from_catalog(_catalog((MAIL, "send_email")))
    for bad in ("send_mail", "", None, 42, "x" * 5000, "send_email\n"):
        with pytest.raises(UnknownToolName) as caught:
            names.resolve(bad)
        assert isinstance(caught.value, NotchError)
        message = str(caught.value)
        assert "not one of the 1 tools it was given (send_email)" in message
        assert "nothing ran" in message and len(message) < 400


def test_acting_only_and_a_tool_listed_without_a_schema() -> None:
    catalog = [
        {
            "id": MAIL,
            "tools": [
                {"name": "send_email", "confirms": True},
                {"name": "search_mail", "confirms": False, "inputSchema": {"type": "object"}},
            ],
        }
    ]
    acting = ToolNames.from_catalog(catalog, acting_only=True)
    assert [t.name for t in acting] == ["send_email"]
    assert acting.lookup("send_email").input_schema == {"type": "object", "properties": {}}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.from_regex(r"[a-z][a-z0-9-]{0,12}(\.[a-z][a-z0-9-]{0,12}){1,3}", fullmatch=True),
            st.text(min_size=1, max_size=140),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_every_tool_gets_one_valid_name_that_leads_back_to_it(tools: list[tuple[str, str]]) -> None:
    names = ToolNames.from_catalog(_catalog(*tools))
    assert len(names) == len(set(tools))
    for tool in names:
        assert PROVIDER_RULE.match(tool.name)
        assert names.resolve(tool.name) == (tool.integration, tool.tool)
        assert names.name_of(tool.integration, tool.tool) == tool.name


@pytest.mark.asyncio
async def test_from_a_running_notchs_catalog(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    async with notch_and_client(base) as (notch, _cards, client):
        names = ToolNames.from_catalog(await client.integrations())
        with NotchClient(notch.server.path) as blocking:
            assert [
                t.name
                for t in ToolNames.from_catalog(await asyncio.to_thread(blocking.integrations))
            ] == [t.name for t in names]
    assert {t.name for t in names} == {"send_email", "connect_account", "search_mail"}
    assert names.lookup("send_email").confirms and not names.lookup("search_mail").confirms

"""One call, one run: a call an agent names with its own id (a JSON-RPC request id
through `notch mcp`, Claude Code's `tool_use_id`, a framework's tool-call id) is asked
about once and run at most once. A repeat while its card is open joins that card; after,
it is refused as a duplicate; the same id with other arguments is refused. A call with
no id of its own (Codex) is a new call each time, with a new card.

`notch mcp` and the hooks run as real processes against an in-process Notch whose
cards the test decides; the gateway is spoken to in raw JSON-RPC lines (conftest's
`mcp_gateway`), since the SDK's own client never repeats an id, and through the SDK
client for the ordinary path."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from notch_app.connect.verdict import CallIds, PendingCall, decide_async

if TYPE_CHECKING:
    import mcp_types as types

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
NOTES_ID = "dev.notch.fixtures.notes"
HOOKS = REPO / "tests" / "fixtures" / "hooks"
MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


def _text(reply: dict[str, Any]) -> str:
    return " ".join(c.get("text", "") for c in reply["result"]["content"])


def _failed(reply: dict[str, Any]) -> bool:
    return reply["result"].get("isError") is True


# --- notch mcp -------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_repeated_request_id_never_runs_a_second_time(
    base: Path, running_notch: Any, mcp_gateway: Any, tmp_path: Path
) -> None:
    message = {"to": "sam", "body": "Lunch at noon?"}
    async with (
        running_notch(base) as (notch, cards),
        mcp_gateway(NOTES, notch.server.path, tmp_path) as gateway,
    ):
        asking = asyncio.ensure_future(gateway.call_tool(7, "send_message", message))
        (card,) = await cards.wait_for_cards(1, timeout=30)
        assert card.integration_id == NOTES_ID
        cards.approve(card.call_id)
        first = await asking
        assert not _failed(first), _text(first)

        again = await gateway.call_tool(7, "send_message", message)  # after its answer
        other = await gateway.call_tool(7, "send_message", {"to": "eve", "body": "x"})
        as_id = await gateway.call_tool("7", "send_message", message)  # the same id as text

        asking = asyncio.ensure_future(gateway.call_tool(8, "cancel_agent", {"agent_id": "a-1"}))
        (card,) = await cards.wait_for_cards(1, timeout=30)
        cards.decline(card.call_id)
        declined = await asking
        declined_again = await gateway.call_tool(8, "cancel_agent", {"agent_id": "a-1"})

    assert _failed(again) and "already answered in this session" in _text(again)
    assert "duplicate" in _text(again) and "nothing was run again" in _text(again)
    assert _failed(other) and "already used in this session for another call" in _text(other)
    assert _failed(as_id) and "already answered" in _text(as_id)
    assert _failed(declined) and "declined" in _text(declined)
    assert _failed(declined_again) and "already answered" in _text(declined_again)
    assert len(cards.presented) == 2  # no repeat ever made a card
    ran = [(c["tool"], c["arguments"]) for c in gateway.ran()]
    assert ran == [("send_message", message)], "the server ran the call once"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_duplicates_while_the_card_is_open_share_it_and_each_get_the_answer(
    base: Path, running_notch: Any, mcp_gateway: Any, tmp_path: Path
) -> None:
    message = {"to": "kim", "body": "On my way"}
    async with (
        running_notch(base) as (notch, cards),
        mcp_gateway(NOTES, notch.server.path, tmp_path) as gateway,
    ):
        await gateway.send(*[gateway.tool_call(9, "send_message", message)] * 3)  # at once
        (card,) = await cards.wait_for_cards(1, timeout=30)
        await gateway.barrier("ping-1")  # all three have reached the gateway
        await gateway.send(gateway.tool_call(9, "send_message", message))  # one more, later
        await gateway.barrier("ping-2")
        assert len(cards.presented) == 1
        cards.approve(card.call_id)
        replies = await gateway.replies_to(9, 4)

    assert len(replies) == 4, "every duplicate gets an answer"
    assert all(not _failed(r) for r in replies), [_text(r) for r in replies]
    assert all(r["result"] == replies[0]["result"] for r in replies), "one result for all"
    assert [c["tool"] for c in gateway.ran()] == ["send_message"], "run once"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_the_sdk_client_asks_once_and_runs_once(
    base: Path, running_notch: Any, tmp_path: Path
) -> None:
    """The ordinary path, through the SDK's own stdio client: each call has its own id,
    each asks once; approved runs once, declined never."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    home = tmp_path / "home"
    home.mkdir()
    async with running_notch(base) as (notch, cards):
        argv = ["mcp", str(NOTES), "--socket", str(notch.server.path)]
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "notch_app", *argv, "--data-dir", str(tmp_path / "data")],
            env={"PATH": os.environ.get("PATH", ""), "HOME": str(home)},
        )
        with (tmp_path / "gw.log").open("a") as errlog:
            async with (
                stdio_client(params, errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                results: list[types.CallToolResult] = []
                for approve in (True, False):
                    asking = asyncio.ensure_future(
                        session.call_tool("send_message", {"to": "jo", "body": str(approve)})
                    )
                    (card,) = await cards.wait_for_cards(1, timeout=30)
                    (cards.approve if approve else cards.decline)(card.call_id)
                    results.append(await asyncio.wait_for(asking, 30))
    assert [r.is_error for r in results] == [False, True]
    assert len(cards.presented) == 2
    ran = [json.loads(line) for line in (home / "notes-calls.jsonl").read_text().splitlines()]
    assert [c["arguments"] for c in ran] == [{"to": "jo", "body": "True"}]


# --- the coding-agent hooks --------------------------------------------------------------------


async def _hook(agent: str, payload: dict[str, Any], sock: Path, data: Path) -> dict[str, Any]:
    """`notch hook AGENT` as the agent runs it: (its parsed answer, or {} for none)."""
    env = {**os.environ, "NOTCH_DATA_DIR": str(data)}
    env.pop("NOTCH_TOKEN", None)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "notch_app", "hook", agent, "--socket", str(sock),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    out, err = await process.communicate(json.dumps(payload).encode())
    assert process.returncode == 0, err
    answer = json.loads(out) if out.strip() else {}
    return {"err": err.decode(), **answer.get("hookSpecificOutput", {})}


def _mail_call(agent: str = "claude-code", **tool_input: Any) -> dict[str, Any]:
    """The documented MCP payload for the mail integration this Notch has installed."""
    payload: dict[str, Any] = json.loads((HOOKS / "claude-code" / "mcp.json").read_text())
    payload["tool_input"] = {"to": "sam@example.com", "subject": "Hi", **tool_input}
    if agent == "codex":  # Codex's PermissionRequest: no tool_use_id, a turn instead
        del payload["tool_use_id"]
        payload.update(hook_event_name="PermissionRequest", turn_id="turn-7")
    return payload


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_one_tool_use_id_is_one_card_and_another_input_under_it_is_refused(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        sock, data = notch.server.path, base / "hookdata"
        call = _mail_call()
        twice = [asyncio.ensure_future(_hook("claude-code", call, sock, data)) for _ in "ab"]
        (card,) = await cards.wait_for_cards(1, timeout=30)
        cards.approve(card.call_id)
        answers = await asyncio.gather(*twice)
        later = await _hook("claude-code", call, sock, data)  # the agent retries the hook
        other = await _hook("claude-code", _mail_call(to="eve@example.com"), sock, data)
        assert len(cards.presented) == 1
    assert [a["permissionDecision"] for a in answers] == ["allow", "allow"], answers
    assert later["permissionDecision"] == "allow"  # the stored decision, not a new card
    assert other["permissionDecision"] == "ask"
    assert "already used for a different call" in other["permissionDecisionReason"]


@pytest.mark.asyncio
@pytest.mark.timeout(120)
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
async def test_a_payload_without_an_id_of_its_own_is_a_new_card_every_time(
    agent: str, base: Path, running_notch: Any
) -> None:
    """The same payload, no tool_use_id, sent again later: a new card, never the earlier
    answer (which for Claude Code was an edited command, allowed again with no card)."""
    call = _mail_call(agent)
    call.pop("tool_use_id", None)
    async with running_notch(base) as (notch, cards):
        sock, data = notch.server.path, base / "hookdata"
        asking = asyncio.ensure_future(_hook(agent, call, sock, data))
        (card,) = await cards.wait_for_cards(1, timeout=30)
        cards.approve(card.call_id)
        first = await asking
        asking = asyncio.ensure_future(_hook(agent, call, sock, data))
        (second,) = await cards.wait_for_cards(1, timeout=30)
        assert second.call_id != card.call_id
        cards.decline(second.call_id)
        again = await asking
    assert len(cards.presented) == 2
    if agent == "claude-code":
        assert (first["permissionDecision"], again["permissionDecision"]) == ("allow", "deny")
    else:
        assert (first["decision"]["behavior"], again["decision"]["behavior"]) == (
            "allow", "deny"
        )  # fmt: skip


# --- the connectors -------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_connector_session_asks_and_runs_each_call_id_once(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    async with notch_and_client(base) as (_notch, cards, client):
        session = CallIds()
        call = PendingCall(session("call_1"), "send_email", {"to": "a@example.com"})
        both = asyncio.gather(
            decide_async(client, MAIL, [call], session=session),
            decide_async(client, MAIL, [call], session=session),
        )
        (card,) = await cards.wait_for_cards(1)
        cards.approve(card.call_id)
        (one,), (two,) = await asyncio.wait_for(both, 10)
        (later,) = await decide_async(client, MAIL, [call], session=session)
        other = PendingCall(call.call_id, "send_email", {"to": "eve@example.com"})
        (changed,) = await decide_async(client, MAIL, [other], session=session)
        assert len(cards.presented) == 1
    assert sorted([one.runs, two.runs]) == [False, True], "one card, one run, two answers"
    repeat = one if not one.runs else two
    assert "already asked in this session" in repeat.for_model
    assert not later.runs and "runs at most once" in later.for_model
    assert not changed.runs and "for another call" in changed.for_model

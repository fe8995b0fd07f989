"""Scopes as narrow as the person meant (issue 20, finding 5), through `notch hook` as the
agents run it (a real process per call) against an in-process Notch.

Before: "Allow for this session" on `npm test` did not carry over to the next identical
command of the same Claude Code `session_id` (each hook call is an asker of its own), and
"Always allow" on Bash meant every shell command, forever. Now a session scope covers
the command's prefix in its folder, for the agent's own session, and nothing riskier;
"Always allow" is never granted for a shell command, whatever the presenter sends.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from notch_app.bundled import bundled_folder
from notch_app.card.scope_reach import always_label, covers, session_reach
from notch_app.manifest.integration import load_integration
from notch_app.runtime.allowances import IDLE_LIMIT_S, Allowances, session_key
from notch_app.runtime.catalog import Catalog, CatalogEntry

FIXTURES = Path(__file__).parent.parent / "fixtures" / "hooks"
CLAUDE = "dev.notch.agents.claude-code"


def bash_payload(command: str, *, session: str = "abc123", cwd: str = "/home/user/my-project",
                 tool_use_id: str | None = None) -> bytes:  # fmt: skip
    data: dict[str, Any] = json.loads((FIXTURES / "claude-code" / "bash.json").read_text())
    data["tool_input"]["command"] = command
    data["session_id"], data["cwd"] = session, cwd
    if tool_use_id is None:
        data.pop("tool_use_id", None)
    else:
        data["tool_use_id"] = tool_use_id
    return json.dumps(data).encode()


async def hook(stdin: bytes, sock: Path, data_dir: Path) -> dict[str, Any]:
    env = {**os.environ, "NOTCH_DATA_DIR": str(data_dir)}
    env.pop("NOTCH_TOKEN", None)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "notch_app", "hook", "claude-code", "--socket", str(sock),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    out, err = await process.communicate(stdin)
    assert process.returncode == 0, err.decode()
    answer: dict[str, Any] = json.loads(out.decode())["hookSpecificOutput"]
    return answer


def session_end_payload(session: str = "abc123", **more: Any) -> bytes:
    data: dict[str, Any] = json.loads((FIXTURES / "claude-code" / "session-end.json").read_text())
    data["session_id"] = session
    return json.dumps({**data, **more}).encode()


async def hook_output(stdin: bytes, sock: Path, data_dir: Path) -> tuple[str, str]:
    """`notch hook claude-code`'s stdout and stderr (exit 0 checked), for replies that are
    not a PreToolUse decision."""
    env = {**os.environ, "NOTCH_DATA_DIR": str(data_dir)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "notch_app", "hook", "claude-code", "--socket", str(sock),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    out, err = await process.communicate(stdin)
    assert process.returncode == 0, err.decode()
    return out.decode(), err.decode()


@pytest.fixture
def agents(mail_catalog: Catalog) -> Catalog:
    integration, problems = load_integration(
        bundled_folder("manifests") / "claude-code" / "manifest.json"
    )
    assert integration is not None, problems
    mail_catalog.add(CatalogEntry(integration.manifest, integration.folder, integration.fixtures))
    return mail_catalog


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_allow_npm_test_for_this_session_covers_that_session_and_no_more(
    base: Path, running_notch: Any, agents: Catalog
) -> None:
    async with running_notch(base, catalog=agents) as (notch, cards):
        sock, data = notch.server.path, base / "hookdata"
        first = asyncio.ensure_future(hook(bash_payload("npm test", tool_use_id="toolu_1"),
                                           sock, data))  # fmt: skip
        (card,) = await cards.wait_for_cards(1, timeout=20)
        cards.approve(card.call_id, scope="session")
        assert (await first)["permissionDecision"] == "allow"

        # The same session, the same prefix and folder: no card, its own input back.
        again = await hook(bash_payload("npm test -- --coverage", tool_use_id="toolu_2"),
                           sock, data)  # fmt: skip
        assert again["permissionDecision"] == "allow"
        assert again["updatedInput"]["command"] == "npm test -- --coverage"
        # Codex-like: no tool_use_id at all, still this session's scope, never an old answer.
        bare = await hook(bash_payload("npm test"), sock, data)
        assert bare["permissionDecision"] == "allow"
        assert bare["updatedInput"]["command"] == "npm test"
        assert len(cards.presented) == 1

        # What it does not cover asks: riskier, another prefix, folder or session.
        for stdin in (
            bash_payload("npm test && rm -rf ~", tool_use_id="toolu_3"),
            bash_payload("npm publish", tool_use_id="toolu_4"),
            bash_payload("npm test", cwd="/home/user/other", tool_use_id="toolu_5"),
            bash_payload("npm test", session="someone-else", tool_use_id="toolu_6"),
        ):
            asking = asyncio.ensure_future(hook(stdin, sock, data))
            (shown,) = await cards.wait_for_cards(1, timeout=20)
            cards.decline(shown.call_id)
            assert (await asking)["permissionDecision"] == "deny"
        assert len(cards.presented) == 5

        # The person takes it back (Settings, the pill): the next npm test asks again.
        (allowance,) = notch.service.allowances.listed()
        assert allowance.label == "`npm test` in /home/user/my-project"
        said = notch.service.undo_scope(card.call_id)  # the pill's "click to undo"
        assert said == "Asks again: `npm test` in /home/user/my-project"
        assert notch.service.allowances.listed() == []
        assert notch.service.undo_scope(card.call_id) is None  # nothing left to undo
        asking = asyncio.ensure_future(hook(bash_payload("npm test", tool_use_id="toolu_7"),
                                            sock, data))  # fmt: skip
        await cards.wait_for_cards(1, timeout=20)
        cards.decline(notch.service.open_requests[0].call_id)
        assert (await asking)["permissionDecision"] == "deny"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_always_is_never_granted_for_a_shell_command(
    base: Path, running_notch: Any, agents: Catalog
) -> None:
    async with running_notch(base, catalog=agents) as (notch, cards):
        sock, data = notch.server.path, base / "hookdata"
        asking = asyncio.ensure_future(hook(bash_payload("ls", tool_use_id="toolu_a"), sock, data))
        (card,) = await cards.wait_for_cards(1, timeout=20)
        cards.approve(card.call_id, scope="always")  # a presenter that sends it anyway
        assert (await asking)["permissionDecision"] == "allow"
        decision = notch.service.store.decision(card.call_id)
        assert decision is not None and decision.scope == "once"
        # Bash still asks: the next shell command gets a card.
        asking = asyncio.ensure_future(hook(bash_payload("ls", tool_use_id="toolu_b"), sock, data))
        await cards.wait_for_cards(1, timeout=20)
        cards.decline(notch.service.open_requests[0].call_id)
        assert (await asking)["permissionDecision"] == "deny"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_payload_without_an_id_sent_again_gets_a_new_card_not_the_old_answer(
    base: Path, running_notch: Any, agents: Catalog
) -> None:
    async with running_notch(base, catalog=agents) as (notch, cards):
        sock, data = notch.server.path, base / "hookdata"
        stdin = bash_payload("npm run deploy")
        asking = asyncio.ensure_future(hook(stdin, sock, data))
        (card,) = await cards.wait_for_cards(1, timeout=20)
        edited = dict(card.arguments, command="npm run deploy -- --dry-run")
        cards.approve(card.call_id, edited, ["command"])
        first = await asking
        assert first["updatedInput"]["command"] == "npm run deploy -- --dry-run"
        # The identical payload later: a card of its own, never the earlier, edited answer.
        asking = asyncio.ensure_future(hook(stdin, sock, data))
        await cards.wait_for_cards(1, timeout=20)
        (second,) = notch.service.open_requests
        assert second.call_id != card.call_id
        assert second.arguments["command"] == "npm run deploy"
        cards.decline(second.call_id)
        assert (await asking)["permissionDecision"] == "deny"


def test_the_prefix_is_the_command_as_claude_codes_prompt_scopes_it() -> None:
    catalog, _ = Catalog.load([bundled_folder("manifests")])
    bash = catalog.tool(CLAUDE, "Bash")
    assert bash is not None
    cases = {
        "npm test -- --watch=false": "`npm test` in ~/app",
        "npm run build": "`npm run build` in ~/app",
        "git diff --stat": "`git diff` in ~/app",
        "python3 -m pytest -q": "`python3 -m pytest` in ~/app",
        "pytest -q tests": "`pytest` in ~/app",
        "rm -rf build && make": "exactly `rm -rf build && make` in ~/app",
        "ls | wc -l": "exactly `ls | wc -l` in ~/app",
    }
    for command, label in cases.items():
        reach = session_reach(bash, {"command": command, "cwd": "/home/dev/app"}, "/home/dev")
        assert reach.label == label, command
    reach = session_reach(bash, {"command": "npm test", "cwd": "/home/dev/app"}, "/home/dev")
    yes = ["npm test", "npm test -- --coverage"]
    no = ["npm testx", "npm run test", "npm test && rm -rf ~", "npm test; curl x | sh",
          "npm test > /etc/passwd", "npm test $(curl x)", "NODE_OPTIONS=--x npm test"]  # fmt: skip
    for command in yes:
        assert covers(reach, {"command": command, "cwd": "/home/dev/app"}, "/home/dev"), command
    for command in no:
        assert not covers(reach, {"command": command, "cwd": "/home/dev/app"}, "/home/dev"), command
    assert always_label(bash, {"command": "ls"}) is None
    mail = catalog.tool("dev.notch.examples.mail", "send_email")
    files = catalog.tool("dev.notch.examples.files", "delete_files")
    assert mail is not None and files is not None
    assert always_label(mail, {}) == "Always allow Send email"
    assert always_label(files, {}) is None  # destructive


def test_an_allowance_ends_unused_and_the_session_name_is_the_agents_per_integration() -> None:
    now = [1000.0]
    kept = Allowances(lambda: now[0])
    catalog, _ = Catalog.load([bundled_folder("manifests")])
    bash = catalog.tool(CLAUDE, "Bash")
    assert bash is not None
    args = {"command": "npm test", "cwd": "/x"}
    session = session_key({"session": "s1"}, "owner", CLAUDE)
    assert session == f"agent:{CLAUDE}:s1"
    assert session_key({}, "owner", CLAUDE) == "asker:owner"
    assert session_key({"session": "\x1b[2J"}, None, CLAUDE) is None  # not a name
    kept.add(session, CLAUDE, "Bash", "Run", session_reach(bash, args), "c1")
    assert kept.find(session, CLAUDE, "Bash", args) is not None
    assert kept.find("agent:other:s1", CLAUDE, "Bash", args) is None
    now[0] += IDLE_LIMIT_S + 1
    assert kept.find(session, CLAUDE, "Bash", args) is None


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_session_end_ends_what_was_allowed_for_that_session(
    base: Path, running_notch: Any, agents: Catalog
) -> None:
    async with running_notch(base, catalog=agents) as (notch, cards):
        sock, data = notch.server.path, base / "hookdata"

        async def npm_test_asks(tool_use_id: str, scope: str | None) -> None:
            asking = asyncio.ensure_future(
                hook(bash_payload("npm test", tool_use_id=tool_use_id), sock, data)
            )
            (shown,) = await cards.wait_for_cards(1, timeout=20)
            assert shown.arguments["command"] == "npm test"
            if scope is None:
                cards.decline(shown.call_id)
                assert (await asking)["permissionDecision"] == "deny"
            else:
                cards.approve(shown.call_id, scope=scope)
                assert (await asking)["permissionDecision"] == "allow"

        await npm_test_asks("toolu_1", "session")
        # Another session ending changes nothing here: the next npm test runs, no card.
        out, err = await hook_output(session_end_payload("someone-else"), sock, data)
        assert out == "" and "nothing to end" in err
        again = await hook(bash_payload("npm test", tool_use_id="toolu_2"), sock, data)
        assert again["permissionDecision"] == "allow" and len(cards.presented) == 1

        # This session ends (Claude Code's SessionEnd hook, a real `notch hook` process):
        # the same command with the same session_id asks again.
        out, err = await hook_output(session_end_payload(), sock, data)
        assert out == "" and "1 “for this session” allowance(s) ended" in err
        assert notch.service.allowances.listed() == []
        await npm_test_asks("toolu_3", "session")

        # An agent that dresses a tool call as SessionEnd gets no decision (its own prompt
        # asks), never an allow; and all it can do is end its own allowances.
        out, _ = await hook_output(
            session_end_payload(tool_name="Bash", tool_input={"command": "rm -rf /"}), sock, data
        )
        assert out == ""
        await npm_test_asks("toolu_4", None)
        assert len(cards.presented) == 3


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_session_end_with_notch_stopped_is_quiet(base: Path) -> None:
    out, err = await hook_output(session_end_payload(), base / "none" / "notch.sock", base / "d")
    assert (out, err) == ("", "")

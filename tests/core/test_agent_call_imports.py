"""What a coding agent waits through on every tool call starts without the manifest model.

`notch hook claude-code` / `notch hook codex` and `notch ask` run once per tool call of
an agent, and `notch log` is run by hand: none reads a manifest, so none may load what
reading one needs (pydantic, jsonschema and email_validator: ~0.3 s of CPU per start,
paid on every call). They load it only when a call really needs it (a tool Notch has no
card for, whose facts are read from its name).

Each command runs as its own process, through the real entry (`notch_app.cli.main`, what
`python -m notch_app` runs), and then lists the modules it imported.
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
from notch_app.manifest.integration import load_integration
from notch_app.runtime.catalog import Catalog, CatalogEntry

HOOKS = Path(__file__).resolve().parents[1] / "fixtures" / "hooks"
HEAVY = ("pydantic", "pydantic_core", "jsonschema", "email_validator", "notch_app.manifest.model")
"""What reading a manifest loads, which a per-call command must start without."""

_DRIVER = r"""
import json, sys

from notch_app.cli import main

code = main(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""


async def _modules_of(argv: list[str], tmp: Path, stdin: bytes = b"") -> tuple[int, str, set[str]]:
    """Run `notch ARGV` in its own process: (exit code, stdout, the modules it imported)."""
    env = {**os.environ, "NOTCH_DATA_DIR": str(tmp / "data")}
    env.pop("NOTCH_TOKEN", None)
    env.pop("NOTCH_SOCKET", None)
    listing = tmp / "modules.json"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _DRIVER, str(listing), *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    out, err = await process.communicate(stdin)
    assert listing.is_file(), f"notch {' '.join(argv)} did not finish: {err.decode()[-2000:]}"
    done: dict[str, Any] = json.loads(listing.read_text())
    return done["code"], out.decode(), set(done["modules"])


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


@pytest.mark.asyncio
@pytest.mark.timeout(120)
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
async def test_a_hook_with_no_notch_starts_without_the_manifest_model(
    agent: str, base: Path
) -> None:
    stdin = (HOOKS / agent / "bash.json").read_bytes()
    code, out, modules = await _modules_of(
        ["hook", agent, "--socket", str(base / "none.sock")], base, stdin
    )
    assert code == 0 and "notch_app.hooks.asking" in modules
    if agent == "claude-code":  # the safe answer: the agent's own prompt asks
        assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert not _heavy(modules), f"notch hook {agent} loaded {_heavy(modules)}"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_ask_and_log_start_without_the_manifest_model(base: Path) -> None:
    sock = str(base / "none.sock")
    ask = ["ask", "--socket", sock, "--integration", "com.example.mail", "--tool", "send_email"]
    code, _, modules = await _modules_of(ask, base)
    assert code == 2 and "notch_app.ipc.client" in modules  # no Notch: an error, said
    assert not _heavy(modules), f"notch ask loaded {_heavy(modules)}"
    code, out, modules = await _modules_of(["ask", "--help"], base)
    assert code == 0 and "--integration" in out
    assert "asyncio" not in modules, "`notch ask --help` loaded asyncio"
    code, _, modules = await _modules_of(["log"], base)
    assert code == 0 and "notch_app.runtime.store" in modules
    assert not _heavy(modules), f"notch log loaded {_heavy(modules)}"


NOT_FOR_A_POLICY = (
    "asyncio",
    "keyring",
    "email_validator",
    "jsonschema",
    "notch_app.runtime.presenter",
)
"""What `notch policy` has no use for: no socket (asyncio), no secret (keyring), and the
bundled fixtures' addresses and arguments are decided on the fast path."""
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_policy_and_secrets_start_without_what_they_do_not_use(base: Path) -> None:
    """`notch policy` is run by hand and by the tests ~30 times, `notch secrets` to keep a
    key: each loads only what its answer needs."""
    code, out, modules = await _modules_of(["policy", "list"], base)
    assert code == 0 and "send_email" in out and "notch_app.runtime.catalog" in modules
    loaded = [m for m in NOT_FOR_A_POLICY if m in modules]
    assert loaded == [], f"notch policy list loaded {loaded}"
    no_secret = ["secrets", "list", "dev.notch.agents.claude-code"]
    code, out, modules = await _modules_of(no_secret, base)
    assert code == 0 and "has no auth fields" in out
    assert "keyring" not in modules, "notch secrets list read no secret but loaded keyring"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_fixture_expecting_a_glance_count_is_checked_without_the_glance_models(
    base: Path,
) -> None:
    """The notes fixture expects glance counts but carries no sample result: checking the
    count needs a number, not the glance block models (every `notch mcp` of it checks it)."""
    code, out, modules = await _modules_of(
        ["validate", str(FIXTURES / "mcp_servers" / "notes")], base
    )
    assert code == 0, out
    assert "notch_app.manifest.fixture_rules" in modules
    assert "notch_app.manifest.glance" not in modules


async def _line(stream: asyncio.StreamReader) -> dict[str, Any]:
    line = await asyncio.wait_for(stream.readline(), 60)
    assert line, "notch mcp closed its stdout"
    message: dict[str, Any] = json.loads(line)
    return message


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_bare_server_is_fronted_without_the_manifest_model(base: Path) -> None:
    """`notch mcp --name` starts at every session of an MCP client: its id is a slug of
    the name and its tools' facts are read from their names and schemas, so the whole
    session (a call included, refused here with no Notch to ask) loads no manifest model."""
    server = FIXTURES / "mcp_servers" / "notes" / "server.py"
    listing = base / "modules.json"
    argv = ["mcp", "--name", "notes", "--socket", str(base / "none.sock"), "--",
            sys.executable, str(server)]  # fmt: skip
    env = {**os.environ, "NOTCH_DATA_DIR": str(base / "data")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _DRIVER, str(listing), *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    hello = {"protocolVersion": "2025-06-18", "capabilities": {},
             "clientInfo": {"name": "t", "version": "1"}}  # fmt: skip
    call = {"name": "send_message", "arguments": {"to": "sam", "body": "hi"}}
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call},
    ):
        process.stdin.write(json.dumps(message).encode() + b"\n")
    await process.stdin.drain()
    replies: dict[int, dict[str, Any]] = {}
    while len(replies) < 3:
        reply = await _line(process.stdout)
        if "id" in reply:
            replies[reply["id"]] = reply
    assert "Notch is not running" in json.dumps(replies[3])
    process.stdin.close()
    assert await asyncio.wait_for(process.wait(), 60) == 0
    modules = set(json.loads(listing.read_text())["modules"])
    assert "notch_app.gateway.gateway" in modules
    assert not _heavy(modules), f"notch mcp --name loaded {_heavy(modules)}"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("fixture", "card_tool"),
    [("bash", "Bash"), ("write", "Write"), ("webfetch", "WebFetch"), ("mcp-unknown", "Other")],
)
async def test_a_hook_answered_by_a_running_notch_never_loads_the_manifest_model(
    fixture: str, card_tool: str, base: Path, running_notch: Any, mail_catalog: Catalog
) -> None:
    """An MCP tool Notch has no card for included: its facts are read from its name and
    listed schema (`listed_tool_facts`), which needs no manifest model."""
    integration, problems = load_integration(
        bundled_folder("manifests") / "claude-code" / "manifest.json"
    )
    assert integration is not None, problems
    mail_catalog.add(CatalogEntry(integration.manifest, integration.folder, integration.fixtures))
    async with running_notch(base, catalog=mail_catalog) as (notch, cards):
        stdin = (HOOKS / "claude-code" / f"{fixture}.json").read_bytes()
        argv = ["hook", "claude-code", "--socket", str(notch.server.path)]
        asking = asyncio.ensure_future(_modules_of(argv, base, stdin))
        (card,) = await cards.wait_for_cards(1, timeout=30)
        assert (card.integration_id, card.tool_name) == ("dev.notch.agents.claude-code", card_tool)
        cards.approve(card.call_id)
        code, out, modules = await asking
    assert code == 0
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert not _heavy(modules), f"an answered notch hook ({fixture}) loaded {_heavy(modules)}"

"""One rule decides which tools ask (`manifest/acting.py`), and every place that asks
goes by it: `notch mcp` (folder and bare server), `notch validate`, the generated cards,
the policy Notch applies, what a bare server's attach tells Notch, and the coding-agent
hooks, each reading it from the tool's facts (tool_facts.py). Checked on a corpus of
real MCP tools (tests/core/corpus_mcp_tools.json) and the tools of real VoiceOS folders (the phone, WhatsApp and Cursor integrations' names and
their lack of annotations), each with the verdict a person would expect."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from notch_app.gateway.tools import from_manifest, from_server
from notch_app.hooks import calls
from notch_app.hooks.payload import read_payload
from notch_app.manifest.acting import acting_verdict, leading_verb
from notch_app.manifest.facts import listed_tool_facts, tool_facts
from notch_app.manifest.generated import SPEC_ACTING_VERBS, with_generated_card
from notch_app.manifest.model import Manifest, Tool
from notch_app.manifest.validate import validate_path
from notch_app.runtime.attached import bare_entry
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.policy_book import PolicyBook

CORPUS = json.loads(Path(__file__).with_name("corpus_mcp_tools.json").read_text("utf-8"))

# The status and lookup tools of the phone, WhatsApp and Cursor VoiceOS folders: no
# annotations, no card. VoiceOS runs them without a prompt; so must Notch.
VOICEOS_READS = [
    "phone_status", "whatsapp_status", "unread_messages", "read_chat", "list_chats",
    "find_contact", "focus_repo", "ask_cursor", "list_repos", "agent_status",
]  # fmt: skip
REAL_READS = [
    {  # server-everything: "updates" is a noun here, and its hint stands
        "name": "trigger-long-running-operation",
        "description": "Demonstrates a long running operation with progress updates.",
        "annotations": {"readOnlyHint": True, "destructiveHint": False},
    },
    {
        "name": "git_status",
        "description": "Shows the working tree status",
        "annotations": {"readOnlyHint": True},
    },
]
NAMED_ACTING = ["slack_send_message", "slack_archiveChannel", "send_message", "teams_postMessage"]
MIXED = [
    {"name": "delete_all", "annotations": {"readOnlyHint": True}},
    {"name": "peek", "annotations": {"readOnlyHint": True, "destructiveHint": True}},
    {"name": "get_token", "annotations": {"readOnlyHint": False, "openWorldHint": True}},
    {
        "name": "sync_inbox",
        "description": "Deletes every message older than a week.",
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "tidy",
        "description": "Looks at the folder and then deletes what is old.",
        "annotations": {"readOnlyHint": True},
    },
]


def _tool(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        "inputSchema": {"type": "object", "properties": {"note": {"type": "string"}}},
        "description": f"The {doc['name']} tool.",
        **doc,
    }


ALL = [
    *(_tool(t) for t in CORPUS),
    *(_tool({"name": n}) for n in VOICEOS_READS + NAMED_ACTING),
    *(_tool(t) for t in MIXED),
    *(_tool(t) for t in REAL_READS),
]
EXPECTED_ASKS = {
    **{t["name"]: True for t in CORPUS},
    **dict.fromkeys(VOICEOS_READS, False),
    **dict.fromkeys(NAMED_ACTING, True),
    **{t["name"]: True for t in MIXED},
    **{t["name"]: False for t in REAL_READS},
}


def _folder(where: Path, tools: list[dict[str, Any]]) -> Path:
    where.mkdir()
    manifest = {
        "schemaVersion": 1,
        "id": "dev.notch.tests.acting",
        "version": "1.0.0",
        "name": "Acting corpus",
        "tools": tools,
    }
    (where / "manifest.json").write_text(json.dumps(manifest, indent=2), "utf-8")
    return where


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One integration folder holding every tool, none with a card of its own."""
    return _folder(tmp_path_factory.mktemp("acting") / "corpus", ALL)


@pytest.fixture(scope="module")
def loadable(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same without the tools `notch validate` refuses outright (a spec verb such as
    send_ or delete_ with no card is an error): what Notch loads."""
    kept = [t for t in ALL if leading_verb(t["name"]) not in SPEC_ACTING_VERBS]
    return _folder(tmp_path_factory.mktemp("acting") / "loadable", kept)


def test_the_verdicts_a_person_expects() -> None:
    got = {t["name"]: acting_verdict(t).asks for t in ALL}
    assert got == EXPECTED_ASKS
    for doc in MIXED:
        verdict = acting_verdict(_tool(doc))
        assert verdict.mixed and verdict.asks, doc["name"]
    # slack_send_message was "unknown" to the leading verb and must-ask to the word rule
    assert acting_verdict({"name": "slack_send_message"}).why == "its name says 'send'"
    assert acting_verdict({"name": "phone_status"}).kind == "unknown"


def test_the_gateway_asks_for_exactly_those_tools(folder: Path) -> None:
    manifest = Manifest.model_validate(json.loads((folder / "manifest.json").read_text()))
    tools = from_manifest(manifest)
    assert {name: not t.reads for name, t in tools.items()} == EXPECTED_ASKS
    assert all(t.acts == (not t.reads) for t in tools.values())


def test_validate_warns_for_exactly_those_tools_and_says_why(folder: Path) -> None:
    flagged: dict[str, str] = {}
    for problem in validate_path(folder / "manifest.json"):
        if problem.rule in ("acting-tool-without-card", "acting-tool-needs-confirmation"):
            index = int(problem.pointer.split("/")[2])
            flagged[ALL[index]["name"]] = problem.message
    assert set(flagged) == {n for n, asks in EXPECTED_ASKS.items() if asks}
    assert "it says readOnlyHint: true, but its name says it deletes" in flagged["delete_all"]
    assert "make the name, description and annotations agree" in flagged["delete_all"]
    assert "its name says 'send'" in flagged["slack_send_message"]


def test_a_card_is_generated_for_exactly_those_tools(folder: Path) -> None:
    manifest = Manifest.model_validate(json.loads((folder / "manifest.json").read_text()))
    carded = {t.name: with_generated_card(t).confirmation is not None for t in manifest.tools}
    assert carded == EXPECTED_ASKS


def test_notch_asks_for_exactly_those_tools_and_runs_the_rest(
    loadable: Path, tmp_path: Path
) -> None:
    catalog, problems = Catalog.load([loadable])
    assert not [p for p in problems if "error[" in p], problems
    manifest = catalog.integration("dev.notch.tests.acting")
    assert manifest is not None
    book = PolicyBook.in_data_dir(tmp_path / "data")
    kinds = {t.name: book.verdict(manifest, t, {}).action == "ask" for t in manifest.tools}
    assert kinds == {t.name: EXPECTED_ASKS[t.name] for t in manifest.tools}
    assert len(kinds) > 30 and "phone_status" in kinds and "slack_send_message" in kinds


def test_a_bare_server_asks_unless_it_says_read_only_believably() -> None:
    """Without a manifest a server's hints are all there is: a tool with no hint asks
    (phone_status too), and Notch's catalog entry for it agrees with the gateway."""
    listed = from_server(ALL)
    entry, left_out = bare_entry("corpus", ALL)
    assert left_out == []
    for doc in ALL:
        asks = acting_verdict(doc, bare_server=True).asks
        assert listed[doc["name"]].reads is not asks, doc["name"]
        tool = entry.manifest.tool(doc["name"])
        assert tool is not None
        assert (tool.confirmation is not None) is asks, doc["name"]
    assert not listed["phone_status"].reads


@pytest.mark.parametrize("name", sorted(EXPECTED_ASKS))
def test_a_coding_agents_call_of_an_unknown_mcp_tool_asks_by_its_name(name: str) -> None:
    """The hooks see only `mcp__server__tool` (no annotations): the same rule, on the name."""
    data = {
        "hook_event_name": "PreToolUse",
        "tool_name": f"mcp__somewhere__{name}",
        "tool_input": {"note": "x"},
        "session_id": "s",
        "tool_use_id": "t",
        "cwd": "/tmp",
    }
    mapped = calls.claude_code_call(read_payload(json.dumps(data).encode()), calls.Installed())
    asks = acting_verdict({"name": name}).asks
    assert isinstance(mapped, calls.NoCard) is not asks, mapped


def test_each_tools_facts_carry_the_verdict_every_reader_takes(loadable: Path) -> None:
    """Readers take the verdict from the tool's facts (tool_facts.py), made once per tool
    by the one rule: the policy, generated cards, `integrations.list`'s kind, the hooks
    (`listed_tool_facts` of a bare name) and the gateway's answers for a bare server."""
    for doc in ALL:
        tool = Tool.model_validate(doc)
        facts = tool_facts(tool)
        assert facts.own_acting == acting_verdict(tool, has_card=False), doc["name"]
        assert facts.own_acting.asks is EXPECTED_ASKS[doc["name"]], doc["name"]
        assert listed_tool_facts(doc).acting == acting_verdict(doc, has_card=False)
        assert listed_tool_facts({"name": doc["name"]}).acting == acting_verdict(
            {"name": doc["name"]}
        )
        bare = listed_tool_facts(doc, bare_server=True).acting
        assert bare == acting_verdict(doc, bare_server=True), doc["name"]
    catalog, _ = Catalog.load([loadable])
    (described,) = catalog.describe()
    for listed in described["tools"]:
        loaded = catalog.tool("dev.notch.tests.acting", listed["name"])
        assert loaded is not None
        assert listed["kind"] == tool_facts(loaded).own_acting.kind, listed["name"]
        assert (listed["kind"] == "acting") is EXPECTED_ASKS[listed["name"]], listed["name"]

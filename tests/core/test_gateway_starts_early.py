"""`notch mcp` relays before its folder is checked (issue 21 §5: the first read after
start): its server starts from the manifest read as plain JSON, the client's
`initialize` and reads go on while the manifest is checked in the background, and a call
waits for the check unless the plain reading decides it reads exactly as the check does.

Through the real `notch mcp` process (no `notch run`: reads never need it, and an acting
call with no Notch to ask fails closed), spoken to in raw JSON-RPC lines.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from notch_app.gateway.tools import from_manifest, from_manifest_json
from notch_app.runtime.attached import AttachRefused, folder_entry

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
NOTES_ID = "dev.notch.fixtures.notes"
MANIFEST_NAMES = ("manifest.json", "voiceos.integration.json")


def _folders() -> list[Path]:
    found = {
        p.parent
        for root in (REPO / "manifests", REPO / "tests" / "fixtures")
        for name in MANIFEST_NAMES
        for p in root.rglob(name)
    }
    return sorted(found)


def test_the_plain_reading_decides_and_lists_every_tool_as_the_check_does() -> None:
    compared = 0
    for folder in _folders():
        try:
            entry = folder_entry(folder)
        except AttachRefused:
            continue  # a fixture the check refuses: notch mcp stops for it anyway
        name = next(n for n in MANIFEST_NAMES if (folder / n).is_file())
        early, _complete = from_manifest_json(json.loads((folder / name).read_text("utf-8")))
        checked = from_manifest(entry.manifest)
        for tool_name, tool in early.items():
            now = checked[tool_name]
            where = f"{folder.relative_to(REPO)}: {tool_name}"
            assert (tool.reads, tool.acts, tool.background) == (
                now.reads,
                now.acts,
                now.background,
            ), where
            assert tool.listed == now.listed, where
            compared += 1
    assert compared >= 40, compared


def _notes_copy(tmp_path: Path, change: Any) -> Path:
    """The notes fixture in a folder of its own, its manifest changed by `change(doc)`."""
    folder = tmp_path / "notes"
    shutil.copytree(NOTES, folder)
    document = json.loads((folder / "manifest.json").read_text("utf-8"))
    change(document)
    (folder / "manifest.json").write_text(json.dumps(document), "utf-8")
    return folder


def _tool(document: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(t for t in document["tools"] if t["name"] == name)
    return found


def _error_text(reply: dict[str, Any]) -> str:
    result = reply["result"]
    assert result.get("isError") is True, reply
    return " ".join(c.get("text", "") for c in result["content"])


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_tool_the_plain_json_could_misread_waits_for_the_check_and_asks(
    tmp_path: Path, mcp_gateway: Any
) -> None:
    """The cheat: get_status's hint written in snake_case (`read_only_hint: false`). The
    models take it (it acts: it asks), a plain reading of camelCase keys would not see it
    and would pass a `get_…` tool as a read before the check. Sent at once after
    initialize, it still asks: with no Notch to ask, nothing runs."""

    def misleading(document: dict[str, Any]) -> None:
        _tool(document, "get_status")["annotations"] = {"read_only_hint": False}

    folder = _notes_copy(tmp_path, misleading)
    async with mcp_gateway(folder, tmp_path / "no-notch.sock", tmp_path / "home") as gateway:
        reply = await gateway.call_tool(2, "get_status", {})
    assert "Notch is not running" in _error_text(reply)
    assert gateway.ran() == []


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_read_goes_on_before_the_check_and_an_acting_call_waits_for_it(
    tmp_path: Path, mcp_gateway: Any
) -> None:
    async with mcp_gateway(NOTES, tmp_path / "no-notch.sock", tmp_path / "home") as gateway:
        await gateway.send(
            {"jsonrpc": "2.0", "id": "list", "method": "tools/list"},
            gateway.tool_call(2, "get_status", {}),
            gateway.tool_call(3, "send_message", {"to": "sam", "body": "hi"}),
        )
        (listed,) = await gateway.replies_to("list")
        (read,) = await gateway.replies_to(2)
        (acting,) = await gateway.replies_to(3)
    names = {t["name"]: t for t in listed["result"]["tools"]}
    assert set(names) == {"send_message", "cancel_agent", "delete_note", "get_status",
                          "fetch_report"}  # fmt: skip
    assert "asks the person first" in names["send_message"]["description"]
    assert read["result"].get("isError") is not True, read
    assert "Notch is not running" in _error_text(acting)
    assert [c["tool"] for c in gateway.ran()] == ["get_status"]


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_the_persons_own_preference_reaches_the_server_that_started_before_it_was_read(
    tmp_path: Path, mcp_gateway: Any
) -> None:
    """The server starts at once with the preference's default ("Hello"); the person set
    another greeting, so it is started again with theirs before anything reaches it."""
    from notch_app.runtime.policy_book import PolicyBook

    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    PolicyBook(home / "data" / "notch-settings.json").set_value(
        NOTES_ID, "preferences", "NOTES_GREETING", "Hi from my settings"
    )
    async with mcp_gateway(NOTES, tmp_path / "no-notch.sock", home) as gateway:
        reply = await gateway.call_tool(2, "get_status", {})
    status = json.loads(reply["result"]["content"][0]["text"])
    assert status["greeting"] == "Hi from my settings"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_folder_the_check_refuses_stops_notch_mcp_after_it_began_relaying(
    tmp_path: Path, mcp_gateway: Any
) -> None:
    """The manifest reads as JSON and names a server, so the server starts and the
    client's initialize goes on; its card has a block kind Notch does not know, so the
    check refuses the folder: notch mcp says why and ends with status 2."""

    def broken(document: dict[str, Any]) -> None:
        _tool(document, "send_message")["confirmation"]["root"]["children"].append(
            {"type": "marquee", "text": "hi"}
        )

    folder = _notes_copy(tmp_path, broken)
    home = tmp_path / "home"
    async with mcp_gateway(folder, tmp_path / "no-notch.sock", home) as gateway:
        assert (await gateway.replies_to("init"))[0]["result"]["serverInfo"]["name"] == "notes"
        status = await asyncio.wait_for(gateway.process.wait(), 60)
    said = (home / "gateway.log").read_text("utf-8")
    assert status == 2, said
    assert "notch mcp: " in said and "marquee" in said, said

"""A tool's input as the card writes it (issue 20, finding 2): what it acts on first, a
list of objects as a table with every column, and every value there — through
`notch hook claude-code` for an MCP tool Notch has no manifest for."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from notch_app.bundled import bundled_folder
from notch_app.card.input_text import readable_input
from notch_app.manifest.integration import load_integration
from notch_app.runtime.catalog import Catalog, CatalogEntry

ROWS = [{"id": i, "name": f"Customer {i}", "email": f"c{i}@example.com"} for i in range(1, 51)]


def test_what_it_acts_on_comes_first_and_rows_are_a_table_with_every_column() -> None:
    rows = [dict(r) for r in ROWS]
    rows[7]["vip"] = True  # one row with a key the others lack: still a column
    text = readable_input({"rows": rows, "table": "customers"})
    lines = text.splitlines()
    assert lines[0] == 'table: "customers"'
    assert lines[1] == "rows: (50 rows × 4 columns: id, name, email, vip)"
    header = lines[2].split()
    assert header == ["#", "id", "name", "email", "vip"]
    assert len(lines) == 3 + 50
    assert "c50@example.com" in lines[-1] and "true" in lines[10]


def _scalars(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    return [value]


@pytest.mark.parametrize(
    "value",
    [
        {"to": "sam@example.com", "body": "Hi\nthere", "cc": ["a@x", "b@x"], "n": 0},
        {"deep": {"a": {"b": [1, {"c": None}]}}, "flag": False},
        {"rows": [{"a": 1}, {"b": "two"}], "x": 1.5},
    ],
)
def test_every_value_of_the_input_is_in_the_text(value: dict[str, Any]) -> None:
    text = readable_input(value)
    for key in value:
        assert key in text
    for scalar in _scalars(value):
        shown = scalar if isinstance(scalar, str) else json.dumps(scalar)
        for part in str(shown).split("\n"):
            assert part in text, (scalar, text)


async def _hook(stdin: bytes, sock: Path, data_dir: Path) -> dict[str, Any]:
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


@pytest.mark.asyncio
@pytest.mark.timeout(90)
async def test_a_fifty_row_insert_names_its_table_first_on_the_card(
    base: Path, running_notch: Any, mail_catalog: Catalog
) -> None:
    integration, problems = load_integration(
        bundled_folder("manifests") / "claude-code" / "manifest.json"
    )
    assert integration is not None, problems
    mail_catalog.add(CatalogEntry(integration.manifest, integration.folder, integration.fixtures))
    payload = {
        "session_id": "s", "cwd": "/home/user/app", "hook_event_name": "PreToolUse",
        "tool_name": "mcp__db__insert_rows", "tool_use_id": "toolu_rows",
        "tool_input": {"rows": ROWS, "table": "customers"},
    }  # fmt: skip
    async with running_notch(base, catalog=mail_catalog) as (notch, cards):
        asking = asyncio.ensure_future(
            _hook(json.dumps(payload).encode(), notch.server.path, base / "hookdata")
        )
        (card,) = await cards.wait_for_cards(1, timeout=20)
        shown = card.arguments["input"]
        assert shown.splitlines()[0] == 'table: "customers"'  # before: last, after 250 lines
        assert "Customer 50" in shown and "c50@example.com" in shown
        cards.approve(card.call_id)
        answer = await asking
    assert answer["permissionDecision"] == "allow"

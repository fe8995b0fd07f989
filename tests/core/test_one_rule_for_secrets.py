"""One rule for secrets, everywhere (issue 19, "one tool-knowledge layer").

What counts as a secret was decided in four places, and they disagreed: a password
reached through `$ref`, a `writeOnly` field inside array items or a password under
`anyOf` was not in `secret_paths()`, so it went into the decision log, the SQLite file
and the sentence told to the model; `api_token` was secret to the read-back but not to
the log. Now the tool's facts (`manifest/facts/tool_facts.py`) decide once, and every reader
goes by them. Here a real Notch (service and socket) is asked about one call holding
one secret of each kind; the person edits it and approves; then every place a value can
land is read as an attacker or the model would: the live decision (the only holder),
`confirm.get` over the socket, every byte of the data dir, `notch log` run as a
program, and the sentence for the model.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from notch_app.bundled import bundled_folder
from notch_app.card.headline import headline
from notch_app.card.state import SECRET_MASK, CardState
from notch_app.client import AsyncNotchClient
from notch_app.manifest.facts import tool_facts
from notch_app.manifest.integration import load_integration
from notch_app.manifest.model import Manifest, Tool
from notch_app.runtime.catalog import Catalog, CatalogEntry
from notch_app.runtime.decision import Decision, arguments_digest
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.redaction import REDACTED, secret_paths
from notch_app.runtime.store import DecisionStore, NewDecision, NewRequest

VAULT = "dev.notch.tests.vault"
AGENT = "the-vault-agents-own-token-0001"

# One secret of each kind, none named so that a name alone would give it away (but the
# last, which is the name rule's own case).
SECRETS = {
    "ref": "REF-SECRET-1111",  # login.code: $ref to a `format: password` definition
    "item0": "ITEM-SECRET-2222",  # guests.N.door: `writeOnly` inside array items
    "item1": "ITEM-SECRET-3333",
    "anyof": "ANYOF-SECRET-4444",  # backup: `format: password` under anyOf
    "name": "NAME-SECRET-5555",  # api_token: its name says so
    "typed": "TYPED-BY-THE-PERSON-6666",  # the person's edit of the anyOf one
    "typed_item": "TYPED-ITEM-7777",
}
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "hidden": {"type": "string", "format": "password"},
        "login": {
            "type": "object",
            "properties": {"user": {"type": "string"}, "code": {"$ref": "#/$defs/hidden"}},
        },
    },
    "properties": {
        "login": {"$ref": "#/$defs/login"},
        "guests": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "door": {"type": "string", "writeOnly": True},
                },
            },
        },
        "backup": {"anyOf": [{"type": "string", "format": "password"}, {"type": "null"}]},
        "api_token": {"type": "string"},
        "note": {"type": "string"},
    },
    "required": ["login"],
}
MANIFEST: dict[str, Any] = {
    "schemaVersion": 1,
    "id": VAULT,
    "version": "1.0.0",
    "name": "Vault",
    "tools": [
        {
            "name": "create_vault_access",
            "title": "Give vault access",
            "description": "Gives guests access to the vault.",
            "inputSchema": INPUT_SCHEMA,
            "confirmation": {
                "schemaVersion": 1,
                "root": {
                    "type": "card",
                    "title": "Give vault access to {{login.user}}",
                    "children": [
                        {"type": "textField", "bind": "{{note}}", "label": "Note"},
                        {"type": "keyValue", "items": [{"label": "Guests", "value": "{{guests}}"}]},
                    ],
                    "footer": [
                        {
                            "type": "actions",
                            "items": [
                                {"label": "Cancel", "role": "cancel"},
                                {"label": "Give access", "role": "confirm"},
                            ],
                        }
                    ],
                },
            },
        }
    ],
}
ASKED: dict[str, Any] = {
    "login": {"user": "ann", "code": SECRETS["ref"]},
    "guests": [
        {"name": "bo", "door": SECRETS["item0"]},
        {"name": "cy", "door": SECRETS["item1"]},
    ],
    "backup": SECRETS["anyof"],
    "api_token": SECRETS["name"],
    "note": "for the weekend",
}
EDITED: dict[str, Any] = {
    **ASKED,
    "guests": [
        {"name": "bo", "door": SECRETS["typed_item"]},
        {"name": "cy", "door": SECRETS["item1"]},
    ],
    "backup": SECRETS["typed"],
    "note": "for the long weekend",
}
SECRET_PATHS = ("api_token", "backup", "guests.0.door", "guests.1.door", "login.code")


def catalog_tool(catalog: Catalog) -> Tool:
    found = catalog.tool(VAULT, "create_vault_access")
    assert found is not None
    return found


def _tool() -> Tool:
    manifest = Manifest.model_validate(MANIFEST)
    return manifest.tools[0]


def leaks(text: str) -> list[str]:
    return [s for s in SECRETS.values() if s in text]


def file_leaks(data: Path) -> list[str]:
    """Every secret found in any file of the data dir, in UTF-8 or UTF-16."""
    blob = b"".join(p.read_bytes() for p in sorted(data.rglob("*")) if p.is_file())
    return [
        s
        for s in SECRETS.values()
        if any(s.encode(e) in blob for e in ("utf-8", "utf-16-le", "utf-16-be"))
    ]


def test_the_tools_facts_find_each_secret_once() -> None:
    facts = tool_facts(_tool())
    assert facts.secrets == {"login.code", "guests.door", "backup", "api_token"}
    assert secret_paths(_tool()) == facts.secrets  # the thin public face agrees
    assert facts.secrets_in(ASKED) == SECRET_PATHS
    assert facts.is_secret("guests") and facts.is_secret("guests.1.door")
    assert not facts.is_secret("guests.0.name") and not facts.is_secret("note")
    assert leaks(json.dumps(facts.masked(ASKED, REDACTED))) == []


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_no_secret_reaches_the_log_the_file_confirm_get_or_the_model(
    base: Path, running_notch: Any
) -> None:
    data = base / "data"
    catalog = Catalog([Manifest.model_validate(MANIFEST)])
    async with (
        running_notch(base, catalog=catalog) as (notch, cards),
        AsyncNotchClient(notch.server.path, token=AGENT) as client,
    ):
        asking = asyncio.ensure_future(
            client.confirm(VAULT, "create_vault_access", ASKED, call_id="vault")
        )
        (request,) = await cards.wait_for_cards(1)
        # The card itself never shows one: the guests' value reads with the doors masked.
        card = CardState(catalog_tool(catalog), request.arguments)
        assert card.text("{{guests}}").count(SECRET_MASK) == 2
        assert leaks(card.text("{{guests}} {{backup}} {{login}} {{api_token}}")) == []
        cards.approve("vault", EDITED)
        live = await asyncio.wait_for(asking, 10)  # the client verified the keyed digest
        # The live decision is the one holder: the executor runs with the real values.
        assert live.arguments == EDITED
        assert live.digest_keyed == SECRET_PATHS
        assert live.digest != arguments_digest(EDITED)
        told = live.for_model
        assert "`note` from" in told and "long weekend" in told, told
        assert "`backup`" in told and "`guests`" in told, told  # named, never quoted
        replay = await client.call("confirm.get", {"callId": "vault", "token": AGENT})
        await notch.service.drain()
    assert leaks(told) == [], told
    assert leaks(json.dumps(replay)) == [], replay
    assert sorted(replay["secretsWithheld"]) == list(SECRET_PATHS)
    assert replay["arguments"]["guests"][0] == {"name": "bo", "door": REDACTED}
    assert replay["arguments"]["login"] == {"user": "ann", "code": REDACTED}
    assert replay["arguments"]["backup"] == REDACTED == replay["arguments"]["api_token"]
    assert "digestSalt" not in replay
    assert file_leaks(data) == []

    for extra in ([], ["--json"]):
        shown = subprocess.run(
            [sys.executable, "-m", "notch_app", "log", "--data-dir", str(data), *extra],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        assert "vault" in shown.stdout and leaks(shown.stdout + shown.stderr) == []
    (row,) = json.loads(shown.stdout)
    assert row["outcome"] == "approved" and row["forModel"] == told
    assert row["arguments"]["guests"][1] == {"name": "cy", "door": REDACTED}
    assert row["arguments"]["note"] == "for the long weekend"  # what is not secret stays


NOTES = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers" / "notes"


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_notch_mcp_tells_the_model_what_ran_without_its_secrets(
    base: Path, running_notch: Any, mcp_gateway: Any, tmp_path: Path
) -> None:
    """After an edited approval `notch mcp` tells the model what ran: the arguments, with
    every secret of the tool masked (it used to be the live decision's JSON, token and
    all). The wrapped server still gets the real value."""
    folder = tmp_path / "notes"
    shutil.copytree(NOTES, folder)
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    send = next(t for t in manifest["tools"] if t["name"] == "send_message")
    send["inputSchema"]["properties"]["api_token"] = {"type": "string"}
    (folder / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    asked = {"to": "sam", "body": "Lunch?", "api_token": SECRETS["name"]}
    async with (
        running_notch(base) as (notch, cards),
        mcp_gateway(folder, notch.server.path, tmp_path / "home") as gateway,
    ):
        await gateway.send(gateway.tool_call(1, "send_message", asked))
        (card,) = await cards.wait_for_cards(1, timeout=30)
        cards.approve(card.call_id, {**asked, "to": "maya"})
        (reply,) = await gateway.replies_to(1)
    # The last item is Notch's own (before it, whatever the server answered, here an echo).
    said = reply["result"]["content"][-1]["text"]
    assert said.startswith("The person changed to before approving"), said
    assert REDACTED in said and leaks(said) == [], said
    assert [c["arguments"] for c in gateway.ran()] == [{**asked, "to": "maya"}]


def test_a_store_written_by_the_narrower_rule_is_scrubbed_when_opened(tmp_path: Path) -> None:
    """Rows an older Notch stored by the four old rules (these values in clear) are
    scrubbed again by the one rule the first time a Notch that knows the tool opens the
    file: requests, final arguments and the log's rows."""
    data = tmp_path / "data"
    old = DecisionStore(data)  # knows no secrets: what the narrower rule let through
    try:
        request = ConfirmationRequest("old", VAULT, "create_vault_access", ASKED, {}, 1.0)
        approved = Decision("old", "approved", VAULT, "create_vault_access", EDITED,
                            digest=arguments_digest(EDITED), decided_by="click")  # fmt: skip
        assert old.write([NewRequest(request)]) == [None]
        assert old.write([NewDecision(approved, EDITED, {})]) == [None]
    finally:
        old.close()
    with sqlite3.connect(data / "notch.sqlite3") as db:
        db.execute("PRAGMA user_version=6")
    assert file_leaks(data) != []  # as it was
    tool = catalog_tool(Catalog([Manifest.model_validate(MANIFEST)]))
    store = DecisionStore(data, secrets_of=lambda i, t: tool_facts(tool))
    try:
        kept = store.decision("old")
        assert kept is not None and sorted(kept.secrets_withheld) == list(SECRET_PATHS)
        (logged,) = store.log()
    finally:
        store.close()
    assert logged.arguments is not None and logged.arguments["backup"] == REDACTED
    assert file_leaks(data) == []


README = Path(__file__).resolve().parents[2] / "README.md"
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed (CI has it)")
@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_the_readme_javascript_verifies_secrets_keyed_inside_lists(
    base: Path, running_notch: Any
) -> None:
    """`digestKeyedPaths` name list elements (`guests.0.door`); the README's check walks
    them as it walks object keys, and refuses a changed door."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Digest") :]
    blocks = re.findall(r"```js\n(.*?)```", section, re.S)
    script = "".join(blocks[:2]) + (
        "\nconst ds = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));"
        "\nprocess.stdout.write(JSON.stringify(ds.map((d) => verified(d))));"
    )
    catalog = Catalog([Manifest.model_validate(MANIFEST)])
    async with (
        running_notch(base, rule=lambda request: (True, None), catalog=catalog) as (notch, _),
        AsyncNotchClient(notch.server.path) as client,
    ):
        decision = await client.confirm(VAULT, "create_vault_access", ASKED)
    wire = decision.to_wire()
    assert "guests.1.door" in wire["digestKeyedPaths"]
    tampered = json.loads(json.dumps(wire))
    tampered["arguments"]["guests"][1]["door"] = "another door"
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", script], input=json.dumps([wire, tampered]),
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == [True, False]


def test_a_cards_headline_never_states_a_secret_the_schema_does_not_declare() -> None:
    """An agent may send an argument the schema leaves open; named as a secret, the
    card's headline passes it over as the log does (it used to read "Create link:
    NAME-SECRET-5555")."""
    bare = Tool.model_validate({"name": "create_link", "inputSchema": {"type": "object"}})
    said = headline(bare, {"api_token": SECRETS["name"]}, locale="en_GB")
    assert leaks(said.text + said.confirm) == [], said
    vault = headline(_tool(), EDITED, locale="en_GB")
    assert leaks(vault.text + vault.confirm) == [], vault


HOOKS = Path(__file__).resolve().parents[1] / "fixtures" / "hooks"


@pytest.mark.asyncio
@pytest.mark.timeout(90)
async def test_a_coding_agents_unknown_mcp_tool_shows_its_secret_masked(
    base: Path, running_notch: Any
) -> None:
    """`notch hook` for an MCP tool Notch has no manifest for shows its input on the
    `Other` card; a secret-named value there reads as a mask, so the card, the log and
    the data file never hold it, and the tool still runs with it."""
    catalog = Catalog()
    integration, problems = load_integration(
        bundled_folder("manifests") / "claude-code" / "manifest.json"
    )
    assert integration is not None, problems
    catalog.add(CatalogEntry(integration.manifest, integration.folder, integration.fixtures))
    data = json.loads((HOOKS / "claude-code" / "mcp-unknown.json").read_text("utf-8"))
    data["tool_input"]["api_token"] = SECRETS["name"]
    data["tool_input"]["assignee"] = {"name": "ann", "password": SECRETS["ref"]}
    async with running_notch(base, catalog=catalog) as (notch, cards):
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "notch_app", "hook", "claude-code",
            "--socket", str(notch.server.path),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "NOTCH_DATA_DIR": str(base / "hookdata")},
        )  # fmt: skip
        answering = asyncio.ensure_future(process.communicate(json.dumps(data).encode()))
        (card,) = await cards.wait_for_cards(1, timeout=30)
        assert card.tool_name == "Other"
        assert leaks(json.dumps(card.arguments)) == [] and REDACTED in card.arguments["input"]
        cards.approve(card.call_id)
        out, err = await asyncio.wait_for(answering, 30)
        await notch.service.drain()
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "allow", err
    assert answer["updatedInput"] == data["tool_input"]  # the tool runs with its values
    assert file_leaks(base / "data") == []

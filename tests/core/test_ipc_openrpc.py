"""The OpenRPC document of the socket API says what the server does.

It is generated from the same params models the server validates with; these tests hold
the committed file equal to the models, its methods equal to the server's, and its
result schemas true of what the server really sends.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from notch_app.client import AsyncNotchClient, NotchRequestError
from notch_app.ipc import protocol as rpc
from notch_app.ipc.methods import METHODS, NAMES
from notch_app.ipc.openrpc import FILE_NAME, socket_openrpc
from notch_app.ipc.server import serving as server_module
from notch_app.manifest.model import default_schema_dir
from notch_app.manifest.model.schemas import render
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.decision import Decision, arguments_digest
from notch_app.runtime.service import ConfirmationService
from notch_app.runtime.store import DecisionStore


def test_the_committed_document_is_what_the_models_generate() -> None:
    committed = (default_schema_dir() / FILE_NAME).read_text(encoding="utf-8")
    assert committed == render(socket_openrpc()), "run `notch schema` to regenerate it"


def test_it_documents_every_method_the_server_answers_and_no_other() -> None:
    document = socket_openrpc()
    assert [m["name"] for m in document["methods"]] == list(NAMES)
    assert [m.name for m in METHODS] == list(NAMES)
    request = next(m for m in document["methods"] if m["name"] == "confirm.request")
    params = {p["name"]: p for p in request["params"]}
    assert set(params) == {"callId", "token", "integration", "tool", "arguments", "supersedes",
                           "expiresInMs", "context", "wait"}  # fmt: skip
    assert [n for n, p in params.items() if p["required"]] == ["callId", "integration", "tool"]
    assert params["callId"]["schema"]["maxLength"] == 128
    codes = {e["code"] for e in request["errors"]}
    assert {rpc.INVALID_PARAMS, rpc.CALL_ID_IN_USE, rpc.NOT_OPEN} <= codes


def _validator(document: dict[str, Any], model: str) -> Draft202012Validator:
    schema = {"components": document["components"], "$ref": f"#/components/schemas/{model}"}
    return Draft202012Validator(schema)


def test_real_replies_match_the_documented_results() -> None:
    document = socket_openrpc()
    args = {"to": "sam@example.com"}
    approved = Decision("c1", "approved", "com.example.mail", "send_email", args,
                        ("to",), arguments_digest(args), "click", 1.7e9)  # fmt: skip
    declined = Decision("c2", "declined", "com.example.mail", "send_email", None,
                        decided_by="key", message="the person declined")  # fmt: skip
    replayed = replace(approved, already_decided=True, secrets_withheld=("to",))
    decision = _validator(document, "DecisionResult")
    for reply in (approved.to_wire(), declined.replayed().to_wire(), replayed.to_wire()):
        decision.validate(reply)
    assert not decision.is_valid({**approved.to_wire(), "outcome": "maybe"})
    pending = _validator(document, "PendingResult")
    pending.validate({"callId": "c1", "status": "pending", "parked": False})
    assert not pending.is_valid({"callId": "c1", "status": "done"})


def test_params_schemas_refuse_what_the_server_refuses() -> None:
    document = socket_openrpc()
    request = _validator(document, "ConfirmRequestParams")
    request.validate({"callId": "c1", "integration": "m", "tool": "t", "arguments": {}})
    for bad in (
        {"integration": "m", "tool": "t"},
        {"callId": "", "integration": "m", "tool": "t"},
        {"callId": "c1", "integration": "m", "tool": "t", "colour": "red"},
        {"callId": "c1", "integration": "m", "tool": "t", "expiresInMs": 0},
    ):
        assert not request.is_valid(bad), bad


@pytest.mark.asyncio
async def test_the_server_answers_each_method_of_the_table_and_names_them_all(
    base: Path, running_notch: Any
) -> None:
    """The table in ipc/methods/table.py is the one list: `server.info` and an unknown method's
    error name exactly its methods, and each of them reaches a handler (never -32601)."""
    async with (
        running_notch(base) as (notch, _),
        AsyncNotchClient(notch.server.path) as client,
    ):
        assert (await client.call("server.info", {}))["methods"] == list(NAMES)
        with pytest.raises(NotchRequestError) as unknown:
            await client.call("confirm.approve", {})
        assert unknown.value.data == {"methods": list(NAMES)}
        for name in NAMES:
            try:
                await client.call(name, {"unexpected": 1}, timeout=5)
            except NotchRequestError as exc:
                assert exc.code != rpc.METHOD_NOT_FOUND, name


def test_a_method_in_the_table_without_a_handler_stops_the_server(
    base: Path, mail_catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "METHOD_NAMES", (*NAMES, "confirm.approve"))
    store = DecisionStore(base / "data")
    try:
        with pytest.raises(RuntimeError, match=r"confirm\.approve"):
            server_module.NotchServer(ConfirmationService(mail_catalog, store), base / "s")
    finally:
        store.close()

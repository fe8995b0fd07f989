"""Shared pieces for the service and IPC tests: a mail integration built in memory, and a
Notch (service + real Unix socket) running in-process with a scripted presenter."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from notch_app.client import AsyncNotchClient
from notch_app.headless import RunningNotch, start
from notch_app.manifest.model import Manifest
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.scripted import Rule, ScriptedPresenter

T = TypeVar("T")

MAIL = "com.example.mail"


def _card(title: str, children: list[dict[str, Any]], confirm: str) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "root": {
            "type": "card",
            "title": title,
            "children": children,
            "footer": [
                {
                    "type": "actions",
                    "items": [
                        {"label": "Cancel", "role": "cancel"},
                        {"label": confirm, "role": "confirm"},
                    ],
                }
            ],
        },
    }


MAIL_MANIFEST: dict[str, Any] = {
    "schemaVersion": 1,
    "id": MAIL,
    "version": "1.0.0",
    "name": "Example Mail",
    "summary": "Send and search mail.",
    "publisher": {"id": "example", "name": "Example Inc."},
    "tools": [
        {
            "name": "send_email",
            "title": "Send email",
            "description": "Send one email.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "to": {"type": "string", "minLength": 1},
                    "subject": {"type": "string"},
                    "body": {"type": "string"},
                },
                "required": ["to"],
            },
            "confirmation": _card(
                "Send email",
                [
                    {"type": "textField", "bind": "{{to}}", "label": "To", "required": True},
                    {"type": "textField", "bind": "{{subject}}", "label": "Subject"},
                ],
                "Send",
            ),
        },
        {
            "name": "connect_account",
            "description": "Sign in to a mail account.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "user": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "password": {"type": "string"}},
                    }
                },
            },
            "confirmation": _card(
                "Connect account",
                [
                    {"type": "textField", "bind": "{{user.name}}", "label": "User"},
                    {"type": "passwordField", "bind": "{{user.password}}", "label": "Password"},
                ],
                "Connect",
            ),
        },
        {
            "name": "search_mail",
            "description": "Search the mailbox.",
            "annotations": {"readOnlyHint": True},
            "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    ],
}


def mail_catalog() -> Catalog:
    return Catalog([Manifest.model_validate(MAIL_MANIFEST)])


def run(coro: Coroutine[Any, Any, T], timeout: float = 20) -> T:
    """Run one async test body with a hard time limit."""

    async def limited() -> T:
        async with asyncio.timeout(timeout):
            return await coro

    return asyncio.run(limited())


def short_tmp() -> tempfile.TemporaryDirectory[str]:
    # Unix socket paths must stay under ~100 bytes; pytest's tmp_path can be longer.
    return tempfile.TemporaryDirectory(prefix="notch-t")


@contextlib.asynccontextmanager
async def running_notch(
    base: Path, rule: Rule | None = None, catalog: Catalog | None = None
) -> AsyncIterator[tuple[RunningNotch, ScriptedPresenter]]:
    """A Notch on `base/s/notch.sock` with its data in `base/data`."""
    notch = await start(
        base / "s" / "notch.sock",
        base / "data",
        presenter=lambda sink: ScriptedPresenter(sink, rule),
        catalog=catalog or mail_catalog(),
    )
    presenter = notch.presenter
    assert isinstance(presenter, ScriptedPresenter)
    try:
        yield notch, presenter
    finally:
        await notch.close()


@contextlib.asynccontextmanager
async def notch_and_client(
    base: Path,
) -> AsyncIterator[tuple[RunningNotch, ScriptedPresenter, AsyncNotchClient]]:
    """`running_notch(base)` with an `AsyncNotchClient` connected to it."""
    async with running_notch(base) as (notch, cards), AsyncNotchClient(notch.server.path) as client:
        yield notch, cards, client


def test_the_sample_integration_loads_with_one_read_only_tool() -> None:
    catalog = mail_catalog()
    tools = catalog.describe()[0]["tools"]
    assert [t["name"] for t in tools if not t["confirms"]] == ["search_mail"]

"""Fixtures for the service and IPC tests: a mail integration built in memory, and a Notch
(service + real Unix socket) running in-process with a scripted presenter.

The mail integration's id is "com.example.mail"; modules that name it in test data keep
it as their own `MAIL` constant (a parametrize list cannot ask for a fixture).
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient
from notch_app.headless import RunningNotch, start
from notch_app.manifest.model import Manifest, Tool
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.scripted import Rule, ScriptedPresenter

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


def _mail_catalog() -> Catalog:
    return Catalog([Manifest.model_validate(MAIL_MANIFEST)])


@pytest.fixture
def mail_catalog() -> Catalog:
    """A catalog holding only the mail integration: send_email and connect_account ask
    first, search_mail is read-only."""
    return _mail_catalog()


@pytest.fixture
def base() -> Iterator[Path]:
    """A short temporary folder: Unix socket paths must stay under ~100 bytes, and
    pytest's tmp_path can be longer."""
    with tempfile.TemporaryDirectory(prefix="notch-t") as name:
        yield Path(name)


RunningNotchFactory = Callable[..., contextlib.AbstractAsyncContextManager[
    tuple[RunningNotch, ScriptedPresenter]
]]  # fmt: skip


@contextlib.asynccontextmanager
async def _running_notch(
    base: Path, rule: Rule | None = None, catalog: Catalog | None = None
) -> AsyncIterator[tuple[RunningNotch, ScriptedPresenter]]:
    notch = await start(
        base / "s" / "notch.sock",
        base / "data",
        presenter=lambda sink: ScriptedPresenter(sink, rule),
        catalog=catalog or _mail_catalog(),
    )
    presenter = notch.presenter
    assert isinstance(presenter, ScriptedPresenter)
    try:
        yield notch, presenter
    finally:
        await notch.close()


@pytest.fixture
def running_notch() -> RunningNotchFactory:
    """`async with running_notch(base, rule=None, catalog=None) as (notch, cards)`: a Notch
    on `base/s/notch.sock` with its data in `base/data`, cards answered by `cards` (a
    ScriptedPresenter following `rule`, else by the test's own calls)."""
    return _running_notch


@contextlib.asynccontextmanager
async def _notch_and_client(
    base: Path, token: str | None = None
) -> AsyncIterator[tuple[RunningNotch, ScriptedPresenter, AsyncNotchClient]]:
    async with (
        _running_notch(base) as (notch, cards),
        AsyncNotchClient(notch.server.path, token=token) as client,
    ):
        yield notch, cards, client


@pytest.fixture
def notch_and_client() -> Callable[
    [Path], contextlib.AbstractAsyncContextManager[
        tuple[RunningNotch, ScriptedPresenter, AsyncNotchClient]
    ]
]:  # fmt: skip
    """`async with notch_and_client(base, token=None) as (notch, cards, client)`:
    `running_notch(base)` with an `AsyncNotchClient` connected to it (asking with `token`,
    else a fresh one: pass the same token to be the same agent across a restart)."""
    return _notch_and_client


# --- a payments integration for the person's policy -------------------------------------


def _view(title: str, *binds: str) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "root": {
            "type": "card",
            "title": title,
            "children": [{"type": "textField", "bind": f"{{{{{b}}}}}", "label": b} for b in binds],
            "footer": [
                {
                    "type": "actions",
                    "items": [
                        {"label": "Cancel", "role": "cancel"},
                        {"label": title, "role": "confirm"},
                    ],
                }
            ],
        },
    }


def _pay_manifest(view_title: str = "Pay") -> Manifest:
    return Manifest.model_validate(
        {
            "schemaVersion": 1,
            "id": "com.example.pay",
            "version": "1.0.0",
            "name": "Pay",
            "tools": [
                {
                    "name": "pay_invoice",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "amount": {"type": "number"},
                            "payee": {"type": "string"},
                            "payment": {
                                "type": "object",
                                "properties": {"total": {"type": "number"}},
                            },
                            "recipients": {"type": "array", "items": {"type": "string"}},
                            "lines": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {"cost": {"type": "number"}},
                                },
                            },
                        },
                    },
                    "confirmation": _view(view_title, "payee"),
                },
                {
                    "name": "list_invoices",
                    "inputSchema": {"type": "object", "properties": {}},
                },
            ],
        }
    )


def _pay_tool(m: Manifest) -> Tool:
    tool = m.tool("pay_invoice")
    assert tool is not None
    return tool


@pytest.fixture(scope="session")
def pay_manifest() -> Callable[..., Manifest]:
    """`pay_manifest(view_title="Pay")`: an integration with pay_invoice (amount, payee,
    payment.total, recipients, lines[].cost; a card titled `view_title`) and the
    read-only list_invoices."""
    return _pay_manifest


@pytest.fixture(scope="session")
def pay_tool() -> Callable[[Manifest], Tool]:
    """`pay_tool(manifest)`: its pay_invoice tool."""
    return _pay_tool


# --- waiting for a request to reach a part of Notch --------------------------------------


@pytest.fixture
def reached(monkeypatch: pytest.MonkeyPatch) -> Callable[[Any, str, str], asyncio.Event]:
    """`reached(obj, method, call_id)`: an asyncio.Event set once `obj.<method>` has been
    called for `call_id` (a ToolCall, or a callId, as its first argument) — e.g. the
    service's `submit`, `wait` or `shown`. Set it up before the call can happen."""

    def watch(obj: Any, method: str, call_id: str) -> asyncio.Event:
        event = asyncio.Event()
        real = getattr(obj, method)

        def spy(first: Any, *args: Any, **kwargs: Any) -> Any:
            result = real(first, *args, **kwargs)
            if getattr(first, "call_id", first) == call_id:
                event.set()
            return result

        monkeypatch.setattr(obj, method, spy)
        return event

    return watch


async def _loop_turns(count: int = 5) -> None:
    for _ in range(count):
        await asyncio.sleep(0)  # a turn of the loop, not a wait: no time passes


@pytest.fixture
def loop_turns() -> Callable[..., Awaitable[None]]:
    """`await loop_turns()`: let the callbacks already scheduled on the loop run (a few
    turns, no time passes) — before checking that something did NOT happen."""
    return _loop_turns

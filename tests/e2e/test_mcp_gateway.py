"""`notch mcp` end to end: the SDK's own stdio client talks to `notch mcp`, which wraps
a small MCP server written with the SDK (tests/fixtures/mcp_servers/notes), with `notch
run` on a real X server deciding through its real window.

The wrapped server writes one line per call it runs ($HOME/notes-calls.jsonl), so every test can
say what the server was asked, and that it was never asked. Blocking waits (the window,
xdotool) run in a thread, so the MCP client keeps reading while the test waits.

The tests that only make calls through `notch mcp NOTES` in front of the module's shared
`notch run --manifests NOTES` (a card approved, edited, declined or withdrawn; a glance;
a liar; a cheat) share one gateway (`notes_gateway`): each reads the call log from its own
start. A test that crashes the server, needs no notch run, or a notch run of its own
starts its own gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

from notch_app.client import NotchClient

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.client.session import ClientSession

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "mcp_servers"
NOTES = FIXTURES / "notes"
LOCKED = FIXTURES / "locked"
NOTES_ID = "dev.notch.fixtures.notes"
VENV_BIN = str(Path(sys.executable).parent)


class Calls:
    """What the wrapped server ran: one record per call, from its log file (from record
    `since` on: a gateway the module's tests share keeps one log)."""

    def __init__(self, path: Path, since: int = 0) -> None:
        self.path = path
        self.since = since

    def _records(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line]

    def all(self) -> list[dict[str, Any]]:
        return self._records()[self.since :]

    def from_now(self) -> Calls:
        """The calls made from now on."""
        return Calls(self.path, len(self._records()))

    def of(self, tool: str) -> list[dict[str, Any]]:
        return [c for c in self.all() if c["tool"] == tool]


@pytest.fixture
def calls(tmp_path: Path) -> Calls:
    home = tmp_path / "home"
    home.mkdir()
    return Calls(home / "notes-calls.jsonl")


def gateway_env(calls: Calls, extra: dict[str, str] | None = None) -> dict[str, str]:
    """What an MCP client gives `notch mcp`: PATH (the venv first, so the fixture's
    `python` has the SDK), HOME and the like; no keyring service."""
    env = {
        "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '')}",
        "HOME": str(calls.path.parent),
        "PYTHONUNBUFFERED": "1",
        "XDG_CONFIG_HOME": str(REPO / "tmp" / "e2e-config"),
    }
    env.update(extra or {})
    return env


@asynccontextmanager
async def mcp_client(
    argv: list[str], calls: Calls, errlog: Path, extra_env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """The SDK's stdio client connected to `notch mcp ARGV`, initialized."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "notch_app", "mcp", *argv],
        env=gateway_env(calls, extra_env),
        cwd=str(REPO),
    )
    with errlog.open("a", encoding="utf-8") as err:
        async with stdio_client(params, err) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            yield s


def text_of(result: types.CallToolResult) -> str:
    import mcp_types as types

    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """A blocking wait (window, xdotool) without stopping the MCP client's reading."""
    return await asyncio.to_thread(fn, *args)


@pytest.fixture
def notch(
    xserver: Any, notch_env: dict[str, Path], start_notch: Any, shared_notch: Any
) -> Callable[..., dict[str, Path]]:
    """`notch(*flags)`: `notch run` on the X server; returns its socket and data dir.
    Shared by this module's tests with the same flags (replaced after a test that changed
    what it loaded: an attached folder); a test that set a policy in its own data dir
    first (`set_policy`) gets a process of its own."""

    def start(*flags: str) -> dict[str, Path]:
        if notch_env["data_dir"].exists():
            start_notch(
                xserver.env, notch_env["socket"], notch_env["data_dir"], notch_env["log"], *flags
            )
            return notch_env
        shared = shared_notch(*flags)
        return {"socket": shared.socket, "data_dir": shared.data_dir, "log": shared.log}

    return start


def gateway_args(where: dict[str, Path], folder: Path = NOTES) -> list[str]:
    return [str(folder), "--socket", str(where["socket"]), "--data-dir", str(where["data_dir"])]


def set_policy(notch_argv: list[str], data_dir: Path, tool: str, *how: str) -> None:
    done = subprocess.run(
        [*notch_argv, "policy", "set", NOTES_ID, tool, *how, "--data-dir", str(data_dir),
         "--manifests", str(NOTES)],
        capture_output=True, text=True, timeout=60, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


@dataclass
class Gateway:
    """The module's `notch mcp NOTES` as a test gets it: its client, and the calls its
    server runs from this test's start."""

    client: ClientSession
    calls: Calls


class SharedGateway:
    """One `notch mcp NOTES` (and the server it wraps) for the tests of this module that
    only make calls through it: started by the first, handed to the next, and started
    again only when the notch run it talks to is another one (the shared one was replaced
    after a test left it changed) or it has ended. Its client is held in a task of its
    own (`in_its_own_task`), on the module's event loop."""

    def __init__(self, root: Path, in_its_own_task: Any) -> None:
        home = root / "home"
        home.mkdir()
        self.calls = Calls(home / "notes-calls.jsonl")
        self.errlog = root / "gw.log"
        self._in_its_own_task = in_its_own_task
        self._argv: list[str] = []
        self._client: ClientSession | None = None
        self._held: Any = None

    async def open(self, argv: list[str]) -> Gateway:
        held = self._held
        if held is not None and (held.task is None or held.task.done() or argv != self._argv):
            # What ended the old one failed the test it happened in, not this one.
            with contextlib.suppress(Exception):
                await self.close()
        if self._held is None or self._client is None:
            self._held = self._in_its_own_task(lambda: mcp_client(argv, self.calls, self.errlog))
            self._argv = argv
            self._client = await self._held.start()
        assert self._client is not None
        return Gateway(self._client, self.calls.from_now())

    async def close(self) -> None:
        """End the gateway (its server with it); raise what ended it otherwise."""
        held, self._held, self._client = self._held, None, None
        if held is not None:
            await held.end()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def _notes_gateways(
    tmp_path_factory: pytest.TempPathFactory, in_its_own_task: Any
) -> AsyncIterator[SharedGateway]:
    shared = SharedGateway(tmp_path_factory.mktemp("notes-gateway"), in_its_own_task)
    yield shared
    await shared.close()


@pytest_asyncio.fixture(loop_scope="module")
async def notes_gateway(notch: Any, _notes_gateways: SharedGateway) -> Gateway:
    """`notch mcp NOTES` in front of the module's shared `notch run --manifests NOTES`,
    shared by the tests asking for it (see SharedGateway); a test using it runs on the
    module's loop: `@pytest.mark.asyncio(loop_scope="module")`."""
    where = notch("--manifests", str(NOTES))
    return await _notes_gateways.open(gateway_args(where))


# --- no notch run ------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_reads_pass_through_and_acting_tools_fail_closed_without_notch(
    tmp_path: Path, calls: Calls
) -> None:
    nowhere = {"socket": tmp_path / "no-notch.sock", "data_dir": tmp_path / "data"}
    async with mcp_client(gateway_args(nowhere), calls, tmp_path / "gw.log") as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert set(listed) == {
            "send_message", "cancel_agent", "delete_note", "get_status", "fetch_report"
        }  # fmt: skip
        assert listed["send_message"].title == "Send message"  # the manifest's words

        status = await client.call_tool("get_status", {})
        assert not status.is_error
        glance = status.structured_content["_voiceos_glance"]
        assert [b["type"] for b in glance["blocks"]] == ["header", "stats"]  # untouched
        assert status.structured_content["folder"] == str(NOTES)  # cwd = the folder
        assert status.structured_content["greeting"] == "Hello"  # the preference's default

        sent = await client.call_tool("send_message", {"to": "sam", "body": "hi"})
        assert sent.is_error
        assert "Notch is not running" in text_of(sent)
        assert "nothing was sent" in text_of(sent)
    assert [c["tool"] for c in calls.all()] == ["get_status"]


@pytest.mark.asyncio
async def test_a_server_crash_mid_call_is_a_clear_error_and_the_next_call_restarts_it(
    tmp_path: Path, calls: Calls
) -> None:
    nowhere = {"socket": tmp_path / "no-notch.sock", "data_dir": tmp_path / "data"}
    async with mcp_client(gateway_args(nowhere), calls, tmp_path / "gw.log") as client:
        first = await client.call_tool("get_status", {})
        crashed = await client.call_tool("get_status", {"crash": True})
        assert crashed.is_error
        assert "stopped while running get_status" in text_of(crashed)
        assert "the next call starts the server again" in text_of(crashed)
        again = await client.call_tool("get_status", {})
        assert not again.is_error and again.structured_content["notes"] == 3
        assert not first.is_error
    pids = [c["pid"] for c in calls.of("get_status")]
    assert len(pids) == 3 and pids[0] == pids[1] != pids[2]  # a fresh server after the crash


@pytest.mark.asyncio
async def test_a_missing_secret_is_the_tool_error_naming_the_field_and_the_fix(
    tmp_path: Path, calls: Calls
) -> None:
    nowhere = {"socket": tmp_path / "no-notch.sock", "data_dir": tmp_path / "data"}
    async with mcp_client(gateway_args(nowhere, LOCKED), calls, tmp_path / "gw.log") as client:
        assert len((await client.list_tools()).tools) == 4  # listed from the manifest
        result = await client.call_tool("get_status", {})
    assert result.is_error
    assert "NOTES_TOKEN" in text_of(result)
    assert "notch secrets set dev.notch.fixtures.locked NOTES_TOKEN" in text_of(result)
    assert calls.all() == []  # the server never started without its secret


# --- with notch run --------------------------------------------------------------------
# Ordered so that the tests sharing a `notch run` with the same flags run back to back:
# each change of flags starts another one (the policy test starts its own).


@pytest.mark.asyncio
async def test_blocked_is_a_tool_error_and_asks_first_off_runs_at_once(
    tmp_path: Path, calls: Calls, notch: Any, notch_env: dict[str, Path], notch_argv: list[str]
) -> None:
    """Both rules set before notch run starts, on two acting tools (one notch run for
    both): the blocked one is a tool error and runs nothing; the one whose Asks first is
    off runs at once with the model's arguments."""
    set_policy(notch_argv, notch_env["data_dir"], "delete_note", "--block")
    set_policy(notch_argv, notch_env["data_dir"], "send_message", "--asks-first", "off")
    where = notch("--manifests", str(NOTES))
    async with mcp_client(gateway_args(where), calls, tmp_path / "gw.log") as client:
        blocked = await client.call_tool("delete_note", {"note_id": "n-1"})
        ran = await client.call_tool("send_message", {"to": "sam", "body": "auto"})
    assert blocked.is_error
    assert "has blocked “Delete note” in Notch; nothing was deleted" in text_of(blocked)
    assert calls.of("delete_note") == []
    assert not ran.is_error, text_of(ran)
    assert [c["arguments"] for c in calls.of("send_message")] == [{"to": "sam", "body": "auto"}]


# --- gateway.attach: a notch run that never installed the folder, and a bare server ------


@pytest.mark.asyncio
async def test_a_folder_notch_run_never_loaded_asks_with_its_own_card(
    tmp_path: Path, calls: Calls, xserver: Any, notch: Any
) -> None:
    where = notch()  # the notes folder is neither bundled, installed nor --manifests
    async with mcp_client(gateway_args(where), calls, tmp_path / "gw.log") as client:
        call = asyncio.ensure_future(
            client.call_tool("send_message", {"to": "sam", "body": "From an attached folder"})
        )
        card = await in_thread(xserver.settled_card)
        xserver.screenshot("gateway-attached-folder")
        assert calls.of("send_message") == []
        xserver.focus_card(card)
        await in_thread(xserver.confirm_with_keys, card)
        result = await asyncio.wait_for(call, 30)
    assert not result.is_error, text_of(result)
    assert [c["arguments"] for c in calls.of("send_message")] == [
        {"to": "sam", "body": "From an attached folder"}
    ]
    with NotchClient(where["socket"]) as notch_client:
        loaded = {i["id"]: i for i in notch_client.integrations()}
    assert NOTES_ID in loaded, "notch run loaded the folder the gateway named"


def bare_args(where: dict[str, Path]) -> list[str]:
    return ["--name", "notes", "--socket", str(where["socket"]), "--data-dir",
            str(where["data_dir"]), "--", "python", str(NOTES / "server.py")]  # fmt: skip


@pytest.mark.asyncio
async def test_a_bare_server_asks_for_every_tool_not_read_only_with_a_generated_card(
    tmp_path: Path, calls: Calls, xserver: Any, notch: Any
) -> None:
    where = notch()
    async with mcp_client(bare_args(where), calls, tmp_path / "gw.log") as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert {"send_message", "cancel_agent", "get_status"} <= listed
        # A read the server marks readOnlyHint passes straight through, no card (its
        # result's glance shows for a moment, then the notch is a pill again).
        xserver.xdotool("mousemove", "5", "700")  # a glance under the pointer waits for it
        assert not (await client.call_tool("get_status", {})).is_error
        assert calls.of("get_status") != []
        await in_thread(xserver.notch_idle)
        call = asyncio.ensure_future(
            client.call_tool("cancel_agent", {"agent_id": "a-7", "reason": "wrong repo"})
        )
        card = await in_thread(xserver.settled_card)
        xserver.screenshot("gateway-bare-generated-card")
        assert calls.of("cancel_agent") == []
        xserver.click_close(card)
        declined = await asyncio.wait_for(call, 30)
        assert declined.is_error and "nothing was" in text_of(declined)
        assert calls.of("cancel_agent") == []

        call = asyncio.ensure_future(client.call_tool("send_message", {"to": "kim", "body": "hi"}))
        card = await in_thread(xserver.settled_card)
        xserver.focus_card(card)
        await in_thread(xserver.confirm_with_keys, card)
        result = await asyncio.wait_for(call, 30)
    assert not result.is_error, text_of(result)
    assert [c["arguments"] for c in calls.of("send_message")] == [{"to": "kim", "body": "hi"}]
    with NotchClient(where["socket"]) as notch_client:
        ids = {i["id"] for i in notch_client.integrations()}
    assert "mcp.local.notes" in ids


# --- the shared gateway: calls through notch mcp NOTES, answered in the shared notch run ---


@pytest.mark.asyncio(loop_scope="module")
async def test_approve_with_an_edit_runs_the_edited_arguments(
    xserver: Any, notes_gateway: Gateway
) -> None:
    client, calls = notes_gateway.client, notes_gateway.calls
    call = asyncio.ensure_future(
        client.call_tool("send_message", {"to": "sam", "body": "Lunch at noon?"})
    )
    card = await in_thread(xserver.settled_card)
    assert calls.of("send_message") == []  # nothing runs while the card is up
    await in_thread(xserver.retype_first_field, card, "maya")
    await in_thread(xserver.confirm_with_keys, card)
    result = await asyncio.wait_for(call, 30)
    assert not result.is_error, text_of(result)
    ran = calls.of("send_message")
    assert [c["arguments"] for c in ran] == [{"to": "maya", "body": "Lunch at noon?"}]
    assert "The person changed to before approving" in text_of(result)


@pytest.mark.asyncio(loop_scope="module")
async def test_decline_never_calls_the_server(xserver: Any, notes_gateway: Gateway) -> None:
    client, calls = notes_gateway.client, notes_gateway.calls
    call = asyncio.ensure_future(client.call_tool("send_message", {"to": "sam", "body": "x"}))
    card = await in_thread(xserver.settled_card)
    xserver.click_close(card)
    result = await asyncio.wait_for(call, 30)
    assert result.is_error
    assert text_of(result).startswith("The person declined “Send message”; nothing was sent.")
    assert calls.of("send_message") == []


@pytest.mark.asyncio(loop_scope="module")
async def test_a_client_cancel_withdraws_the_card(xserver: Any, notes_gateway: Gateway) -> None:
    client, calls = notes_gateway.client, notes_gateway.calls
    call = asyncio.ensure_future(client.call_tool("send_message", {"to": "sam", "body": "x"}))
    card = await in_thread(xserver.settled_card)
    call.cancel()  # the SDK sends notifications/cancelled for the request
    await in_thread(xserver.card_gone, card)
    # The gateway is still there for the next call.
    assert not (await client.call_tool("get_status", {})).is_error
    assert calls.of("send_message") == []


# --- the model (or whatever drives the client) trying to cheat --------------------------


@pytest.mark.asyncio(loop_scope="module")
async def test_the_manifest_wins_over_a_server_that_lies_about_read_only(
    xserver: Any, notes_gateway: Gateway
) -> None:
    """The server says delete_note is readOnlyHint: true; the manifest says it acts.
    The client is told what the manifest says, and the call asks."""
    client, calls = notes_gateway.client, notes_gateway.calls
    listed = {t.name: t for t in (await client.list_tools()).tools}
    hints = listed["delete_note"].annotations
    assert hints is not None and hints.read_only_hint is False and hints.destructive_hint
    call = asyncio.ensure_future(client.call_tool("delete_note", {"note_id": "n-1"}))
    card = await in_thread(xserver.settled_card)
    xserver.click_close(card)
    result = await asyncio.wait_for(call, 30)
    assert result.is_error and "nothing was deleted" in text_of(result)
    assert calls.of("delete_note") == []


@pytest.mark.asyncio(loop_scope="module")
async def test_the_model_cannot_get_an_acting_call_run_without_a_yes(
    xserver: Any, notes_gateway: Gateway
) -> None:
    """Every trick a model has through MCP: arguments that claim approval, an extra
    argument the card would not show, a tool name that differs in case; and the only way
    left, the card, declined. None runs anything (a request id reused for another call:
    tests/core/test_one_call_one_run.py)."""
    client, calls = notes_gateway.client, notes_gateway.calls
    claims = await client.call_tool(
        "send_message", {"to": "sam", "body": "x", "approved": True, "confirmed": "yes"}
    )
    assert claims.is_error and "does not accept" in text_of(claims)  # refused by the schema
    cased = await client.call_tool("Send_Message", {"to": "sam", "body": "x"})
    assert cased.is_error and "no tool named" in text_of(cased)
    # Asked, then declined: its card was the only way through.
    call = asyncio.ensure_future(client.call_tool("cancel_agent", {"agent_id": "a-7"}))
    card = await in_thread(xserver.settled_card)
    xserver.click_close(card)
    declined = await asyncio.wait_for(call, 30)
    assert declined.is_error and "nothing was cancelled" in text_of(declined)
    assert [c["tool"] for c in calls.all()] == []


# --- what results show (issue 11) --------------------------------------------------------


@pytest.mark.asyncio(loop_scope="module")
async def test_a_results_glance_shows_in_the_notch_for_a_moment(
    xserver: Any, notes_gateway: Gateway, wait_for: Any
) -> None:
    xserver.xdotool("mousemove", "5", "700")  # a glance under the pointer waits for it
    client = notes_gateway.client
    status = await client.call_tool("get_status", {})
    assert not status.is_error
    glance = await in_thread(xserver.settled_glance)
    xserver.screenshot("gateway-result-glance")
    assert glance["HEIGHT"] > 90, "the header and the stats show"
    # Nothing on a glance asks for anything: it goes by itself.
    await in_thread(xserver.notch_idle)


@pytest.mark.asyncio(loop_scope="module")
async def test_background_work_shows_in_the_side_notch_then_its_glance(
    xserver: Any, notes_gateway: Gateway, wait_for: Any
) -> None:
    client, release = notes_gateway.client, notes_gateway.calls.path.parent / "release-report"
    xserver.xdotool("mousemove", "5", "700")  # a glance under the pointer waits for it
    for fail in (False, True):
        os.mkfifo(release)
        call = asyncio.ensure_future(client.call_tool("fetch_report", {"fail": fail}))
        side = await in_thread(
            wait_for, lambda: xserver.window("running work"), 20, "the side notch to list it"
        )
        if not fail:
            xserver.screenshot("gateway-background-running")
        assert side["WIDTH"] > 60
        assert not call.done(), "it is still running"
        # The server waits on the FIFO until this opens it: the work ends now.
        await in_thread(lambda: open(release, "wb").close())
        result = await asyncio.wait_for(call, 30)
        release.unlink()
        assert result.is_error is fail
        await in_thread(
            wait_for, lambda: xserver.window("running work") is None, 20, "the side notch to go"
        )
        if fail:  # one short line, not a glance
            line = await in_thread(
                wait_for,
                lambda: (
                    (w := xserver.window()) and 30 <= w["HEIGHT"] <= 40 and w["WIDTH"] > 200 and w
                ),
                20,
                "the failure line",
            )
            xserver.screenshot("gateway-background-failed")
            assert line["HEIGHT"] < 60
        else:
            await in_thread(xserver.settled_glance)
            xserver.screenshot("gateway-background-glance")
        await in_thread(xserver.notch_idle)

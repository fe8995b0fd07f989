"""Real MCP clients reach Notch as a person would set them up: the official Python SDK's
stdio client and the TypeScript SDK's, each starting `notch mcp` with its own default
environment (HOME, PATH, USER and the like: no XDG_RUNTIME_DIR, no NOTCH_SOCKET), in
front of real servers from the registries (mcp-server-git and mcp-server-time from PyPI,
the reference `server-everything` from npm), with `notch run` started the way a desktop
session starts it (XDG_RUNTIME_DIR set, no --socket) on a real X server, deciding through
its real window.

One `notch run` serves the module. The TypeScript parts need node and
tests/clients/node's packages (scripts/setup.sh installs them with npm ci); where either
is missing they are skipped, saying so.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.client.session import ClientSession

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
NOTCH_BIN = VENV_BIN / "notch"
GIT_SERVER = VENV_BIN / "mcp-server-git"
TIME_SERVER = VENV_BIN / "mcp-server-time"
NODE_DIR = REPO / "tests" / "clients" / "node"
EVERYTHING = NODE_DIR / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
TS_CLIENT = NODE_DIR / "client.mjs"


def _node_missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (Debian: nodejs)"
    if not (NODE_DIR / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        return "the TypeScript SDK is not installed: run scripts/setup.sh (npm ci in tests/clients/node)"
    return None


needs_node = pytest.mark.skipif(_node_missing() is not None, reason=str(_node_missing()))


@dataclass
class Desktop:
    """`notch run` as a desktop session starts it, and the environment this test process
    (the MCP client's host) has: the same HOME, and nothing that names the socket."""

    home: Path
    runtime: Path
    log: Path
    proc: subprocess.Popen[bytes]

    @property
    def socket(self) -> Path:
        return self.runtime / "notch" / "notch.sock"


def _start_notch(
    env: dict[str, str], log: Path, socket: Path, wait_for: Any
) -> subprocess.Popen[bytes]:
    from notch_app.ipc.address import socket_is_live

    with log.open("ab") as out:
        proc = subprocess.Popen(
            # No --socket: it listens where a desktop session's notch run does. Cards are
            # never parked, so one the person reads for 90 s stays where it is.
            [sys.executable, "-m", "notch_app", "run", "--park-after", "0"], env=env, cwd=REPO,
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def ready() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"notch run ended:\n{log.read_text()}")
        return socket_is_live(socket)

    wait_for(ready, 60, f"notch run to listen on {socket}")
    return proc


@pytest.fixture(scope="module")
def desktop(xserver: Any, wait_for: Any) -> Iterator[Desktop]:
    base = Path(tempfile.mkdtemp(prefix="notch-rc"))  # short: Unix socket paths are limited
    home, runtime = base / "home", base / "run"
    home.mkdir()
    runtime.mkdir(mode=0o700)
    env = {**xserver.env, "HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)}
    for name in ("NOTCH_SOCKET", "NOTCH_DATA_DIR", "TMPDIR"):
        env.pop(name, None)
    log = base / "notch.log"
    proc = _start_notch(env, log, runtime / "notch" / "notch.sock", wait_for)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))
        for name in ("XDG_RUNTIME_DIR", "NOTCH_SOCKET", "NOTCH_DATA_DIR", "TMPDIR"):
            mp.delenv(name, raising=False)
        try:
            yield Desktop(home, runtime, log, proc)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with one commit, for mcp-server-git."""
    where = tmp_path / "repo"
    where.mkdir()
    git = ["git", "-C", str(where), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(where)], check=True)
    (where / "README").write_text("hello\n")
    subprocess.run([*git, "add", "README"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    return where


def branches(repo: Path) -> list[str]:
    done = subprocess.run(
        ["git", "-C", str(repo), "branch", "--format=%(refname:short)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return sorted(done.stdout.split())


@asynccontextmanager
async def python_client(
    args: list[str], errlog: Path, **session: Any
) -> AsyncIterator[ClientSession]:
    """The Python SDK's stdio client starting `notch ARGS` as a client config would: the
    command by path, no `env` (so the SDK's `get_default_environment()` is all it gets)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=str(NOTCH_BIN), args=args)
    assert params.env is None
    with errlog.open("a", encoding="utf-8") as err:
        async with stdio_client(params, err) as (r, w), ClientSession(r, w, **session) as s:
            await s.initialize()
            yield s


def text_of(result: types.CallToolResult) -> str:
    import mcp_types as types

    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def in_thread(fn: Any, *args: Any) -> Any:
    return await asyncio.to_thread(fn, *args)


def approve_by_click(xserver: Any, wait_for: Any, card: dict[str, int]) -> None:
    """Click the card's confirm pill once it shows armed; wait until the card leaves."""
    wait_for(lambda: xserver.confirm_armed(card), 20, "the card's confirm to show armed")
    x, y = xserver.confirm_center(card)
    xserver.xdotool("mousemove", str(x), str(y), "click", "1")
    xserver.card_gone(card)


# --- the Python SDK client ------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_default_environment_finds_notch_and_the_person_answers(
    desktop: Desktop, xserver: Any, repo: Path, tmp_path: Path
) -> None:
    """mcp-server-git through `notch mcp`: reads pass, an acting call waits for the card
    in the notch run found without XDG_RUNTIME_DIR, a yes runs it, a no does not."""
    from mcp.client.stdio import get_default_environment

    assert "XDG_RUNTIME_DIR" not in get_default_environment()
    args = ["mcp", "--name", "git", "--", str(GIT_SERVER), "--repository", str(repo)]
    async with python_client(args, tmp_path / "gw.log") as client:
        status = await client.call_tool("git_status", {"repo_path": str(repo)})
        assert not status.is_error and "On branch main" in text_of(status)
        call = asyncio.ensure_future(
            client.call_tool("git_create_branch", {"repo_path": str(repo), "branch_name": "yes"})
        )
        card = await in_thread(xserver.settled_card)
        assert branches(repo) == ["main"], "nothing runs while the card is up"
        xserver.focus_card(card)
        await in_thread(xserver.confirm_with_keys, card)
        approved = await asyncio.wait_for(call, 30)
        assert not approved.is_error, text_of(approved)
        assert branches(repo) == ["main", "yes"]
        await in_thread(xserver.notch_idle)

        call = asyncio.ensure_future(
            client.call_tool("git_create_branch", {"repo_path": str(repo), "branch_name": "no"})
        )
        card = await in_thread(xserver.settled_card)
        await in_thread(xserver.click_close, card)
        declined = await asyncio.wait_for(call, 30)
    assert declined.is_error and "declined" in text_of(declined)
    assert branches(repo) == ["main", "yes"]


@pytest.mark.asyncio
async def test_reads_of_a_real_server_need_no_notch_at_all(tmp_path: Path) -> None:
    """mcp-server-time with no Notch anywhere (a HOME of its own): its reads answer."""
    home = tmp_path / "nobody"
    home.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))
        for name in ("XDG_RUNTIME_DIR", "NOTCH_SOCKET"):
            mp.delenv(name, raising=False)
        args = ["mcp", "--name", "time", "--", str(TIME_SERVER), "--local-timezone", "UTC"]
        async with python_client(args, tmp_path / "gw.log") as client:
            now = await client.call_tool("get_current_time", {"timezone": "Europe/Madrid"})
            converted = await client.call_tool(
                "convert_time",
                {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
            )
    assert not now.is_error and "Europe/Madrid" in text_of(now)
    assert not converted.is_error and "21:00" in text_of(converted)


@pytest.mark.asyncio
@needs_node
@pytest.mark.filterwarnings("ignore:.*2026-07-28")  # the SDK's note on the next protocol
async def test_everything_passes_through_but_the_yes(
    desktop: Desktop, xserver: Any, tmp_path: Path, wait_for: Any
) -> None:
    """The reference everything server behind `notch mcp`, against the same server
    directly: progress, logging, list_changed (and the new acting tool it lists asks),
    prompts, resources, completion, and the server's sampling request to the client."""
    import mcp_types as types

    got: dict[str, list[Any]] = {"logs": [], "notes": [], "samples": []}

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        got["logs"].append(params.level)

    async def on_message(message: Any) -> None:
        got["notes"].append(getattr(message, "method", type(message).__name__))

    async def sample(ctx: Any, params: types.CreateMessageRequestParams) -> Any:
        got["samples"].append(params.max_tokens)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(text="sampled here"), model="test"
        )

    args = ["mcp", "--name", "everything", "--", "node", str(EVERYTHING), "stdio"]
    async with python_client(
        args, tmp_path / "gw.log", logging_callback=on_log, message_handler=on_message,
        sampling_callback=sample,
    ) as client:  # fmt: skip
        caps = client.initialize_result
        assert caps is not None and caps.capabilities.prompts is not None
        assert caps.capabilities.resources is not None and caps.capabilities.logging is not None
        # progress: the server's own notifications, with the client's token
        seen: list[float] = []

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)

        long = await client.call_tool(
            "trigger-long-running-operation", {"duration": 1, "steps": 4},
            progress_callback=progress,
        )  # fmt: skip
        assert not long.is_error and seen == [1, 2, 3, 4]
        # prompts, resources, completion: as the server has them
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert {"simple-prompt", "args-prompt", "completable-prompt"} <= prompts
        simple = await client.get_prompt("simple-prompt")
        assert simple.messages
        listed = (await client.list_resources()).resources
        assert listed
        read = await client.read_resource(listed[0].uri)
        assert read.contents
        assert (await client.list_resource_templates()).resource_templates
        await client.subscribe_resource(listed[0].uri)
        # logging: the level the client sets reaches the server
        await client.set_logging_level("debug")
        # list_changed: the sampling tool appears after initialize; it acts, so it asks
        tools = {t.name for t in (await client.list_tools()).tools}
        assert "trigger-sampling-request" in tools
        assert "notifications/tools/list_changed" in got["notes"]
        call = asyncio.ensure_future(
            client.call_tool("trigger-sampling-request", {"prompt": "hi", "maxTokens": 7})
        )
        card = await in_thread(xserver.settled_card)
        assert got["samples"] == [], "the server asks the client nothing before the yes"
        xserver.focus_card(card)
        await in_thread(xserver.confirm_with_keys, card)
        sampled = await asyncio.wait_for(call, 30)
        # logging: an acting toggle (a card), then the server's log messages come through
        await in_thread(xserver.notch_idle)  # the "Approved" note has gone
        call = asyncio.ensure_future(client.call_tool("toggle-simulated-logging", {}))
        card = await in_thread(xserver.settled_card)
        await in_thread(approve_by_click, xserver, wait_for, card)
        assert not (await asyncio.wait_for(call, 30)).is_error
        await in_thread(wait_for, lambda: got["logs"], 20, "a log message from the server")
    assert not sampled.is_error, text_of(sampled)
    assert got["samples"] == [7] and "sampled here" in text_of(sampled)


# --- the TypeScript SDK client ---------------------------------------------------------


def run_ts_client(script: dict[str, Any], log: Path) -> dict[str, Any]:
    """Run tests/clients/node/client.mjs with `script` (what to start and call); its
    JSON report. The client's environment is this process's: the SDK passes on only its
    own default variables to the server it starts."""
    done = subprocess.run(
        ["node", str(TS_CLIENT), json.dumps(script)], capture_output=True, text=True,
        timeout=300, cwd=NODE_DIR,
    )  # fmt: skip
    log.write_text(done.stderr)
    assert done.returncode == 0, done.stderr[-4000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


@pytest.mark.asyncio
@needs_node
@pytest.mark.timeout(240)
async def test_a_card_answered_after_90_s_reaches_a_client_that_resets_on_progress(
    desktop: Desktop, xserver: Any, repo: Path, tmp_path: Path, wait_for: Any
) -> None:
    """The TypeScript SDK gives up on a request after 60 s unless progress comes and the
    call asked to reset on it: the gateway sends "Waiting for your answer in Notch"
    every 10 s while the card is up, so a yes after 90 s still runs and is answered."""
    script = {
        "command": str(NOTCH_BIN),
        "args": ["mcp", "--name", "git", "--", str(GIT_SERVER), "--repository", str(repo)],
        "steps": [{
            "call": "git_create_branch", "resetTimeoutOnProgress": True,
            "arguments": {"repo_path": str(repo), "branch_name": "late"},
        }],
    }  # fmt: skip
    client = await asyncio.create_subprocess_exec(
        "node", str(TS_CLIENT), json.dumps(script), cwd=NODE_DIR,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert client.stderr is not None and client.stdout is not None
    card = await in_thread(xserver.settled_card)
    waits: list[dict[str, Any]] = []
    while len(waits) < 9:  # 9 × 10 s: the person reads for 90 s
        line = await asyncio.wait_for(client.stderr.readline(), 30)
        assert line, "the client ended while the card was up"
        if line.startswith(b'{"progress"'):
            waits.append(json.loads(line))
    assert all(w["message"] == "Waiting for your answer in Notch" for w in waits)
    assert [w["progress"] for w in waits] == sorted({w["progress"] for w in waits})
    assert branches(repo) == ["main"]
    xserver.focus_card(card)
    await in_thread(xserver.confirm_with_keys, card)
    out, _ = await asyncio.wait_for(client.communicate(), 60)
    report = json.loads(out.decode().strip().splitlines()[-1])
    (step,) = report["steps"]
    assert "error" not in step, step
    assert step["isError"] is False and step["ms"] >= 90_000
    assert branches(repo) == ["late", "main"]
    assert "XDG_RUNTIME_DIR" not in report["env"] and "NOTCH_SOCKET" not in report["env"]


@pytest.mark.asyncio
@needs_node
async def test_the_typescript_client_gets_prompts_resources_and_progress(
    desktop: Desktop, tmp_path: Path
) -> None:
    script = {
        "command": str(NOTCH_BIN),
        "args": ["mcp", "--name", "everything", "--", "node", str(EVERYTHING), "stdio"],
        "steps": [
            {"list": "prompts"}, {"list": "resources"},
            {"call": "trigger-long-running-operation", "arguments": {"duration": 1, "steps": 3}},
        ],
    }  # fmt: skip
    report = await asyncio.to_thread(run_ts_client, script, tmp_path / "ts.log")
    prompts, resources, long = report["steps"]
    assert "simple-prompt" in prompts["prompts"] and resources["resources"]
    # The server sends progress 1, 2, 3 a third of a second apart, then its result. The
    # TypeScript SDK hands a notification to its handler a microtask later but settles a
    # response at once, so a last progress that arrives in the same read as the result is
    # dropped: it does so without Notch too (node client.mjs straight to server-everything:
    # [1, 2] in 4 of 6 runs). 1 and 2 come well before the result, through the gateway.
    assert long["isError"] is False and long["progress"] in ([1, 2], [1, 2, 3])
    assert report["capabilities"]["logging"] == {} and "completions" in report["capabilities"]

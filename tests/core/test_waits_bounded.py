"""Every client gives up on time: against a Notch that accepts and never answers, or
answers half a line and stalls (conftest's `stalled_notch`), each kind of client ends
by its timeout plus the one-second withdraw, with the safe answer: the coding-agent
hooks and `notch ask` as real processes, both Python clients, the connectors and
`notch mcp`. SIGTERM mid-wait ends a hook or `notch ask` within a second.

The processes are timed from their start, so their bound also holds Python's start-up
(~0.3 s here, more on a loaded machine): STARTUP_S below."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchClient, NotchNotRunning, NotchTimeout
from notch_app.connect.verdict import CallIds, PendingCall, decide, decide_async
from notch_app.ipc.client import ANSWER_WAIT_S, WITHDRAW_WAIT_S

# Every test here measures a deadline with a second or so of slack for a process's start:
# beside parallel workers that start took up to 5.2 s; beside only each other, well under
# (the `timing` mark, tests/conftest.py). They spend their time waiting out a client's
# timeout, not computing (a hook or `notch ask` starts in ~0.2 s of CPU): after the
# workers they run beside each other, two per core (tests/conftest.py).
pytestmark = pytest.mark.timing(waits=True)

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves
REPO = Path(__file__).resolve().parents[2]
HOOKS = REPO / "tests" / "fixtures" / "hooks"
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"
STARTUP_S = 1.0
"""What starting a `python -m notch_app` process may add to its bound on a busy machine."""
SLACK_S = 0.5
"""Scheduling slack on a loaded 2-core machine, on top of the withdraw's second."""
HOWS = ["silent", "half"]


def _env(data_dir: Path) -> dict[str, str]:
    env = {**os.environ, "NOTCH_DATA_DIR": str(data_dir)}
    env.pop("NOTCH_TOKEN", None)
    return env


async def _process(*argv: str, stdin: bytes = b"", data_dir: Path) -> tuple[int, str, str, float]:
    """Run `python -m notch_app ARGV` to its end: (exit code, stdout, stderr, seconds)."""
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "notch_app", *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=_env(data_dir),
    )  # fmt: skip
    out, err = await process.communicate(stdin)
    return process.returncode or 0, out.decode(), err.decode(), time.monotonic() - started


def _hook_stdin(agent: str) -> bytes:
    return (HOOKS / agent / "bash.json").read_bytes()


def _assert_asks(agent: str, out: str, err: str) -> None:
    """The hook's safe answer: Claude Code's "ask" JSON; for Codex (no "ask" in its
    format) no output at all, so its own approval prompt asks; the reason on stderr."""
    if agent == "claude-code":
        answer = json.loads(out)["hookSpecificOutput"]
        assert answer["permissionDecision"] == "ask", answer
    else:
        assert out == ""
    assert err.startswith("notch hook: ") and "asks you" in err


# --- the coding-agent hooks ---------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
async def test_a_hook_answers_ask_by_its_timeout_when_notch_never_answers(
    agent: str, how: str, stalled_notch: Callable[[str], Any], base: Path
) -> None:
    notch = stalled_notch(how)
    code, out, err, took = await _process(
        "hook", agent, "--socket", str(notch.path), "--timeout", "2",
        stdin=_hook_stdin(agent), data_dir=base / "hookdata",
    )  # fmt: skip
    assert code == 0, err
    _assert_asks(agent, out, err)
    assert "no answer in Notch within 2 s" in err
    assert 2.0 <= took < 2.0 + WITHDRAW_WAIT_S + SLACK_S + STARTUP_S, took
    assert notch.methods[:2] == ["confirm.request", "confirm.withdraw"]


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_hook_asking_which_integrations_are_installed_is_bounded_too(
    stalled_notch: Callable[[str], Any], base: Path
) -> None:
    """An MCP tool's hook first asks which integrations Notch has (integrations.list):
    that wait is part of the same `--timeout`."""
    notch = stalled_notch("silent")
    code, out, err, took = await _process(
        "hook", "claude-code", "--socket", str(notch.path), "--timeout", "2",
        stdin=(HOOKS / "claude-code" / "mcp.json").read_bytes(), data_dir=base / "hookdata",
    )  # fmt: skip
    assert code == 0, err
    _assert_asks("claude-code", out, err)
    assert 2.0 <= took < 2.0 + SLACK_S + STARTUP_S, took
    assert notch.methods == ["integrations.list"]  # no request was made: none to withdraw


async def _stop_mid_wait(
    argv: list[str], stdin: bytes, notch: Any, data_dir: Path
) -> tuple[int, str, str, float]:
    """Start `python -m notch_app ARGV`, wait until Notch holds its request, SIGTERM it:
    (exit code, stdout, stderr, seconds from the signal to its end)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "notch_app", *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=_env(data_dir),
    )  # fmt: skip
    assert process.stdin is not None
    process.stdin.write(stdin)
    process.stdin.close()
    await asyncio.to_thread(notch.wait_for, "confirm.request")  # mid-wait now
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    out, err = await process.communicate()
    return process.returncode or 0, out.decode(), err.decode(), time.monotonic() - signalled


@pytest.mark.asyncio
@pytest.mark.timeout(60)
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
async def test_sigterm_ends_a_waiting_hook_within_a_second_with_ask(
    agent: str, stalled_notch: Callable[[str], Any], base: Path
) -> None:
    notch = stalled_notch("silent")
    argv = ["hook", agent, "--socket", str(notch.path), "--timeout", "60"]
    code, out, err, took = await _stop_mid_wait(argv, _hook_stdin(agent), notch, base / "h")
    assert code == 0, err
    _assert_asks(agent, out, err)
    assert "stopped before Notch answered" in err
    assert took < 1.0, took


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_sigterm_takes_the_hooks_card_away_in_a_running_notch(
    base: Path, running_notch: Any
) -> None:
    """The same stop against a Notch that answers: its card is withdrawn, the agent asks."""
    payload = json.loads((HOOKS / "claude-code" / "mcp.json").read_text())
    payload["tool_input"]["to"] = "sam@example.com"  # this Notch's mail takes one address
    async with running_notch(base) as (notch, cards):
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "notch_app", "hook", "claude-code",
            "--socket", str(notch.server.path), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=_env(base / "hookdata"),
        )  # fmt: skip
        assert process.stdin is not None
        process.stdin.write(json.dumps(payload).encode())
        process.stdin.close()
        (card,) = await cards.wait_for_cards(1, timeout=20)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        out, err = await process.communicate()
        took = time.monotonic() - signalled
        await cards.wait_for(lambda: (card.call_id, "withdrawn") in cards.dismissed)
    assert process.returncode == 0 and took < 1.0, (took, err)
    _assert_asks("claude-code", out.decode(), err.decode())
    assert (card.call_id, "withdrawn") in cards.dismissed


# --- notch ask ------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", HOWS)
async def test_notch_ask_gives_up_by_its_timeout(
    how: str, stalled_notch: Callable[[str], Any], base: Path
) -> None:
    notch = stalled_notch(how)
    code, out, err, took = await _process(
        "ask", "--socket", str(notch.path), "--integration", MAIL, "--tool", "send_email",
        "--args", '{"to": "sam"}', "--timeout", "2", data_dir=base / "d",
    )  # fmt: skip
    # The withdraw got no answer either: exit 2, nothing on stdout, "withdraw it yourself".
    assert (code, out) == (2, ""), err
    assert "no decision within 2 s" in err and "withdraw it yourself" in err
    assert "Traceback" not in err
    assert 2.0 <= took < 2.0 + WITHDRAW_WAIT_S + SLACK_S + STARTUP_S, took


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_sigterm_ends_notch_ask_within_a_second(
    stalled_notch: Callable[[str], Any], base: Path
) -> None:
    notch = stalled_notch("silent")
    argv = ["ask", "--socket", str(notch.path), "--integration", MAIL, "--tool", "send_email",
            "--args", '{"to": "sam"}', "--call-id", "stopped-1"]  # fmt: skip
    code, out, err, took = await _stop_mid_wait(argv, b"", notch, base / "d")
    assert (code, out) == (1, ""), err  # 1: it must not run
    assert "stopped by a signal" in err and "Traceback" not in err
    assert took < 1.0, took
    assert notch.methods == ["confirm.request", "confirm.withdraw"]


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_sigterm_withdraws_notch_asks_card_in_a_running_notch(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, cards):
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "notch_app", "ask", "--socket", str(notch.server.path),
            "--integration", MAIL, "--tool", "send_email", "--args", '{"to": "sam"}',
            "--call-id", "stop-me", stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=_env(base / "d"),
        )  # fmt: skip
        await cards.wait_for_cards(1, timeout=20)
        process.send_signal(signal.SIGTERM)
        out, err = await process.communicate()
    assert process.returncode == 1, err
    assert json.loads(out)["outcome"] == "withdrawn"
    assert ("stop-me", "withdrawn") in cards.dismissed


# --- the Python clients ---------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", HOWS)
async def test_both_clients_give_up_by_their_timeout(
    how: str, stalled_notch: Callable[[str], Any]
) -> None:
    notch = stalled_notch(how)
    bound = 1.0 + WITHDRAW_WAIT_S + SLACK_S

    def blocking() -> list[float]:
        took = []
        with NotchClient(notch.path) as client:
            for ask in (
                lambda: client.confirm(MAIL, "send_email", {"to": "a"}, timeout=1),
                lambda: client.confirm_many(
                    [{"integration": MAIL, "tool": "send_email", "arguments": {"to": "b"}}] * 2,
                    timeout=1,
                ),
                lambda: client.integrations(timeout=1),
            ):
                started = time.monotonic()
                with pytest.raises(NotchTimeout):
                    ask()
                took.append(time.monotonic() - started)
        return took

    async def in_loop() -> list[float]:
        took = []
        async with AsyncNotchClient(notch.path) as client:
            for ask in (
                lambda: client.confirm(MAIL, "send_email", {"to": "c"}, timeout=1),
                lambda: client.confirm_many(
                    [{"integration": MAIL, "tool": "send_email", "arguments": {"to": "d"}}] * 2,
                    timeout=1,
                ),
                lambda: client.integrations(timeout=1),
            ):
                started = time.monotonic()
                with pytest.raises(NotchTimeout) as raised:
                    await ask()
                took.append(time.monotonic() - started)
                assert "Traceback" not in str(raised.value)
        return took

    for took in await asyncio.gather(asyncio.to_thread(blocking), in_loop()):
        assert all(1.0 <= t < bound for t in took), took


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_method_notch_answers_at_once_is_bounded_without_a_timeout(
    stalled_notch: Callable[[str], Any],
) -> None:
    """No `timeout=` given: a read, a withdraw or a glance still gives up (ANSWER_WAIT_S),
    where they used to wait for ever."""
    notch = stalled_notch("silent")

    def blocking() -> float:
        started = time.monotonic()
        with NotchClient(notch.path) as client, pytest.raises(NotchTimeout, match="frozen"):
            client.status("anything")
        return time.monotonic() - started

    async def in_loop() -> float:
        started = time.monotonic()
        async with AsyncNotchClient(notch.path) as client:
            with pytest.raises(NotchTimeout, match="frozen"):
                await client.withdraw("anything")
        return time.monotonic() - started

    for took in await asyncio.gather(asyncio.to_thread(blocking), in_loop()):
        assert ANSWER_WAIT_S <= took < ANSWER_WAIT_S + SLACK_S, took


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_notch_whose_accept_queue_is_full_fails_the_connect_at_once() -> None:
    """A Notch that stopped accepting: its queue fills, and a connect to it would block for
    ever. Both clients say so at once instead."""
    with tempfile.TemporaryDirectory(prefix="notch-q") as folder:
        os.chmod(folder, 0o700)
        path = Path(folder) / "notch.sock"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(0)
        queued = []
        try:
            while True:  # fill the queue: nobody accepts
                waiting = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                waiting.setblocking(False)
                queued.append(waiting)
                waiting.connect(str(path))
        except BlockingIOError:
            pass

        def blocking() -> float:
            started = time.monotonic()
            with NotchClient(path) as client, pytest.raises(NotchNotRunning, match="accept"):
                client.confirm(MAIL, "send_email", {"to": "a"}, timeout=30)
            return time.monotonic() - started

        async def in_loop() -> float:
            started = time.monotonic()
            with pytest.raises(NotchNotRunning, match="accept"):
                await AsyncNotchClient(path).confirm(MAIL, "send_email", {"to": "a"})
            return time.monotonic() - started

        try:
            took = await asyncio.gather(asyncio.to_thread(blocking), in_loop())
        finally:
            for waiting in queued:
                waiting.close()
            listener.close()
    from notch_app.ipc.client import CONNECT_WAIT_S

    assert all(t < CONNECT_WAIT_S + SLACK_S for t in took), took


# --- the connectors ---------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", HOWS)
async def test_connectors_refuse_by_their_timeout_and_nothing_runs(
    how: str, stalled_notch: Callable[[str], Any]
) -> None:
    notch = stalled_notch(how)
    ids = CallIds()
    one = [PendingCall(ids("one"), "send_email", {"to": "a@example.com"})]
    two = [PendingCall(ids(f"two-{n}"), "send_email", {"to": f"{n}@example.com"}) for n in "ab"]
    bound = 1.0 + WITHDRAW_WAIT_S + SLACK_S

    def blocking() -> list[tuple[float, list[Any]]]:
        out = []
        with NotchClient(notch.path) as client:
            for calls in (one, two):
                started = time.monotonic()
                verdicts = decide(client, MAIL, calls, timeout=1)
                out.append((time.monotonic() - started, verdicts))
        return out

    async def in_loop() -> list[tuple[float, list[Any]]]:
        out = []
        async with AsyncNotchClient(notch.path) as client:
            for calls in (one, two):
                started = time.monotonic()
                verdicts = await decide_async(client, MAIL, calls, timeout=1)
                out.append((time.monotonic() - started, verdicts))
        return out

    for ran in await asyncio.gather(asyncio.to_thread(blocking), in_loop()):
        for took, verdicts in ran:
            assert 1.0 <= took < bound, took
            assert [v.runs for v in verdicts] == [False] * len(verdicts)
            assert all("nothing ran" in v.for_model for v in verdicts), verdicts


# --- notch mcp ------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", HOWS)
async def test_notch_mcp_fails_an_acting_call_by_its_timeout_and_never_runs_it(
    how: str, stalled_notch: Callable[[str], Any], tmp_path: Path, mcp_gateway: Any
) -> None:
    notch = stalled_notch(how)
    async with mcp_gateway(NOTES, notch.path, tmp_path, "--timeout", "2") as gateway:
        started = time.monotonic()
        reply = await gateway.call_tool(1, "send_message", {"to": "sam", "body": "hi"})
        took = time.monotonic() - started
        status = await gateway.call_tool(2, "get_status", {})  # a read still passes
    assert reply["result"]["isError"] is True
    text = reply["result"]["content"][0]["text"]
    assert "No answer in Notch within 2 s" in text and "nothing was sent" in text
    assert 2.0 <= took < 2.0 + WITHDRAW_WAIT_S + SLACK_S, took
    assert status["result"].get("isError") is not True
    assert [c["tool"] for c in gateway.ran()] == ["get_status"]


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf"])
def test_notch_mcp_refuses_a_timeout_that_is_not_one(timeout: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "notch_app", "mcp", str(NOTES), "--timeout", timeout],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--timeout must be a number of seconds above 0" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_sigterm_ends_notch_mcp_at_once_and_takes_its_card_away(
    base: Path, running_notch: Any, mcp_gateway: Any, tmp_path: Path
) -> None:
    async with (
        running_notch(base) as (notch, cards),
        mcp_gateway(NOTES, notch.server.path, tmp_path) as gateway,
    ):
        await gateway.send(gateway.tool_call(1, "send_message", {"to": "sam", "body": "x"}))
        (card,) = await cards.wait_for_cards(1, timeout=30)
        signalled = time.monotonic()
        gateway.process.send_signal(signal.SIGTERM)
        code = await gateway.process.wait()
        took = time.monotonic() - signalled
        # At once: not after the 10 s Notch gives an asker that went away to come back.
        await cards.wait_for(lambda: (card.call_id, "withdrawn") in cards.dismissed, 1.0)
    assert took < 1.0 + SLACK_S, took
    assert code == -signal.SIGTERM  # it ends as the signal would
    assert gateway.ran() == []

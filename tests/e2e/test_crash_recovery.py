"""Crash recovery for real: `notch run` killed with SIGKILL mid-queue and started again on the
same data dir. Nothing is lost (undecided requests come back parked in the side notch) and
nothing is decided twice (a decided callId answers with its stored decision, no card)."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import NotchClient, NotchRequestError

SPEECH = {"text": "Recovered after a crash", "voice": "rachel"}


def token(call_id: str) -> str:
    """The secret of the executor that asks `call_id`, kept across its crash
    (NOTCH_TOKEN), so asking again after the restart picks up its request; the test's
    client checks each call with its executor's token. One executor per call: one asker
    calling the same tool again while its card is open replaces that card
    (runtime/repeats.py), and these are three executors each waiting on its own call."""
    return f"crash-test-executor-{call_id}-0123456789"


pytestmark = pytest.mark.e2e


@pytest.fixture
def ask(xserver: Any, notch_argv: list[str], repo: Path) -> Callable[..., subprocess.Popen[str]]:
    """`ask(socket, call_id)`: `notch ask` for the voice note as a process."""

    def asking(socket: Path, call_id: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*notch_argv, "ask", "--socket", str(socket), "--integration", "io.elevenlabs",
             "--tool", "generate_speech", "--args", json.dumps(SPEECH), "--call-id", call_id,
             "--timeout", "60"],
            env={**xserver.env, "NOTCH_TOKEN": token(call_id)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=repo,
        )  # fmt: skip

    return asking


def is_open(socket: Path, call_id: str) -> bool:
    """True while `call_id` waits for the person (known to Notch, not yet decided)."""
    with NotchClient(socket, token=token(call_id)) as client:
        try:
            return client.get(call_id) is None
        except NotchRequestError:  # not arrived yet
            return False


def approve_card_with_keys(x: Any) -> None:
    card = x.settled_card()
    x.focus_card(card)
    x.confirm_with_keys(card)


def test_sigkill_loses_nothing_and_decides_nothing_twice(
    xserver: Any, notch_env: dict[str, Path], start_notch: Any, wait_for: Any, ask: Any,
    notch_argv: list[str], repo: Path,
) -> None:  # fmt: skip
    socket, data = notch_env["socket"], notch_env["data_dir"]
    first = start_notch(xserver.env, socket, data, notch_env["log"])
    askers: dict[str, subprocess.Popen[str]] = {}
    for cid in ("a1", "a2", "a3"):  # one after another: a1's card is the one on screen
        askers[cid] = ask(socket, cid)
        wait_for(lambda cid=cid: is_open(socket, cid), 15, f"{cid} to be open")
    approve_card_with_keys(xserver)
    out, err = askers.pop("a1").communicate(timeout=30)
    approved = json.loads(out)
    assert approved["outcome"] == "approved", err

    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(10)
    for proc in askers.values():  # their executors died with the crash, too
        proc.kill()
        proc.wait(10)

    start_notch(xserver.env, socket, data, notch_env["log"])
    side = wait_for(lambda: xserver.window("parked cards"), 15, "the side notch with parked cards")
    assert isinstance(side, dict)
    pill = xserver.window()
    assert pill is not None and pill["HEIGHT"] < 40, "recovered cards park; none pops up"
    xserver.screenshot("recovered-parked")

    # a1 was decided before the crash: the same callId gets the stored decision, no card.
    again = ask(socket, "a1")
    out, err = again.communicate(timeout=30)
    assert again.returncode == 0, err
    replay = json.loads(out)
    assert replay["outcome"] == "approved"
    assert replay["arguments"] == approved["arguments"]
    assert replay["digest"] == approved["digest"]
    pill = xserver.window()
    assert pill is not None and pill["HEIGHT"] < 40

    # a2 and a3 are still open; the executor for a2 asks again and waits for the person.
    assert is_open(socket, "a2") and is_open(socket, "a3")
    waiting = ask(socket, "a2")

    # Two parked: clicking the side notch opens a menu; the first entry is a2.
    def windows() -> set[int]:
        return set(xserver.windows(".", classname=True))

    before = windows()
    xserver.xdotool(
        "mousemove", str(side["X"] + side["WIDTH"] // 2), str(side["Y"] + side["HEIGHT"] // 2),
        "click", "1",
    )  # fmt: skip
    wait_for(lambda: windows() - before, 10, "the menu of parked cards to open")
    xserver.xdotool("key", "--delay", "80", "Down", "Return")
    xserver.screenshot("recovered-restored")
    approve_card_with_keys(xserver)
    out, err = waiting.communicate(timeout=30)
    assert waiting.returncode == 0, err
    decision = json.loads(out)
    assert (decision["callId"], decision["outcome"]) == ("a2", "approved")
    assert decision["arguments"] == SPEECH

    assert is_open(socket, "a3"), "a3 is still waiting, parked"
    with NotchClient(socket, token=token("a1")) as client:
        a1 = client.get("a1")
        assert a1 is not None and a1.outcome == "approved"
    log = subprocess.run(
        [*notch_argv, "log", "--json", "--data-dir", str(data)],
        env=xserver.env, capture_output=True, text=True, cwd=repo, timeout=30,
    )  # fmt: skip
    assert log.returncode == 0, log.stderr
    rows = json.loads(log.stdout)
    ids = [r.get("callId") for r in rows]
    assert sorted(ids) == ["a1", "a2"], "each callId decided exactly once"

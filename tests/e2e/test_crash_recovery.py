"""Crash recovery for real: `notch run` killed with SIGKILL mid-queue and started again on the
same data dir. Nothing is lost (undecided requests come back parked in the side notch) and
nothing is decided twice (a decided callId answers with its stored decision, no card)."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import NOTCH, REPO, NotchProcess, XServer, start_notch, wait_for
from test_overlay_real_window import notch_window, settled_card

from notch_app.client import NotchClient, NotchRequestError

SPEECH = {"text": "Recovered after a crash", "voice": "rachel"}

pytestmark = pytest.mark.e2e


def ask(x: XServer, socket: Path, call_id: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*NOTCH, "ask", "--socket", str(socket), "--integration", "io.elevenlabs",
         "--tool", "generate_speech", "--args", json.dumps(SPEECH), "--call-id", call_id,
         "--timeout", "60"],
        env=x.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip


def is_open(client: NotchClient, call_id: str) -> bool:
    """True while `call_id` waits for the person (known to Notch, not yet decided)."""
    try:
        return client.get(call_id) is None
    except NotchRequestError:  # not arrived yet
        return False


def approve_card_with_keys(x: XServer) -> None:
    card = settled_card(x)
    x.xdotool("mousemove", str(card["X"] + 150), str(card["Y"] + 16), "click", "1")
    x.xdotool("sleep", "0.3", "key", "ctrl+Return")


def test_sigkill_loses_nothing_and_decides_nothing_twice(
    xserver: XServer, notch_env: dict[str, Path], stop_notch: Callable[[NotchProcess], None]
) -> None:
    socket, data = notch_env["socket"], notch_env["data_dir"]
    first = start_notch(xserver.env, socket, data, notch_env["log"])
    stop_notch(first)
    askers: dict[str, subprocess.Popen[str]] = {}
    with NotchClient(socket) as client:
        for cid in ("a1", "a2", "a3"):  # one after another: a1's card is the one on screen
            askers[cid] = ask(xserver, socket, cid)
            wait_for(lambda cid=cid: is_open(client, cid), 15, f"{cid} to be open")
    approve_card_with_keys(xserver)
    out, err = askers.pop("a1").communicate(timeout=30)
    approved = json.loads(out)
    assert approved["outcome"] == "approved", err

    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(10)
    for proc in askers.values():  # their executors died with the crash, too
        proc.kill()
        proc.wait(10)

    second = start_notch(xserver.env, socket, data, notch_env["log"])
    stop_notch(second)
    side = wait_for(
        lambda: notch_window(xserver, "parked cards"), 15, "the side notch with parked cards"
    )
    assert isinstance(side, dict)
    pill = notch_window(xserver)
    assert pill is not None and pill["HEIGHT"] < 40, "recovered cards park; none pops up"
    xserver.screenshot("recovered-parked")

    # a1 was decided before the crash: the same callId gets the stored decision, no card.
    again = ask(xserver, socket, "a1")
    out, err = again.communicate(timeout=30)
    assert again.returncode == 0, err
    replay = json.loads(out)
    assert replay["outcome"] == "approved"
    assert replay["arguments"] == approved["arguments"]
    assert replay["digest"] == approved["digest"]
    pill = notch_window(xserver)
    assert pill is not None and pill["HEIGHT"] < 40

    # a2 and a3 are still open; the executor for a2 asks again and waits for the person.
    with NotchClient(socket) as client:
        assert is_open(client, "a2") and is_open(client, "a3")
    waiting = ask(xserver, socket, "a2")
    # Two parked: clicking the side notch opens a menu; the first entry is a2.
    xserver.xdotool(
        "mousemove", str(side["X"] + side["WIDTH"] // 2), str(side["Y"] + side["HEIGHT"] // 2),
        "click", "1",
    )  # fmt: skip
    xserver.xdotool("sleep", "0.4", "key", "--delay", "80", "Down", "Return")
    xserver.screenshot("recovered-restored")
    approve_card_with_keys(xserver)
    out, err = waiting.communicate(timeout=30)
    assert waiting.returncode == 0, err
    decision = json.loads(out)
    assert (decision["callId"], decision["outcome"]) == ("a2", "approved")
    assert decision["arguments"] == SPEECH

    with NotchClient(socket) as client:
        assert is_open(client, "a3"), "a3 is still waiting, parked"
        a1 = client.get("a1")
        assert a1 is not None and a1.outcome == "approved"
    log = subprocess.run(
        [*NOTCH, "log", "--json", "--data-dir", str(data)],
        env=xserver.env, capture_output=True, text=True, cwd=REPO, timeout=30,
    )  # fmt: skip
    assert log.returncode == 0, log.stderr
    rows = json.loads(log.stdout)
    ids = [r.get("callId") for r in rows]
    assert sorted(ids) == ["a1", "a2"], "each callId decided exactly once"

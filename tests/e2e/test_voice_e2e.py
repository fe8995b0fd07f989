"""Answering by voice in the real program: `notch run` under Xvfb with "Answer by voice"
on in its settings file, its audio input pointed at a WAV (NOTCH_VOICE_INPUT, the
recognizer's file input: the real PocketSphinx hears a real recording). espeak-ng renders
each reply at test time, said a moment after the card's read-back would have played.
Skipped only where espeak-ng or pocketsphinx cannot be installed."""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path
from typing import Any

import pytest

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.card.read_back import read_back
from notch_app.client import NotchClient
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.policy_book import PolicyBook

pytestmark = pytest.mark.e2e
pytest.importorskip(
    "pocketsphinx", reason="pocketsphinx is not installed (pip install -e '.[voice]')"
)
if shutil.which("espeak-ng") is None:
    pytest.skip(
        "espeak-ng is not installed (Debian: apt install espeak-ng; scripts/setup.sh does)",
        allow_module_level=True,
    )

SPEECH = "io.elevenlabs"
ARGS = {"text": "Hi", "voice": "rachel"}


def _speech(text: str, path: Path) -> tuple[bytes, int]:
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), text], check=True)
    with wave.open(str(path)) as said:
        return said.readframes(said.getnframes()), said.getframerate()


@pytest.fixture
def voice_notch(xserver: Any, notch_env: dict[str, Path], start_notch: Any, tmp_path: Path) -> Any:
    """`voice_notch(reply, offset_s)`: `notch run` answering by voice, hearing `reply`
    said `offset_s` seconds after the card's read-back ends (negative: before)."""

    def start(reply: str, offset_s: float) -> Path:
        catalog, _problems = Catalog.load([BUNDLED_MANIFESTS])
        question = read_back(catalog.tool(SPEECH, "generate_speech"), ARGS)
        asked, rate = _speech(question, tmp_path / "question.wav")
        answer, _ = _speech(reply, tmp_path / "answer.wav")
        lead = max(0, len(asked) // 2 + int(offset_s * rate))
        wav = tmp_path / "reply.wav"
        with wave.open(str(wav), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(rate)
            out.writeframes(bytes(lead * 2) + answer + bytes(rate * 2))
        PolicyBook.in_data_dir(notch_env["data_dir"]).set_answer_by_voice(True)
        env = {**xserver.env, "NOTCH_VOICE_INPUT": str(wav)}
        start_notch(env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
        return notch_env["socket"]

    return start


@pytest.mark.parametrize(
    ("reply", "outcome", "reason"),
    [
        ("yes", "approved", None),
        ("no", "declined", None),
        ("cancel", "declined", None),
        ("yes send it", "approved", None),
        ("no, make it shorter", "declined", "revise"),
    ],
)
def test_a_spoken_reply_answers_the_card(
    xserver: Any, voice_notch: Any, reply: str, outcome: str, reason: str | None
) -> None:
    socket = voice_notch(reply, 1.2)
    with NotchClient(socket) as agent:
        call, pending = agent.submit(SPEECH, "generate_speech", ARGS)
        assert pending is None
        xserver.settled_card()
        decision = agent.await_decision(call, timeout=60)
    assert decision.outcome == outcome
    assert decision.decided_by == "voice"
    assert decision.words
    assert decision.reason == reason
    if reason == "revise":
        assert decision.feedback
    if outcome == "approved":
        assert decision.arguments == ARGS


def test_a_yes_said_before_the_read_back_ended_does_not_approve(
    xserver: Any, voice_notch: Any, wait_for: Any
) -> None:
    socket = voice_notch("yes", -1.5)
    with NotchClient(socket) as agent:
        call, _ = agent.submit(SPEECH, "generate_speech", ARGS)
        card = xserver.settled_card()
        # Two questions and two listening spells (6 s each) pass with nothing heard after
        # either question; the card then waits for a click.
        with pytest.raises(TimeoutError):
            agent.await_decision(call, timeout=25)
        assert agent.get(call) is None
        xserver.click_close(card)
        decision = agent.await_decision(call, timeout=20)
    assert decision.outcome == "declined"
    assert decision.decided_by != "voice"

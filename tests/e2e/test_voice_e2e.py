"""Answering by voice in the real program, in real time: `notch run` under Xvfb with
"Answer by voice" on in its settings file, its audio input pointed at a WAV
(NOTCH_VOICE_INPUT, the recognizer's file input: the real PocketSphinx hears a real
recording, played at the pace a person speaks it). espeak-ng renders the recording at
test time.

This is the one voice test that waits in real time: it proves the rule that only words
said after the question ended count, on the wall clock, through the real process. Every
other voice scenario (each reply, words missing or wrong, a closed confirm, the words kept
from the agent) runs in tests/ui/ on a FileClock, the file's own time.

A spoken yes approves only with the two words the card shows. They are random; the test
knows them through NOTCH_VOICE_WORDS_SEED, an environment variable of the `notch run`
process (the person's, never the agent's: nothing on the socket sets or reads it), which
counts only with NOTCH_VOICE_INPUT, when no microphone is heard at all.
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
from notch_app.ui.voice.approval_words import WordPicker

pytest.importorskip(
    "pocketsphinx", reason="pocketsphinx is not installed (pip install -e '.[voice]')"
)
if shutil.which("espeak-ng") is None:
    pytest.skip(
        "espeak-ng is not installed (Debian: apt install espeak-ng; scripts/setup.sh does)",
        allow_module_level=True,
    )

from notch_app.ui.voice.answer_round import LISTEN_MS

pytestmark = pytest.mark.e2e
SPEECH = "io.elevenlabs"
ARGS = {"text": "Hi", "voice": "rachel"}
SEED = 1812
WORDS_SHOWN = WordPicker(SEED).pick()
"""The words the first card of a Notch started with NOTCH_VOICE_WORDS_SEED=SEED shows
(tests/ui/test_voice_answers.py checks them on the card)."""
ENDS_BEFORE_S = 0.5
"""The early yes ends this long before the read-back does."""
AFTER_SECOND_QUESTION_S = 2.0
"""The later reply starts this long after the question, said again, would end: the
question's rendering again (~0.1 s) and a margin; well inside the 6 s Notch listens."""


def _speech(text: str, path: Path) -> tuple[bytes, int]:
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), text], check=True)
    with wave.open(str(path)) as said:
        return said.readframes(said.getnframes()), said.getframerate()


def _silence(seconds: float, rate: int) -> bytes:
    return bytes(max(0, int(seconds * rate)) * 2)


def test_a_yes_said_before_the_read_back_ended_does_not_approve(
    xserver: Any, notch_env: dict[str, Path], start_notch: Any, tmp_path: Path
) -> None:
    # The recording, as heard from the moment Notch starts saying its question: "yes" with
    # the card's words, ending while Notch still speaks (discarded: it was not asked yet);
    # then silence through the 6 s Notch listens, so it asks again; then "no" after the
    # second question. Had the early yes been heard, the card would be approved.
    catalog, _problems = Catalog.load([BUNDLED_MANIFESTS])
    tool = catalog.tool(SPEECH, "generate_speech")
    assert tool is not None
    question, rate = _speech(read_back(tool, ARGS), tmp_path / "q.wav")
    asked_s = len(question) / (2 * rate)
    early, _ = _speech(f"yes {WORDS_SHOWN}", tmp_path / "early.wav")
    early_s = len(early) / (2 * rate)
    assert early_s + ENDS_BEFORE_S < asked_s, "the read-back is too short to speak over"
    no, _ = _speech("no", tmp_path / "no.wav")
    audio = _silence(asked_s - ENDS_BEFORE_S - early_s, rate) + early
    second_ends_s = 2 * asked_s + LISTEN_MS / 1000
    audio += _silence(second_ends_s + AFTER_SECOND_QUESTION_S - asked_s + ENDS_BEFORE_S, rate)
    wav = tmp_path / "reply.wav"
    with wave.open(str(wav), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(audio + no + _silence(1, rate))

    PolicyBook.in_data_dir(notch_env["data_dir"]).set_answer_by_voice(True)
    env = {**xserver.env, "NOTCH_VOICE_INPUT": str(wav), "NOTCH_VOICE_WORDS_SEED": str(SEED)}
    start_notch(env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
    with NotchClient(notch_env["socket"]) as agent:
        call, pending = agent.submit(SPEECH, "generate_speech", ARGS)
        assert pending is None
        xserver.settled_card()
        decision = agent.await_decision(call, timeout=60)
    assert decision.outcome == "declined"
    assert decision.decided_by == "voice"
    assert decision.words == "no"

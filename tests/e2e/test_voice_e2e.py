"""Answering by voice in the real program: `notch run` under Xvfb with "Answer by voice"
on in its settings file, its audio input pointed at a WAV (NOTCH_VOICE_INPUT, the
recognizer's file input: the real PocketSphinx hears a real recording). espeak-ng renders
each reply at test time, said a moment after the card's read-back would have played.

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
from notch_app.ui.voice.approval_words import WORDS, WordPicker

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
SEED = 1812
WORDS_SHOWN = WordPicker(SEED).pick()
"""The words the first card of a Notch started with NOTCH_VOICE_WORDS_SEED=SEED shows."""
NEXT_ANSWER_AFTER_S = 3.0
"""A later reply starts this long after the question would have been said again (the
earlier reply heard, the question rendered again, a margin; Notch listens 6 s)."""


def _speech(text: str, path: Path) -> tuple[bytes, int]:
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), text], check=True)
    with wave.open(str(path)) as said:
        return said.readframes(said.getnframes()), said.getframerate()


def _silence(seconds: float, rate: int) -> bytes:
    return bytes(max(0, int(seconds * rate)) * 2)


@pytest.fixture
def voice_notch(xserver: Any, notch_env: dict[str, Path], start_notch: Any, tmp_path: Path) -> Any:
    """`voice_notch(reply, offset_s, *later)`: `notch run` answering by voice, hearing
    `reply` said `offset_s` seconds after the card's read-back ends (negative: before),
    and each of `later` after the question is said again. "{words}" in a reply is the
    card's words."""

    def start(reply: str, offset_s: float, *later: str) -> Path:
        catalog, _problems = Catalog.load([BUNDLED_MANIFESTS])
        question = read_back(catalog.tool(SPEECH, "generate_speech"), ARGS)
        asked, rate = _speech(question, tmp_path / "question.wav")
        asked_s = len(asked) / (2 * rate)
        answer, _ = _speech(reply.format(words=WORDS_SHOWN), tmp_path / "answer.wav")
        audio = _silence(asked_s + offset_s, rate) + answer
        for n, text in enumerate(later):
            again, _ = _speech(text.format(words=WORDS_SHOWN), tmp_path / f"later{n}.wav")
            audio += _silence(asked_s + NEXT_ANSWER_AFTER_S, rate) + again
        wav = tmp_path / "reply.wav"
        with wave.open(str(wav), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(rate)
            out.writeframes(audio + _silence(1, rate))
        PolicyBook.in_data_dir(notch_env["data_dir"]).set_answer_by_voice(True)
        env = {
            **xserver.env,
            "NOTCH_VOICE_INPUT": str(wav),
            "NOTCH_VOICE_WORDS_SEED": str(SEED),
        }
        start_notch(env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
        return notch_env["socket"]

    return start


@pytest.mark.parametrize(
    ("reply", "outcome", "reason"),
    [
        ("yes {words}", "approved", None),
        ("yes, {words}", "approved", None),
        ("no", "declined", None),
        ("cancel", "declined", None),
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
        assert decision.words == f"yes {WORDS_SHOWN}"


def test_a_played_yes_without_the_card_words_does_not_approve(
    xserver: Any, voice_notch: Any, notch_env: dict[str, Path], notch_argv: list[str]
) -> None:
    # The attack run's reproduction: silence for the read-back and a second, then a
    # synthesised "yes". It approves nothing; the card stays open, and the agent, its
    # events, confirm.get, the store and Notch's log never hold the words meanwhile.
    # The person then says yes with them.
    socket = voice_notch("yes", 1.2, "yes {words}")
    events: list[Any] = []
    with NotchClient(socket, on_event=events.append) as agent:
        call, pending = agent.submit(SPEECH, "generate_speech", ARGS)
        assert pending is None
        xserver.settled_card()
        asked = agent.call("confirm.get", {"callId": call, "token": agent.token})
        assert asked["status"] == "pending"
        logged = subprocess.run(
            [*notch_argv, "log", "--data-dir", str(notch_env["data_dir"]), "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        held = [repr(asked), repr(events), logged.stdout, logged.stderr]
        held += [notch_env["log"].read_text(encoding="utf-8", errors="replace")]
        held += [
            p.read_bytes().decode("latin-1")
            for p in notch_env["data_dir"].rglob("*")
            if p.is_file()
        ]
        for word in WORDS_SHOWN.split():
            assert not [h for h in held if word in h.casefold()], word
        decision = agent.await_decision(call, timeout=60)
    assert decision.outcome == "approved"
    assert decision.decided_by == "voice"
    assert decision.words == f"yes {WORDS_SHOWN}"  # the bare yes decided nothing


def test_a_yes_with_other_words_does_not_approve(xserver: Any, voice_notch: Any) -> None:
    first, second = WORDS_SHOWN.split()
    guess = f"{second} {next(w for w in WORDS if w not in (first, second))}"
    socket = voice_notch(f"yes {guess}", 1.2, "no")
    with NotchClient(socket) as agent:
        call, _ = agent.submit(SPEECH, "generate_speech", ARGS)
        xserver.settled_card()
        decision = agent.await_decision(call, timeout=60)
    # The card stayed open after the guess; a no needs no words.
    assert decision.outcome == "declined"
    assert decision.decided_by == "voice"
    assert decision.words == "no"


def test_a_yes_said_before_the_read_back_ended_does_not_approve(
    xserver: Any, voice_notch: Any, wait_for: Any
) -> None:
    socket = voice_notch("yes {words}", -1.5)
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

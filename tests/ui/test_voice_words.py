"""The card's words for a spoken yes (issue 18 finding 7): they live only on the card.

The real service and socket carry a request while the card shows its words: the agent's
events, `confirm.get`, the store on disk, Notch's output and the read-back Notch says
aloud never hold them before the decision. Wrong words pause a spoken yes until the person
decides by hand; typed replies (the person at the card) need no words; with voice off the
card offers none. The WAVs play on a FileClock (the file's own time, as fast as the
recognizer takes it; see test_voice_answers.py). Skipped only where espeak-ng or
pocketsphinx cannot be installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import wave
from pathlib import Path
from typing import Any

import pytest

from notch_app import headless
from notch_app.app import BUNDLED_MANIFESTS
from notch_app.ipc.client import AsyncNotchClient, ConfirmationEvent
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest, DecisionSink
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

pytest.importorskip(
    "pocketsphinx", reason="pocketsphinx is not installed (pip install -e '.[voice]')"
)
if shutil.which("espeak-ng") is None:
    pytest.skip(
        "espeak-ng is not installed (Debian: apt install espeak-ng; scripts/setup.sh does)",
        allow_module_level=True,
    )

from notch_app.ui.voice.answer_round import MAX_WRONG_WORDS, PAUSED, WRONG_WORDS
from notch_app.ui.voice.approval_words import WORDS
from notch_app.ui.voice.clock import FileClock
from notch_app.ui.voice.speaker import ReadBackSpeaker

SPEECH = "io.elevenlabs"
ARGS = {"text": "Hi", "voice": "rachel"}
VOICE = OverlaySettings(expand_ms=60, done_ms=60, park_after_s=0, answer_by_voice=True)
TEST = "the test"
"""Holds a FileClock: the file's time stands still while the test looks around."""


def _speech(text: str, path: Path) -> tuple[bytes, int]:
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), text], check=True)
    with wave.open(str(path)) as said:
        return said.readframes(said.getnframes()), said.getframerate()


def _wav(path: Path, read_back: str, reply: str) -> Path:
    """`reply` said 1.2 s after `read_back` would have been said."""
    question, rate = _speech(read_back, path.with_name("question.wav"))
    answer, _ = _speech(reply, path.with_name("answer.wav"))
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(bytes(len(question) + int(1.2 * rate) * 2) + answer + bytes(rate * 2))
    return path


@pytest.fixture
def silent_wav(tmp_path: Path) -> Path:
    path = tmp_path / "quiet.wav"
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(16000)
        wav.writeframes(bytes(16000 * 2))
    return path


def _shown_words(presenter: OverlayPresenter) -> str | None:
    """The words the card on screen shows, read from its label."""
    view = presenter.window.card
    if not isinstance(view, CardView) or view.voice_words_line is None:
        return None
    line = view.voice_words_line
    return line.pill.text().removeprefix("yes, ") if line.isVisible() else None


@pytest.mark.asyncio
async def test_the_words_reach_no_one_before_the_decision(
    qtbot: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    said_aloud: list[str] = []
    say = ReadBackSpeaker.say

    def record(speaker: ReadBackSpeaker, text: str) -> None:
        said_aloud.append(text)
        say(speaker, text)

    monkeypatch.setattr(ReadBackSpeaker, "say", record)
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems
    clock = FileClock()
    clock.hold(TEST)  # the card waits, its question said, while the test looks everywhere
    made: list[OverlayPresenter] = []

    def overlay(sink: DecisionSink) -> OverlayPresenter:
        presenter = OverlayPresenter(sink, ManifestCardFactory(catalog), VOICE, voice_clock=clock)
        made.append(presenter)
        return presenter

    data = tmp_path / "data"
    notch = await headless.start(
        tmp_path / "s" / "notch.sock", data, presenter=overlay, catalog=catalog
    )
    events: list[ConfirmationEvent] = []
    try:
        async with AsyncNotchClient(notch.server.path, on_event=events.append) as agent:
            call_id, decided = await agent.submit(SPEECH, "generate_speech", ARGS)
            assert decided is None
            presenter = made[0]
            qtbot.waitUntil(lambda: _shown_words(presenter) is not None, timeout=10000)
            words = _shown_words(presenter)
            assert words is not None
            view = presenter.window.card
            assert isinstance(view, CardView)
            # The agent's "yes" with the words it would need: recorded before the round
            # opens the input (the card arms first), said after the read-back.
            wav = _wav(tmp_path / "reply.wav", view.read_back(), f"yes {words}")
            monkeypatch.setenv("NOTCH_VOICE_INPUT", str(wav))
            qtbot.waitUntil(lambda: bool(said_aloud), timeout=20000)

            # Everything the agent, the disk, `notch log` and the terminal hold while the
            # card waits.
            pending = await agent.call("confirm.get", {"callId": call_id, "token": agent.token})
            assert pending.get("status") == "pending"
            logged = subprocess.run(
                [sys.executable, "-m", "notch_app", "log", "--data-dir", str(data), "--json"],
                capture_output=True,
                text=True,
                check=False,
                timeout=60,
            )
            assert logged.returncode == 0, logged.stderr
            seen = [repr(pending), *(repr(e) for e in events), *said_aloud]
            seen += [logged.stdout, logged.stderr]
            seen += [p.read_bytes().decode("latin-1") for p in data.rglob("*") if p.is_file()]
            out, err = capfd.readouterr()
            seen += [out, err]
            for word in words.split():
                assert not [s for s in seen if word in s.casefold()], word

            clock.release(TEST)
            decision = await agent.await_decision(call_id, timeout=60)
    finally:
        for presenter in made:
            presenter._close_voice()
        await notch.close()
    assert decision.outcome == "approved"
    assert decision.decided_by == "voice"
    # After the decision the words that approved it are kept (they approve nothing else).
    assert decision.words == f"yes {words}"
    assert all(words.split()[0] not in text for text in said_aloud)


@pytest.fixture
def voice_overlay(sink: Any, bundled_factory: Any, qtbot: Any) -> Any:
    made: list[OverlayPresenter] = []

    def make() -> OverlayPresenter:
        clock = FileClock()
        presenter = OverlayPresenter(sink, bundled_factory(), VOICE, voice_clock=clock)
        qtbot.addWidget(presenter.window)
        qtbot.addWidget(presenter.side_notch)
        made.append(presenter)
        return presenter

    yield make
    for presenter in made:
        presenter._close_voice()


def _request(call_id: str, preview_args: Any) -> ConfirmationRequest:
    args = preview_args("elevenlabs", "generate_speech") | {"text": "Hi"}
    return ConfirmationRequest(call_id, SPEECH, "generate_speech", args)


def _wrong(words: str) -> str:
    first, second = words.split()
    return f"{second} {next(w for w in WORDS if w not in (first, second))}"


def test_wrong_words_pause_a_spoken_yes_until_the_person_decides_by_hand(
    qtbot: Any,
    sink: Any,
    preview_args: Any,
    silent_wav: Path,
    monkeypatch: pytest.MonkeyPatch,
    voice_overlay: Any,
) -> None:
    # The agent plays guess after guess. What the recognizer hears is given to the round
    # as the hearing thread would give it (the recognizer itself is tested on speech in
    # test_voice_recognizer.py and test_voice_answers.py).
    monkeypatch.setenv("NOTCH_VOICE_INPUT", str(silent_wav))
    presenter = voice_overlay()
    for call_id in ("c1", "c2", "c3"):
        presenter.present(_request(call_id, preview_args))

    def round_on(call_id: str) -> Any:
        qtbot.waitUntil(
            lambda: presenter._voice_round is not None and presenter._voice_round[0] == call_id,
            timeout=10000,
        )
        return presenter._voice_round[1]

    def hear(call_id: str, words: str, verdict: str = "yes") -> None:
        presenter.push_to_talk()  # listen now: the read-back stops
        qtbot.waitUntil(lambda: round_on(call_id).listening, timeout=5000)
        presenter._voice.hearing.heard.emit(words, verdict, "grammar", time.monotonic())

    def note() -> str:
        view = presenter.window.card
        assert isinstance(view, CardView) and view.voice_words_line is not None
        return view.voice_words_line.note_text

    round_on("c1")
    words = _shown_words(presenter)
    assert words is not None
    for n in range(MAX_WRONG_WORDS):
        hear("c1", f"yes {_wrong(words)}")
        assert note() == (WRONG_WORDS if n < MAX_WRONG_WORDS - 1 else PAUSED)
    hear("c1", f"yes {words}")  # now even the right words approve nothing
    assert note() == PAUSED and not sink.of("decide")
    hear("c1", "no", "no")  # declining needs no words, paused or not
    assert sink.of("decide")[0][1:3] == ("c1", False)

    round_on("c2")
    assert note() == PAUSED  # said on the next card from its first moment
    hear("c2", f"yes {_shown_words(presenter)}")
    assert len(sink.of("decide")) == 1
    view = presenter.window.card
    assert isinstance(view, CardView) and view.press("confirm")  # by hand
    qtbot.waitUntil(lambda: len(sink.of("decide")) == 2, timeout=5000)
    assert sink.of("decide")[1][1:3] == ("c2", True) and sink.of("decide")[1][5] != "voice"

    round_on("c3")
    assert note() == ""
    hear("c3", f"yes {_shown_words(presenter)}")
    qtbot.waitUntil(lambda: len(sink.of("decide")) == 3, timeout=5000)
    assert sink.of("decide")[2][1:3] == ("c3", True) and sink.of("decide")[2][5] == "voice"
    qtbot.waitUntil(lambda: presenter.window.look == "idle", timeout=5000)


def test_each_card_shows_its_own_words_and_none_with_voice_off(
    qtbot: Any,
    sink: Any,
    preview_args: Any,
    silent_wav: Path,
    monkeypatch: pytest.MonkeyPatch,
    voice_overlay: Any,
) -> None:
    monkeypatch.setenv("NOTCH_VOICE_INPUT", str(silent_wav))  # a quiet room, no microphone
    presenter = voice_overlay()
    presenter.present(_request("a", preview_args))
    presenter.present(_request("b", preview_args))
    first = _shown_words(presenter)
    assert first is not None and len(first.split()) == 2
    assert all(word in WORDS for word in first.split())
    view = presenter.window.card
    assert isinstance(view, CardView) and view.voice_words == first
    presenter.apply_settings(OverlaySettings(expand_ms=60, done_ms=60, park_after_s=0))
    assert view.voice_words is None and _shown_words(presenter) is None
    presenter.apply_settings(VOICE)
    qtbot.waitUntil(lambda: _shown_words(presenter) is not None, timeout=10000)


def test_a_typed_yes_needs_no_words_and_the_typed_words_are_a_yes_too(
    qtbot: Any, bundled_factory: Any, preview_args: Any, watch: Any
) -> None:
    # Typing happens in the card's own field, with the keyboard: the person is at the
    # card, where audio cannot reach. "yes, zebra garden" typed as the card says to speak
    # it is a yes, not a change sent back to the agent.
    for typed in ("yes", "yes, zebra garden"):
        built = bundled_factory()(_request("t", preview_args), None)
        view = built.widget
        qtbot.addWidget(view)
        assert isinstance(view, CardView)
        view.show_voice_words("zebra garden")
        decisions = watch(view)
        assert view.reply(typed)
        assert decisions and decisions[0][0] is True
        assert view.reply_words == typed


def test_a_pair_the_recognizer_mishears_is_never_drawn_and_every_other_pair_is() -> None:
    from notch_app.ui.voice.approval_words import MISHEARD_PAIRS, WordPicker

    drawn = {tuple(WordPicker(seed).pick().split()) for seed in range(6000)}
    assert not drawn & MISHEARD_PAIRS
    every = {(a, b) for a in WORDS for b in WORDS if a != b}
    assert drawn == every - MISHEARD_PAIRS  # no other pair was lost with it
